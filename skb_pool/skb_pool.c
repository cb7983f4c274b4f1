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
	struct sk_buff *skb = qmempool_alloc_noinit(skb_pool, gfp);

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
	memset(skb, 0, want_init_on_alloc(gfp) ? skb_pool->obj_size :
		       offsetof(struct sk_buff, tail));
	return build_skb_around(skb, data, frag_size);
}
EXPORT_SYMBOL_GPL(skb_pool_build_skb);

/*
 * The skbs whose head skb_pool_consume_skb() releases itself: the last
 * reference, a head of the head cache (no fast clone), its own linear data
 * in a page fragment (not cloned, no frags, no frag list, no zerocopy, not
 * a page_pool page).  Everything else is napi_consume_skb()'s.
 */
static bool skb_pool_plain(struct sk_buff *skb)
{
	return refcount_read(&skb->users) == 1 &&
	       skb->fclone == SKB_FCLONE_UNAVAILABLE && !skb->cloned &&
	       skb->head_frag && !skb->pp_recycle &&
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
 * skb, and any call with a zero @budget, is napi_consume_skb()'s.
 *
 * Context: softirq (NAPI poll), or any with @budget 0.
 */
void skb_pool_consume_skb(struct sk_buff *skb, int budget)
{
	if (unlikely(!skb))
		return;
	if (!budget || !skb_pool_plain(skb)) {
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
	qmempool_free(skb_pool, skb);
}
EXPORT_SYMBOL_GPL(skb_pool_consume_skb);

/**
 * skb_pool_free_head() - put a released head into the pool
 * @skb: a head of the skb head cache whose state and data are released,
 *       as kfree_skbmem() receives it (the free hook's target)
 *
 * Context: any; see include/linux/qmempool.h.
 */
void skb_pool_free_head(struct sk_buff *skb)
{
	qmempool_free(skb_pool, skb);
}
EXPORT_SYMBOL_GPL(skb_pool_free_head);

/**
 * skb_pool_get_pool() - the pool, for statistics and tests
 *
 * Return: the module's qmempool (valid while the module is loaded).
 */
struct qmempool *skb_pool_get_pool(void)
{
	return skb_pool;
}
EXPORT_SYMBOL_GPL(skb_pool_get_pool);

static int __init skb_pool_init(void)
{
	struct kmem_cache *cache = skb_head_cache_find();

	if (!cache)
		return -ENOENT;
	skb_pool = qmempool_create(localq, sharedq, prealloc, cache,
				   GFP_KERNEL);
	if (!skb_pool)
		return -EINVAL;		/* qmempool_create() said why */
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
