// SPDX-License-Identifier: GPL-2.0
/*
 * qmp_vnic.ko - a virtual NIC whose NAPI paths do what ixgbe's default
 * paths do, so that the skb head pool (skb_pool.ko) can be measured
 * against the kernel's NAPI skb cache on a real packet path (RX -> stack
 * -> drop or IP forward -> TX -> TX completion) where no ixgbe exists
 * (QEMU emulates none, User-Mode Linux has no PCI).
 *
 * Devices vnic0..vnic<ndev-1>, each with @queues queue pairs; queue i
 * belongs to one CPU (its "interrupt" CPU, RSS-like), with one NAPI
 * instance (ixgbe's q_vector) that cleans the TX ring, then the RX ring.
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
 *
 * Control and counters: /sys/kernel/debug/qmp_vnic/<dev>/ (see
 * vnic_debugfs_create()), ndo_get_stats64 and ethtool -S.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/alf_queue.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/gfp.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/u64_stats_sync.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <qmp/version.h>

#define VNIC_MAX_DEVS		16
#define VNIC_MAX_FLOWS		65535
#define VNIC_MAX_RX_COUNT	(1ULL << 48)	/* per write to rx_count */

/* RX buffers: ixgbe's with 4 KiB pages and a 1500-byte MTU */
#define VNIC_RX_TRUESIZE	2048		/* half an order-0 page */
#define VNIC_RX_BUFSZ		1536		/* IXGBE_RXBUFFER_1536 */
#define VNIC_RX_HEADROOM	(SKB_WITH_OVERHEAD(VNIC_RX_TRUESIZE) - \
				 VNIC_RX_BUFSZ + NET_IP_ALIGN)
#define VNIC_RX_BUFFER_WRITE	16		/* refill batch */
#define VNIC_RX_BIAS		USHRT_MAX	/* page references held ahead */

/* TX: ixgbe's default work limit per poll */
#define VNIC_TX_WORK_LIMIT	256
#define VNIC_TX_BULK		16		/* skbs dequeued at a time */
#define VNIC_TX_WAKE		32		/* free slots to wake a queue */

/* The generated frames */
#define VNIC_FRAME_LEN		ETH_ZLEN	/* 60 bytes, no FCS */
#define VNIC_UDP_DPORT		9		/* discard */
#define VNIC_SPORT_OFF		(ETH_HLEN + sizeof(struct iphdr))
#define VNIC_RETA_SIZE		128		/* RSS indirection table */
#define VNIC_RSS_SEED		0x51564e43

enum vnic_mode { VNIC_STOCK, VNIC_POOL };
static const char * const vnic_mode_names[] = { "stock", "pool" };

static unsigned int ndev = 2;
module_param(ndev, uint, 0444);
MODULE_PARM_DESC(ndev, "Devices vnic0.. (1..16, default 2)");
static unsigned int queues;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "Queues per device (default 0: one per online CPU)");
static char *mode = "stock";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "skb heads: stock (napi_build_skb/napi_consume_skb) or pool (skb_pool); per device in debugfs");
static int tx_cpu = -1;
module_param(tx_cpu, int, 0444);
MODULE_PARM_DESC(tx_cpu, "CPU of every TX completion (default -1: the transmitting CPU)");
static unsigned int flows = 1;
module_param(flows, uint, 0444);
MODULE_PARM_DESC(flows, "UDP flows generated (1..65535, default 1)");
static unsigned int rx_ring = 512;
module_param(rx_ring, uint, 0444);
MODULE_PARM_DESC(rx_ring, "RX ring entries (64..4096, default 512)");
static unsigned int tx_ring = 512;
module_param(tx_ring, uint, 0444);
MODULE_PARM_DESC(tx_ring, "TX ring entries (power of two, 64..4096, default 512)");

/*
 * Counters of a queue, in three groups of one writer each: the RX poll,
 * ndo_start_xmit (under the TX lock; ndo_stop after the queues are
 * stopped), the TX completion poll; and two atomics.  The names are in
 * this order (vnic_stat_names).
 */
enum {
	VNIC_RX_GENERATED,	/* frames given to the stack */
	VNIC_RX_BYTES,
	VNIC_RX_ALLOC_FAIL,	/* skb allocation failures (frame retried) */
	VNIC_RX_PAGE_ALLOC,	/* pages allocated for the ring */
	VNIC_RX_PAGE_FAIL,	/* page allocation failures */
	VNIC_RX_PAGE_REUSE,	/* buffers flipped and put back */
	VNIC_RX_PAGE_RELEASE,	/* pages left to the stack's skbs */
	VNIC_RX_DISCARDED,	/* requested frames dropped by ndo_stop */
	VNIC_RX_NSTATS
};

enum {
	VNIC_TX_XMIT,		/* skbs taken by ndo_start_xmit */
	VNIC_TX_BYTES,
	VNIC_TX_BUSY,		/* NETDEV_TX_BUSY returns */
	VNIC_TX_STOP,		/* queue stops */
	VNIC_TX_RESTART,	/* stops undone at once */
	VNIC_TX_DROPPED,	/* skbs freed untransmitted (ndo_stop) */
	VNIC_XMIT_NSTATS
};

