// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test.ko - tests of qmempool, run at insmod, KTAP output.
 *
 * Every case uses its own unmergeable 256-byte test cache and checks the
 * slab's own accounting (/sys/kernel/slab/<cache>/objects after
 * kmem_cache_shrink()) against what the test holds: after
 * qmempool_destroy() the cache must hold exactly the test's objects.
 * Objects carry a tag written at allocation and checked at free, so an
 * object handed out twice is caught.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/qmempool.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <qmp/ktap.h>
#include <qmp/misuse.h>
#include <qmp/version.h>

static unsigned int stress_ms = 3000;
module_param(stress_ms, uint, 0444);
MODULE_PARM_DESC(stress_ms, "Duration of each stress case in ms (default 3000)");

#define OBJ_SIZE	256
#define TEST_CACHE	"qmp_test_obj"

/* The first bytes of a test object while a test holds it */
struct obj_tag {
	unsigned long owner;	/* who holds it */
	unsigned long seq;	/* which of its allocations */
	unsigned long check;	/* owner ^ seq ^ OBJ_MAGIC */
};

#define OBJ_MAGIC	0x5a5aa5a5deadbeefUL

static void obj_tag(void *obj, unsigned long owner, unsigned long seq)
{
	struct obj_tag *t = obj;

	t->owner = owner;
	t->seq = seq;
	t->check = owner ^ seq ^ OBJ_MAGIC;
	memset(t + 1, (u8)seq, OBJ_SIZE - sizeof(*t));
}

static bool obj_tag_ok(void *obj, unsigned long owner, unsigned long seq)
{
	const struct obj_tag *t = obj;

	return t->owner == owner && t->seq == seq &&
	       t->check == (owner ^ seq ^ OBJ_MAGIC) &&
	       !memchr_inv(t + 1, (u8)seq, OBJ_SIZE - sizeof(*t));
}

static struct kmem_cache *test_cache(struct qmp_test *t)
{
	/* SLAB_NOLEAKTRACE: never merged, so its sysfs counters are ours */
	struct kmem_cache *c = kmem_cache_create(TEST_CACHE, OBJ_SIZE, 0,
						 SLAB_HWCACHE_ALIGN |
						 SLAB_NOLEAKTRACE, NULL);
	int ret;

	if (!QMP_EXPECT(t, c, "kmem_cache_create failed"))
		return NULL;
	/*
	 * An object KFENCE samples lives outside the slab's pages and is
	 * missing from the "objects" count the tests compare with theirs
	 * to the object (kfence.sample_interval is non-zero on the debug
	 * kernels and may be on a host): keep KFENCE off this cache (the
	 * flag is not accepted at creation; no file: no KFENCE).
	 */
	ret = qmp_write_str("/sys/kernel/slab/" TEST_CACHE "/skip_kfence", "1");
	QMP_EXPECT(t, !ret || ret == -ENOENT,
		   "cannot keep KFENCE off the test cache (%d)", ret);
	return c;
}

/* Objects of the test cache in use, by the slab's own accounting */
static long slab_objects(struct kmem_cache *c)
{
	kmem_cache_shrink(c);
	return qmp_read_long("/sys/kernel/slab/" TEST_CACHE "/objects");
}

static bool expect_slab(struct qmp_test *t, struct kmem_cache *c, long held,
			const char *when)
{
	long n = slab_objects(c);

	return QMP_EXPECT(t, n == held,
			  "%s: slab holds %ld objects, test holds %ld", when,
			  n, held);
}

/* Destroy @pool and check that the slab holds exactly @held objects */
static void destroy_and_check(struct qmp_test *t, struct qmempool *pool,
			      struct kmem_cache *c, long held)
{
	qmempool_destroy(pool);
	expect_slab(t, c, held, "after destroy");
}

/* The counters of this CPU (the caller is pinned) */
static struct qmempool_stats this_stats(struct qmempool *pool)
{
	struct qmempool_stats st;

	qmempool_get_stats(pool, raw_smp_processor_id(), &st);
	return st;
}

/* Objects cached in the local queues of the other CPUs */
static unsigned long cached_other_cpus(struct qmempool *pool)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		if (cpu != raw_smp_processor_id())
			n += qmempool_cached_cpu(pool, cpu);
	return n;
}

static void obj_ctor(void *obj)
{
	memset(obj, 0x3c, OBJ_SIZE);
}

/* A cache the pool cannot serve must be refused */
static void expect_cache_refused(struct qmp_test *t, const char *what,
				 slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *c = kmem_cache_create("qmp_test_refused", OBJ_SIZE,
						 0, flags, ctor);
	struct qmempool *pool;

	if (!QMP_EXPECT(t, c, "kmem_cache_create failed"))
		return;
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	QMP_EXPECT(t, !pool, "a cache with %s accepted", what);
	qmempool_destroy(pool);
	kmem_cache_destroy(c);
}

