/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skb_pool.h - a qmempool in front of the kernel's sk_buff head cache:
 * skb_pool.ko, and its optional free hook, skb_pool_hook.ko.
 *
 * Heads out:  skb_pool_build_skb() takes a head from the pool and builds
 *   an skb around a received buffer, where an RX path would call
 *   napi_build_skb() or build_skb().
 * Heads back, without any hook: skb_pool_consume_skb() is the pool's
 *   napi_consume_skb(), for a driver's TX completion (NAPI context): the
 *   head of a plain skb (its own linear page-fragment data, no frags, no
 *   clone, no fast clone, no page_pool data) is released and goes into
 *   the pool; any other skb is handed to napi_consume_skb().  The kernel
 *   reports every consumed skb to the skb:consume_skb tracepoint (perf,
 *   dropwatch, BPF tools), but trace_consume_skb() is not exported to
 *   modules (6.1, 6.12, 7.3): while that tracepoint has a probe, every
 *   skb is handed to napi_consume_skb(), which reports it, and no head
 *   comes back to the pool that way.
 * Heads back, with the free hook (skb_pool_hook.ko, where the kernel has
 *   CONFIG_DYNAMIC_FTRACE_WITH_ARGS): every head the kernel frees through
 *   kfree_skbmem() - the end of kfree_skb(), consume_skb(), __kfree_skb()
 *   and friends, for skbs that are not fast clones - goes into the pool
 *   instead of the slab.  Heads freed through the NAPI skb cache
 *   (napi_consume_skb(), GRO) go where they always went.
 *
 * Every head in or out of the pool is an ordinary object of the skb head
 * cache, so a head may be freed anywhere, by anyone, before or after the
 * modules are unloaded: nothing is lost, at worst it goes to the slab.
 *
 * The hook redirects kfree_skbmem() with ftrace (as livepatch does); it
 * cannot be loaded beside another ftrace user that modifies the same
 * function (-EBUSY).  While the hook is on, skb_pool_hook.ko holds a
 * reference on itself (its code is on the kernel's free path), so it is
 * unloaded by turning the hook off first:
 *	echo 0 > /sys/module/skb_pool_hook/parameters/hook
 *	rmmod skb_pool_hook
 *
 * Contexts are those of qmempool (see qmempool.h): heads freed in hardirq
 * context go to the slab; in NMI context the hook stands aside.
 */
#ifndef _LINUX_SKB_POOL_H
#define _LINUX_SKB_POOL_H

#include <linux/qmempool_ns.h>
#include <linux/skbuff.h>
#include <linux/types.h>

struct qmempool;

/* skb_pool.ko */
struct sk_buff *skb_pool_build_skb(void *data, unsigned int frag_size);
void skb_pool_consume_skb(struct sk_buff *skb, int budget);
void skb_pool_free_head(struct sk_buff *skb);
struct qmempool *skb_pool_get_pool(void);

/**
 * skb_pool_napi_build_skb() - a driver's RX build: the pool or the stock path
 * @pool: take the head from the pool (else napi_build_skb())
 * @data: the RX buffer, as for napi_build_skb()
 * @frag_size: its size
 *
 * The one line a driver's RX path changes (the forked ixgbe, qmp_vnic).
 *
 * Context: softirq (NAPI poll).
 * Return: the skb, or NULL.
 */
static inline struct sk_buff *skb_pool_napi_build_skb(bool pool, void *data,
						      unsigned int frag_size)
{
	return pool ? skb_pool_build_skb(data, frag_size) :
		      napi_build_skb(data, frag_size);
}

/**
 * skb_pool_napi_consume_skb() - a driver's TX completion: the pool or stock
 * @pool: release plain skbs' heads into the pool (else napi_consume_skb())
 * @skb: the transmitted skb
 * @budget: the NAPI budget, 0 outside NAPI
 *
 * Context: softirq (NAPI poll), or any with @budget 0.
 */
static inline void skb_pool_napi_consume_skb(bool pool, struct sk_buff *skb,
					     int budget)
{
	if (pool)
		skb_pool_consume_skb(skb, budget);
	else
		napi_consume_skb(skb, budget);
}

/* skb_pool_hook.ko */
int skb_pool_set_hook(bool on);
bool skb_pool_hook_enabled(void);

#endif /* _LINUX_SKB_POOL_H */
