/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skb_pool.h - a qmempool in front of the kernel's sk_buff head cache
 * (skb_pool_hook.ko).
 *
 * Heads out:  skb_pool_build_skb() takes a head from the pool and builds
 *   an skb around a received buffer, where an RX path would call
 *   napi_build_skb() or build_skb().
 * Heads back: while the free hook is on, every head the kernel frees
 *   through kfree_skbmem() - the end of kfree_skb(), consume_skb(),
 *   __kfree_skb() and friends, for skbs that are not fast clones - goes
 *   into the pool instead of the slab.  Heads freed through the NAPI skb
 *   cache (napi_consume_skb(), GRO) go where they always went; fast-clone
 *   pairs (their own cache) are never touched.
 *
 * Every head in or out of the pool is an ordinary object of the skb head
 * cache, so a head may be freed anywhere, by anyone, before or after the
 * module is unloaded: nothing is lost, at worst it goes to the slab.
 *
 * The hook redirects kfree_skbmem() with ftrace (as livepatch does); it
 * cannot be loaded beside another ftrace user that modifies the same
 * function (-EBUSY).  Contexts are those of qmempool (see qmempool.h):
 * the heads freed in hardirq context go to the slab, in NMI context the
 * hook stands aside.
 */
#ifndef _LINUX_SKB_POOL_H
#define _LINUX_SKB_POOL_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct qmempool;

struct sk_buff *skb_pool_build_skb(void *data, unsigned int frag_size);
int skb_pool_set_hook(bool on);
struct qmempool *skb_pool_get_pool(void);

#endif /* _LINUX_SKB_POOL_H */
