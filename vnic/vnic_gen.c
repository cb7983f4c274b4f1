// SPDX-License-Identifier: GPL-2.0
/*
 * vnic_gen.c - the traffic generator of qmp_vnic.ko: the template frame,
 * the flows and their queues (RSS), and the requests that set the RX
 * polls generating (rx_count in debugfs).  The RX path (vnic_rx.c)
 * writes the frames into its buffers.
 */
#include <linux/bottom_half.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>

#include "vnic.h"

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
int vnic_set_flows(struct vnic_priv *p, unsigned int nflows)
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
int vnic_request(struct vnic_priv *p, u64 n)
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
