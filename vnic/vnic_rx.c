// SPDX-License-Identifier: GPL-2.0
/*
 * vnic_rx.c - the RX path of qmp_vnic.ko, and the queue vector's NAPI
 * poll that runs it.
 *
 * RX (ixgbe_clean_rx_irq() with build_skb, 4 KiB pages): a ring of
 * page-split buffers: an order-0 page, two 2 KiB halves, a reference bias
 * (pagecnt_bias) so that handing a half to an skb costs no atomic; after
 * each frame the buffer flips to the other half and goes back to the ring
 * if the page's count shows that nobody else holds it
 * (ixgbe_can_reuse_rx_page()), else the ring drops its bias and a new
 * page takes the slot at the next refill (in batches of 16).  The
 * "hardware" writes the frame into the buffer at ixgbe's headroom: a
 * 60-byte Ethernet + IPv4 + UDP frame (no FCS) from a template, to the
 * device's own MAC address, the UDP source port telling the flow; the
 * flow's hash picks the queue through a 128-entry indirection table as
 * RSS does.  The skb is built around the buffer with napi_build_skb()
 * (mode "stock") or skb_pool_build_skb() (mode "pool"), then skb_reserve(),
 * __skb_put(), CHECKSUM_UNNECESSARY, the hash, skb_record_rx_queue(),
 * eth_type_trans(), napi_gro_receive().  A poll generates at most its
 * budget and stays scheduled while packets of the current request remain;
 * a failed skb (head) allocation leaves the frame in its buffer, counted,
 * and the poll tries again (as ixgbe leaves the descriptor).
 */
#include <linux/cpumask.h>
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/smp.h>

#include "vnic.h"

/* ixgbe_alloc_mapped_page() */
static bool vnic_alloc_page(struct vnic_rx_buffer *buf, u32 *stats)
{
	struct page *page;

	if (likely(buf->page))		/* a reused buffer */
		return true;
	page = dev_alloc_page();
	if (unlikely(!page)) {
		stats[VNIC_RX_PAGE_FAIL]++;
		return false;
	}
	/* The references the ring hands out, taken at once */
	page_ref_add(page, VNIC_RX_BIAS - 1);
	buf->page = page;
	buf->page_offset = 0;
	buf->pagecnt_bias = VNIC_RX_BIAS;
	stats[VNIC_RX_PAGE_ALLOC]++;
	return true;
}

/* ixgbe_alloc_rx_buffers(): give @count buffers to the "hardware" */
void __noendbr vnic_alloc_rx_buffers(struct vnic_queue *q,
				    unsigned int count, u32 *stats)
{
	unsigned int i = q->ntu;

	while (count--) {
		if (!vnic_alloc_page(&q->rx_buf[i], stats))
			break;
		if (++i == rx_ring)
			i = 0;
	}
	if (q->ntu != i) {
		q->ntu = i;
		q->nta = i;
	}
}

/* ixgbe_can_reuse_rx_page(); @pgcnt: the page's count before the frame */
static bool vnic_can_reuse_page(struct vnic_rx_buffer *buf,
				unsigned int pgcnt)
{
	struct page *page = buf->page;

	if (!dev_page_is_reusable(page))
		return false;
	/* Somebody else (the other half's skb) still holds the page */
	if (unlikely(pgcnt - buf->pagecnt_bias > 1))
		return false;
	if (unlikely(buf->pagecnt_bias == 1)) {
		page_ref_add(page, VNIC_RX_BIAS - 1);
		buf->pagecnt_bias = VNIC_RX_BIAS;
	}
	return true;
}

/* ixgbe_put_rx_buffer(): back to the ring, or left to the skbs */
static void vnic_put_rx_buffer(struct vnic_queue *q,
			       struct vnic_rx_buffer *buf, unsigned int pgcnt,
			       u32 *stats)
{
	if (vnic_can_reuse_page(buf, pgcnt)) {
		/* ixgbe_reuse_rx_page() */
		struct vnic_rx_buffer *new_buf = &q->rx_buf[q->nta];

		if (++q->nta == rx_ring)
			q->nta = 0;
		new_buf->page = buf->page;
		new_buf->page_offset = buf->page_offset;
		new_buf->pagecnt_bias = buf->pagecnt_bias;
		stats[VNIC_RX_PAGE_REUSE]++;
	} else {
		__page_frag_cache_drain(buf->page, buf->pagecnt_bias);
		stats[VNIC_RX_PAGE_RELEASE]++;
	}
	buf->page = NULL;
}

/* The "hardware" writes the queue's next frame at @data */
static const struct vnic_flow *vnic_dma_frame(struct vnic_queue *q,
					      void *data)
{
	const struct vnic_flow *flow =
		&q->priv->flow[q->flow_first + q->flow_pos];

	memcpy(data, q->priv->frame, VNIC_FRAME_LEN);
	memcpy(data + VNIC_SPORT_OFF, &flow->sport, sizeof(flow->sport));
	return flow;
}