enum {
	VNIC_TX_COMPLETED,	/* skbs freed by the TX completion */
	VNIC_TX_COMPLETED_BYTES,
	VNIC_TX_COMPLETED_REMOTE, /* ... on another CPU than the queue's */
	VNIC_TX_WAKE_COUNT,	/* queue wakes */
	VNIC_COMP_NSTATS
};

#define VNIC_XMIT_BASE	VNIC_RX_NSTATS
#define VNIC_COMP_BASE	(VNIC_XMIT_BASE + VNIC_XMIT_NSTATS)
#define VNIC_IPI_BASE	(VNIC_COMP_BASE + VNIC_COMP_NSTATS)
#define VNIC_NSTATS	(VNIC_IPI_BASE + 2)

static const char vnic_stat_names[VNIC_NSTATS][ETH_GSTRING_LEN] = {
	"rx_generated", "rx_bytes", "rx_alloc_fail", "rx_page_alloc",
	"rx_page_fail", "rx_page_reuse", "rx_page_release", "rx_discarded",
	"tx_xmit", "tx_bytes", "tx_busy", "tx_stop", "tx_restart",
	"tx_dropped",
	"tx_completed", "tx_completed_bytes", "tx_completed_remote", "tx_wake",
	"rx_ipi", "tx_ipi",
};

struct vnic_rx_stats {
	struct u64_stats_sync syncp;
	u64_stats_t v[VNIC_RX_NSTATS];
};

struct vnic_xmit_stats {
	struct u64_stats_sync syncp;
	u64_stats_t v[VNIC_XMIT_NSTATS];
};

struct vnic_comp_stats {
	struct u64_stats_sync syncp;
	u64_stats_t v[VNIC_COMP_NSTATS];
};

/**
 * struct vnic_rx_buffer - an RX ring entry (ixgbe_rx_buffer)
 * @page: an order-0 page, or NULL
 * @page_offset: the half the next frame goes to (0 or VNIC_RX_TRUESIZE)
 * @pagecnt_bias: references of @page the ring holds
 */
struct vnic_rx_buffer {
	struct page *page;
	unsigned int page_offset;
	unsigned int pagecnt_bias;
};

/**
 * struct vnic_flow - a generated flow
 * @sport: its UDP source port
 * @hash: its RSS hash
 */
struct vnic_flow {
	__be16 sport;
	u32 hash;
};

/* Bits of vnic_queue.kick: an IPI of that kind is on its way */
enum { VNIC_KICK_RX, VNIC_KICK_TX };

struct vnic_priv;

/**
 * struct vnic_queue - a queue pair and its NAPI instances
 * @napi: the queue vector: TX completion (unless @tx_napi does it), RX
 * @rx_buf: the RX ring
 * @ntc: next_to_clean, the buffer of the next frame
 * @ntu: next_to_use, the first buffer not given to the "hardware"
 * @nta: next_to_alloc, where the next reused buffer goes
 * @flow_pos: the queue's next flow, in its part of vnic_priv.flow
 * @rx_done: frames generated (written by the RX poll only)
 * @rx_stats: RX counters (RX poll; ndo_open/ndo_stop with NAPI off)
 * @rx_requested: frames requested through rx_count
 * @xmit_stats: ndo_start_xmit's counters
 * @tx_napi: the TX-only vector, with tx_cpu set
 * @comp_stats: the TX completion's counters
 * @kick: VNIC_KICK_* bits
 * @rx_csd: IPI that schedules @napi on @cpu
 * @tx_csd: IPI that schedules @tx_napi on tx_cpu
 * @rx_ipi: IPIs sent through @rx_csd
 * @tx_ipi: IPIs sent through @tx_csd
 * @priv: the device
 * @txq: the device's TX queue
 * @tx_ring: the TX ring (ALF queue, single producer, single consumer)
 * @flow_first: the queue's first flow in vnic_priv.flow
 * @flow_count: the queue's number of flows
 * @index: queue number
 * @cpu: the queue's CPU (RX generation, the vector's "interrupt")
 */
struct vnic_queue {
	struct napi_struct napi;
	struct vnic_rx_buffer *rx_buf;
	unsigned int ntc;
	unsigned int ntu;
	unsigned int nta;
	unsigned int flow_pos;
	atomic64_t rx_done;
	struct vnic_rx_stats rx_stats;

	atomic64_t rx_requested ____cacheline_aligned_in_smp;

	struct vnic_xmit_stats xmit_stats ____cacheline_aligned_in_smp;

	struct napi_struct tx_napi ____cacheline_aligned_in_smp;
	struct vnic_comp_stats comp_stats;

	unsigned long kick ____cacheline_aligned_in_smp;
	call_single_data_t rx_csd;
	call_single_data_t tx_csd;
	atomic64_t rx_ipi;
	atomic64_t tx_ipi;

	struct vnic_priv *priv ____cacheline_aligned_in_smp;
	struct netdev_queue *txq;
	struct alf_queue *tx_ring;
	unsigned int flow_first;
	unsigned int flow_count;
	unsigned int index;
	int cpu;
};

