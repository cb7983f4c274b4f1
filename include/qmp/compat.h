/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel interfaces that changed name or meaning between
 * the kernels the modules support (Debian's 6.1, 6.12 and 7.x), in one
 * place.  The code uses today's names; for an older kernel this header
 * supplies them.  Which kernel has what is decided by a feature test of
 * the kernel's own headers in the top-level Kbuild (HAVE_*) or by the
 * preprocessor where the interface is a macro, never by version number.
 */
#ifndef _QMP_COMPAT_H
#define _QMP_COMPAT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <net/dst.h>
#ifdef HAVE_PAGE_POOL_HELPERS	/* 6.6+: page_pool.h split */
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/* hrtimer_setup() (6.13+) replaced hrtimer_init() + setting ->function */
#ifndef HAVE_HRTIMER_SETUP
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/* timer_container_of() (6.16+) is from_timer() renamed; both are macros */
#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname) \
	from_timer(var, callback_timer, timer_fieldname)
#endif

/* timer_delete_sync() (6.2+) replaced del_timer_sync() */
#ifndef HAVE_TIMER_DELETE_SYNC
#define timer_delete_sync(timer) del_timer_sync(timer)
#endif

/**
 * qmp_slab_alloc_bulk() - kmem_cache_alloc_bulk(), its result as a count
 * @s: the cache
 * @gfp: allocation flags
 * @n: how many objects to allocate into @p
 * @p: where to put them
 *
 * kmem_cache_alloc_bulk() returned how many objects it allocated, an
 * int, until Linux 7.1 (SLUB: all or nothing, 0 or @n), and returns a
 * bool since 7.2 (true: all @n).  Used as a count, the bool says 1 and
 * the other @n - 1 objects leak, with no compiler diagnostic: every
 * caller in this project goes through this helper instead.  The Kbuild
 * test (HAVE_SLAB_BULK_BOOL) picks the meaning; the build breaks if the
 * return type is not the one it found, and qmempool_test's case
 * slab_bulk_result fails if the meaning is misread.
 *
 * Context: as kmem_cache_alloc_bulk(): interrupts enabled on 6.1.
 * Return: the number of objects in @p[0 .. return - 1].
 */
static __always_inline unsigned int
qmp_slab_alloc_bulk(struct kmem_cache *s, gfp_t gfp, unsigned int n, void **p)
{
	__auto_type ret = kmem_cache_alloc_bulk(s, gfp, n, p);

#ifdef HAVE_SLAB_BULK_BOOL
	BUILD_BUG_ON(!__same_type(ret, bool));
	return ret ? n : 0;
#else
	BUILD_BUG_ON(!__same_type(ret, int));
	return ret > 0 ? ret : 0;
#endif
}

/* True where kmem_cache_alloc_bulk() returns a bool (7.2+), see above */
#ifdef HAVE_SLAB_BULK_BOOL
#define QMP_SLAB_BULK_BOOL	true
#else
#define QMP_SLAB_BULK_BOOL	false
#endif

/*
 * A probe of the skb:consume_skb tracepoint: the event carries the
 * caller's address since 6.3, QMP_CONSUME_SKB_PROBE(name, data, skb)
 * declares one that takes what the kernel passes.
 */
#ifdef HAVE_TRACE_CONSUME_SKB_LOCATION
#define QMP_CONSUME_SKB_PROBE(name, data, skb) \
	void name(void *data, struct sk_buff *skb, void *location)
#else
#define QMP_CONSUME_SKB_PROBE(name, data, skb) \
	void name(void *data, struct sk_buff *skb)
#endif

/**
 * qmp_dst_refcnt() - the references held on a dst_entry
 * @dst: the dst_entry
 *
 * An rcuref_t since 6.4, an atomic_t before.
 *
 * Return: the number of references.
 */
static inline int qmp_dst_refcnt(struct dst_entry *dst)
{
#ifdef HAVE_DST_RCUREF
	return rcuref_read(&dst->__rcuref);
#else
	return atomic_read(&dst->__refcnt);
#endif
}

/*
 * The completion of a ubuf_info (zerocopy): in its ops (struct
 * ubuf_info_ops) on 6.12 and later, a callback in the ubuf_info itself on
 * 6.1.  QMP_UBUF_INFO_OPS(name, fn) defines the completion @fn as @name,
 * qmp_ubuf_info_set_ops(uarg, name) gives it to a ubuf_info.
 */
#ifdef HAVE_UBUF_INFO_OPS
#define QMP_UBUF_INFO_OPS(name, fn) \
	static const struct ubuf_info_ops name = { .complete = fn }
#define qmp_ubuf_info_set_ops(uarg, name) ((uarg)->ops = &(name))
#else
#define QMP_UBUF_INFO_OPS(name, fn) \
	static void (*const name)(struct sk_buff *, struct ubuf_info *, bool) = fn
#define qmp_ubuf_info_set_ops(uarg, name) ((uarg)->callback = (name))
#endif

#endif /* _QMP_COMPAT_H */
