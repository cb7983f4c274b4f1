// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_shrink.c - memory pressure: the shrinker gives every
 * cached object back (shrinker), and a CPU's drain ends while a softirq
 * keeps freeing into its cache (shrinker_refilled).
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <qmp/kthread.h>
#include "qmempool_test.h"

int drop_slab_caches(void)
{
	struct file *f = filp_open("/proc/sys/vm/drop_caches", O_WRONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, "2\n", 2, &pos);
	filp_close(f, NULL);
	return n == 2 ? 0 : n < 0 ? n : -EIO;
}

static void do_shrinker(struct qmp_test *t, struct qmempool *pool,
			void *unused)
{
	const unsigned int n = 400;
	unsigned long before;
	unsigned int i, waited;
	void **objs;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!QMP_EXPECT(t, objs, "out of memory"))
		return;
	/* Both layers full: 400 frees on one CPU */
	migrate_disable();
	for (i = 0; i < n; i++)
		objs[i] = qmempool_alloc(pool, GFP_KERNEL);
	for (i = 0; i < n; i++)
		qmempool_free(pool, objs[i]);
	migrate_enable();
	kfree(objs);
	before = qmempool_cached(pool);
	QMP_EXPECT(t, before > 256, "only %lu objects cached", before);
	if (!QMP_EXPECT(t, !drop_slab_caches(), "writing drop_caches failed"))
		return;
	/* The local queues are emptied by works on their CPUs */
	for (waited = 0; qmempool_cached(pool) && waited < 5000; waited += 20)
		msleep(20);
	QMP_EXPECT(t, !qmempool_cached(pool),
		   "%lu of %lu cached objects left after drop_caches",
		   qmempool_cached(pool), before);
	expect_slab(t, pool->kmem, 0, "after drop_caches");
	qmp_test_diag(t, "%lu cached objects given back in %u ms", before,
		      waited);
}

void test_shrinker(struct qmp_test *t)
{
	with_test_pool(t, 64, 256, 0, do_shrinker, NULL);
}

/*
 * shrinker_refilled: a tasklet on one CPU keeps freeing objects (fresh
 * from the slab) into that CPU's local cache, a few at a time, keeping it
 * below full so that none overflows, and schedules itself again: it runs
 * at every local_bh_enable() of that CPU, the drain work's too.  The
 * drain must give back about what the cache held when it started, not
 * what the tasklet keeps adding, and must not keep the CPU from a thread
 * that wants it (on a kernel without preemption, a drain that never ends
 * never yields).
 */
#define REFILL_MS	1000
#define REFILL_MAX	4096	/* objects the drains of a 64-object cache take */

struct refill {
	struct qmempool *pool;
	struct tasklet_struct tasklet;
	atomic_t stop;
	unsigned long freed;		/* by the tasklet, into the pool */
	unsigned long alloc_fail;
	s64 max_gap_ns;			/* the sampler's longest wait */
	bool sampling;
};

static void refill_fn(struct tasklet_struct *tl)
{
	struct refill *r = from_tasklet(r, tl, tasklet);
	struct qmempool *pool = r->pool;
	unsigned int i;
	void *obj;

	if (atomic_read(&r->stop))
		return;
	for (i = 0; i < 8 && qmempool_cached_cpu(pool, smp_processor_id()) <
			     pool->localq_sz - 16; i++) {
		obj = kmem_cache_alloc(pool->kmem, GFP_ATOMIC);
		if (!obj) {
			r->alloc_fail++;
			break;
		}
		qmempool_free(pool, obj);
		r->freed++;
	}
	tasklet_schedule(&r->tasklet);
}

static void refill_start(void *arg)
{
	struct refill *r = arg;

	tasklet_schedule(&r->tasklet);
}

/* A thread on the tasklet's CPU: how long it waited for it at most */
static int sampler_fn(void *arg)
{
	struct refill *r = arg;
	ktime_t last = ktime_get(), now;

	while (!kthread_should_stop()) {
		usleep_range(500, 1000);
		now = ktime_get();
		if (READ_ONCE(r->sampling) &&
		    ktime_to_ns(ktime_sub(now, last)) > r->max_gap_ns)
			WRITE_ONCE(r->max_gap_ns,
				   ktime_to_ns(ktime_sub(now, last)));
		last = now;
	}
	return 0;
}

static void do_shrinker_refilled(struct qmp_test *t, struct qmempool *pool,
				 void *unused)
{
	struct qmempool_stats before, after;
	struct task_struct *sampler;
	struct refill r = { .pool = pool };
	unsigned long drained;
	int cpu;

	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		qmp_test_skip(t, "needs 2 CPUs");
		return;
	}
	tasklet_setup(&r.tasklet, refill_fn);
	sampler = kthread_create_on_cpu(sampler_fn, &r, cpu, "qmp_sampler/%u");
	if (!QMP_EXPECT(t, !IS_ERR(sampler), "kthread_create_on_cpu failed"))
		return;
	wake_up_process(sampler);
	smp_call_function_single(cpu, refill_start, &r, 1);
	msleep(50);		/* the cache fills up */
	qmempool_get_stats(pool, cpu, &before);
	WRITE_ONCE(r.sampling, true);
	if (QMP_EXPECT(t, !drop_slab_caches(), "writing drop_caches failed"))
		msleep(REFILL_MS);
	WRITE_ONCE(r.sampling, false);
	qmempool_get_stats(pool, cpu, &after);
	atomic_set(&r.stop, 1);
	tasklet_kill(&r.tasklet);
	kthread_stop(sampler);
	drained = after.free_slab - before.free_slab;
	qmp_test_diag(t, "CPU %d: the tasklet freed %lu objects (%lu allocations failed), the drain gave %lu back; the longest wait of a thread there %lld us",
		      cpu, r.freed, r.alloc_fail, drained,
		      r.max_gap_ns / NSEC_PER_USEC);
	QMP_EXPECT(t, drained, "no drain ran on CPU %d", cpu);
	QMP_EXPECT(t, drained <= REFILL_MAX,
		   "the drain gave back %lu objects in %d ms, more than %d: it drained what the tasklet kept freeing",
		   drained, REFILL_MS, REFILL_MAX);
	QMP_EXPECT(t, r.max_gap_ns < REFILL_MS * NSEC_PER_MSEC / 2,
		   "a thread on CPU %d waited %lld ms for it",
		   cpu, r.max_gap_ns / NSEC_PER_MSEC);
}

void test_shrinker_refilled(struct qmp_test *t)
{
	with_test_pool(t, 64, 256, 0, do_shrinker_refilled, NULL);
}