/**
 * struct vnic_priv - a device
 * @dev: the net device
 * @q: its queues
 * @nq: their number
 * @mode: enum vnic_mode (read once per frame and per completion)
 * @down: not running: no kick, no generation, no wake
 * @tx_split: TX completion by the TX-only vectors, on tx_cpu
 * @frame: the template of the generated frames
 * @saddr: their IPv4 source
 * @daddr: their IPv4 destination
 * @nflows: number of flows
 * @flow: the flows, grouped by queue (vnic_queue.flow_first)
 * @flow_queue: the queue of each flow
 * @flow_next: the flow of the next requested frame
 * @requested: frames requested since load
 * @reta: RSS indirection table
 * @debugfs: the device's debugfs directory
 *
 * The generator's configuration changes under RTNL, only while no frame
 * is pending (the RX polls read it only while frames are pending).
 */
struct vnic_priv {
	struct net_device *dev;
	struct vnic_queue **q;
	unsigned int nq;
	int mode;
	bool down;
	bool tx_split;
	u8 frame[VNIC_FRAME_LEN];
	__be32 saddr;
	__be32 daddr;
	unsigned int nflows;
	struct vnic_flow *flow;
	u16 *flow_queue;
	unsigned int flow_next;
	u64 requested;
	u16 reta[VNIC_RETA_SIZE];
	struct dentry *debugfs;
};

static struct net_device *vnic_devs[VNIC_MAX_DEVS];
static struct dentry *vnic_debugfs_root;
static int vnic_default_mode;

/* ------------------------------------------------------------------ */
/* Counters                                                            */

/* A queue's counters, in vnic_stat_names order */
static void vnic_queue_stats(struct vnic_queue *q, u64 *v)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&q->rx_stats.syncp);
		for (i = 0; i < VNIC_RX_NSTATS; i++)
			v[i] = u64_stats_read(&q->rx_stats.v[i]);
	} while (u64_stats_fetch_retry(&q->rx_stats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&q->xmit_stats.syncp);
		for (i = 0; i < VNIC_XMIT_NSTATS; i++)
			v[VNIC_XMIT_BASE + i] =
				u64_stats_read(&q->xmit_stats.v[i]);
	} while (u64_stats_fetch_retry(&q->xmit_stats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&q->comp_stats.syncp);
		for (i = 0; i < VNIC_COMP_NSTATS; i++)
			v[VNIC_COMP_BASE + i] =
				u64_stats_read(&q->comp_stats.v[i]);
	} while (u64_stats_fetch_retry(&q->comp_stats.syncp, start));
	v[VNIC_IPI_BASE] = atomic64_read(&q->rx_ipi);
	v[VNIC_IPI_BASE + 1] = atomic64_read(&q->tx_ipi);
}

static void vnic_rx_stats_add(struct vnic_queue *q, const u32 *add)
{
	unsigned int i;

	u64_stats_update_begin(&q->rx_stats.syncp);
	for (i = 0; i < VNIC_RX_NSTATS; i++)
		if (add[i])
			u64_stats_add(&q->rx_stats.v[i], add[i]);
	u64_stats_update_end(&q->rx_stats.syncp);
}

static void vnic_xmit_stat_add(struct vnic_queue *q, unsigned int stat,
			       unsigned int val)
{
	u64_stats_update_begin(&q->xmit_stats.syncp);
	u64_stats_add(&q->xmit_stats.v[stat], val);
	u64_stats_update_end(&q->xmit_stats.syncp);
}

/* Frames requested and not generated yet */
static u64 vnic_rx_pending(struct vnic_queue *q)
{
	/* acquire: the poll that generated them is done with them */
	s64 done = atomic64_read_acquire(&q->rx_done);

	return atomic64_read(&q->rx_requested) - done;
}

static u64 vnic_dev_rx_pending(struct vnic_priv *p)
{
	u64 pending = 0;
	unsigned int i;

	for (i = 0; i < p->nq; i++)
		pending += vnic_rx_pending(p->q[i]);
	return pending;
}

static u64 vnic_dev_tx_pending(struct vnic_priv *p)
{
	u64 pending = 0;
	unsigned int i;

	for (i = 0; i < p->nq; i++)
		pending += alf_queue_count(p->q[i]->tx_ring);
	return pending;
}

/* ------------------------------------------------------------------ */
/* Interrupts: NAPI scheduled on a given CPU                           */

static void vnic_rx_ipi(void *info)
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

static void vnic_tx_ipi(void *info)
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

static void vnic_kick_rx(struct vnic_queue *q)
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
/* RX                                                                  */

/* ixgbe_desc_unused(): buffers not given to the "hardware" (one kept) */
static unsigned int vnic_desc_unused(struct vnic_queue *q)
{
	return (q->ntc > q->ntu ? 0 : rx_ring) + q->ntc - q->ntu - 1;
}

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
static void vnic_alloc_rx_buffers(struct vnic_queue *q, unsigned int count,
				  u32 *stats)
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
static void vnic_clean_rx_ring(struct vnic_queue *q)
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
/* TX                                                                  */

/* ixgbe_clean_tx_irq(): true if the ring was cleaned within the limit */
static bool vnic_clean_tx(struct vnic_queue *q, int napi_budget)
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
static netdev_tx_t vnic_xmit(struct sk_buff *skb, struct net_device *dev)
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
static void vnic_clean_tx_ring(struct vnic_queue *q)
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

