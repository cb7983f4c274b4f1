// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_stress.c - stress: threads, softirq timers, hardirq
 * timers (stress_all_contexts), and CPU hotplug (stress_cpu_hotplug);
 * the shrinker and pools created and destroyed, against allocations and
 * frees on every CPU (stress_shrink_destroy); each for stress_ms.
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <qmp/compat.h>
#include "qmempool_test.h"

#define STRESS_HOLD	48	/* objects one actor holds at most */

struct stress;

struct stress_actor {
	struct stress *s;
	unsigned long id;
	unsigned long seq;
	unsigned long calls;		/* of the pool, in stress_step() */
	unsigned int held;
	u32 rnd;
	gfp_t gfp;
	void *objs[STRESS_HOLD];
	unsigned long seqs[STRESS_HOLD];
};

struct stress {
	struct qmempool *pool;
	atomic_t stop;
	atomic_t errors;
	atomic_long_t ops;
	atomic_long_t irq_ops;		/* by timers */
	atomic_long_t alloc_fail;
};

/* Allocate or free a random batch, checking tags */
static void stress_step(struct stress_actor *a)
{
	unsigned int i, n;

	a->rnd = a->rnd * 1103515245 + 12345;
	n = 1 + (a->rnd >> 16) % 24;
	if ((a->rnd >> 8) & 1) {
		for (i = 0; i < n && a->held < STRESS_HOLD; i++) {
			void *o = qmempool_alloc(a->s->pool, a->gfp);

			a->calls++;
			if (!o) {
				atomic_long_inc(&a->s->alloc_fail);
				break;
			}
			obj_tag(o, a->id, ++a->seq);
			a->objs[a->held] = o;
			a->seqs[a->held++] = a->seq;
		}
	} else {
		for (i = 0; i < n && a->held; i++) {
			void *o = a->objs[--a->held];

			if (!obj_tag_ok(o, a->id, a->seqs[a->held]))
				atomic_inc(&a->s->errors);
			qmempool_free(a->s->pool, o);
			a->calls++;
		}
	}
	atomic_long_inc(&a->s->ops);
}

static void stress_release(struct stress_actor *a)
{
	while (a->held) {
		void *o = a->objs[--a->held];

		if (!obj_tag_ok(o, a->id, a->seqs[a->held]))
			atomic_inc(&a->s->errors);
		qmempool_free(a->s->pool, o);
	}
}

struct stress_thread {
	struct stress_actor a;
	struct task_struct *task;
};

static int stress_thread_fn(void *arg)
{
	struct stress_thread *st = arg;

	while (!kthread_should_stop()) {
		stress_step(&st->a);
		cond_resched();
	}
	stress_release(&st->a);
	return 0;
}

/* A softirq actor (timer_list) and a hardirq actor (hrtimer) per CPU */
struct stress_timers {
	int cpu;
	struct stress_actor soft, hard;
	struct timer_list timer;
	struct hrtimer hrtimer;
};

static void stress_softirq_fn(struct timer_list *tl)
{
	struct stress_timers *x = timer_container_of(x, tl, timer);

	if (atomic_read(&x->soft.s->stop))
		return;
	stress_step(&x->soft);
	atomic_long_inc(&x->soft.s->irq_ops);
	mod_timer(&x->timer, jiffies + 1);
}

static enum hrtimer_restart stress_hardirq_fn(struct hrtimer *hr)
{
	struct stress_timers *x = container_of(hr, struct stress_timers,
					       hrtimer);

