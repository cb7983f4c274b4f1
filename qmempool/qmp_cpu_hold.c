// SPDX-License-Identifier: GPL-2.0
/*
 * qmp_cpu_hold.ko - for qmempool/unload-test.sh: holds the per-CPU
 * workqueue pool of every online CPU but one, so that work queued there
 * (the shrinker's drain works of qmempool) waits until this module
 * unloads.  At insmod a work item (schedule_work_on()) on each such CPU
 * starts and spins without sleeping, so the pool runs nothing else (with
 * workqueue.cpu_intensive_thresh_us high enough, which the script sets
 * where it exists, 6.5+); it lets RCU, Tasks RCU and other tasks go on
 * (cond_resched_tasks_rcu_qs()), so that modules still unload meanwhile.
 * It spins until rmmod, at most hold_ms.  Links against nothing of the
 * project: it stays loaded while qmempool.ko unloads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <qmp/version.h>

static unsigned int except;
module_param(except, uint, 0444);
MODULE_PARM_DESC(except, "The CPU left alone (default 0)");

static unsigned int hold_ms = 20000;
module_param(hold_ms, uint, 0444);
MODULE_PARM_DESC(hold_ms, "The longest hold in ms (default 20000)");

static DEFINE_PER_CPU(struct work_struct, hold_work);
static struct cpumask held;
static atomic_t started;
static atomic_t stop;
static unsigned long deadline;

static void hold_fn(struct work_struct *work)
{
	atomic_inc(&started);
	while (!atomic_read(&stop) && time_before(jiffies, deadline)) {
		cond_resched_tasks_rcu_qs();
		cpu_relax();
	}
}

static int __init qmp_cpu_hold_init(void)
{
	unsigned int i;
	int cpu;

	deadline = jiffies + msecs_to_jiffies(hold_ms);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (cpu == except)
			continue;
		INIT_WORK(per_cpu_ptr(&hold_work, cpu), hold_fn);
		schedule_work_on(cpu, per_cpu_ptr(&hold_work, cpu));
		cpumask_set_cpu(cpu, &held);
	}
	cpus_read_unlock();
	for (i = 0; i < 5000 && atomic_read(&started) < cpumask_weight(&held);
	     i++)
		usleep_range(1000, 2000);
	pr_info("holding the workqueues of %d of %u CPUs\n",
		atomic_read(&started), cpumask_weight(&held));
	return 0;
}

static void __exit qmp_cpu_hold_exit(void)
{
	int cpu;

	atomic_set(&stop, 1);
	for_each_cpu(cpu, &held)
		flush_work(per_cpu_ptr(&hold_work, cpu));
}

module_init(qmp_cpu_hold_init);
module_exit(qmp_cpu_hold_exit);
MODULE_DESCRIPTION("Holds the per-CPU workqueues of all CPUs but one (qmempool/unload-test.sh)");