/* The queue vector (ixgbe_poll()): TX completion, then RX */
static int vnic_poll(struct napi_struct *napi, int budget)
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

/* The TX-only vector, with tx_cpu set */
static int vnic_tx_poll(struct napi_struct *napi, int budget)
{
	struct vnic_queue *q = container_of(napi, struct vnic_queue, tx_napi);

	if (!vnic_clean_tx(q, budget))
		return budget;
	if (budget > 0)
		napi_complete_done(napi, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The generator's configuration                                       */

/* The template frame: Ethernet + IPv4 + UDP, 60 bytes, no FCS */
static void vnic_build_frame(struct vnic_priv *p)
{
	static const u8 peer[ETH_ALEN] = { 0x02, 'Q', 'M', 'P', 0xff, 0xfe };
	struct ethhdr *eth = (struct ethhdr *)p->frame;
	struct iphdr *iph = (struct iphdr *)(eth + 1);
	struct udphdr *uh = (struct udphdr *)(iph + 1);

	memset(p->frame, 0, sizeof(p->frame));
	ether_addr_copy(eth->h_dest, p->dev->dev_addr);
	ether_addr_copy(eth->h_source, peer);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tot_len = htons(VNIC_FRAME_LEN - ETH_HLEN);
	iph->frag_off = htons(IP_DF);
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = p->saddr;
	iph->daddr = p->daddr;
	iph->check = ip_fast_csum(iph, iph->ihl);
	uh->dest = htons(VNIC_UDP_DPORT);
	uh->len = htons(VNIC_FRAME_LEN - ETH_HLEN - sizeof(*iph));
	/* uh->source: the flow's, per frame; uh->check: 0, none */
}

/*
 * Set the number of flows (and rebuild the template): RTNL held, no frame
 * pending.  Each flow's hash picks its queue through the indirection
 * table; p->flow holds the flows grouped by queue, in flow order.
 */
static int vnic_set_flows(struct vnic_priv *p, unsigned int nflows)
{
	struct vnic_flow *flow, *old_flow = p->flow;
	u16 *flow_queue, *old_queue = p->flow_queue;
	unsigned int f, i, *pos;

	flow = kvcalloc(nflows, sizeof(*flow), GFP_KERNEL);
	flow_queue = kvcalloc(nflows, sizeof(*flow_queue), GFP_KERNEL);
	pos = kcalloc(p->nq, sizeof(*pos), GFP_KERNEL);
	if (!flow || !flow_queue || !pos) {
		kvfree(flow);
		kvfree(flow_queue);
		kfree(pos);
		return -ENOMEM;
	}
	vnic_build_frame(p);
	for (i = 0; i < p->nq; i++)
		p->q[i]->flow_count = 0;
	for (f = 0; f < nflows; f++) {
		u32 hash = jhash_3words(ntohl(p->saddr), ntohl(p->daddr),
					(f + 1) << 16 | VNIC_UDP_DPORT,
					VNIC_RSS_SEED);

		flow_queue[f] = p->reta[hash % VNIC_RETA_SIZE];
		p->q[flow_queue[f]]->flow_count++;
	}
	for (i = 0; i < p->nq; i++) {
		p->q[i]->flow_first = i ? p->q[i - 1]->flow_first +
					  p->q[i - 1]->flow_count : 0;
		p->q[i]->flow_pos = 0;
		pos[i] = p->q[i]->flow_first;
	}
	for (f = 0; f < nflows; f++) {
		struct vnic_flow *fl = &flow[pos[flow_queue[f]]++];

		fl->sport = htons(f + 1);
		fl->hash = jhash_3words(ntohl(p->saddr), ntohl(p->daddr),
					(f + 1) << 16 | VNIC_UDP_DPORT,
					VNIC_RSS_SEED);
	}
	kfree(pos);
	p->flow = flow;
	p->flow_queue = flow_queue;
	p->nflows = nflows;
	p->flow_next = 0;
	kvfree(old_flow);
	kvfree(old_queue);
	return 0;
}

/*
 * Request @n more frames: flow after flow from p->flow_next, each to its
 * queue; then kick the queues that got some.  RTNL held, device running.
 */
static int vnic_request(struct vnic_priv *p, u64 n)
{
	u64 cycles = div_u64(n, p->nflows), *count;
	unsigned int rem = n - cycles * p->nflows, f, i;

	count = kcalloc(p->nq, sizeof(*count), GFP_KERNEL);
	if (!count)
		return -ENOMEM;
	for (i = 0; i < p->nq; i++)
		count[i] = cycles * p->q[i]->flow_count;
	for (f = p->flow_next; rem; rem--) {
		count[p->flow_queue[f]]++;
		if (++f == p->nflows)
			f = 0;
	}
	p->flow_next = f;
	p->requested += n;
	local_bh_disable();
	for (i = 0; i < p->nq; i++) {
		if (!count[i])
			continue;
		atomic64_add(count[i], &p->q[i]->rx_requested);
		vnic_kick_rx(p->q[i]);
	}
	local_bh_enable();
	kfree(count);
	return 0;
}

/* ------------------------------------------------------------------ */
/* net_device_ops, ethtool_ops                                         */

static int vnic_open(struct net_device *dev)
{
	struct vnic_priv *p = netdev_priv(dev);
	unsigned int i;

	for (i = 0; i < p->nq; i++) {
		struct vnic_queue *q = p->q[i];
		u32 stats[VNIC_RX_NSTATS] = {};

		/* Pages the poll cannot have now, it tries again to get */
		local_bh_disable();
		vnic_alloc_rx_buffers(q, vnic_desc_unused(q), stats);
		vnic_rx_stats_add(q, stats);
		local_bh_enable();
		netdev_tx_reset_queue(q->txq);
	}
	WRITE_ONCE(p->down, false);
	for (i = 0; i < p->nq; i++) {
		napi_enable(&p->q[i]->napi);
		if (p->tx_split)
			napi_enable(&p->q[i]->tx_napi);
	}
	netif_carrier_on(dev);
	netif_tx_start_all_queues(dev);
	return 0;
}

static int vnic_stop(struct net_device *dev)
{
	struct vnic_priv *p = netdev_priv(dev);
	unsigned int i;

	WRITE_ONCE(p->down, true);
	/* Pairs with test_and_set_bit() in vnic_kick() */
	smp_mb();
	netif_carrier_off(dev);
	netif_tx_disable(dev);
	/* No IPI in flight: none sent from now on, the last ones returned */
	for (i = 0; i < p->nq; i++)
		while (READ_ONCE(p->q[i]->kick))
			usleep_range(10, 100);
	synchronize_rcu();
	for (i = 0; i < p->nq; i++) {
		struct vnic_queue *q = p->q[i];
		u32 stats[VNIC_RX_NSTATS] = {};
		s64 left;

		napi_disable(&q->napi);
		if (p->tx_split)
			napi_disable(&q->tx_napi);
		vnic_clean_tx_ring(q);
		vnic_clean_rx_ring(q);
		/* Pending frames are dropped (RTNL: no request meanwhile) */
		left = atomic64_read(&q->rx_requested) -
		       atomic64_read(&q->rx_done);
		atomic64_set(&q->rx_requested, atomic64_read(&q->rx_done));
		stats[VNIC_RX_DISCARDED] = left;
		local_bh_disable();
		vnic_rx_stats_add(q, stats);
		local_bh_enable();
	}
	return 0;
}

static void vnic_get_stats64(struct net_device *dev,
			     struct rtnl_link_stats64 *s)
{
	struct vnic_priv *p = netdev_priv(dev);
	u64 v[VNIC_NSTATS];
	unsigned int i;

	for (i = 0; i < p->nq; i++) {
		vnic_queue_stats(p->q[i], v);
		s->rx_packets += v[VNIC_RX_GENERATED];
		s->rx_bytes += v[VNIC_RX_BYTES];
		s->tx_packets += v[VNIC_COMP_BASE + VNIC_TX_COMPLETED];
		s->tx_bytes += v[VNIC_COMP_BASE + VNIC_TX_COMPLETED_BYTES];
		s->tx_dropped += v[VNIC_XMIT_BASE + VNIC_TX_DROPPED];
	}
}

static const struct net_device_ops vnic_netdev_ops = {
	.ndo_open		= vnic_open,
	.ndo_stop		= vnic_stop,
	.ndo_start_xmit		= vnic_xmit,
	.ndo_get_stats64	= vnic_get_stats64,
	.ndo_validate_addr	= eth_validate_addr,
};

static void vnic_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->version, QMP_VERSION, sizeof(info->version));
	strscpy(info->bus_info, "virtual", sizeof(info->bus_info));
}

