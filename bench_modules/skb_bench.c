// SPDX-License-Identifier: GPL-2.0
/*
 * skb_bench.ko - what an RX path pays for sk_buff heads today, per skb
 * (head built around a received buffer, then freed), from softirq
 * context (bottom halves disabled) as in a NAPI poll:
 *
 *   skb/napi_reuse        napi_build_skb() + napi_consume_skb(): the per-CPU
 *                         NAPI skb cache (64 heads, refilled and flushed
 *                         in bulk from/to the skb head cache)
 *   skb/napi_pattern256   256 napi_build_skb(), then 256 napi_consume_skb()
 *                         (a NIC ring's worth: beyond the cache's 64)
 *   skb/slab_reuse        build_skb() + consume_skb(): the head straight
 *                         from and back to the slab (the non-NAPI path)
 *   skb/slab_pattern256   the same 256 at a time
 *   skb/pool_reuse        skb_pool_build_skb() + skb_pool_consume_skb():
 *                         the head from skb_pool's qmempool and back to
 *                         it at "TX completion", no hook (a driver that
 *                         uses the pool on both sides)
 *   skb/pool_pattern256   the same 256 at a time
 *   skb/hook_reuse        skb_pool_build_skb() + consume_skb(): back to
 *                         the pool through skb_pool_hook's free hook
 *   skb/hook_pattern256   the same 256 at a time
 *
 * The pool cases run when skb_pool is loaded, the hook cases when
 * skb_pool_hook is too (found with symbol_get(), no dependency).  The
 * hook is off for the other cases, so the slab path is the kernel's own,
 * and as it was when the module is done.
 *
 * Each skb gets its own 1 KiB buffer of one compound page, as a driver's
 * page-split RX buffers, with skb_reserve(NET_SKB_PAD) and a 60-byte
 * frame put; the page reference every free drops is taken in advance,
 * outside the timed loop (a driver's refcount bias), so the figure is the
 * head's cost plus the skb set-up and release both paths share.
 * Parameters: loops=, runs=.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <qmp/time_bench.h>
#include <qmp/version.h>

TIME_BENCH_MODULE_PARAMS(1000000, 5);

#define PATTERN		256
#define BUF_SIZE	1024	/* headroom, frame and skb_shared_info */
#define BUF_ORDER	get_order(PATTERN * BUF_SIZE)

struct skb_bench {
	struct page *page;	/* PATTERN buffers of BUF_SIZE */
	void *buf;
	struct sk_buff *skbs[PATTERN];
};

/* Where a case's heads come from; a constant in each specialised case */
enum skb_source { NAPI, SLAB, POOL, HOOK };

/* skb_pool's and skb_pool_hook's, when they are loaded */
static struct sk_buff *(*pool_build_skb)(void *data, unsigned int frag_size);
static void (*pool_consume_skb)(struct sk_buff *skb, int budget);
static int (*pool_set_hook)(bool on);
static bool (*pool_hook_enabled)(void);

static __always_inline struct sk_buff *rx_skb(struct skb_bench *b,
					      enum skb_source s,
					      unsigned int i)
{
	void *data = b->buf + i * BUF_SIZE;
	struct sk_buff *skb = s == NAPI ? napi_build_skb(data, BUF_SIZE) :
			      s == SLAB ? build_skb(data, BUF_SIZE) :
					  pool_build_skb(data, BUF_SIZE);

	if (likely(skb)) {
		skb_reserve(skb, NET_SKB_PAD);
		__skb_put(skb, ETH_ZLEN);
	}
	return skb;
}

static __always_inline void rx_done(enum skb_source s, struct sk_buff *skb)
{
	if (s == NAPI)
		napi_consume_skb(skb, NAPI_POLL_WEIGHT);
	else if (s == POOL)
		pool_consume_skb(skb, NAPI_POLL_WEIGHT);
	else
		consume_skb(skb);
}

/* @batch skbs built, then freed, loops / @batch times */
static __always_inline int rx(struct time_bench_record *rec,
			      struct skb_bench *b, enum skb_source s,
			      unsigned int batch)
{
	unsigned long i, steps = rec->loops / batch;
	struct sk_buff **p, **end;

	/* Every free puts one reference of the buffers' page */
	page_ref_add(b->page, steps * batch);
	/* By pointer: no bounds check per skb (see qmempool_bench's pattern) */
	time_bench_start(rec);
	for (i = 0; i < steps; i++) {
		for (p = b->skbs; p < b->skbs + batch; p++) {
			*p = rx_skb(b, s, p - b->skbs);
			if (unlikely(!*p))
				break;
		}
		for (end = p, p = b->skbs; p < end; p++)
			rx_done(s, *p);
		if (unlikely(end < b->skbs + batch))
			return -ENOMEM;
	}
	time_bench_stop(rec, steps * batch);
	return 0;
}

