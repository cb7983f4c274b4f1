// SPDX-License-Identifier: GPL-2.0
/*
 * vnic_ethtool.c - the counters of qmp_vnic.ko's queues, their names and
 * their reading, and its ethtool_ops (ethtool -i, ethtool -S).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <linux/u64_stats_sync.h>

#include "vnic.h"

/* Passed by the top-level Kbuild; qmp/version.h (MODULE_*) says it once */
#ifndef QMP_VERSION
#define QMP_VERSION "unknown"
#endif

const char vnic_stat_names[VNIC_NSTATS][ETH_GSTRING_LEN] = {
	"rx_generated", "rx_bytes", "rx_alloc_fail", "rx_page_alloc",
	"rx_page_fail", "rx_page_reuse", "rx_page_release", "rx_discarded",
	"tx_xmit", "tx_bytes", "tx_busy", "tx_stop", "tx_restart",
	"tx_dropped",
	"tx_completed", "tx_completed_bytes", "tx_completed_remote", "tx_wake",
	"rx_ipi", "tx_ipi",
};

/* A queue's counters, in vnic_stat_names order */
void vnic_queue_stats(struct vnic_queue *q, u64 *v)
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

const struct ethtool_ops vnic_ethtool_ops = {
	.get_drvinfo		= vnic_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_sset_count		= vnic_get_sset_count,
	.get_strings		= vnic_get_strings,
	.get_ethtool_stats	= vnic_get_ethtool_stats,
};