static int vnic_get_sset_count(struct net_device *dev, int sset)
{
	struct vnic_priv *p = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return VNIC_NSTATS * (1 + p->nq);
}

/* The totals, then each queue's counters as q<N>_<name> */
static void vnic_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct vnic_priv *p = netdev_priv(dev);
	unsigned int i, s;

	if (sset != ETH_SS_STATS)
		return;
	/* ethtool_puts() is 6.8+ */
	for (s = 0; s < VNIC_NSTATS; s++, data += ETH_GSTRING_LEN)
		strscpy(data, vnic_stat_names[s], ETH_GSTRING_LEN);
	for (i = 0; i < p->nq; i++)
		for (s = 0; s < VNIC_NSTATS; s++)
			ethtool_sprintf(&data, "q%u_%s", i,
					vnic_stat_names[s]);
}

static void vnic_get_ethtool_stats(struct net_device *dev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct vnic_priv *p = netdev_priv(dev);
	u64 *total = data, *v = data + VNIC_NSTATS;
	unsigned int i, s;

	memset(total, 0, VNIC_NSTATS * sizeof(*total));
	for (i = 0; i < p->nq; i++, v += VNIC_NSTATS) {
		vnic_queue_stats(p->q[i], v);
		for (s = 0; s < VNIC_NSTATS; s++)
			total[s] += v[s];
	}
}

static const struct ethtool_ops vnic_ethtool_ops = {
	.get_drvinfo		= vnic_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= vnic_get_sset_count,
	.get_strings		= vnic_get_strings,
	.get_ethtool_stats	= vnic_get_ethtool_stats,
};

