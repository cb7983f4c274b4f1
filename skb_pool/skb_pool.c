// SPDX-License-Identifier: GPL-2.0
/*
 * skb_pool.ko - a qmempool in front of the kernel's sk_buff head cache;
 * see include/linux/skb_pool.h for what goes in and out.
 *
 * The head cache: net_hotdata.skbuff_cache where the kernel has it (6.9+);
 * before that skbuff_head_cache, which is not exported: it is taken with
 * symbol_get() where a kernel exports it (the project's UML build), else
 * looked up by name through kallsyms, and accepted only if its objects
 * are sk_buff-sized.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/qmempool.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <net/dst.h>
#ifdef HAVE_NET_HOTDATA		/* set by Kbuild when the kernel has it */
#include <net/hotdata.h>
#endif
#include <qmp/version.h>

static unsigned int localq = 64;
module_param(localq, uint, 0444);
MODULE_PARM_DESC(localq, "Objects each CPU's local cache holds (default 64, at most 1024)");
static unsigned int sharedq = 1024;
module_param(sharedq, uint, 0444);
MODULE_PARM_DESC(sharedq, "Slots of each node's shared queue (default 1024)");
static unsigned int prealloc;
module_param(prealloc, uint, 0444);
MODULE_PARM_DESC(prealloc, "Heads allocated into the pool at load (default 0)");

static struct qmempool *skb_pool;

/*
 * The skb:consume_skb tracepoint, where perf, dropwatch and BPF tools see
 * the skbs the kernel consumes.  trace_consume_skb() is not exported (6.1,
 * 6.12, 7.3): the tracepoint is found by name at load, and while it has a
 * probe skb_pool_consume_skb() leaves every skb to napi_consume_skb(),
 * which reports it.  Its static key (7.x: inside a static_key_false, as
 * its first member) is read as static_key_enabled() reads it, without
 * the call to static_key_count(); without the tracepoint, a stand-in key
 * that is never on.
 */
static struct static_key skb_pool_no_key;
static struct static_key *skb_pool_consume_key = &skb_pool_no_key;

#ifdef CONFIG_TRACEPOINTS
static void skb_pool_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "consume_skb"))
		skb_pool_consume_key = (struct static_key *)&tp->key;
}

static void skb_pool_find_tracepoints(void)
{
	for_each_kernel_tracepoint(skb_pool_find_tracepoint, NULL);
}
#else
/* A kernel without tracepoints (UML's defconfig) has nobody to tell */
static void skb_pool_find_tracepoints(void)
{
}
#endif

/* static_key_enabled(): on once a probe is being added (-1) or is there */
static bool skb_pool_consume_traced(void)
{
	return atomic_read(&skb_pool_consume_key->enabled);
}

#ifdef HAVE_NET_HOTDATA
static struct kmem_cache *skb_head_cache_find(void)
{
	return net_hotdata.skbuff_cache;
}
#else
/* kallsyms_lookup_name() is not exported: its address, from a kprobe */
static struct kmem_cache **skb_head_cache_by_name(void)
{
#ifdef CONFIG_KPROBES
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long (*lookup)(const char *name);

	/* Calling a function found by address would fault under IBT */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT)) {
		pr_err("cannot look up skbuff_head_cache on a kernel with IBT and without net_hotdata\n");
		return NULL;
	}
	if (register_kprobe(&kp)) {
		pr_err("cannot find kallsyms_lookup_name() to find skbuff_head_cache\n");
		return NULL;
	}
	lookup = (void *)kp.addr;
	unregister_kprobe(&kp);
	return (struct kmem_cache **)lookup("skbuff_head_cache");
#else
	pr_err("skbuff_head_cache is not exported and there are no kprobes to look it up\n");
	return NULL;
#endif
}

static struct kmem_cache *skb_head_cache_find(void)
{
	struct kmem_cache **cachep = __symbol_get("skbuff_head_cache");
	struct kmem_cache *cache;

	/* Exported by vmlinux: __symbol_get() took no reference to put */
	if (!cachep)
		cachep = skb_head_cache_by_name();
	cache = cachep ? *cachep : NULL;
	if (!cache || kmem_cache_size(cache) != sizeof(struct sk_buff)) {
		pr_err("skbuff_head_cache not found\n");
		return NULL;
	}
	return cache;
}
#endif

/*
 * Where skb_pool_build_skb() zeroes the rest of a head under init_on_alloc:
 * from tail, rounded down to the 8 bytes qmempool_zero() stores (tail is
 * 32-bit: rounded, the stores begin over zeroes already written)
 */
#define SKB_POOL_REST	ALIGN_DOWN(offsetof(struct sk_buff, tail), 8)

/**
 * skb_pool_build_skb() - build an skb around a buffer, head from the pool
 * @data: the buffer, as for build_skb(): room for skb_shared_info at its end
 * @frag_size: its size, a page fragment's (0 for a kmalloc()ed buffer is
 *             deprecated since 6.3 and warns there)
 *
 * The pool's counterpart of napi_build_skb().
 *
 * Context: any but NMI; meant for softirq (NAPI poll).
 * Return: the skb, or NULL when no head could be had.
 */
struct sk_buff *skb_pool_build_skb(void *data, unsigned int frag_size)
{
	const gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN;
	/* The pool's inline fast path: no second exported call per skb */
	struct sk_buff *skb = __qmempool_alloc_noinit(skb_pool, gfp);

