// SPDX-License-Identifier: GPL-2.0
/*
 * vnic_tx.c - the TX path of qmp_vnic.ko: ndo_start_xmit, the TX
 * completion and the TX-only vector's NAPI poll; and the queues'
 * "interrupts" (vnic_kick()), kept beside ndo_start_xmit, which raises
 * one per transmit (the RX kicks of the generator share the code).
 *
 * TX (ixgbe_xmit_frame_ring(), ixgbe_clean_tx_irq()): ndo_start_xmit
 * puts the skb into the queue's TX ring, an ALF queue used single-
 * producer (under the netdev TX lock) and single-consumer (the NAPI poll
 * that completes), with BQL; the queue stops when the ring is full and is
 * woken by the completion; the "hardware" sends at once, so each xmit
 * (or the last of an xmit_more batch) raises the completion "interrupt":
 * napi_schedule() on the transmitting CPU, or with tx_cpu=N an IPI that
 * schedules a TX-only NAPI instance of the queue on CPU N (ixgbe's
 * TX-only vectors), where a per-CPU cache cannot recycle the heads.  The
 * completion frees as ixgbe does: napi_consume_skb(skb, budget), or
 * skb_pool_consume_skb(skb, budget) in pool mode.
 */
#include <linux/alf_queue.h>
#include <linux/bitops.h>
#include <linux/netdevice.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/u64_stats_sync.h>

#include "vnic.h"

/* ------------------------------------------------------------------ */
/* Interrupts: NAPI scheduled on a given CPU                           */

void vnic_rx_ipi(void *info)
{
	struct vnic_queue *q = info;

	/*
	 * Clear first, with a full barrier: a kicker that found the bit set
	 * published its work before, and the poll scheduled below (or the
	 * running one, made to poll again) sees it.  ndo_stop waits for the
	 * bit, then for an RCU grace period: until this function returned.
	 */
	clear_bit(VNIC_KICK_RX, &q->kick);
	/* Pairs with test_and_set_bit() in vnic_kick() */
	smp_mb__after_atomic();
	napi_schedule(&q->napi);
}

void vnic_tx_ipi(void *info)
{
	struct vnic_queue *q = info;

	clear_bit(VNIC_KICK_TX, &q->kick);
	/* As in vnic_rx_ipi() */
	smp_mb__after_atomic();
	napi_schedule(&q->tx_napi);
}

/*
 * Schedule @napi on @cpu through the IPI @csd, as the interrupt of a
 * vector whose affinity is @cpu would; with bottom halves disabled.
 * The caller published its work (frames requested, skbs in the TX ring)
 * before: test_and_set_bit() orders it before the bit, which the IPI
 * clears before it schedules.
 */
static void vnic_kick(struct vnic_queue *q, int bit, int cpu,
		      struct napi_struct *napi, call_single_data_t *csd,
		      atomic64_t *ipis)
{
	bool remote;

	if (test_and_set_bit(bit, &q->kick))
		return;			/* the IPI on its way will do */
	if (READ_ONCE(q->priv->down))
		goto unlock;
	remote = cpu != smp_processor_id();
	if (!smp_call_function_single_async(cpu, csd)) {
		if (remote)
			atomic64_inc(ipis);
		return;			/* the IPI clears the bit */
	}
	/* @cpu went offline: here, then */
unlock:
	clear_bit(bit, &q->kick);
	/* As in vnic_rx_ipi(): a kicker that found the bit set is seen */
	smp_mb__after_atomic();
	if (!READ_ONCE(q->priv->down))
		napi_schedule(napi);
}

void __noendbr vnic_kick_rx(struct vnic_queue *q)
{
	vnic_kick(q, VNIC_KICK_RX, q->cpu, &q->napi, &q->rx_csd, &q->rx_ipi);
}

/* The completion "interrupt" after a transmit */
static void vnic_kick_tx(struct vnic_queue *q)
{
	if (q->priv->tx_split)
		vnic_kick(q, VNIC_KICK_TX, tx_cpu, &q->tx_napi, &q->tx_csd,
			  &q->tx_ipi);
	else
		napi_schedule(&q->napi);
}

/* ------------------------------------------------------------------ */
/* TX                                                                  */

static void vnic_xmit_stat_add(struct vnic_queue *q, unsigned int stat,
			       unsigned int val)
{
	u64_stats_update_begin(&q->xmit_stats.syncp);
	u64_stats_add(&q->xmit_stats.v[stat], val);
	u64_stats_update_end(&q->xmit_stats.syncp);
}