/* Whether the RX poll generates here: on the queue's CPU (RSS) */
static bool vnic_rx_here(struct vnic_queue *q)
{
	/* Threaded NAPI and busy polling run where they run */
	return q->cpu == smp_processor_id() || !in_serving_softirq() ||
	       !cpu_online(q->cpu);
}

/*
 * ixgbe_clean_rx_irq(): up to @budget frames of the pending ones; *more
 * when the poll must stay scheduled (frames left, or an allocation
 * failed: the frame is tried again).
 */
static int vnic_clean_rx(struct vnic_queue *q, int budget, bool *more)
{
	struct vnic_priv *p = q->priv;
	s64 done = atomic64_read(&q->rx_done);
	s64 todo = atomic64_read(&q->rx_requested) - done;
	bool pool = READ_ONCE(p->mode) == VNIC_POOL;
	unsigned int cleaned = vnic_desc_unused(q);
	u32 stats[VNIC_RX_NSTATS] = {};
	bool stall = false;
	int work = 0;

	if (todo <= 0 || READ_ONCE(p->down))
		return 0;
	while (work < min_t(s64, todo, budget)) {
		const struct vnic_flow *flow;
		struct vnic_rx_buffer *buf;
		struct sk_buff *skb;
		unsigned int pgcnt;
		void *va;

		/* Give buffers back in batches; none posted: try now */
		if (cleaned >= VNIC_RX_BUFFER_WRITE || q->ntc == q->ntu) {
			vnic_alloc_rx_buffers(q, cleaned, stats);
			cleaned = vnic_desc_unused(q);
			if (unlikely(q->ntc == q->ntu)) {
				stall = true;
				break;
			}
		}

		buf = &q->rx_buf[q->ntc];
		pgcnt = page_count(buf->page);
		va = page_address(buf->page) + buf->page_offset;
		flow = vnic_dma_frame(q, va + VNIC_RX_HEADROOM);
		buf->pagecnt_bias--;

		/* ixgbe_build_skb() */
		skb = pool ? skb_pool_build_skb(va, VNIC_RX_TRUESIZE) :
			     napi_build_skb(va, VNIC_RX_TRUESIZE);
		if (unlikely(!skb)) {
			buf->pagecnt_bias++;
			stats[VNIC_RX_ALLOC_FAIL]++;
			stall = true;
			break;
		}
		skb_reserve(skb, VNIC_RX_HEADROOM);
		__skb_put(skb, VNIC_FRAME_LEN);
		buf->page_offset ^= VNIC_RX_TRUESIZE;

		vnic_put_rx_buffer(q, buf, pgcnt, stats);
		if (++q->ntc == rx_ring)
			q->ntc = 0;
		cleaned++;

		/* ixgbe_process_skb_fields() */
		stats[VNIC_RX_BYTES] += skb->len;
		skb_set_hash(skb, flow->hash, PKT_HASH_TYPE_L4);
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		skb_record_rx_queue(skb, q->index);
		skb->protocol = eth_type_trans(skb, p->dev);
		napi_gro_receive(&q->napi, skb);

		if (++q->flow_pos == q->flow_count)
			q->flow_pos = 0;
		work++;
	}
	/* release: the frames' reads of the configuration are done */
	atomic64_set_release(&q->rx_done, done + work);
	stats[VNIC_RX_GENERATED] = work;
	vnic_rx_stats_add(q, stats);
	*more = stall || todo > work;
	return work;
}

/* Drop the ring's pages (ixgbe_clean_rx_ring()); NAPI disabled */
void vnic_clean_rx_ring(struct vnic_queue *q)
{
	unsigned int i;

	for (i = 0; i < rx_ring; i++) {
		struct vnic_rx_buffer *buf = &q->rx_buf[i];

		if (buf->page)
			__page_frag_cache_drain(buf->page, buf->pagecnt_bias);
		buf->page = NULL;
	}
	q->ntc = 0;
	q->ntu = 0;
	q->nta = 0;
}

/* ------------------------------------------------------------------ */
/* NAPI                                                                */

/* The queue vector (ixgbe_poll()): TX completion, then RX */
int vnic_poll(struct napi_struct *napi, int budget)
{
	struct vnic_queue *q = container_of(napi, struct vnic_queue, napi);
	bool clean_complete = true, more = false;
	int work = 0;

	if (!q->priv->tx_split)
		clean_complete = vnic_clean_tx(q, budget);
	if (budget <= 0)		/* netpoll: TX only */
		return budget;
	if (vnic_rx_here(q))
		work = vnic_clean_rx(q, budget, &more);
	if (!clean_complete || more)
		return budget;
	work = min(work, budget - 1);
	/* Frames pending for another CPU (this poll ran elsewhere): kick it */
	if (napi_complete_done(napi, work) && vnic_rx_pending(q) &&
	    !vnic_rx_here(q))
		vnic_kick_rx(q);
	return work;
}
