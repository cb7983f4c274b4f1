/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qmempool.h - quick queue-based memory pool in front of a kmem_cache.
 *
 * Layers, fastest first:
 *   1. a per-CPU cache: an array used as a stack (LIFO) in the per-CPU
 *      area itself, used by its own CPU only: one push or pop per free or
 *      alloc, and the object handed out is the most recently freed one,
 *      the likeliest still in this CPU's cache (the model of the NAPI skb
 *      cache and of Bonwick's magazines);
 *   2. a shared queue per NUMA node (ALF, Multi-Producer/Multi-Consumer):
 *      the local cache is refilled from it and drained to it in bulks of
 *      QMEMPOOL_BULK, so its cmpxchg is paid once per bulk;
 *   3. the backing kmem_cache: the shared layer's misses are refilled with
 *      kmem_cache_alloc_bulk() and its overflow freed with
 *      kmem_cache_free_bulk(), outside any critical section.
 *
 * Contexts (detected on every call; the _softirq names are kept from the
 * RFC and behave the same):
 *   softirq, or bottom halves disabled:  the local cache is used with no
 *      protection at all (nothing else on this CPU can touch it);
 *   process context:  local interrupts are disabled around the one queue
 *      operation (cheaper than local_bh_disable()/enable(), and correct
 *      even if the caller already disabled interrupts);
 *   hardirq:  the local cache is bypassed (a hardirq may interrupt a
 *      softirq inside it) and so is the slab (its locks are not for
 *      hardirq context by PREEMPT_RT's rules, which lockdep checks on
 *      every kernel with PROVE_RAW_LOCK_NESTING): an allocation takes
 *      one object of the node's lock-free shared queue or fails, as an
 *      atomic allocation may; a free puts the object there, or when it is
 *      full on a list that a work item gives back to the slab;
 *   NMI:  qmempool_alloc() returns NULL; qmempool_free() cannot free
 *      safely and drops the object with a one-time error message.
 * A caller may have disabled interrupts itself (e.g. under
 * spin_lock_irqsave()), in any of these contexts: the pool never enables
 * them.  Where it must ask the slab with interrupts disabled, it asks one
 * object at a time, because kmem_cache_alloc_bulk() and
 * kmem_cache_free_bulk() require interrupts enabled on some kernels (6.1
 * enables them on return).
 * PREEMPT_RT kernels are refused at build time: there softirqs are
 * preemptible, so the unprotected softirq path is not valid (seen on
 * Debian's 6.1 -rt kernel: "scheduling while atomic").
 * The gfp mask of an alloc call is used only if the slab must be asked,
 * outside the pool's critical sections, so it must suit the caller's
 * context exactly as for kmem_cache_alloc() (GFP_KERNEL may sleep there).
 *
 * Hardening: every object the pool hands out is zeroed when
 * want_init_on_alloc(gfp) says so (init_on_alloc=1, or __GFP_ZERO),
 * whichever layer it comes from: the pool zeroes what comes from its
 * queues, and asks the slab with __GFP_ZERO, because the slab's own
 * zeroing also depends on the cache (a poisoned cache, slub_debug=P, is
 * not zeroed under init_on_alloc=1).  The one exception is
 * qmempool_alloc_noinit(), whose caller takes that duty over.  With
 * init_on_free=1 an object is zeroed when it is freed into the pool.
 * Caches the pool cannot serve are refused at creation: a cache with a
 * constructor (zeroing would undo it), with SLAB_TYPESAFE_BY_RCU (readers
 * may still look at a freed object) or with SLAB_ACCOUNT (an object the
 * pool hands out stays charged to the memory cgroup of whoever first
 * allocated it from the slab).  The pool reads this through the kernel's
 * BTF; where it cannot (no BTF, a BTF it cannot parse, the file not
 * readable now) it refuses the cache too, unless the creator states that
 * the cache is plain (QMEMPOOL_PLAIN_CACHE).  A BTF file that could not
 * be read is read again at the next creation.
 *
 * Debug mode (a pool created with QMEMPOOL_DEBUG, or while the module
 * parameter qmempool.debug is set): a free is checked before the pool
 * takes the object: a pointer that is not the start of an object of the
 * pool's cache (another cache's object, an interior pointer, no slab
 * memory at all) is an invalid free, an object already in the pool is a
 * double free.  Either is reported (a "qmempool: BUG:" line naming the
 * pool, the cache and the caller, a stack trace, taint B), counted
 * (qmempool_bad_frees()) and not stored: nothing is handed out twice, and
 * no other object is lost.  A debug pool keeps no object in the per-CPU
 * caches, so that every call reaches the checks: its objects wait in the
 * shared queues, each marked in its first word with a value derived from
 * its address and a boot-time secret, which the allocation clears.  The
 * checks of an invalid free need the kernel's BTF (struct slab); without
 * it only double frees are caught.  A double free of an object the pool
 * already gave back to the slab is not seen (the mark goes with it; the
 * slab's own checks may see it later).  Pools without debug mode pay no
 * instruction for it on their fast paths: a debug pool's calls leave them
 * through the slow paths' existing tests.
 * Generic KASAN kernels check every free of every pool: the KASAN shadow
 * of a pooled or slab-freed object says "freed" (a double free), and the
 * pointer is checked as in debug mode.
 *
 * NUMA: the local cache of a CPU and the shared queue of a node only ever
 * hold objects of that node's memory.  A free of another node's object
 * goes to the slab (which returns it to its node); objects from the
 * shared queue or the slab that are not of the CPU's node are not stashed
 * locally but put into their own node's shared queue.  Each check is made
 * on the CPU that then uses the queue, with migration excluded, so a
 * task that migrates in between cannot break it.  (An object handed out
 * may be of another node, as from kmem_cache_alloc().)  The checks are
 * skipped where only one node is possible (a static key).
 *
 * CPU hotplug: when a CPU dies, its local cache is moved to the shared
 * queue of its node (the surplus to the slab).
 *
 * Memory pressure: a shrinker (one for all pools, per node) gives the
 * shared queue of the node under pressure back to the slab, then has each
 * CPU of that node empty its own local cache (a work item on that CPU,
 * which gives back what the cache held when it started: softirqs may
 * keep freeing into it meanwhile).
 *
 * Observability: /sys/kernel/debug/qmempool/<cache>-<id> (per-CPU
 * counters), named after the backing cache.
 *
 * KASAN (generic): every object in a queue of the pool is poisoned as the
 * slab poisons a freed object, so that a use after qmempool_free() is
 * reported as a slab use-after-free; it is unpoisoned when the pool hands
 * it out or gives it back to the slab (include/qmp/kasan.h; nothing is
 * done without CONFIG_KASAN_GENERIC).
 */
#ifndef _LINUX_QMEMPOOL_H
#define _LINUX_QMEMPOOL_H

#include <linux/alf_queue.h>
#include <linux/cpuhotplug.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/workqueue.h>
#include <qmp/kasan.h>

#ifdef CONFIG_PREEMPT_RT
#error "qmempool does not support PREEMPT_RT kernels (see the top of this file)"
#endif

/* Objects moved between the layers at a time */
#define QMEMPOOL_BULK			16
/* The shared queue holds at least this many bulks */
#define QMEMPOOL_REFILL_MULTIPLIER	2
/* Most objects a local cache may hold (it lives in the per-CPU area) */
#define QMEMPOOL_LOCAL_MAX		1024

/**
 * struct qmempool_stats - per-CPU event counters of a pool
 * @alloc_fast: allocations served by the local cache
 * @alloc_shared: local-cache refills from the shared queue
 * @alloc_slab: objects obtained from the slab
 * @alloc_fail: allocations that returned NULL
 * @free_fast: frees absorbed by the local cache
 * @free_shared: local-cache drains to the shared queue
 * @free_slab: objects returned to the slab
 * @free_remote: frees of another node's objects, sent to the slab
 * @bypass: calls in hardirq context, served by the shared queue only
 */
struct qmempool_stats {
	unsigned long alloc_fast;
	unsigned long alloc_shared;
	unsigned long alloc_slab;
	unsigned long alloc_fail;
	unsigned long free_fast;
	unsigned long free_shared;
	unsigned long free_slab;
	unsigned long free_remote;
	unsigned long bypass;
};

/**
 * struct qmempool_percpu - the local cache of a CPU, in its per-CPU area
 * @count: objects in @objs; only its CPU writes it, under the pool's
 *         exclusion (__qmempool_lock()), or anybody once the CPU is dead
 * @stats: its CPU's counters, written under the same exclusion
 * @drain: the shrinker's work, run on this CPU
 * @pool: the pool, for @drain
 * @objs: the stack: @objs[@count - 1] is the most recently freed object
 */
struct qmempool_percpu {
	unsigned long count;
	struct qmempool_stats stats;
	struct work_struct drain;
	struct qmempool *pool;
	void *objs[];
};

/**
 * struct qmempool - a pool; create with qmempool_create()
 * @percpu: local cache and counters of each CPU
 * @localq_sz: objects each local cache holds at most (0 in debug mode)
 * @numa: more than one node possible: check object nodes
 * @obj_size: kmem_cache_size(@kmem)
 * @sharedq: one shared queue per possible NUMA node
 * @refillq: the queues the local caches are refilled from: @sharedq, or
 *           in debug mode queues that stay empty (see the top of this file)
 * @kmem: the backing cache
 * @prealloc: objects put into the shared queue at creation
 * @gfp_mask: allocation flags of the creation (pool memory, prealloc)
 * @id: name of the debugfs file
 * @sharedq_sz: slots of each shared queue
 * @debug: debug mode: every free checked, no object in a local cache
 * @name: the backing cache's name, for reports
 * @bad_frees: double and invalid frees reported (debug mode, KASAN)
 * @emptyq: debug mode: the queue every entry of @refillq points to
 * @cpuhp_node: CPU hotplug instance
 * @debugfs: the debugfs file
 * @list: in the list of live pools
 * @deferred: objects hardirq frees could not queue, for @deferred_work
 * @deferred_work: gives @deferred back to the slab
 *
 * The fast paths read only the first four fields.
 */
struct qmempool {
	struct qmempool_percpu __percpu *percpu;
	u32 localq_sz;
	bool numa;
	unsigned int obj_size;
	struct alf_queue **sharedq;
	struct alf_queue **refillq;
	struct kmem_cache *kmem;
	u32 prealloc;
	gfp_t gfp_mask;
	int id;
	u32 sharedq_sz;
	bool debug;
	const char *name;
	atomic_long_t bad_frees;
	struct alf_queue *emptyq;
	struct hlist_node cpuhp_node;
	struct dentry *debugfs;
	struct list_head list;
	struct llist_head deferred;
	struct work_struct deferred_work;
};

/*
 * Flags of qmempool_create_flags().  QMEMPOOL_PLAIN_CACHE: the creator
 * states that the cache has no constructor and is neither
 * SLAB_TYPESAFE_BY_RCU nor SLAB_ACCOUNT; it counts only where the pool
 * cannot read this itself (no usable BTF), what it reads still counts.
 * QMEMPOOL_DEBUG: debug mode, every free checked (see the top of this
 * file).
 */
#define QMEMPOOL_PLAIN_CACHE	BIT(0)
#define QMEMPOOL_DEBUG		BIT(1)

struct qmempool *qmempool_create(u32 localq_sz, u32 sharedq_sz, u32 prealloc,
				 struct kmem_cache *kmem, gfp_t gfp_mask);
struct qmempool *qmempool_create_flags(u32 localq_sz, u32 sharedq_sz,
				       u32 prealloc, struct kmem_cache *kmem,
				       gfp_t gfp_mask, unsigned int flags);
unsigned long qmempool_bad_frees(struct qmempool *pool);
void qmempool_destroy(struct qmempool *pool);
unsigned long qmempool_cached(struct qmempool *pool);
unsigned int qmempool_cached_cpu(struct qmempool *pool, int cpu);
unsigned int qmempool_cached_node(struct qmempool *pool, int node);
void qmempool_get_stats(struct qmempool *pool, int cpu,
			struct qmempool_stats *stats);

void *__qmempool_alloc_slow(struct qmempool *pool, gfp_t gfp_mask, bool init);
void __qmempool_free_slow(struct qmempool *pool, void *elem);
void *__qmempool_alloc_bypass(struct qmempool *pool, gfp_t gfp_mask,
			      bool init);
void __qmempool_free_bypass(struct qmempool *pool, void *elem);
bool __qmempool_check_free(struct qmempool *pool, void *elem,
			   unsigned long caller);

/* How a call may use this CPU's local cache (see the top of this file) */
enum qmempool_ctx {
	QMEMPOOL_CTX_BH,	/* softirq or BH off: no protection needed */
	QMEMPOOL_CTX_TASK,	/* process context: interrupts off around */
	QMEMPOOL_CTX_BYPASS,	/* hardirq or NMI: the shared queue only */
};

/*
 * One read of the preempt count classifies the call: in_nmi(),
 * in_hardirq() and in_softirq() are its NMI, HARDIRQ and SOFTIRQ bits on
 * the kernels accepted here (not PREEMPT_RT).
 */
static __always_inline enum qmempool_ctx __qmempool_ctx(void)
{
	unsigned long pc = preempt_count();

	if (unlikely(pc & (NMI_MASK | HARDIRQ_MASK)))
		return QMEMPOOL_CTX_BYPASS;
	return pc & SOFTIRQ_MASK ? QMEMPOOL_CTX_BH : QMEMPOOL_CTX_TASK;
}

/* Exclusive use of this CPU's local cache (and no migration) */
static __always_inline void __qmempool_lock(enum qmempool_ctx ctx,
					    unsigned long *flags)
{
	if (ctx == QMEMPOOL_CTX_TASK)
		local_irq_save(*flags);
}

static __always_inline void __qmempool_unlock(enum qmempool_ctx ctx,
					      unsigned long flags)
{
	if (ctx == QMEMPOOL_CTX_TASK)
		local_irq_restore(flags);
}

/*
 * On when more than one NUMA node is possible (set once, at qmempool.ko's
 * load, as every pool's @numa): a single-node machine's fast path pays a
 * patched-out jump for the node check, not a load and a branch.
 */
DECLARE_STATIC_KEY_FALSE(qmempool_numa_key);

/*
 * On when a free needs more than the push (set once, at qmempool.ko's
 * load): init_on_free (the slow path zeroes) or more than one possible
 * NUMA node (the node check).  The common machine's free pays one
 * patched-out jump for both, not one each.
 */
DECLARE_STATIC_KEY_FALSE(qmempool_free_extra_key);

/* Under __qmempool_lock(): @elem is not of this CPU's node */
static __always_inline bool __qmempool_elsewhere(void *elem)
{
	return page_to_nid(virt_to_page(elem)) != numa_mem_id();
}

/* The same, always false on a machine of one node */
static __always_inline bool __qmempool_remote(void *elem)
{
	return static_branch_unlikely(&qmempool_numa_key) &&
	       __qmempool_elsewhere(elem);
}

/*
 * The local cache is reached with this_cpu operations on the per-CPU
 * offsets, one segment-relative access each.  Its count is read by
 * qmempool_cached_cpu() from anywhere: a this_cpu write or increment is
 * one instruction, the reader sees the count before or after it.
 */

/*
 * Under __qmempool_lock(): push @elem onto this CPU's stack if it fits
 * and, with @node_check, if it is of this CPU's node (whatever the
 * machine: the caller knows it has more than one).  Room is looked at
 * first: a debug pool's local cache has none (localq_sz 0), so its frees
 * reach the slow path's checks before anything reads the struct page of
 * a pointer that may be no object at all.
 */
static __always_inline bool __qmempool_push(struct qmempool *pool, void *elem,
					    bool node_check)
{
	struct qmempool_percpu __percpu *c = pool->percpu;
	unsigned long n = __this_cpu_read(c->count);

	/* n <= localq_sz: a 32-bit compare, with no widening of localq_sz */
	if (unlikely((u32)n >= pool->localq_sz))
		return false;
	if (node_check && __qmempool_elsewhere(elem))
		return false;
	qmp_kasan_poison(elem, pool->obj_size);	/* before it is in the pool */
	__this_cpu_write(c->objs[n], elem);
	__this_cpu_inc(c->count);
	__this_cpu_inc(c->stats.free_fast);
	return true;
}

/* Objects up to this size are zeroed inline, larger ones by memset() */
#define QMEMPOOL_ZERO_INLINE_MAX	256

/*
 * Zero @obj for init_on_alloc/__GFP_ZERO.  A small object (the network
 * fast path's: an skb head is 232 to 256 bytes) in straight 8-byte stores,
 * four per iteration (not a pattern the compiler turns back into a call):
 * no call, no "rep stos" start-up; any other size by memset().  Slab
 * objects are at least 8-byte aligned.  Returns @obj.
 */
static __always_inline void *qmempool_zero(void *obj, unsigned int size)
{
	u64 *p = obj, *end;

	if (size > QMEMPOOL_ZERO_INLINE_MAX || !IS_ALIGNED(size, 8))
		return memset(obj, 0, size);
	end = p + size / 8;
	for (; end - p >= 4; p += 4) {
		p[0] = 0;
		p[1] = 0;
		p[2] = 0;
		p[3] = 0;
	}
	switch (end - p) {
	case 3:
		p[2] = 0;
		fallthrough;
	case 2:
		p[1] = 0;
		fallthrough;
	case 1:
		p[0] = 0;
	}
	return obj;
}

/* The allocation in context @ctx (__qmempool_ctx(), or known to be it) */
static __always_inline void *__qmempool_alloc_ctx(struct qmempool *pool,
						  gfp_t gfp_mask, bool init,
						  enum qmempool_ctx ctx)
{
	struct qmempool_percpu __percpu *c = pool->percpu;
	unsigned long flags = 0, n;
	void *elem;

	if (unlikely(ctx == QMEMPOOL_CTX_BYPASS))
		return __qmempool_alloc_bypass(pool, gfp_mask, init);
	__qmempool_lock(ctx, &flags);
	n = __this_cpu_read(c->count);
	if (unlikely(!n)) {
		__qmempool_unlock(ctx, flags);
		return __qmempool_alloc_slow(pool, gfp_mask, init);
	}
	/* The top of the stack: the most recently freed object */
	elem = __this_cpu_read(c->objs[n - 1]);
	__this_cpu_dec(c->count);
	__this_cpu_inc(c->stats.alloc_fast);
	__qmempool_unlock(ctx, flags);
	qmp_kasan_unpoison(elem, pool->obj_size);
	if (init && want_init_on_alloc(gfp_mask))
		return qmempool_zero(elem, pool->obj_size);
	return elem;
}

static __always_inline void *__qmempool_alloc_init(struct qmempool *pool,
						   gfp_t gfp_mask, bool init)
{
	return __qmempool_alloc_ctx(pool, gfp_mask, init, __qmempool_ctx());
}

/**
 * __qmempool_alloc() - allocate an object (inline fast path)
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 *
 * Context: any; see the top of this file.
 * Return: an object of the backing cache, or NULL.
 */
static __always_inline void *__qmempool_alloc(struct qmempool *pool,
					      gfp_t gfp_mask)
{
	return __qmempool_alloc_init(pool, gfp_mask, true);
}

/**
 * __qmempool_alloc_noinit() - allocate an object the caller initialises
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 *
 * As __qmempool_alloc(), but the pool does not zero the object, whatever
 * init_on_alloc or __GFP_ZERO say (the slab may still have).  The caller
 * takes over that duty: before anybody reads any byte of the object, the
 * caller must have written it, and when want_init_on_alloc(@gfp_mask) is
 * true it must have zeroed every byte it does not otherwise write, up to
 * the cache's object size, so that nothing of a previous user can leak.
 *
 * Context: any; see the top of this file.
 * Return: an object of the backing cache, or NULL.
 */
static __always_inline void *__qmempool_alloc_noinit(struct qmempool *pool,
						     gfp_t gfp_mask)
{
	return __qmempool_alloc_init(pool, gfp_mask, false);
}

/*
 * Push @elem in context @ctx (not the bypass), else the slow path.  One
 * branch on the context, each arm with its own copy of the push, so that
 * the unlock needs no second test.
 */
static __always_inline void __qmempool_free_push(struct qmempool *pool,
						 void *elem,
						 enum qmempool_ctx ctx,
						 bool node_check)
{
	unsigned long flags;

	if (ctx == QMEMPOOL_CTX_BH) {
		if (likely(__qmempool_push(pool, elem, node_check)))
			return;
	} else {
		local_irq_save(flags);
		if (likely(__qmempool_push(pool, elem, node_check))) {
			local_irq_restore(flags);
			return;
		}
		local_irq_restore(flags);
	}
	__qmempool_free_slow(pool, elem);
}

/* The free in context @ctx (__qmempool_ctx(), or known to be it) */
static __always_inline void __qmempool_free_ctx(struct qmempool *pool,
						void *elem,
						enum qmempool_ctx ctx)
{
	if (unlikely(!elem))
		return;
	/* KASAN: every free checked, as in debug mode (no code otherwise) */
	if (IS_ENABLED(CONFIG_KASAN_GENERIC) &&
	    !__qmempool_check_free(pool, elem, _RET_IP_))
		return;
	if (unlikely(ctx == QMEMPOOL_CTX_BYPASS)) {
		__qmempool_free_bypass(pool, elem);
		return;
	}
	/*
	 * init_on_free: the slow path zeroes (no call on the fast path);
	 * more than one node: a remote object goes to the slow path, which
	 * gives it to the slab.  The slow path also checks a debug pool's
	 * frees (its local cache has no room).
	 */
	if (static_branch_unlikely(&qmempool_free_extra_key)) {
		if (want_init_on_free())
			__qmempool_free_slow(pool, elem);
		else
			__qmempool_free_push(pool, elem, ctx, true);
		return;
	}
	__qmempool_free_push(pool, elem, ctx, false);
}

/**
 * __qmempool_free() - give an object back (inline fast path)
 * @pool: the pool
 * @elem: an object of the pool's backing cache, or NULL (nothing happens)
 *
 * Context: any; see the top of this file.
 */
static __always_inline void __qmempool_free(struct qmempool *pool, void *elem)
{
	__qmempool_free_ctx(pool, elem, __qmempool_ctx());
}

/* The RFC's softirq-specialised entry points: the context is detected */
static __always_inline void *__qmempool_alloc_softirq(struct qmempool *pool,
						      gfp_t gfp_mask)
{
	return __qmempool_alloc(pool, gfp_mask);
}

void *qmempool_alloc(struct qmempool *pool, gfp_t gfp_mask);
void *qmempool_alloc_noinit(struct qmempool *pool, gfp_t gfp_mask);
void *qmempool_alloc_softirq(struct qmempool *pool, gfp_t gfp_mask);
void qmempool_free(struct qmempool *pool, void *elem);

#endif /* _LINUX_QMEMPOOL_H */