	if (unlikely(!skb))
		return NULL;
	/*
	 * build_skb_around() expects the head zeroed up to tail by its
	 * caller, as __napi_build_skb() does: always, whatever the pool or
	 * the slab did (a poisoned cache is not zeroed by the slab).  It
	 * writes tail to users itself, but not what follows (extensions,
	 * read only once active_extensions says so, and the object's
	 * padding): under init_on_alloc those are zeroed here too, the duty
	 * qmempool_alloc_noinit() leaves to its caller, so the head is
	 * zeroed once instead of by the pool and again here.
	 */
	memset(skb, 0, offsetof(struct sk_buff, tail));
	/*
	 * The first memset() has a constant size, as __napi_build_skb()'s:
	 * the compiler writes it inline, where a variable size is a call to
	 * memset() (byte-wise "rep stosb" on 6.1).  The rest of the object
	 * only under init_on_alloc, in the pool's inline 8-byte stores.
	 */
	if (want_init_on_alloc(gfp))
		qmempool_zero((void *)skb + SKB_POOL_REST,
			      skb_pool->obj_size - SKB_POOL_REST);
	return build_skb_around(skb, data, frag_size);
}
QMP_EXPORT(skb_pool_build_skb);

/*
 * The skbs whose head skb_pool_consume_skb() releases itself: the last
 * reference, a head of the head cache (no fast clone), its own linear data
 * in a page fragment (not cloned, no frags, no frag list, no zerocopy, not
 * a page_pool page; a head-less skb has none).  Everything else is
 * napi_consume_skb()'s.
 */
static bool skb_pool_plain(struct sk_buff *skb)
{
	if (refcount_read(&skb->users) != 1)
		return false;
	/*
	 * As skb_unref(): the skb is ours alone, and what its other holders
	 * wrote before they put their references (a release) is seen by
	 * the reads that follow.
	 */
	smp_rmb();
	return skb->fclone == SKB_FCLONE_UNAVAILABLE && !skb->cloned &&
	       skb->head_frag && !skb->pp_recycle && skb->head &&
	       !skb_shinfo(skb)->nr_frags && !skb_has_frag_list(skb) &&
	       !skb_zcopy(skb);
}

/**
 * skb_pool_consume_skb() - the pool's napi_consume_skb()
 * @skb: the skb, or NULL
 * @budget: the NAPI budget of the caller; 0 outside NAPI (netpoll)
 *
 * Drops a reference to @skb; on the last one the skb's state (dst,
 * destructor, conntrack, extensions) and data are released and the head
 * goes into the pool, for a plain skb (see skb_pool_plain()); any other
 * skb, any call with a zero @budget, and every skb while the
 * skb:consume_skb tracepoint has a probe (which napi_consume_skb() then
 * tells of the skb) is napi_consume_skb()'s.
 *
 * Context: softirq (NAPI poll), or any with @budget 0.
 */
void skb_pool_consume_skb(struct sk_buff *skb, int budget)
{
	if (unlikely(!skb))
		return;
	if (!budget || unlikely(skb_pool_consume_traced()) ||
	    !skb_pool_plain(skb)) {
		napi_consume_skb(skb, budget);
		return;
	}
	/* What skb_release_head_state() does, with the kernel's helpers */
	skb_dst_drop(skb);
	if (skb->destructor)
		skb->destructor(skb);
	nf_reset_ct(skb);
	skb_ext_put(skb);
	skb_free_frag(skb->head);
	__qmempool_free(skb_pool, skb);
}
QMP_EXPORT(skb_pool_consume_skb);

/**
 * skb_pool_free_head() - put a released head into the pool
 * @skb: a head of the skb head cache whose state and data are released,
 *       as kfree_skbmem() receives it (the free hook's target)
 *
 * Context: any; see include/linux/qmempool.h.
 */
void skb_pool_free_head(struct sk_buff *skb)
{
	__qmempool_free(skb_pool, skb);
}
QMP_EXPORT(skb_pool_free_head);

/**
 * skb_pool_get_pool() - the pool, for statistics and tests
 *
 * Return: the module's qmempool (valid while the module is loaded).
 */
struct qmempool *skb_pool_get_pool(void)
{
	return skb_pool;
}
QMP_EXPORT(skb_pool_get_pool);

static int __init skb_pool_init(void)
{
	struct kmem_cache *cache = skb_head_cache_find();

	if (!cache)
		return -ENOENT;
	skb_pool_find_tracepoints();
	/*
	 * The kernel creates its sk_buff head cache plain (no constructor,
	 * neither SLAB_TYPESAFE_BY_RCU nor SLAB_ACCOUNT, on every kernel
	 * here): said for kernels whose BTF cannot show it (none, UML's);
	 * where it can, the pool still checks.
	 */
	skb_pool = qmempool_create_flags(localq, sharedq, prealloc, cache,
					 GFP_KERNEL, QMEMPOOL_PLAIN_CACHE);
	if (IS_ERR(skb_pool))
		return PTR_ERR(skb_pool);	/* qmempool_create() said why */
	pr_info("pool of %u+%u heads (object size %u) in front of the skb head cache\n",
		localq, sharedq, skb_pool->obj_size);
	return 0;
}

static void __exit skb_pool_exit(void)
{
	qmempool_destroy(skb_pool);
}

module_init(skb_pool_init);
module_exit(skb_pool_exit);
MODULE_DESCRIPTION("qmempool in front of the sk_buff head cache");
