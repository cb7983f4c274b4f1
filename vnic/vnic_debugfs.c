// SPDX-License-Identifier: GPL-2.0
/*
 * vnic_debugfs.c - the control plane of qmp_vnic.ko: a directory of
 * files per device, /sys/kernel/debug/qmp_vnic/<dev>/ (see
 * vnic_debugfs_create()), to generate frames, configure the generator,
 * switch the mode and read the counters; and beside them cpu_idle_us
 * (vnic_debugfs_init()), the CPUs' idle time for vnic/forward-bench.sh.
 */
#include <linux/alf_queue.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/kernel_stat.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/uaccess.h>

#include "vnic.h"

struct dentry *vnic_debugfs_root;

/*
 * cpu_idle_us: "cpu:us" of every online CPU, its idle time since boot
 * (idle and iowait, as the tick's idle accounting has them, the current
 * idle period included), in microseconds.  The kernel's own view of it
 * moved (/proc/timer_list's idle_sleeptime until 6.x, the kernel's
 * cputime since 7.0); get_cpu_idle_time_us() reads it on every kernel.
 * "cpu:-" where the kernel keeps no such time (nohz off).
 */
static int vnic_cpu_idle_us_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;
	u64 idle, iowait;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		idle = get_cpu_idle_time_us(cpu, NULL);
		iowait = get_cpu_iowait_time_us(cpu, NULL);
		if (idle == (u64)-1 || iowait == (u64)-1)
			seq_printf(m, "%u:- ", cpu);
		else
			seq_printf(m, "%u:%llu ", cpu, idle + iowait);
	}
	cpus_read_unlock();
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vnic_cpu_idle_us);

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
void vnic_debugfs_create(struct vnic_priv *p)
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

/* The module's directory, /sys/kernel/debug/qmp_vnic/, and its own files */
void vnic_debugfs_init(void)
{
	vnic_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("cpu_idle_us", 0444, vnic_debugfs_root, NULL,
			    &vnic_cpu_idle_us_fops);
}