/* ------------------------------------------------------------------ */
/* debugfs: /sys/kernel/debug/qmp_vnic/<dev>/                          */

static int vnic_stats_show(struct seq_file *m, void *unused)
{
	struct vnic_priv *p = m->private;
	u64 total[VNIC_NSTATS] = {}, (*v)[VNIC_NSTATS];
	unsigned int i, s;

	v = kcalloc(p->nq, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nq; i++) {
		vnic_queue_stats(p->q[i], v[i]);
		for (s = 0; s < VNIC_NSTATS; s++)
			total[s] += v[i][s];
	}
	seq_printf(m, "mode %s\nqueues %u\ntx_cpu %d\nflows %u\n",
		   vnic_mode_names[READ_ONCE(p->mode)], p->nq,
		   p->tx_split ? tx_cpu : -1, READ_ONCE(p->nflows));
	seq_printf(m, "rx_pending %llu\ntx_pending %llu\n",
		   vnic_dev_rx_pending(p), vnic_dev_tx_pending(p));
	for (s = 0; s < VNIC_NSTATS; s++)
		seq_printf(m, "%s %llu\n", vnic_stat_names[s], total[s]);
	seq_puts(m, "queue cpu");
	for (s = 0; s < VNIC_NSTATS; s++)
		seq_printf(m, " %s", vnic_stat_names[s]);
	seq_putc(m, '\n');
	for (i = 0; i < p->nq; i++) {
		seq_printf(m, "%u %d", i, p->q[i]->cpu);
		for (s = 0; s < VNIC_NSTATS; s++)
			seq_printf(m, " %llu", v[i][s]);
		seq_putc(m, '\n');
	}
	kfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vnic_stats);

static int vnic_rx_pending_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%llu\n", vnic_dev_rx_pending(m->private));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vnic_rx_pending);

static int vnic_tx_pending_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%llu\n", vnic_dev_tx_pending(m->private));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vnic_tx_pending);

/* The device of a writable debugfs file (opened with single_open()) */
static struct vnic_priv *vnic_file_priv(struct file *file)
{
	return ((struct seq_file *)file->private_data)->private;
}

/* A writable file: NAME_show() and NAME_write() */
#define VNIC_DEBUGFS_RW(name)						\
static int name##_open(struct inode *inode, struct file *file)		\
{									\
	return single_open(file, name##_show, inode->i_private);	\
}									\
static const struct file_operations name##_fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= name##_open,					\
	.read		= seq_read,					\
	.write		= name##_write,					\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

static int vnic_rx_count_show(struct seq_file *m, void *unused)
{
	struct vnic_priv *p = m->private;

	rtnl_lock();
	seq_printf(m, "%llu\n", p->requested);
	rtnl_unlock();
	return 0;
}

static ssize_t vnic_rx_count_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct vnic_priv *p = vnic_file_priv(file);
	u64 n;
	int err = kstrtou64_from_user(ubuf, len, 0, &n);

	if (err)
		return err;
	if (n > VNIC_MAX_RX_COUNT)
		return -EINVAL;
	rtnl_lock();
	err = netif_running(p->dev) ? vnic_request(p, n) : -ENETDOWN;
	rtnl_unlock();
	return err ?: len;
}
VNIC_DEBUGFS_RW(vnic_rx_count);

static int vnic_flows_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%u\n", READ_ONCE(((struct vnic_priv *)m->private)->nflows));
	return 0;
}

static ssize_t vnic_flows_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct vnic_priv *p = vnic_file_priv(file);
	unsigned int n;
	int err = kstrtouint_from_user(ubuf, len, 0, &n);

	if (err)
		return err;
	if (n < 1 || n > VNIC_MAX_FLOWS)
		return -EINVAL;
	rtnl_lock();
	err = vnic_dev_rx_pending(p) ? -EBUSY : vnic_set_flows(p, n);
	rtnl_unlock();
	return err ?: len;
}
VNIC_DEBUGFS_RW(vnic_flows);

static int vnic_mode_show(struct seq_file *m, void *unused)
{
	struct vnic_priv *p = m->private;

	seq_printf(m, "%s\n", vnic_mode_names[READ_ONCE(p->mode)]);
	return 0;
}

static int vnic_parse_mode(const char *s)
{
	return sysfs_match_string(vnic_mode_names, s);
}

static ssize_t vnic_mode_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct vnic_priv *p = vnic_file_priv(file);
	char buf[16];
	int m;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	m = vnic_parse_mode(buf);
	if (m < 0)
		return m;
	/* Taken per frame and per completion: switches at any time */
	WRITE_ONCE(p->mode, m);
	return len;
}
VNIC_DEBUGFS_RW(vnic_mode);

/* ip_src and ip_dst: the addresses of the generated frames */
static int vnic_show_ip(struct seq_file *m, bool src)
{
	struct vnic_priv *p = m->private;

	rtnl_lock();
	seq_printf(m, "%pI4\n", src ? &p->saddr : &p->daddr);
	rtnl_unlock();
	return 0;
}