	if (atomic_read(&x->hard.s->stop))
		return HRTIMER_NORESTART;
	stress_step(&x->hard);
	atomic_long_inc(&x->hard.s->irq_ops);
	hrtimer_forward_now(hr, ns_to_ktime(200 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void stress_hrtimer_start(void *arg)
{
	struct stress_timers *x = arg;

	hrtimer_start(&x->hrtimer, ns_to_ktime(200 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * With every user stopped: each object in a CPU's local queue is of that
 * CPU's node, each in a node's shared queue of that node.  The queues are
 * emptied into the slab.
 */
static void expect_queues_node_local(struct qmp_test *t,
				     struct qmempool *pool)
{
	unsigned int i, n, wrong = 0, total = 0;
	void *objs[QMEMPOOL_BULK];
	int cpu, node;

	for_each_possible_cpu(cpu) {
		while ((n = qmempool_take_local(pool, cpu, objs,
						ARRAY_SIZE(objs)))) {
			for (i = 0; i < n; i++)
				wrong += page_to_nid(virt_to_page(objs[i])) !=
					 cpu_to_mem(cpu);
			total += n;
			kmem_cache_free_bulk(pool->kmem, n, objs);
		}
	}
	for_each_node(node) {
		while ((n = qmempool_take_shared(pool, node, objs,
						 ARRAY_SIZE(objs)))) {
			for (i = 0; i < n; i++)
				wrong += page_to_nid(virt_to_page(objs[i])) !=
					 node;
			total += n;
			kmem_cache_free_bulk(pool->kmem, n, objs);
		}
	}
	QMP_EXPECT(t, !wrong, "%u of %u cached objects in another node's queue",
		   wrong, total);
}

/* @arg: bool, true to take CPUs offline and online meanwhile */
static void do_stress(struct qmp_test *t, struct qmempool *pool, void *arg)
{
	unsigned int nthreads = 2 * num_online_cpus(), i, ntimers = 0;
	const bool hotplug = *(bool *)arg;
	struct stress_thread *th;
	struct stress_timers *tm;
	unsigned long end, cycles = 0, hard_calls = 0;
	struct qmempool_stats st;
	struct stress s = { .pool = pool };
	int cpu;

	th = kcalloc(nthreads, sizeof(*th), GFP_KERNEL);
	tm = kcalloc(nr_cpu_ids, sizeof(*tm), GFP_KERNEL);
	if (!QMP_EXPECT(t, th && tm, "out of memory"))
		goto out;

	for (i = 0; i < nthreads; i++) {
		th[i].a = (struct stress_actor){ .s = &s, .id = 100 + i,
			.rnd = i + 1, .gfp = GFP_KERNEL };
		th[i].task = kthread_run(stress_thread_fn, &th[i],
					 "qmp_stress/%u", i);
		if (!QMP_EXPECT(t, !IS_ERR(th[i].task), "kthread_run")) {
			th[i].task = NULL;
			break;
		}
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct stress_timers *x = &tm[ntimers++];

		x->soft = (struct stress_actor){ .s = &s, .id = 1000 + cpu,
			.rnd = 7 * cpu + 3, .gfp = GFP_ATOMIC };
		x->hard = (struct stress_actor){ .s = &s, .id = 2000 + cpu,
			.rnd = 11 * cpu + 5, .gfp = GFP_ATOMIC };
		timer_setup(&x->timer, stress_softirq_fn, TIMER_PINNED);
		x->timer.expires = jiffies + 1;
		add_timer_on(&x->timer, cpu);
		hrtimer_setup(&x->hrtimer, stress_hardirq_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	/* Pinned hrtimers fire where they are started: start each there */
	for (i = 0; i < ntimers; i++)
		smp_call_function_single(tm[i].soft.id - 1000,
					 stress_hrtimer_start, &tm[i], 1);
	cpus_read_unlock();

	end = jiffies + msecs_to_jiffies(stress_ms);
	cpu = cpumask_first(cpu_online_mask);
	while (time_before(jiffies, end)) {
		if (hotplug) {
			/* Offline and online every CPU but the first, in turn */
			cpu = cpumask_next(cpu, cpu_online_mask);
			if (cpu >= nr_cpu_ids)
				cpu = cpumask_next(cpumask_first(cpu_online_mask),
						   cpu_online_mask);
			if (!remove_cpu(cpu)) {
				msleep(20);
				if (!QMP_EXPECT(t, !add_cpu(cpu),
						"CPU %d did not come back", cpu))
					break;
				cycles++;
			}
		}
		msleep(50);
	}

	atomic_set(&s.stop, 1);
	for (i = 0; i < ntimers; i++) {
		timer_delete_sync(&tm[i].timer);
		hrtimer_cancel(&tm[i].hrtimer);
	}
	for (i = 0; i < nthreads && th[i].task; i++)
		kthread_stop(th[i].task);
	/* The timers' objects are freed from here (process context) */
	for (i = 0; i < ntimers; i++) {
		stress_release(&tm[i].soft);
		stress_release(&tm[i].hard);
	}

	QMP_EXPECT(t, !atomic_read(&s.errors),
		   "%d objects corrupted: handed out twice",
		   atomic_read(&s.errors));
	QMP_EXPECT(t, atomic_long_read(&s.irq_ops) > 0,
		   "timers did not run");
	if (hotplug)
		QMP_EXPECT(t, cycles > 0, "no CPU went offline");
	expect_slab(t, pool->kmem, qmempool_cached(s.pool), "after stress");
	/* Every call in hardirq context, and only those, bypassed */
	for (i = 0; i < ntimers; i++)
		hard_calls += tm[i].hard.calls;
	qmempool_get_stats(s.pool, -1, &st);
	QMP_EXPECT(t, hard_calls && st.bypass == hard_calls,
		   "%lu calls bypassed the queues, %lu were made in hardirq context",
		   st.bypass, hard_calls);
	expect_queues_node_local(t, s.pool);
	qmp_test_diag(t, "%u threads + %u softirq + %u hardirq timers, %ld ops (%ld in timers), %ld failed allocs, %lu hotplug cycles",
		      nthreads, ntimers, ntimers, atomic_long_read(&s.ops),
		      atomic_long_read(&s.irq_ops),
		      atomic_long_read(&s.alloc_fail), cycles);
out:
	kfree(tm);
	kfree(th);
}

void test_stress_all_contexts(struct qmp_test *t)
{
	bool hotplug = false;

	with_test_pool(t, 64, 512, 64, do_stress, &hotplug);
}

void test_stress_cpu_hotplug(struct qmp_test *t)
{
	bool hotplug = true;

	if (num_online_cpus() < 2) {
		qmp_test_skip(t, "needs 2 CPUs");
		return;
	}
	with_test_pool(t, 64, 512, 64, do_stress, &hotplug);
}

/*
 * stress_shrink_destroy: two threads per online CPU (one bound to it, one
 * free to migrate) each create a pool on the case's test cache, allocate
 * and free tagged objects on it for a few hundred steps, give every
 * object back, destroy the pool and start over; softirq and hardirq
 * timers on every CPU use the case's own pool meanwhile; and the case's
 * thread drops the slab caches every few milliseconds (from insmod's
 * context: a kernel thread's root need not be the guest's, and one did
 * not find /proc there), so that the shrinker
 * empties shared queues and queues drain works on every CPU while pools
 * are destroyed (their works cancelled) and used.  Every object is
 * counted: at the end the slab holds exactly what the case's pool caches
 * (none lost, none freed twice), and no tag was found broken (none handed
 * out twice).
 */
#define CHURN_STEPS	300

struct churn {
	struct stress s;		/* s.pool: the pool of this cycle */
	struct stress_actor a;
	struct kmem_cache *cache;
	struct task_struct *task;
	unsigned long cycles;		/* pools created and destroyed */
	unsigned long create_fail;
};

static int churn_fn(void *arg)
{
	struct churn *ch = arg;
	unsigned int step;

	while (!kthread_should_stop()) {
		/* Every other pool starts with objects in its shared queue */
		ch->s.pool = qmempool_create(64, 128, ch->cycles & 1 ? 32 : 0,
					     ch->cache, GFP_KERNEL);
		if (!ch->s.pool) {
			ch->create_fail++;
			usleep_range(1000, 2000);
			continue;
		}
		for (step = 0; step < CHURN_STEPS && !kthread_should_stop();
		     step++) {
			stress_step(&ch->a);
			if (!(step & 15))
				cond_resched();
		}
		stress_release(&ch->a);
		qmempool_destroy(ch->s.pool);
		ch->s.pool = NULL;
		ch->cycles++;
	}
	return 0;
}

static void do_stress_shrink_destroy(struct qmp_test *t,
				     struct qmempool *pool, void *unused)
{
	unsigned int nthreads = 2 * num_online_cpus(), i, ntimers = 0;
	unsigned long cycles = 0, create_fail = 0, ops = 0, drops = 0, end;
	struct stress s = { .pool = pool };
	struct stress_timers *tm;
	struct churn *ch;
	int errors = 0, cpu;

	ch = kcalloc(nthreads, sizeof(*ch), GFP_KERNEL);
	tm = kcalloc(nr_cpu_ids, sizeof(*tm), GFP_KERNEL);
	if (!QMP_EXPECT(t, ch && tm, "out of memory"))
		goto out;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct stress_timers *x = &tm[ntimers++];

		x->cpu = cpu;
		x->soft = (struct stress_actor){ .s = &s, .id = 3000 + cpu,
			.rnd = 13 * cpu + 1, .gfp = GFP_ATOMIC };
		x->hard = (struct stress_actor){ .s = &s, .id = 4000 + cpu,
			.rnd = 17 * cpu + 7, .gfp = GFP_ATOMIC };
		timer_setup(&x->timer, stress_softirq_fn, TIMER_PINNED);
		x->timer.expires = jiffies + 1;
		add_timer_on(&x->timer, cpu);
		hrtimer_setup(&x->hrtimer, stress_hardirq_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		smp_call_function_single(cpu, stress_hrtimer_start, x, 1);
	}
	cpus_read_unlock();
	for (i = 0; i < nthreads; i++) {
		ch[i].cache = pool->kmem;
		ch[i].a = (struct stress_actor){ .s = &ch[i].s, .id = 5000 + i,
			.rnd = 19 * i + 3, .gfp = GFP_KERNEL };
		ch[i].task = kthread_create(churn_fn, &ch[i], "qmp_churn/%u", i);
		if (!QMP_EXPECT(t, !IS_ERR(ch[i].task), "kthread_create")) {
			ch[i].task = NULL;
			break;
		}
		/* Every CPU has a thread of its own; the others migrate */
		if (!(i & 1))
			kthread_bind(ch[i].task, tm[(i / 2) % ntimers].cpu);
		wake_up_process(ch[i].task);
	}

	end = jiffies + msecs_to_jiffies(stress_ms);
	while (time_before(jiffies, end)) {
		if (!drop_slab_caches())
			drops++;
		usleep_range(2000, 5000);
	}

	for (i = 0; i < nthreads && ch[i].task; i++) {
		kthread_stop(ch[i].task);
		cycles += ch[i].cycles;
		create_fail += ch[i].create_fail;
		errors += atomic_read(&ch[i].s.errors);
		ops += atomic_long_read(&ch[i].s.ops);
	}
	atomic_set(&s.stop, 1);
	for (i = 0; i < ntimers; i++) {
		timer_delete_sync(&tm[i].timer);
		hrtimer_cancel(&tm[i].hrtimer);
	}
	for (i = 0; i < ntimers; i++) {
		stress_release(&tm[i].soft);
		stress_release(&tm[i].hard);
	}
	errors += atomic_read(&s.errors);
	QMP_EXPECT(t, !errors, "%d objects corrupted: handed out twice",
		   errors);
	QMP_EXPECT(t, cycles >= nthreads,
		   "%lu pools created and destroyed by %u threads", cycles,
		   nthreads);
	QMP_EXPECT(t, !create_fail, "%lu pools not created", create_fail);
	QMP_EXPECT(t, drops, "the slab caches were never dropped");
	QMP_EXPECT(t, atomic_long_read(&s.irq_ops), "timers did not run");
	/*
	 * The destroyed pools gave everything back, the case's pool holds
	 * the rest: the slab's count is exact
	 */
	expect_slab(t, pool->kmem, qmempool_cached(pool), "after the stress");
	qmp_test_diag(t, "%u threads: %lu pools created and destroyed, %lu ops; %u CPUs' timers: %ld ops; %lu drop_caches",
		      nthreads, cycles, ops, ntimers,
		      atomic_long_read(&s.irq_ops), drops);
out:
	kfree(tm);
	kfree(ch);
}

void test_stress_shrink_destroy(struct qmp_test *t)
{
	with_test_pool(t, 64, 512, 64, do_stress_shrink_destroy, NULL);
}
