// SPDX-License-Identifier: GPL-2.0
/*
 * skb_pool_hook.ko - a qmempool in front of the kernel's sk_buff head
 * cache; see include/linux/skb_pool.h for what goes in and out.
 *
 * The head cache: net_hotdata.skbuff_cache where the kernel has it (6.9+);
 * before that skbuff_head_cache, which is not exported: it is looked up
 * by name, and accepted only if its objects are sk_buff-sized.
 *
 * The free hook: an ftrace handler on kfree_skbmem() (a static function,
 * but traceable) changes the return address of the ftrace call to
 * skb_pool_free_head(), which takes the same argument, for every skb that
 * is not a fast clone: the kernel's function never runs for those.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/qmempool.h>
#include <linux/rcupdate.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#ifdef HAVE_NET_HOTDATA		/* set by Kbuild when the kernel has it */
#include <net/hotdata.h>
#endif

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#error "skb_pool_hook needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS"
#endif

/* The ftrace_regs accessors were renamed in 6.5 */
#ifdef ftrace_regs_get_argument
#define skbp_arg0(fregs)	ftrace_regs_get_argument(fregs, 0)
#define skbp_set_ip(fregs, ip)	ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define skbp_arg0(fregs)	regs_get_kernel_argument(&(fregs)->regs, 0)
#define skbp_set_ip(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#endif

static unsigned int localq = 64;
module_param(localq, uint, 0444);
MODULE_PARM_DESC(localq, "Slots of each CPU's local queue (default 64)");
static unsigned int sharedq = 1024;
module_param(sharedq, uint, 0444);
MODULE_PARM_DESC(sharedq, "Slots of each node's shared queue (default 1024)");
static unsigned int prealloc;
module_param(prealloc, uint, 0444);
MODULE_PARM_DESC(prealloc, "Heads allocated into the pool at load (default 0)");
static bool hook = true;
module_param(hook, bool, 0444);
MODULE_PARM_DESC(hook, "Put freed heads into the pool from the start (default 1)");

static struct qmempool *skb_pool;
static DEFINE_MUTEX(skb_pool_hook_lock);
static bool skb_pool_hooked;

#ifdef HAVE_NET_HOTDATA
static struct kmem_cache *skb_head_cache_find(void)
{
	return net_hotdata.skbuff_cache;
}
#else
static struct kmem_cache *skb_head_cache_find(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long (*lookup)(const char *name);
	struct kmem_cache **cachep;

	/* Calling a function found by address would fault under IBT */
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT)) {
		pr_err("cannot find skbuff_head_cache on a kernel with IBT and without net_hotdata\n");
		return NULL;
	}
	if (register_kprobe(&kp)) {
		pr_err("cannot find kallsyms_lookup_name() to find skbuff_head_cache\n");
		return NULL;
	}
	lookup = (void *)kp.addr;
	unregister_kprobe(&kp);
	cachep = (struct kmem_cache **)lookup("skbuff_head_cache");
	if (!cachep || !*cachep ||
	    kmem_cache_size(*cachep) != sizeof(struct sk_buff)) {
		pr_err("skbuff_head_cache not found\n");
		return NULL;
	}
	return *cachep;
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
	struct sk_buff *skb = qmempool_alloc(skb_pool, GFP_ATOMIC | __GFP_NOWARN);

	if (unlikely(!skb))
		return NULL;
	/* As __napi_build_skb(): zeroed up to tail, unless the pool did all */
	if (!want_init_on_alloc(GFP_ATOMIC))
		memset(skb, 0, offsetof(struct sk_buff, tail));
	return build_skb_around(skb, data, frag_size);
}
EXPORT_SYMBOL_GPL(skb_pool_build_skb);

/* Runs instead of kfree_skbmem(), same argument, same caller */
static void skb_pool_free_head(struct sk_buff *skb)
{
	qmempool_free(skb_pool, skb);
}

static void notrace skb_pool_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct sk_buff *skb = (struct sk_buff *)skbp_arg0(fregs);

	/* Fast clones are another cache's; in NMI nothing may be freed */
	if (skb->fclone != SKB_FCLONE_UNAVAILABLE || in_nmi())
		return;
	skbp_set_ip(fregs, (unsigned long)skb_pool_free_head);
}

static struct ftrace_ops skb_pool_ops = {
	.func	= skb_pool_ftrace,
	/* IPMODIFY: the handler redirects; RECURSION: it calls nothing */
	.flags	= FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION,
};

/**
 * skb_pool_set_hook() - put the heads the kernel frees into the pool, or not
 * @on: true to redirect kfree_skbmem() to the pool, false to stop
 *
 * Heads already in the pool stay there and are still handed out.  The
 * benchmark uses it to time the kernel's own paths in the same boot.
 *
 * Context: process context, may sleep.
 * Return: 0, or the error of register_ftrace_function(), e.g. -EBUSY when
 * another ftrace user (a livepatch) modifies kfree_skbmem().
 */
int skb_pool_set_hook(bool on)
{
	int ret = 0;

	mutex_lock(&skb_pool_hook_lock);
	if (on && !skb_pool_hooked)
		ret = register_ftrace_function(&skb_pool_ops);
	else if (!on && skb_pool_hooked)
		ret = unregister_ftrace_function(&skb_pool_ops);
	if (!ret)
		skb_pool_hooked = on;
	else
		pr_err("cannot %s kfree_skbmem(): %d%s\n", on ? "hook" : "unhook",
		       ret, ret == -EBUSY ?
		       " (another ftrace user modifies it, e.g. a livepatch)" : "");
	mutex_unlock(&skb_pool_hook_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(skb_pool_set_hook);

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

static int __init skb_pool_hook_init(void)
{
	char fn[] = "kfree_skbmem";
	struct kmem_cache *cache = skb_head_cache_find();
	int ret;

	if (!cache)
		return -ENOENT;
	skb_pool = qmempool_create(localq, sharedq, prealloc, cache,
				   GFP_KERNEL);
	if (!skb_pool)
		return -EINVAL;		/* qmempool_create() said why */
	ret = ftrace_set_filter(&skb_pool_ops, fn, strlen(fn), 0);
	if (ret) {
		pr_err("kfree_skbmem() is not traceable in this kernel: %d\n",
		       ret);
		goto err;
	}
	if (hook) {
		ret = skb_pool_set_hook(true);
		if (ret)
			goto err_filter;
	}
	pr_info("pool of %u+%u heads (object size %u) in front of the skb head cache, free hook %s\n",
		localq, sharedq, skb_pool->obj_size, hook ? "on" : "off");
	return 0;
err_filter:
	ftrace_free_filter(&skb_pool_ops);
err:
	qmempool_destroy(skb_pool);
	return ret;
}

static void __exit skb_pool_hook_exit(void)
{
	skb_pool_set_hook(false);
	/*
	 * A task preempted in skb_pool_free_head() has not yet passed a
	 * voluntary context switch: wait for every task to, before the
	 * pool and this code go away.
	 */
	synchronize_rcu_tasks();
	ftrace_free_filter(&skb_pool_ops);
	qmempool_destroy(skb_pool);
}

module_init(skb_pool_hook_init);
module_exit(skb_pool_hook_exit);
MODULE_DESCRIPTION("qmempool in front of the sk_buff head cache");
MODULE_LICENSE("GPL");