static void test_create_validation(struct qmp_test *t)
{
	static const struct {
		u32 local, shared, prealloc;
		bool null_cache;
	} bad[] = {
		{ 64, 256, 0, true },		/* NULL cache */
		{ 8, 256, 0 },			/* localq < BULK */
		{ 2048, 256, 0 },		/* localq > LOCAL_MAX */
		{ 48, 256, 0 },			/* not a power of two */
		{ 64, 16, 0 },			/* sharedq < 2 * BULK */
		{ 64, 100, 0 },			/* not a power of two */
		{ 64, 256, 512 },		/* prealloc > sharedq */
		{ 0, 0, 0 },
		{ 64, ALF_QUEUE_MAX_SIZE * 2, 0 },
		{ 1U << 31, 256, 0 },
	};
	struct kmem_cache *c = test_cache(t);
	struct qmempool *pool;
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pool = qmempool_create(bad[i].local, bad[i].shared,
				       bad[i].prealloc,
				       bad[i].null_cache ? NULL : c,
				       GFP_KERNEL);
		QMP_EXPECT(t, !pool, "case %u (%u/%u/%u) accepted", i,
			   bad[i].local, bad[i].shared, bad[i].prealloc);
		qmempool_destroy(pool);
	}
	expect_cache_refused(t, "a constructor", 0, obj_ctor);
	expect_cache_refused(t, "SLAB_TYPESAFE_BY_RCU", SLAB_TYPESAFE_BY_RCU,
			     NULL);
	pool = qmempool_create(QMEMPOOL_BULK, 2 * QMEMPOOL_BULK, 32, c,
			       GFP_KERNEL);
	if (QMP_EXPECT(t, pool, "smallest valid pool refused")) {
		QMP_EXPECT(t, qmempool_cached(pool) == 32, "prealloc: %lu",
			   qmempool_cached(pool));
		expect_slab(t, c, 32, "prealloc");
		destroy_and_check(t, pool, c, 0);
	}
	qmempool_destroy(NULL);
	kmem_cache_destroy(c);
}

/* Many objects on one CPU: distinct, writable, all returned */
static void test_accounting_one_cpu(struct qmp_test *t)
{
	const unsigned int n = 1000;
	struct kmem_cache *c = test_cache(t);
	struct qmempool *pool = NULL;
	void **objs;
	unsigned int i, round;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, objs, "out of memory"))
		goto out;
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	migrate_disable();	/* one CPU: its local queue and its node's */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++) {
			objs[i] = qmempool_alloc(pool, GFP_KERNEL);
			if (!QMP_EXPECT(t, objs[i], "alloc %u failed", i))
				goto free;
			obj_tag(objs[i], 1, round * n + i);
		}
		for (i = 0; i < n; i++)
			if (!QMP_EXPECT(t, obj_tag_ok(objs[i], 1, round * n + i),
					"object %u handed out twice", i))
				goto free;
		expect_slab(t, c, n + qmempool_cached(pool), "all allocated");
		for (i = 0; i < n; i++)
			qmempool_free(pool, objs[i]);
		expect_slab(t, c, qmempool_cached(pool), "all freed");
		/* 1000 frees fill both layers; the local queue was drained
		 * by a bulk at most once since it was last full
		 */
		QMP_EXPECT(t, qmempool_cached_cpu(pool, smp_processor_id()) >
			   64 - QMEMPOOL_BULK && qmempool_cached_node(pool,
			   numa_mem_id()) == 256 && !cached_other_cpus(pool),
			   "round %u: local queue %u of 64, node's shared queue %u of 256, %lu in other CPUs' queues",
			   round, qmempool_cached_cpu(pool, smp_processor_id()),
			   qmempool_cached_node(pool, numa_mem_id()),
			   cached_other_cpus(pool));
	}
	memset(objs, 0, n * sizeof(*objs));
free:
	for (i = 0; i < n; i++)
		qmempool_free(pool, objs[i]);
	migrate_enable();
	destroy_and_check(t, pool, c, 0);
	pool = NULL;
out:
	qmempool_destroy(pool);
	kfree(objs);
	kmem_cache_destroy(c);
}

/*
 * Zeroing.  Under init_on_alloc=1 (or with __GFP_ZERO) every object must
 * come out zeroed, byte by byte, whichever layer it comes from: the local
 * queue, the shared queue, the slab (a refill) or, in hardirq context, the
 * slab directly.  The checks hold on a poisoned cache too (slub_debug=P
 * for TEST_CACHE), where the slab itself does not zero under
 * init_on_alloc=1 (make check boots one guest so).
 */
#define ZERO_OBJS	(3 * QMEMPOOL_BULK)

struct zero_run {
	struct qmp_test *t;
	struct qmempool *pool;
	gfp_t gfp;
	unsigned int checked, dirty;	/* objects checked, not zeroed */
	struct irq_work work;
};

static void zero_check(struct zero_run *z, void *obj, const char *from)
{
	if (!QMP_EXPECT(z->t, obj, "alloc from %s failed", from))
		return;
	z->checked++;
	if (memchr_inv(obj, 0, OBJ_SIZE) && !z->dirty++)
		QMP_EXPECT(z->t, false,
			   "an object from %s is not zeroed (first bytes %*ph)",
			   from, 8, obj);
}