static int napi_reuse(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, NAPI, 1);
}

static int napi_pattern(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, NAPI, PATTERN);
}

static int slab_reuse(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, SLAB, 1);
}

static int slab_pattern(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, SLAB, PATTERN);
}

static int pool_reuse(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, POOL, 1);
}

static int pool_pattern(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, POOL, PATTERN);
}

static int hook_reuse(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, HOOK, 1);
}

static int hook_pattern(struct time_bench_record *rec, void *d)
{
	return rx(rec, d, HOOK, PATTERN);
}

static const struct {
	const char *name;
	time_bench_fn fn;
	enum skb_source source;
} cases[] = {
	{ "napi_reuse", napi_reuse, NAPI },
	{ "napi_pattern256", napi_pattern, NAPI },
	{ "slab_reuse", slab_reuse, SLAB },
	{ "slab_pattern256", slab_pattern, SLAB },
	{ "pool_reuse", pool_reuse, POOL },
	{ "pool_pattern256", pool_pattern, POOL },
	{ "hook_reuse", hook_reuse, HOOK },
	{ "hook_pattern256", hook_pattern, HOOK },
};

/*
 * Runs the cases (those time_bench.ko's only= selects, the hook not
 * switched for the others); the hook is on for its cases only, then as it
 * was
 */
static int run_cases(struct skb_bench *b, unsigned long n)
{
	bool hook_was = pool_hook_enabled && pool_hook_enabled();
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(cases) && !ret; i++) {
		enum skb_source s = cases[i].source;

		if ((s >= POOL && !pool_build_skb) ||
		    (s == HOOK && !pool_set_hook) ||
		    !time_bench_selected("skb", cases[i].name, TB_SOFTIRQ))
			continue;
		if (pool_set_hook)
			ret = pool_set_hook(s == HOOK);
		ret = ret ?: time_bench_run("skb", cases[i].name, TB_SOFTIRQ, n,
					    runs, cases[i].fn, b);
	}
	if (pool_set_hook && pool_set_hook(hook_was))
		ret = ret ?: -EIO;
	return ret;
}

/* Drop the hook's functions, then (@all) the pool's too */
static void pool_symbols_put(bool all)
{
	if (pool_set_hook)
		symbol_put(skb_pool_set_hook);
	if (pool_hook_enabled)
		symbol_put(skb_pool_hook_enabled);
	pool_set_hook = NULL;
	pool_hook_enabled = NULL;
	if (!all)
		return;
	if (pool_build_skb)
		symbol_put(skb_pool_build_skb);
	if (pool_consume_skb)
		symbol_put(skb_pool_consume_skb);
	pool_build_skb = NULL;
	pool_consume_skb = NULL;
}

/* The functions of skb_pool and skb_pool_hook, all of a module or none */
static void pool_symbols_get(void)
{
	pool_build_skb = symbol_get(skb_pool_build_skb);
	pool_consume_skb = symbol_get(skb_pool_consume_skb);
	if (!pool_build_skb || !pool_consume_skb) {
		pr_info("skb pool cases skipped: skb_pool is not loaded\n");
		pool_symbols_put(true);
		return;
	}
	pool_set_hook = symbol_get(skb_pool_set_hook);
	pool_hook_enabled = symbol_get(skb_pool_hook_enabled);
	if (!pool_set_hook || !pool_hook_enabled) {
		pr_info("skb hook cases skipped: skb_pool_hook is not loaded\n");
		pool_symbols_put(false);
	}
}

static int __init skb_bench_init(void)
{
	unsigned long n = max_t(unsigned long, loops, PATTERN);
	struct skb_bench *b = kzalloc(sizeof(*b), GFP_KERNEL);
	int ret;

	BUILD_BUG_ON(NET_SKB_PAD + ETH_ZLEN +
		     SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) > BUF_SIZE);
	if (!b)
		return -ENOMEM;
	b->page = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_NOWARN,
			      BUF_ORDER);
	if (!b->page) {
		pr_err("no order-%d page for the RX buffers\n", BUF_ORDER);
		kfree(b);
		return -ENOMEM;
	}
	b->buf = page_address(b->page);
	pool_symbols_get();
	ret = run_cases(b, n);
	pool_symbols_put(true);
	/* A failed run leaves the references of the skbs it did not free */
	if (page_ref_count(b->page) > 1)
		page_ref_sub(b->page, page_ref_count(b->page) - 1);
	__free_pages(b->page, BUF_ORDER);
	kfree(b);
	return ret;
}

static void __exit skb_bench_exit(void)
{
}

module_init(skb_bench_init);
module_exit(skb_bench_exit);
MODULE_DESCRIPTION("sk_buff head allocation paths of the kernel (time_bench)");
