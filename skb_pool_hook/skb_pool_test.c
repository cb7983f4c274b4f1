// SPDX-License-Identifier: GPL-2.0
/*
 * skb_pool_test.ko - tests of skb_pool_hook, run at insmod, KTAP output.
 *
 * A head freed on a CPU with bottom halves off lands in that CPU's local
 * queue (nothing else touches it meanwhile; hardirqs bypass the pool), so
 * the cases empty the local queue first, free their skbs, and then look
 * for each head in the local queue: found means the kernel's free path
 * brought it to the pool.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/qmempool.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include <qmp/ktap.h>
#include <qmp/kthread.h>

static unsigned int stress_ms = 2000;
module_param(stress_ms, uint, 0444);
MODULE_PARM_DESC(stress_ms, "Duration of the stress case in ms (default 2000)");
static unsigned int toggle_ms;
module_param(toggle_ms, uint, 0444);
MODULE_PARM_DESC(toggle_ms, "Turn the hook off and on every N ms under the stress (default 0: never; QEMU 7.2's multi-threaded TCG mis-executes code patched while other vCPUs run it)");

#define N_SKBS		48	/* fewer than a local queue holds */
#define FRAME		64

/* An RX buffer, a page fragment: headroom, frame, skb_shared_info */
#define BUF_SIZE	(SKB_DATA_ALIGN(NET_SKB_PAD + FRAME) + \
			 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))

static struct sk_buff *pool_skb(void)
{
	void *data = netdev_alloc_frag(BUF_SIZE);
	struct sk_buff *skb = data ? skb_pool_build_skb(data, BUF_SIZE) : NULL;

	if (!skb) {
		if (data)
			skb_free_frag(data);
		return NULL;
	}
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, FRAME);
	return skb;
}

static struct alf_queue *this_localq(struct qmempool *pool)
{
	return this_cpu_ptr(pool->percpu)->localq;
}

/*
 * Bottom halves off: how many of @heads[] this CPU's local queue holds;
 * the queue is emptied to the slab.
 */
static unsigned int localq_holds(struct qmempool *pool,
				 struct sk_buff **heads, unsigned int n)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int i, j, k, found = 0;

	while ((k = alf_sc_dequeue(this_localq(pool), objs, ARRAY_SIZE(objs)))) {
		for (i = 0; i < k; i++)
			for (j = 0; j < n; j++)
				found += objs[i] == heads[j];
		kmem_cache_free_bulk(pool->kmem, k, objs);
	}
	return found;
}

enum free_how { CONSUME, KFREE, KFREE_DIRECT, NR_FREE_HOW };

static void free_skb_how(struct sk_buff *skb, enum free_how how)
{
	switch (how) {
	case CONSUME:
		consume_skb(skb);
		break;
	case KFREE:
		kfree_skb(skb);
		break;
	default:
		__kfree_skb(skb);
		break;
	}
}

/*
 * Build N_SKBS skbs (from the pool, from alloc_skb() or as fast clones),
 * free them as @how says, and return how many heads the local queue got;
 * *@local: how many of them were this node's memory (on a NUMA machine the
 * pool sends the others to the slab, and the skb head cache hands out
 * some of those).
 */
enum make_how { POOL, ALLOC, FCLONE };

static unsigned int round_trip(struct qmp_test *t, enum make_how make,
			       enum free_how how, unsigned int *local)
{
	struct qmempool *pool = skb_pool_get_pool();
	struct sk_buff *skbs[N_SKBS];
	unsigned int i, made = 0, found;

	local_bh_disable();
	localq_holds(pool, NULL, 0);		/* empties it */
	for (i = 0; i < N_SKBS; i++) {
		if (make == POOL)
			skbs[i] = pool_skb();
		else if (make == ALLOC)
			skbs[i] = alloc_skb(FRAME, GFP_ATOMIC);
		else
			skbs[i] = alloc_skb_fclone(FRAME, GFP_ATOMIC);
		if (!skbs[i])
			break;
		made++;
	}
	*local = 0;
	for (i = 0; i < made; i++)
		*local += page_to_nid(virt_to_page(skbs[i])) == numa_mem_id();
	for (i = 0; i < made; i++)
		free_skb_how(skbs[i], how);
	found = localq_holds(pool, skbs, made);
	local_bh_enable();
	QMP_EXPECT(t, made == N_SKBS, "built only %u of %u skbs", made, N_SKBS);
	return found;
}