/* In hardirq context: the pool's bypass, a dirty object the slab reuses */
static void zero_hardirq_fn(struct irq_work *work)
{
	struct zero_run *z = container_of(work, struct zero_run, work);
	void *obj = qmempool_alloc(z->pool, GFP_ATOMIC);

	if (obj) {
		memset(obj, 0xa5, OBJ_SIZE);
		qmempool_free(z->pool, obj);
		obj = qmempool_alloc(z->pool, GFP_ATOMIC |
				     (z->gfp & __GFP_ZERO));
		zero_check(z, obj, "the hardirq bypass");
		qmempool_free(z->pool, obj);
	}
}

/* Sources the counters of this CPU saw since @before, for messages */
static bool zero_sources(struct qmempool *pool, struct qmempool_stats *before,
			 const char *what, struct qmp_test *t)
{
	struct qmempool_stats now = this_stats(pool);

	return QMP_EXPECT(t, now.alloc_fast > before->alloc_fast &&
			  now.alloc_shared > before->alloc_shared &&
			  now.alloc_slab > before->alloc_slab &&
			  now.bypass > before->bypass,
			  "%s: not every source served (local %lu, shared %lu, slab %lu, hardirq %lu)",
			  what, now.alloc_fast - before->alloc_fast,
			  now.alloc_shared - before->alloc_shared,
			  now.alloc_slab - before->alloc_slab,
			  now.bypass - before->bypass);
}

/* Every source, with @gfp; objects dirtied whenever they are freed */
static void zero_all_sources(struct zero_run *z, const char *what)
{
	struct qmempool_stats before = this_stats(z->pool);
	void *objs[ZERO_OBJS];
	unsigned int i, round;

	z->checked = 0;
	z->dirty = 0;
	/* Round 0: refills from the slab; then from both queues */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < ZERO_OBJS; i++) {
			objs[i] = qmempool_alloc(z->pool, z->gfp);
			zero_check(z, objs[i], what);
		}
		for (i = 0; i < ZERO_OBJS; i++) {
			if (objs[i])
				memset(objs[i], 0xa5, OBJ_SIZE);
			qmempool_free(z->pool, objs[i]);
		}
	}
	init_irq_work(&z->work, zero_hardirq_fn);
	irq_work_queue(&z->work);
	irq_work_sync(&z->work);
	zero_sources(z->pool, &before, what, z->t);
	QMP_EXPECT(z->t, !z->dirty, "%s: %u of %u objects not zeroed", what,
		   z->dirty, z->checked);
}

static void test_init_on_alloc(struct qmp_test *t)
{
	struct kmem_cache *c = test_cache(t);
	struct zero_run z = { .t = t };
	unsigned int round;

	if (!c)
		return;
	qmp_test_diag(t, "init_on_alloc=%d init_on_free=%d",
		      want_init_on_alloc(GFP_KERNEL), want_init_on_free());
	/* init_on_alloc (if on), then __GFP_ZERO, each from an empty pool */
	for (round = !want_init_on_alloc(GFP_KERNEL); round < 2; round++) {
		z.gfp = round ? GFP_KERNEL | __GFP_ZERO : GFP_KERNEL;
		/* Small queues: 48 objects overflow into the shared queue */
		z.pool = qmempool_create(QMEMPOOL_BULK, 2 * QMEMPOOL_BULK, 0,
					 c, GFP_KERNEL);
		if (!QMP_EXPECT(t, z.pool, "create"))
			break;
		migrate_disable();
		zero_all_sources(&z, round ? "__GFP_ZERO" : "init_on_alloc");
		migrate_enable();
		expect_slab(t, c, qmempool_cached(z.pool), "after the rounds");
		destroy_and_check(t, z.pool, c, 0);
	}
	kmem_cache_destroy(c);
}

/*
 * init_on_free=1: an object freed into the pool is zeroed there, before
 * anybody allocates it (the queue is looked at directly).
 */
static void test_init_on_free(struct qmp_test *t)
{
	struct kmem_cache *c;
	struct qmempool *pool;
	void *objs[QMEMPOOL_BULK], *got[QMEMPOOL_BULK];
	unsigned long flags;
	unsigned int i, n, local = 0, dirty = 0;

	if (!want_init_on_free()) {
		qmp_test_skip(t, "init_on_free=0 (make check boots a guest with init_on_free=1)");
		return;
	}
	c = test_cache(t);
	if (!c)
		return;
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	local_irq_save(flags);		/* this CPU's local cache, ours */
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = qmempool_alloc(pool, GFP_ATOMIC);
		if (objs[i])
			memset(objs[i], 0xa5, OBJ_SIZE);
	}
	/* Empty the local cache, then free the dirty objects into it */
	while (qmempool_take_local(pool, smp_processor_id(), got, 1))
		kmem_cache_free(c, got[0]);
	/* Another node's objects go to the slab, the others stay here */
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		local += objs[i] &&
			 page_to_nid(virt_to_page(objs[i])) == numa_mem_id();
		qmempool_free(pool, objs[i]);
	}
	n = qmempool_take_local(pool, smp_processor_id(), got,
				ARRAY_SIZE(got));
	local_irq_restore(flags);
	for (i = 0; i < n; i++) {
		dirty += !!memchr_inv(got[i], 0, OBJ_SIZE);
		kmem_cache_free(c, got[i]);
	}
	QMP_EXPECT(t, n == local && n,
		   "%u of %u node-local freed objects in the local queue", n,
		   local);
	QMP_EXPECT(t, !dirty, "init_on_free=1 but %u of %u objects in the pool not zeroed",
		   dirty, n);
	destroy_and_check(t, pool, c, 0);
