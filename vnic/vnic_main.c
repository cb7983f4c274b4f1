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
 * The RX path is in vnic_rx.c, the TX path and the "interrupts" in
 * vnic_tx.c, the frames they carry come from vnic_gen.c; this file has
 * the module, its devices and queues and their net_device_ops.
 *
 * Control and counters: /sys/kernel/debug/qmp_vnic/<dev>/ (see
 * vnic_debugfs_create()), ndo_get_stats64 and ethtool -S.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/alf_queue.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/u64_stats_sync.h>
#include <qmp/version.h>

#include "vnic.h"

const char * const vnic_mode_names[] = { "stock", "pool" };

static unsigned int ndev = 2;
module_param(ndev, uint, 0444);
MODULE_PARM_DESC(ndev, "Devices vnic0.. (1..16, default 2)");
static unsigned int queues;
module_param(queues, uint, 0444);
MODULE_PARM_DESC(queues, "Queues per device (default 0: one per online CPU)");
static char *mode = "stock";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "skb heads: stock (napi_build_skb/napi_consume_skb) or pool (skb_pool); per device in debugfs");
int tx_cpu = -1;
module_param(tx_cpu, int, 0444);
MODULE_PARM_DESC(tx_cpu, "CPU of every TX completion (default -1: the transmitting CPU)");
static unsigned int flows = 1;
module_param(flows, uint, 0444);
MODULE_PARM_DESC(flows, "UDP flows generated (1..65535, default 1)");
unsigned int rx_ring = 512;
module_param(rx_ring, uint, 0444);
MODULE_PARM_DESC(rx_ring, "RX ring entries (64..4096, default 512)");
static unsigned int tx_ring = 512;
module_param(tx_ring, uint, 0444);
MODULE_PARM_DESC(tx_ring, "TX ring entries (power of two, 64..4096, default 512)");

static struct net_device *vnic_devs[VNIC_MAX_DEVS];
static int vnic_default_mode;

int vnic_parse_mode(const char *s)
{
	return sysfs_match_string(vnic_mode_names, s);
}

/* ------------------------------------------------------------------ */
/* net_device_ops                                                      */

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

	vnic_debugfs_init();
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