/* Every node-local head came back, and there were some */
static void expect_back(struct qmp_test *t, const char *what,
			unsigned int found, unsigned int local)
{
	QMP_EXPECT(t, found == local && local,
		   "%s: %u of %u node-local heads came to the pool (%u built)",
		   what, found, local, N_SKBS);
}

static void test_pool_heads_come_back(struct qmp_test *t)
{
	static const char *const names[] = {
		[CONSUME] = "consume_skb()", [KFREE] = "kfree_skb()",
		[KFREE_DIRECT] = "__kfree_skb()",
	};
	unsigned int found, local;
	enum free_how how;

	for (how = 0; how < NR_FREE_HOW; how++) {
		found = round_trip(t, POOL, how, &local);
		expect_back(t, names[how], found, local);
	}
}

static void test_slab_heads_come_back(struct qmp_test *t)
{
	unsigned int local, found = round_trip(t, ALLOC, CONSUME, &local);

	expect_back(t, "alloc_skb() heads", found, local);
}

static void test_fclones_untouched(struct qmp_test *t)
{
	unsigned int local, found = round_trip(t, FCLONE, CONSUME, &local);

	QMP_EXPECT(t, !found, "%u fast-clone heads went into the pool", found);
}

static void test_hook_off_on(struct qmp_test *t)
{
	unsigned int found, local;

	if (!QMP_EXPECT(t, !skb_pool_set_hook(false), "unhook"))
		return;
	found = round_trip(t, ALLOC, CONSUME, &local);
	QMP_EXPECT(t, !found, "hook off, yet %u heads went into the pool", found);
	found = round_trip(t, POOL, CONSUME, &local);
	QMP_EXPECT(t, !found, "hook off, yet %u pool heads came back", found);
	if (!QMP_EXPECT(t, !skb_pool_set_hook(true), "hook again"))
		return;
	found = round_trip(t, ALLOC, CONSUME, &local);
	expect_back(t, "hook on again", found, local);
}

/* ------------------------------------------------------------------ */
/* Stress: every CPU builds and frees (while the hook goes off and on) */

struct stress {
	atomic_long_t skbs;
	atomic_t failed;
	bool stop;
};

struct stress_thread {
	struct stress *s;
	struct task_struct *task;
	struct completion done;
};

static int stress_fn(void *arg)
{
	struct stress_thread *st = arg;
	struct sk_buff *skbs[8];
	unsigned long round = 0;
	unsigned int i;

	while (!READ_ONCE(st->s->stop)) {
		bool bh = round & 1;

		if (bh)
			local_bh_disable();
		for (i = 0; i < ARRAY_SIZE(skbs); i++) {
			skbs[i] = (round + i) & 1 ? pool_skb() :
				  alloc_skb(FRAME, GFP_ATOMIC);
			if (!skbs[i])
				atomic_inc(&st->s->failed);
		}
		for (i = 0; i < ARRAY_SIZE(skbs); i++)
			if (skbs[i])
				free_skb_how(skbs[i], (round + i) % NR_FREE_HOW);
		if (bh)
			local_bh_enable();
		atomic_long_add(ARRAY_SIZE(skbs), &st->s->skbs);
		round++;
		/* Unhooking waits for every task to pass a quiescent state */
		cond_resched_tasks_rcu_qs();
	}
	complete(&st->done);
	qmp_kthread_wait_stop();
	return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* A CPU's local queue, taken by that CPU with bottom halves off */
struct take_work {
	struct work_struct work;
	struct qmempool *pool;
	void **objs;
	unsigned int n;
};

static void take_localq_fn(struct work_struct *work)
{
	struct take_work *w = container_of(work, struct take_work, work);
	unsigned int k;

	local_bh_disable();
	while ((k = alf_sc_dequeue(this_localq(w->pool), w->objs + w->n,
				   w->pool->localq_sz - w->n)))
		w->n += k;
	local_bh_enable();
}

/* Every head in the pool's queues, once: a double free would show twice */
static void expect_no_duplicates(struct qmp_test *t, struct qmempool *pool)
{
	unsigned int cap = num_possible_cpus() * pool->localq_sz +
			   nr_node_ids * pool->sharedq_sz;
	void **all = kvmalloc_array(cap, sizeof(*all), GFP_KERNEL);
	struct take_work w = { .pool = pool };
	unsigned int n = 0, dups = 0, i;
	int cpu;

	if (!QMP_EXPECT(t, all, "out of memory"))
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		w.objs = all + n;
		w.n = 0;
		INIT_WORK_ONSTACK(&w.work, take_localq_fn);
		schedule_work_on(cpu, &w.work);
		flush_work(&w.work);
		destroy_work_on_stack(&w.work);
		n += w.n;
	}
	cpus_read_unlock();
	for (i = 0; i < nr_node_ids; i++)
		n += alf_mc_dequeue(pool->sharedq[i], all + n, cap - n);
	sort(all, n, sizeof(*all), ptr_cmp, NULL);
	for (i = 1; i < n; i++)
		dups += all[i] == all[i - 1];
	QMP_EXPECT(t, !dups, "%u heads are in the pool twice", dups);
	qmp_test_diag(t, "%u heads in the pool", n);
	/* Back to the slab, a duplicate only once */
	for (i = 0; i < n; i++)
		if (!i || all[i] != all[i - 1])
			kmem_cache_free(pool->kmem, all[i]);
	kvfree(all);
}