out:
	kmem_cache_destroy(c);
}

/*
 * A caller with interrupts disabled (spin_lock_irqsave()) on a pool with
 * empty queues: refills from the slab and drains to it must leave them
 * disabled after every call.
 */
static void test_irqs_off_caller(struct qmp_test *t)
{
	const unsigned int n = 4 * 3 * QMEMPOOL_BULK;
	struct kmem_cache *c = test_cache(t);
	struct qmempool *pool;
	unsigned int i, got = 0, on = 0, corrupt = 0;
	unsigned long flags;
	void **objs;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, objs, "out of memory"))
		goto out;
	pool = qmempool_create(QMEMPOOL_BULK, 2 * QMEMPOOL_BULK, 0, c,
			       GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		objs[i] = qmempool_alloc(pool, GFP_ATOMIC);
		got += !!objs[i];
		if (objs[i])
			obj_tag(objs[i], 5, i);
		if (!irqs_disabled()) {
			on++;
			local_irq_disable();
		}
	}
	for (i = 0; i < n; i++) {
		corrupt += objs[i] && !obj_tag_ok(objs[i], 5, i);
		qmempool_free(pool, objs[i]);
		if (!irqs_disabled()) {
			on++;
			local_irq_disable();
		}
	}
	local_irq_restore(flags);
	QMP_EXPECT(t, got == n, "%u of %u allocations with interrupts off", got,
		   n);
	QMP_EXPECT(t, !corrupt, "%u objects handed out twice", corrupt);
	QMP_EXPECT(t, !on, "%u of %u calls returned with interrupts enabled",
		   on, 2 * n);
	expect_slab(t, c, qmempool_cached(pool), "after the calls");
	destroy_and_check(t, pool, c, 0);
out:
	kfree(objs);
	kmem_cache_destroy(c);
}

/* ------------------------------------------------------------------ */
/* Objects allocated on one CPU and freed on another                   */

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

static void test_cross_cpu(struct qmp_test *t)
{
	struct kmem_cache *c = test_cache(t);
	struct task_struct *p, *q;
	struct xfer *x;
	int cpu0 = cpumask_first(cpu_online_mask);
	int cpu1 = cpumask_next(cpu0, cpu_online_mask);

	if (cpu1 >= nr_cpu_ids) {
		qmp_test_skip(t, "needs 2 CPUs");
		kmem_cache_destroy(c);
		return;
	}
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, x, "out of memory"))
		goto out;
	x->rounds = 50;
	init_completion(&x->filled);
	init_completion(&x->emptied);
	init_completion(&x->done[0]);
	init_completion(&x->done[1]);
	x->pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, x->pool, "create"))
		goto out;
	p = kthread_create(xfer_producer, x, "qmp_xfer_p");
	q = kthread_create(xfer_consumer, x, "qmp_xfer_c");
	if (!QMP_EXPECT(t, !IS_ERR(p) && !IS_ERR(q), "kthread_create")) {
		/* Never woken: stop them before they run */
		if (!IS_ERR(p))
			kthread_stop(p);
		if (!IS_ERR(q))
			kthread_stop(q);
		destroy_and_check(t, x->pool, c, 0);
		goto out;
	}
	kthread_bind(p, cpu0);
	kthread_bind(q, cpu1);
	wake_up_process(p);
	wake_up_process(q);
	qmp_wait_completion(&x->done[0]);
	qmp_wait_completion(&x->done[1]);
	kthread_stop(p);
	kthread_stop(q);
	QMP_EXPECT(t, !atomic_read(&x->errors),
		   "%d objects failed or were corrupted in transfer",
		   atomic_read(&x->errors));
	expect_slab(t, c, qmempool_cached(x->pool), "after transfers");
	destroy_and_check(t, x->pool, c, 0);
out:
	kfree(x);
	kmem_cache_destroy(c);
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

static void test_cpu_offline(struct qmp_test *t)
{
	struct kmem_cache *c = test_cache(t);
	struct cpu_work w = { };
	struct qmempool *pool;
	unsigned int left;
	int cpu = cpumask_last(cpu_online_mask);

	if (!c)
		return;
	if (cpu == cpumask_first(cpu_online_mask)) {
		qmp_test_skip(t, "needs 2 CPUs");
		goto out;
	}
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	w.pool = pool;
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
		expect_slab(t, c, qmempool_cached(pool), "CPU offline");
		QMP_EXPECT(t, !add_cpu(cpu), "CPU %d did not come back", cpu);
	}
	destroy_and_check(t, pool, c, 0);