/* ixgbe_clean_tx_irq(): true if the ring was cleaned within the limit */
bool __noendbr vnic_clean_tx(struct vnic_queue *q, int napi_budget)
{
	bool pool = READ_ONCE(q->priv->mode) == VNIC_POOL;
	unsigned int done = 0, bytes = 0, n, i;
	void *skbs[VNIC_TX_BULK];

	while (done < VNIC_TX_WORK_LIMIT) {
		n = alf_sc_dequeue(q->tx_ring, skbs,
				   min(VNIC_TX_BULK, VNIC_TX_WORK_LIMIT - done));
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			struct sk_buff *skb = skbs[i];

			bytes += skb->len;
			if (pool)
				skb_pool_consume_skb(skb, napi_budget);
			else
				napi_consume_skb(skb, napi_budget);
		}
		done += n;
	}
	if (!done)
		return true;

	u64_stats_update_begin(&q->comp_stats.syncp);
	u64_stats_add(&q->comp_stats.v[VNIC_TX_COMPLETED], done);
	u64_stats_add(&q->comp_stats.v[VNIC_TX_COMPLETED_BYTES], bytes);
	if (q->cpu != smp_processor_id())
		u64_stats_add(&q->comp_stats.v[VNIC_TX_COMPLETED_REMOTE], done);
	u64_stats_update_end(&q->comp_stats.syncp);

	netdev_tx_completed_queue(q->txq, done, bytes);
	/* Pairs with the barrier after netif_tx_stop_queue() in the xmit */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(q->txq)) &&
	    alf_queue_avail_space(q->tx_ring) >= VNIC_TX_WAKE &&
	    !READ_ONCE(q->priv->down)) {
		netif_tx_wake_queue(q->txq);
		u64_stats_update_begin(&q->comp_stats.syncp);
		u64_stats_inc(&q->comp_stats.v[VNIC_TX_WAKE_COUNT]);
		u64_stats_update_end(&q->comp_stats.syncp);
	}
	return done < VNIC_TX_WORK_LIMIT;
}

/* Stop the queue if the ring is full (ixgbe_maybe_stop_tx()); true if so */
static bool vnic_maybe_stop_tx(struct vnic_queue *q)
{
	if (likely(alf_queue_avail_space(q->tx_ring)))
		return false;
	netif_tx_stop_queue(q->txq);
	/* Pairs with the barrier of the completion before its wake test */
	smp_mb();
	if (likely(!alf_queue_avail_space(q->tx_ring)))
		return true;
	/* The completion made room meanwhile */
	netif_tx_start_queue(q->txq);
	vnic_xmit_stat_add(q, VNIC_TX_RESTART, 1);
	return false;
}

/* ixgbe_xmit_frame_ring() */
netdev_tx_t vnic_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct vnic_priv *p = netdev_priv(dev);
	struct vnic_queue *q = p->q[skb_get_queue_mapping(skb)];
	unsigned int len = skb->len;
	void *obj = skb;

	if (unlikely(vnic_maybe_stop_tx(q))) {
		vnic_xmit_stat_add(q, VNIC_TX_BUSY, 1);
		return NETDEV_TX_BUSY;
	}
	skb_tx_timestamp(skb);
	/* BQL first: the completion may run as soon as the skb is queued */
	netdev_tx_sent_queue(q->txq, len);
	if (unlikely(!alf_sp_enqueue(q->tx_ring, &obj, 1))) {
		/* Cannot happen: one producer, and there was room */
		dev_kfree_skb_any(skb);
		vnic_xmit_stat_add(q, VNIC_TX_DROPPED, 1);
		return NETDEV_TX_OK;
	}

	u64_stats_update_begin(&q->xmit_stats.syncp);
	u64_stats_inc(&q->xmit_stats.v[VNIC_TX_XMIT]);
	u64_stats_add(&q->xmit_stats.v[VNIC_TX_BYTES], len);
	u64_stats_update_end(&q->xmit_stats.syncp);

	if (vnic_maybe_stop_tx(q))
		vnic_xmit_stat_add(q, VNIC_TX_STOP, 1);
	/* The doorbell: the "hardware" sends, then raises the completion */
	if (!netdev_xmit_more() || netif_xmit_stopped(q->txq))
		vnic_kick_tx(q);
	return NETDEV_TX_OK;
}

/* Free what the TX ring still holds; NAPI disabled, queues stopped */
void vnic_clean_tx_ring(struct vnic_queue *q)
{
	unsigned int dropped = 0;
	void *obj;

	while (alf_sc_dequeue(q->tx_ring, &obj, 1)) {
		dev_kfree_skb_any(obj);
		dropped++;
	}
	if (dropped)
		vnic_xmit_stat_add(q, VNIC_TX_DROPPED, dropped);
	netdev_tx_reset_queue(q->txq);
}

/* ------------------------------------------------------------------ */
/* NAPI                                                                */

/* The TX-only vector, with tx_cpu set */
int vnic_tx_poll(struct napi_struct *napi, int budget)
{
	struct vnic_queue *q = container_of(napi, struct vnic_queue, tx_napi);

	if (!vnic_clean_tx(q, budget))
		return budget;
	if (budget > 0)
		napi_complete_done(napi, 0);
	return 0;
}
