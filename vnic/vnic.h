/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vnic.h - what the files of qmp_vnic.ko share: the device's parameters,
 * its queues and counters, and the few helpers more than one file calls.
 *
 *   vnic_main.c     module parameters, init/exit, devices and queues,
 *                   net_device_ops
 *   vnic_rx.c       the RX ring and the queue vector's NAPI poll
 *   vnic_tx.c       ndo_start_xmit, the TX completion and its vector,
 *                   the "interrupts" (IPIs) that schedule the vectors
 *   vnic_gen.c      the traffic generator: template frame, flows, requests
 *   vnic_ethtool.c  the counters' names, ethtool_ops
 *   vnic_debugfs.c  /sys/kernel/debug/qmp_vnic/<dev>/
 */
#ifndef _QMP_VNIC_H
#define _QMP_VNIC_H

#include <linux/atomic.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/linkage.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

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
extern const char * const vnic_mode_names[];

/* The module parameters read beyond vnic_main.c */
extern int tx_cpu;
extern unsigned int rx_ring;

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

extern const char vnic_stat_names[VNIC_NSTATS][ETH_GSTRING_LEN];

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

struct alf_queue;
struct dentry;
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

/* ------------------------------------------------------------------ */
/* Counters                                                            */

static inline void vnic_rx_stats_add(struct vnic_queue *q, const u32 *add)
{
	unsigned int i;

	u64_stats_update_begin(&q->rx_stats.syncp);
	for (i = 0; i < VNIC_RX_NSTATS; i++)
		if (add[i])
			u64_stats_add(&q->rx_stats.v[i], add[i]);
	u64_stats_update_end(&q->rx_stats.syncp);
}

/* Frames requested and not generated yet */
static inline u64 vnic_rx_pending(struct vnic_queue *q)
{
	/* acquire: the poll that generated them is done with them */
	s64 done = atomic64_read_acquire(&q->rx_done);

	return atomic64_read(&q->rx_requested) - done;
}

/* ixgbe_desc_unused(): buffers not given to the "hardware" (one kept) */
static inline unsigned int vnic_desc_unused(struct vnic_queue *q)
{
	return (q->ntc > q->ntu ? 0 : rx_ring) + q->ntc - q->ntu - 1;
}

/*
 * __noendbr on a function of the NAPI or transmit path that another file
 * calls, directly and never through a pointer: no ENDBR on IBT kernels,
 * as while it was static in one file (the forwarding figures count every
 * instruction executed).
 */
#ifndef __noendbr
#define __noendbr
#endif

/* vnic_main.c */
int vnic_parse_mode(const char *s);

/* vnic_rx.c */
void __noendbr vnic_alloc_rx_buffers(struct vnic_queue *q,
				     unsigned int count, u32 *stats);
void vnic_clean_rx_ring(struct vnic_queue *q);
int vnic_poll(struct napi_struct *napi, int budget);

/* vnic_tx.c */
void vnic_rx_ipi(void *info);
void vnic_tx_ipi(void *info);
void __noendbr vnic_kick_rx(struct vnic_queue *q);
bool __noendbr vnic_clean_tx(struct vnic_queue *q, int napi_budget);
netdev_tx_t vnic_xmit(struct sk_buff *skb, struct net_device *dev);
void vnic_clean_tx_ring(struct vnic_queue *q);
int vnic_tx_poll(struct napi_struct *napi, int budget);

/* vnic_gen.c */
int vnic_set_flows(struct vnic_priv *p, unsigned int nflows);
int vnic_request(struct vnic_priv *p, u64 n);

/* vnic_ethtool.c */
extern const struct ethtool_ops vnic_ethtool_ops;
void vnic_queue_stats(struct vnic_queue *q, u64 *v);

/* vnic_debugfs.c */
extern struct dentry *vnic_debugfs_root;
void vnic_debugfs_init(void);
void vnic_debugfs_create(struct vnic_priv *p);

#endif /* _QMP_VNIC_H */