out:
	kmem_cache_destroy(c);
}

/* ------------------------------------------------------------------ */
/* NUMA: a node's queues only take objects of that node                */

#define NUMA_OBJS	64

struct numa_work {
	struct work_struct work;
	struct qmempool *pool;
	void *objs[NUMA_OBJS];
	bool alloc;			/* allocate objs[], else free them */
	unsigned int failed;		/* allocations that returned NULL */
	unsigned long remote;		/* frees that went to the slab */
};

/* On the CPU the work is queued on (a bound kworker) */
static void numa_fn(struct work_struct *work)
{
	struct numa_work *w = container_of(work, struct numa_work, work);
	unsigned long remote = this_stats(w->pool).free_remote;
	unsigned int i;

	for (i = 0; i < NUMA_OBJS; i++) {
		if (!w->alloc) {
			qmempool_free(w->pool, w->objs[i]);
			continue;
		}
		w->objs[i] = qmempool_alloc(w->pool, GFP_KERNEL);
		if (!w->objs[i])
			w->failed++;
	}
	w->remote = this_stats(w->pool).free_remote - remote;
}

static void numa_run_on(struct numa_work *w, int cpu, bool alloc)
{
	w->alloc = alloc;
	w->failed = 0;
	INIT_WORK(&w->work, numa_fn);	/* @w is kzalloc'ed, not on the stack */
	schedule_work_on(cpu, &w->work);
	flush_work(&w->work);
}

/* How many of @w's objects live on @node */
static unsigned int numa_count_on(struct numa_work *w, int node)
{
	unsigned int i, n = 0;

	for (i = 0; i < NUMA_OBJS; i++)
		n += w->objs[i] && page_to_nid(virt_to_page(w->objs[i])) == node;
	return n;
}

/* Objects cached for @cpu of @node: its local queue and the node's queue */
static unsigned int numa_queued(struct qmempool *pool, int cpu, int node)
{
	return qmempool_cached_cpu(pool, cpu) + qmempool_cached_node(pool, node);
}

/* The first online CPU of @node, or -1 */
static int numa_cpu_of(int node)
{
	int cpu = cpumask_first_and(cpumask_of_node(node), cpu_online_mask);

	return cpu < nr_cpu_ids ? cpu : -1;
}

/* Two nodes with online CPUs (and memory: the slab allocates there) */
static bool numa_two_nodes(int *na, int *nb)
{
	int node;

	*na = NUMA_NO_NODE;
	*nb = NUMA_NO_NODE;
	for_each_node_state(node, N_MEMORY) {
		if (numa_cpu_of(node) < 0)
			continue;
		if (*na == NUMA_NO_NODE)
			*na = node;
		else if (*nb == NUMA_NO_NODE)
			*nb = node;
	}
	return *nb != NUMA_NO_NODE;
}

static void test_numa_node_local(struct qmp_test *t)
{
	int na, nb, ca = -1, cb = -1;
	struct kmem_cache *c;
	struct numa_work *w;
	struct qmempool *pool;
	unsigned int queued;

	if (!numa_two_nodes(&na, &nb)) {
		qmp_test_skip(t, "needs 2 NUMA nodes with CPUs and memory");
		return;
	}
	ca = numa_cpu_of(na);
	cb = numa_cpu_of(nb);
	c = test_cache(t);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, w, "out of memory"))
		goto out;
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	QMP_EXPECT(t, pool->numa, "node checks off with %u nodes online",
		   num_online_nodes());
	w->pool = pool;

	/* Allocated on node A's CPU: node A's memory */
	numa_run_on(w, ca, true);
	QMP_EXPECT(t, !w->failed, "%u allocations failed", w->failed);
	QMP_EXPECT(t, numa_count_on(w, na) == NUMA_OBJS,
		   "CPU %d (node %d) got %u of %u objects from its node", ca,
		   na, numa_count_on(w, na), NUMA_OBJS);

	/* Freed on node B's CPU: straight back to the slab, not cached */
	numa_run_on(w, cb, false);
	queued = numa_queued(pool, cb, nb);
	QMP_EXPECT(t, w->remote == NUMA_OBJS && !queued,
		   "CPU %d (node %d) sent %lu of %u remote objects to the slab, its node's queues hold %u",
		   cb, nb, w->remote, NUMA_OBJS, queued);
	expect_slab(t, c, qmempool_cached(pool), "after remote frees");

	/* Allocated and freed on node B's CPU: node B's, and cached there */
	numa_run_on(w, cb, true);
	QMP_EXPECT(t, numa_count_on(w, nb) == NUMA_OBJS,
		   "CPU %d (node %d) got %u of %u objects from its node", cb,
		   nb, numa_count_on(w, nb), NUMA_OBJS);
	numa_run_on(w, cb, false);
	queued = numa_queued(pool, cb, nb);
	QMP_EXPECT(t, !w->remote && queued >= NUMA_OBJS,
		   "local frees: %lu went to the slab, %u cached on node %d",
		   w->remote, queued, nb);
	qmp_test_diag(t, "nodes %d (CPU %d) and %d (CPU %d)", na, ca, nb, cb);
	destroy_and_check(t, pool, c, 0);