static ssize_t vnic_write_ip(struct file *file, const char __user *ubuf,
			     size_t len, bool src)
{
	struct vnic_priv *p = vnic_file_priv(file);
	__be32 addr, old;
	char buf[20];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (!in4_pton(strim(buf), -1, (u8 *)&addr, -1, NULL))
		return -EINVAL;
	rtnl_lock();
	err = -EBUSY;
	if (!vnic_dev_rx_pending(p)) {
		old = src ? p->saddr : p->daddr;
		*(src ? &p->saddr : &p->daddr) = addr;
		err = vnic_set_flows(p, p->nflows);
		if (err)
			*(src ? &p->saddr : &p->daddr) = old;
	}
	rtnl_unlock();
	return err ?: len;
}

static int vnic_ip_src_show(struct seq_file *m, void *unused)
{
	return vnic_show_ip(m, true);
}

static ssize_t vnic_ip_src_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	return vnic_write_ip(file, ubuf, len, true);
}
VNIC_DEBUGFS_RW(vnic_ip_src);

static int vnic_ip_dst_show(struct seq_file *m, void *unused)
{
	return vnic_show_ip(m, false);
}

static ssize_t vnic_ip_dst_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	return vnic_write_ip(file, ubuf, len, false);
}
VNIC_DEBUGFS_RW(vnic_ip_dst);

/*
 * The files of a device:
 *   rx_count    write N: generate N more frames (spread over the queues
 *               by flow); read: frames requested since load
 *   rx_pending  frames requested and not generated yet (0: run finished)
 *   tx_pending  skbs in the TX rings, not completed yet
 *   flows       1..65535 (written while nothing is pending)
 *   mode        stock or pool, at any time
 *   ip_src, ip_dst  the frames' addresses (while nothing is pending)
 *   stats       configuration, totals (one "name value" per line), then
 *               a table of the queues' counters
 */