static void test_stress(struct qmp_test *t)
{
	unsigned int nthreads = num_online_cpus(), i, toggles = 0;
	struct stress s = { };
	struct stress_thread *th;
	unsigned long end;
	int cpu;

	th = kcalloc(nthreads, sizeof(*th), GFP_KERNEL);
	if (!QMP_EXPECT(t, th, "out of memory"))
		return;
	i = 0;
	for_each_online_cpu(cpu) {
		if (i == nthreads)
			break;
		th[i].s = &s;
		init_completion(&th[i].done);
		th[i].task = kthread_create_on_cpu(stress_fn, &th[i], cpu,
						   "skb_pool_stress/%u");
		if (!QMP_EXPECT(t, !IS_ERR(th[i].task), "kthread_create")) {
			th[i].task = NULL;
			break;
		}
		wake_up_process(th[i++].task);
	}
	nthreads = i;
	end = jiffies + msecs_to_jiffies(stress_ms);
	while (time_before(jiffies, end)) {
		msleep(toggle_ms ?: 20);
		if (!toggle_ms)
			continue;
		if (!QMP_EXPECT(t, !skb_pool_set_hook(toggles & 1),
				"toggle %u", toggles))
			break;
		toggles++;
	}
	WRITE_ONCE(s.stop, true);
	for (i = 0; i < nthreads; i++) {
		qmp_wait_completion(&th[i].done);
		kthread_stop(th[i].task);
	}
	QMP_EXPECT(t, !skb_pool_set_hook(true), "hook on at the end");
	QMP_EXPECT(t, atomic_long_read(&s.skbs) > 0, "no skb was built");
	qmp_test_diag(t, "%u threads, %ld skbs, %d failed allocations, %u hook toggles",
		      nthreads, atomic_long_read(&s.skbs), atomic_read(&s.failed),
		      toggles);
	expect_no_duplicates(t, skb_pool_get_pool());
	kfree(th);
}

static const struct qmp_test_case skb_pool_cases[] = {
	{ "pool_heads_come_back", test_pool_heads_come_back },
	{ "slab_heads_come_back", test_slab_heads_come_back },
	{ "fclones_untouched", test_fclones_untouched },
	{ "hook_off_on", test_hook_off_on },
	{ "stress", test_stress },
};

static int __init skb_pool_test_init(void)
{
	return qmp_run_suite("skb_pool", skb_pool_cases,
			     ARRAY_SIZE(skb_pool_cases));
}

static void __exit skb_pool_test_exit(void)
{
}

module_init(skb_pool_test_init);
module_exit(skb_pool_test_exit);
MODULE_DESCRIPTION("Tests of skb_pool_hook (KTAP)");
MODULE_LICENSE("GPL");