out:
	kfree(w);
	kmem_cache_destroy(c);
}

/*
 * A refill from the slab may bring another node's objects: SLUB takes a
 * remote node's partial slab when the CPU's own node has none.  Node B's
 * CPU leaves partial slabs behind (allocates 512, frees every other one);
 * node A's CPU, with no slab of its own yet, then allocates through the
 * pool: whatever it gets, its local queue must hold node A's objects only.
 */
#define PARTIAL_OBJS	512

struct partial_work {
	struct work_struct work;
	struct kmem_cache *c;
	void *objs[PARTIAL_OBJS];
};

static void partial_fn(struct work_struct *work)
{
	struct partial_work *w = container_of(work, struct partial_work, work);
	unsigned int i;

	for (i = 0; i < PARTIAL_OBJS; i++)
		w->objs[i] = kmem_cache_alloc(w->c, GFP_KERNEL);
	for (i = 0; i < PARTIAL_OBJS; i += 2) {
		kmem_cache_free(w->c, w->objs[i]);
		w->objs[i] = NULL;
	}
}

/* On node A's CPU: one allocation, so that a refill stashes 15 */
static void alloc_one_fn(struct work_struct *work)
{
	struct numa_work *w = container_of(work, struct numa_work, work);

	w->objs[0] = qmempool_alloc(w->pool, GFP_KERNEL);
}

static void test_numa_refill_remote(struct qmp_test *t)
{
	struct partial_work *pw = NULL;
	struct numa_work *w = NULL;
	struct kmem_cache *c;
	struct qmempool *pool;
	unsigned int i, n, wrong = 0, local = 0, to_b;
	void *objs[QMEMPOOL_BULK];
	int na, nb, ca;

	if (!numa_two_nodes(&na, &nb)) {
		qmp_test_skip(t, "needs 2 NUMA nodes with CPUs and memory");
		return;
	}
	ca = numa_cpu_of(na);
	c = test_cache(t);
	pw = kzalloc(sizeof(*pw), GFP_KERNEL);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, pw && w, "out of memory"))
		goto out;
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	pw->c = c;
	INIT_WORK(&pw->work, partial_fn);	/* kzalloc'ed, not on the stack */
	schedule_work_on(numa_cpu_of(nb), &pw->work);
	flush_work(&pw->work);
	/* CPU B's slabs and per-CPU partial slabs onto node B's list */
	kmem_cache_shrink(c);

	w->pool = pool;
	INIT_WORK(&w->work, alloc_one_fn);	/* kzalloc'ed too */
	schedule_work_on(ca, &w->work);
	flush_work(&w->work);
	QMP_EXPECT(t, w->objs[0], "allocation failed");
	/* Nobody else uses the pool: look into node A's CPU's local cache */
	while ((n = qmempool_take_local(pool, ca, objs, ARRAY_SIZE(objs)))) {
		for (i = 0; i < n; i++) {
			wrong += page_to_nid(virt_to_page(objs[i])) != na;
			local += page_to_nid(virt_to_page(objs[i])) == na;
		}
		kmem_cache_free_bulk(c, n, objs);
	}
	to_b = qmempool_cached_node(pool, nb);
	qmp_test_diag(t, "a refill on CPU %d (node %d): %u node-%d objects stashed locally, %u sent to node %d's queue",
		      ca, na, local, na, to_b, nb);
	QMP_EXPECT(t, !wrong, "%u objects of another node in CPU %d's local queue",
		   wrong, ca);
	kmem_cache_free(c, w->objs[0]);
	for (i = 0; i < PARTIAL_OBJS; i++)
		if (pw->objs[i])
			kmem_cache_free(c, pw->objs[i]);
	destroy_and_check(t, pool, c, 0);
	if (!wrong && !to_b)
		qmp_test_skip(t, "the slab handed out no remote object this time");
out:
	kfree(w);
	kfree(pw);
	kmem_cache_destroy(c);
}

/* ------------------------------------------------------------------ */
/* A backing cache that fails: kretprobes on the slab entry points     */

static struct kmem_cache *fail_cache;
static atomic_t fail_mode;	/* FAIL_* */

enum { FAIL_NONE, FAIL_ALL, FAIL_HALF };

struct alloc_args {
	struct kmem_cache *s;
	void **p;
};

static int bulk_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct alloc_args *a = (struct alloc_args *)ri->data;

	a->s = (struct kmem_cache *)regs_get_kernel_argument(regs, 0);
	a->p = (void **)regs_get_kernel_argument(regs, 3);
	return a->s != READ_ONCE(fail_cache);	/* 1: skip the return */
}

/* Give back all (FAIL_ALL) or the second half (FAIL_HALF) of a bulk */
static int bulk_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct alloc_args *a = (struct alloc_args *)ri->data;
	long n = regs_return_value(regs), keep;

	if (n <= 0 || atomic_read(&fail_mode) == FAIL_NONE)
		return 0;
	keep = atomic_read(&fail_mode) == FAIL_ALL ? 0 : n / 2;
	kmem_cache_free_bulk(a->s, n - keep, a->p + keep);
	regs_set_return_value(regs, keep);
	return 0;
}