static void vnic_debugfs_create(struct vnic_priv *p)
{
	struct dentry *d = debugfs_create_dir(netdev_name(p->dev),
					      vnic_debugfs_root);

	p->debugfs = d;
	debugfs_create_file("rx_count", 0644, d, p, &vnic_rx_count_fops);
	debugfs_create_file("rx_pending", 0444, d, p, &vnic_rx_pending_fops);
	debugfs_create_file("tx_pending", 0444, d, p, &vnic_tx_pending_fops);
	debugfs_create_file("flows", 0644, d, p, &vnic_flows_fops);
	debugfs_create_file("mode", 0644, d, p, &vnic_mode_fops);
	debugfs_create_file("ip_src", 0644, d, p, &vnic_ip_src_fops);
	debugfs_create_file("ip_dst", 0644, d, p, &vnic_ip_dst_fops);
	debugfs_create_file("stats", 0444, d, p, &vnic_stats_fops);
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */

static void vnic_free_queues(struct vnic_priv *p)
{
	unsigned int i;

	for (i = 0; i < p->nq; i++) {
		struct vnic_queue *q = p->q[i];

		if (!q)
			continue;
		netif_napi_del(&q->napi);
		if (p->tx_split)
			netif_napi_del(&q->tx_napi);
		if (!IS_ERR_OR_NULL(q->tx_ring))
			alf_queue_free(q->tx_ring);
		kfree(q->rx_buf);
		kfree(q);
	}
	kfree(p->q);
	kvfree(p->flow);
	kvfree(p->flow_queue);
}

static int vnic_alloc_queues(struct vnic_priv *p, const int *cpus)
{
	unsigned int i;

	p->q = kcalloc(p->nq, sizeof(*p->q), GFP_KERNEL);
	if (!p->q)
		return -ENOMEM;
	for (i = 0; i < p->nq; i++) {
		int node = cpu_to_node(cpus[i]);
		struct vnic_queue *q = kzalloc_node(sizeof(*q), GFP_KERNEL,
						    node);

		if (!q)
			return -ENOMEM;
		p->q[i] = q;
		q->priv = p;
		q->index = i;
		q->cpu = cpus[i];
		q->txq = netdev_get_tx_queue(p->dev, i);
		u64_stats_init(&q->rx_stats.syncp);
		u64_stats_init(&q->xmit_stats.syncp);
		u64_stats_init(&q->comp_stats.syncp);
		INIT_CSD(&q->rx_csd, vnic_rx_ipi, q);
		INIT_CSD(&q->tx_csd, vnic_tx_ipi, q);
		netif_napi_add(p->dev, &q->napi, vnic_poll);
		if (p->tx_split)
			netif_napi_add_tx(p->dev, &q->tx_napi, vnic_tx_poll);
		q->rx_buf = kcalloc_node(rx_ring, sizeof(*q->rx_buf),
					 GFP_KERNEL, node);
		if (!q->rx_buf)
			return -ENOMEM;
		q->tx_ring = alf_queue_alloc_flags(tx_ring,
						   ALF_SP_ENQ | ALF_SC_DEQ,
						   GFP_KERNEL);
		if (IS_ERR(q->tx_ring))
			return PTR_ERR(q->tx_ring);
	}
	return 0;
}

static void vnic_destroy(struct net_device *dev)
{
	struct vnic_priv *p = netdev_priv(dev);

	debugfs_remove_recursive(p->debugfs);
	if (dev->reg_state == NETREG_REGISTERED)
		unregister_netdev(dev);
	vnic_free_queues(p);
	free_netdev(dev);
}

static struct net_device *vnic_create(unsigned int id, unsigned int nq,
				      const int *cpus)
{
	u8 addr[ETH_ALEN] = { 0x02, 'Q', 'M', 'P', 0x00, id };
	struct net_device *dev;
	struct vnic_priv *p;
	unsigned int i;
	int err;

	dev = alloc_netdev_mqs(sizeof(*p), "vnic%d", NET_NAME_ENUM,
			       ether_setup, nq, nq);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	p = netdev_priv(dev);
	p->dev = dev;
	p->nq = nq;
	p->mode = vnic_default_mode;
	p->down = true;
	p->tx_split = tx_cpu >= 0;
	p->saddr = htonl(0xc6120002);		/* 198.18.0.2 */
	p->daddr = htonl(0xc6130002);		/* 198.19.0.2 */
	for (i = 0; i < VNIC_RETA_SIZE; i++)	/* ixgbe_setup_reta() */
		p->reta[i] = i % nq;

	dev->netdev_ops = &vnic_netdev_ops;
	dev->ethtool_ops = &vnic_ethtool_ops;
	dev->features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM |
			NETIF_F_HIGHDMA;
	dev->hw_features = dev->features;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_DATA_LEN;
	eth_hw_addr_set(dev, addr);
	netif_carrier_off(dev);

	err = vnic_alloc_queues(p, cpus);
	if (!err)
		err = vnic_set_flows(p, flows);
	if (!err)
		err = register_netdev(dev);
	if (err) {
		vnic_destroy(dev);
		return ERR_PTR(err);
	}
	vnic_debugfs_create(p);
	return dev;
}

static int __init vnic_check_params(void)
{
	if (ndev < 1 || ndev > VNIC_MAX_DEVS) {
		pr_err("ndev=%u: must be 1..%u\n", ndev, VNIC_MAX_DEVS);
		return -EINVAL;
	}
	if (queues > nr_cpu_ids) {
		pr_err("queues=%u: more than the %u possible CPUs\n", queues,
		       nr_cpu_ids);
		return -EINVAL;
	}
	vnic_default_mode = vnic_parse_mode(mode ?: "");
	if (vnic_default_mode < 0) {
		pr_err("mode=%s: must be stock or pool\n", mode);
		return -EINVAL;
	}
	if (tx_cpu < -1 || tx_cpu >= (int)nr_cpu_ids ||
	    (tx_cpu >= 0 && !cpu_online(tx_cpu))) {
		pr_err("tx_cpu=%d: not an online CPU (or -1)\n", tx_cpu);
		return -EINVAL;
	}
	if (flows < 1 || flows > VNIC_MAX_FLOWS) {
		pr_err("flows=%u: must be 1..%u\n", flows, VNIC_MAX_FLOWS);
		return -EINVAL;
	}
	if (rx_ring < 64 || rx_ring > 4096) {
		pr_err("rx_ring=%u: must be 64..4096\n", rx_ring);
		return -EINVAL;
	}
	if (tx_ring < 64 || tx_ring > 4096 || !is_power_of_2(tx_ring)) {
		pr_err("tx_ring=%u: must be a power of two in 64..4096\n",
		       tx_ring);
		return -EINVAL;
	}
	return 0;
}

static void vnic_destroy_all(void)
{
	unsigned int i;

	for (i = 0; i < VNIC_MAX_DEVS; i++) {
		if (vnic_devs[i])
			vnic_destroy(vnic_devs[i]);
		vnic_devs[i] = NULL;
	}
}

static int __init vnic_init(void)
{
	unsigned int i, nq;
	int *cpus, cpu, err;

	BUILD_BUG_ON(PAGE_SIZE < 2 * VNIC_RX_TRUESIZE);
	BUILD_BUG_ON(VNIC_RX_HEADROOM < NET_SKB_PAD);
	BUILD_BUG_ON(ARRAY_SIZE(vnic_stat_names) != VNIC_NSTATS);
	err = vnic_check_params();
	if (err)
		return err;

	/* Queue i on the i-th online CPU (round robin if more queues) */
	nq = queues ?: num_online_cpus();
	cpus = kcalloc(nq, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	cpus_read_lock();
	cpu = -1;
	for (i = 0; i < nq; i++) {
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		cpus[i] = cpu;
	}
	cpus_read_unlock();

	vnic_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ndev; i++) {
		struct net_device *dev = vnic_create(i, nq, cpus);

		if (IS_ERR(dev)) {
			err = PTR_ERR(dev);
			pr_err("cannot create device %u: %d\n", i, err);
			vnic_destroy_all();
			debugfs_remove_recursive(vnic_debugfs_root);
			kfree(cpus);
			return err;
		}
		vnic_devs[i] = dev;
	}
	kfree(cpus);
	pr_info("%u devices of %u queues, mode %s, tx_cpu %d\n", ndev, nq,
		vnic_mode_names[vnic_default_mode], tx_cpu);
	return 0;
}

static void __exit vnic_exit(void)
{
	vnic_destroy_all();
	debugfs_remove_recursive(vnic_debugfs_root);
}

module_init(vnic_init);
module_exit(vnic_exit);
MODULE_DESCRIPTION("Virtual NIC with ixgbe's NAPI paths, for the skb pool");
