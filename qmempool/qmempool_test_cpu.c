// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_cpu.c - objects across CPUs: allocated on one CPU and
 * freed on another (cross_cpu), cached by a CPU that goes offline
 * (cpu_offline).
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "qmempool_test.h"

struct xfer {
	struct qmempool *pool;
	void *objs[256];
	struct completion filled, emptied, done[2];
	unsigned int rounds;
	atomic_t errors;
};

static int xfer_producer(void *arg)
{
	struct xfer *x = arg;
	unsigned int r, i;

	for (r = 0; r < x->rounds; r++) {
		for (i = 0; i < ARRAY_SIZE(x->objs); i++) {
			x->objs[i] = qmempool_alloc(x->pool, GFP_KERNEL);
			if (x->objs[i])
				obj_tag(x->objs[i], 2, r * 1000 + i);
			else
				atomic_inc(&x->errors);
		}
		complete(&x->filled);
		qmp_wait_completion(&x->emptied);
	}
	complete(&x->done[0]);
	qmp_kthread_wait_stop();
	return 0;
}

static int xfer_consumer(void *arg)
{
	struct xfer *x = arg;
	unsigned int r, i;

	for (r = 0; r < x->rounds; r++) {
		qmp_wait_completion(&x->filled);
		for (i = 0; i < ARRAY_SIZE(x->objs); i++) {
			if (x->objs[i] && !obj_tag_ok(x->objs[i], 2, r * 1000 + i))
				atomic_inc(&x->errors);
			qmempool_free(x->pool, x->objs[i]);
			x->objs[i] = NULL;
		}
		complete(&x->emptied);
	}
	complete(&x->done[1]);
	qmp_kthread_wait_stop();
	return 0;
}

/* @cpus: the producer's CPU and the consumer's */
static void do_cross_cpu(struct qmp_test *t, struct qmempool *pool,
			 void *cpus)
{
	const int *cpu = cpus;
	struct task_struct *p, *q;
	struct xfer *x;

	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!QMP_EXPECT(t, x, "out of memory"))
		return;
	x->rounds = 50;
	init_completion(&x->filled);
	init_completion(&x->emptied);
	init_completion(&x->done[0]);
	init_completion(&x->done[1]);
	x->pool = pool;
	p = kthread_create(xfer_producer, x, "qmp_xfer_p");
	q = kthread_create(xfer_consumer, x, "qmp_xfer_c");
	if (!QMP_EXPECT(t, !IS_ERR(p) && !IS_ERR(q), "kthread_create")) {
		/* Never woken: stop them before they run */
		if (!IS_ERR(p))
			kthread_stop(p);
		if (!IS_ERR(q))
			kthread_stop(q);
		goto out;
	}
	kthread_bind(p, cpu[0]);
	kthread_bind(q, cpu[1]);
	wake_up_process(p);
	wake_up_process(q);
	qmp_wait_completion(&x->done[0]);
	qmp_wait_completion(&x->done[1]);
	kthread_stop(p);
	kthread_stop(q);
	QMP_EXPECT(t, !atomic_read(&x->errors),
		   "%d objects failed or were corrupted in transfer",
		   atomic_read(&x->errors));
	expect_slab(t, pool->kmem, qmempool_cached(pool), "after transfers");
out:
	kfree(x);
}

void test_cross_cpu(struct qmp_test *t)
{
	int cpus[2];

	cpus[0] = cpumask_first(cpu_online_mask);
	cpus[1] = cpumask_next(cpus[0], cpu_online_mask);
	if (cpus[1] >= nr_cpu_ids) {
		qmp_test_skip(t, "needs 2 CPUs");
		return;
	}
	with_test_pool(t, 64, 256, 0, do_cross_cpu, cpus);
}

/* ------------------------------------------------------------------ */
/* A CPU going offline gives its cached objects back                   */

struct cpu_work {
	struct work_struct work;
	struct qmempool *pool;
	unsigned int cached;		/* in the CPU's local queue after */
};

/* On the target CPU: allocate a few objects and free them there */
static void fill_local_fn(struct work_struct *work)
{
	struct cpu_work *w = container_of(work, struct cpu_work, work);
	void *objs[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = qmempool_alloc(w->pool, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		qmempool_free(w->pool, objs[i]);
	w->cached = qmempool_cached_cpu(w->pool, raw_smp_processor_id());
}

/* @arg: the CPU to take offline */
static void do_cpu_offline(struct qmp_test *t, struct qmempool *pool,
			   void *arg)
{
	struct cpu_work w = { .pool = pool };
	unsigned int left;
	int cpu = *(int *)arg;

	INIT_WORK_ONSTACK(&w.work, fill_local_fn);
	schedule_work_on(cpu, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	QMP_EXPECT(t, w.cached >= 8, "CPU %d cached only %u objects", cpu,
		   w.cached);
	if (QMP_EXPECT(t, !remove_cpu(cpu), "CPU %d did not go offline",
		       cpu)) {
		left = qmempool_cached_cpu(pool, cpu);
		QMP_EXPECT(t, !left, "%u objects stranded on offline CPU %d",
			   left, cpu);
		expect_slab(t, pool->kmem, qmempool_cached(pool),
			    "CPU offline");
		QMP_EXPECT(t, !add_cpu(cpu), "CPU %d did not come back", cpu);
	}
}

void test_cpu_offline(struct qmp_test *t)
{
	int cpu = cpumask_last(cpu_online_mask);

	if (cpu == cpumask_first(cpu_online_mask)) {
		qmp_test_skip(t, "needs 2 CPUs");
		return;
	}
	with_test_pool(t, 64, 256, 0, do_cpu_offline, &cpu);
}