static int one_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct alloc_args *a = (struct alloc_args *)ri->data;

	a->s = (struct kmem_cache *)regs_get_kernel_argument(regs, 0);
	return a->s != READ_ONCE(fail_cache);
}

static int one_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct alloc_args *a = (struct alloc_args *)ri->data;
	void *obj = (void *)regs_return_value(regs);

	if (obj && atomic_read(&fail_mode) == FAIL_ALL) {
		kmem_cache_free(a->s, obj);
		regs_set_return_value(regs, 0);
	}
	return 0;
}

static struct kretprobe bulk_probe = {
	.entry_handler = bulk_entry, .handler = bulk_return,
	.data_size = sizeof(struct alloc_args), .maxactive = 64,
};

static struct kretprobe one_probe = {
	.entry_handler = one_entry, .handler = one_return,
	.data_size = sizeof(struct alloc_args), .maxactive = 64,
};

/* Probe the first of @names that exists (6.12 adds _noprof) */
static int probe_one_of(struct kretprobe *rp, const char *const names[2])
{
	int i, ret = -ENOENT;

	for (i = 0; i < 2 && ret; i++) {
		rp->kp.symbol_name = names[i];
		rp->kp.addr = NULL;
		rp->kp.flags = 0;
		ret = register_kretprobe(rp);
	}
	return ret;
}

static void test_slab_failure(struct qmp_test *t)
{
	static const char *const bulk[] = {
		"kmem_cache_alloc_bulk_noprof", "kmem_cache_alloc_bulk" };
	static const char *const one[] = {
		"kmem_cache_alloc_noprof", "kmem_cache_alloc" };
	struct kmem_cache *c = test_cache(t);
	struct qmempool *pool;
	void *objs[200];
	unsigned long cached;
	unsigned int i, n;

	if (!c)
		return;
	if (!QMP_EXPECT(t, !probe_one_of(&bulk_probe, bulk),
			"kretprobe on kmem_cache_alloc_bulk failed"))
		goto out;
	if (!QMP_EXPECT(t, !probe_one_of(&one_probe, one),
			"kretprobe on kmem_cache_alloc failed"))
		goto out_bulk;
	WRITE_ONCE(fail_cache, c);

	/* Creation with a preallocation the slab refuses: clean failure */
	atomic_set(&fail_mode, FAIL_ALL);
	pool = qmempool_create(64, 256, 64, c, GFP_KERNEL);
	QMP_EXPECT(t, !pool, "create succeeded without its preallocation");
	qmempool_destroy(pool);
	expect_slab(t, c, 0, "failed create");

	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out_probes;
	/* One CPU: what its queues cached is what it can get back */
	migrate_disable();
	QMP_EXPECT(t, !qmempool_alloc(pool, GFP_KERNEL),
		   "alloc from an empty pool and a failing slab");

	/* Fill the pool, then fail: the cached objects still come out */
	atomic_set(&fail_mode, FAIL_NONE);
	for (i = 0; i < 40; i++)
		objs[i] = qmempool_alloc(pool, GFP_KERNEL);
	for (i = 0; i < 40; i++)
		qmempool_free(pool, objs[i]);
	cached = qmempool_cached_cpu(pool, smp_processor_id()) +
		 qmempool_cached_node(pool, numa_mem_id());
	atomic_set(&fail_mode, FAIL_ALL);
	for (n = 0; n < ARRAY_SIZE(objs); n++) {
		objs[n] = qmempool_alloc(pool, GFP_KERNEL);
		if (!objs[n])
			break;
		obj_tag(objs[n], 3, n);
	}
	QMP_EXPECT(t, n == cached, "got %u objects with the slab failing, %lu were cached",
		   n, cached);
	expect_slab(t, c, n, "pool exhausted");
	for (i = 0; i < n; i++)
		QMP_EXPECT(t, obj_tag_ok(objs[i], 3, i), "object %u corrupt", i);
	for (i = 0; i < n; i++)
		qmempool_free(pool, objs[i]);

	/* Partial bulks: every refill gets half of what it asked */
	atomic_set(&fail_mode, FAIL_HALF);
	for (n = 0; n < ARRAY_SIZE(objs); n++) {
		objs[n] = qmempool_alloc(pool, GFP_KERNEL);
		if (!QMP_EXPECT(t, objs[n], "alloc %u with partial bulks", n))
			break;
		obj_tag(objs[n], 4, n);
	}
	expect_slab(t, c, n + qmempool_cached(pool), "partial bulks");
	for (i = 0; i < n; i++) {
		QMP_EXPECT(t, obj_tag_ok(objs[i], 4, i), "object %u corrupt", i);
		qmempool_free(pool, objs[i]);
	}
	atomic_set(&fail_mode, FAIL_NONE);
	migrate_enable();
	destroy_and_check(t, pool, c, 0);
out_probes:
	atomic_set(&fail_mode, FAIL_NONE);
	WRITE_ONCE(fail_cache, NULL);
	unregister_kretprobe(&one_probe);
out_bulk:
	unregister_kretprobe(&bulk_probe);
out:
	kmem_cache_destroy(c);
}

/* ------------------------------------------------------------------ */
/* Memory pressure: the shrinker gives every cached object back         */

/* echo 2 > /proc/sys/vm/drop_caches: every shrinker of every node runs */
static int drop_slab_caches(void)
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

static void test_shrinker(struct qmp_test *t)
{
	const unsigned int n = 400;
	struct kmem_cache *c = test_cache(t);
	struct qmempool *pool = NULL;
	unsigned long before;
	unsigned int i, waited;
	void **objs;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, objs, "out of memory"))
		goto out;
	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, pool, "create"))
		goto out;
	/* Both layers full: 400 frees on one CPU */
	migrate_disable();
	for (i = 0; i < n; i++)
		objs[i] = qmempool_alloc(pool, GFP_KERNEL);
	for (i = 0; i < n; i++)
		qmempool_free(pool, objs[i]);
	migrate_enable();
	before = qmempool_cached(pool);
	QMP_EXPECT(t, before > 256, "only %lu objects cached", before);
	if (!QMP_EXPECT(t, !drop_slab_caches(), "writing drop_caches failed"))
		goto destroy;
	/* The local queues are emptied by works on their CPUs */
	for (waited = 0; qmempool_cached(pool) && waited < 5000; waited += 20)
		msleep(20);
	QMP_EXPECT(t, !qmempool_cached(pool),
		   "%lu of %lu cached objects left after drop_caches",
		   qmempool_cached(pool), before);
	expect_slab(t, c, 0, "after drop_caches");
	qmp_test_diag(t, "%lu cached objects given back in %u ms", before,
		      waited);
destroy:
	destroy_and_check(t, pool, c, 0);
out:
	kfree(objs);
	kmem_cache_destroy(c);
}

/* ------------------------------------------------------------------ */
/* Stress: threads, softirq timers, hardirq timers, CPU hotplug        */

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
	struct stress_actor soft, hard;
	struct timer_list timer;
	struct hrtimer hrtimer;
};

static void stress_softirq_fn(struct timer_list *tl)
{
	struct stress_timers *x = from_timer(x, tl, timer);

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

static void run_stress(struct qmp_test *t, bool hotplug)
{
	unsigned int nthreads = 2 * num_online_cpus(), i, ntimers = 0;
	struct kmem_cache *c = test_cache(t);
	struct stress_thread *th = NULL;
	struct stress_timers *tm = NULL;
	unsigned long end, cycles = 0, hard_calls = 0;
	struct qmempool_stats st;
	struct stress s = { };
	int cpu;

	th = kcalloc(nthreads, sizeof(*th), GFP_KERNEL);
	tm = kcalloc(nr_cpu_ids, sizeof(*tm), GFP_KERNEL);
	if (!c || !QMP_EXPECT(t, th && tm, "out of memory"))
		goto out;
	s.pool = qmempool_create(64, 512, 64, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, s.pool, "create"))
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
		hrtimer_init(&x->hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		x->hrtimer.function = stress_hardirq_fn;
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
		del_timer_sync(&tm[i].timer);
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
	expect_slab(t, c, qmempool_cached(s.pool), "after stress");
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
	destroy_and_check(t, s.pool, c, 0);
out:
	kfree(tm);
	kfree(th);
	kmem_cache_destroy(c);
}

static void test_stress_all_contexts(struct qmp_test *t)
{
	run_stress(t, false);
}

static void test_stress_cpu_hotplug(struct qmp_test *t)
{
	if (num_online_cpus() < 2) {
		qmp_test_skip(t, "needs 2 CPUs");
		return;
	}
	run_stress(t, true);
}

static const struct qmp_test_case qmempool_cases[] = {
	{ "create_validation", test_create_validation },
	{ "accounting_one_cpu", test_accounting_one_cpu },
	{ "init_on_alloc", test_init_on_alloc },
	{ "init_on_free", test_init_on_free },
	{ "irqs_off_caller", test_irqs_off_caller },
	{ "cross_cpu", test_cross_cpu },
	{ "cpu_offline", test_cpu_offline },
	{ "numa_node_local", test_numa_node_local },
	{ "numa_refill_remote", test_numa_refill_remote },
	{ "slab_failure", test_slab_failure },
	{ "shrinker", test_shrinker },
	{ "stress_all_contexts", test_stress_all_contexts },
	{ "stress_cpu_hotplug", test_stress_cpu_hotplug },
	QMP_MISUSE_CASE,
};

static int __init qmempool_test_init(void)
{
	qmp_misuse_start();
	return qmp_run_suite("qmempool", qmempool_cases,
			     ARRAY_SIZE(qmempool_cases));
}

static void __exit qmempool_test_exit(void)
{
}

module_init(qmempool_test_init);
module_exit(qmempool_test_exit);
MODULE_DESCRIPTION("Tests of qmempool (KTAP)");
