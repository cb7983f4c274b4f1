// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_basic.c - one CPU's use of a pool: creation
 * (create_validation), accounting (accounting_one_cpu), zeroing
 * (init_on_alloc, init_on_free) and callers with interrupts disabled
 * (irqs_off_caller).
 */
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "qmempool_test.h"

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

/*
 * The debugfs files of @pool and of a second pool on @c: each named after
 * the cache, <cache>-<id>, and not the same
 */
static void expect_debugfs_names(struct qmp_test *t, struct qmempool *pool,
				 struct kmem_cache *c)
{
	struct qmempool *other = qmempool_create(QMEMPOOL_BULK,
						 2 * QMEMPOOL_BULK, 0, c,
						 GFP_KERNEL);
	size_t len = strlen(pool->name);
	const char *a, *b;

	if (!QMP_EXPECT(t, !IS_ERR(other), "second pool: %d",
			PTR_ERR_OR_ZERO(other)))
		return;
	if (IS_ERR_OR_NULL(pool->debugfs) || IS_ERR_OR_NULL(other->debugfs)) {
		qmp_test_diag(t, "no debugfs here: its names not checked");
	} else {
		a = pool->debugfs->d_name.name;
		b = other->debugfs->d_name.name;
		QMP_EXPECT(t, !strncmp(a, pool->name, len) && a[len] == '-' &&
			   !strncmp(b, pool->name, len) && b[len] == '-' &&
			   strcmp(a, b),
			   "debugfs files %s and %s: not <%s>-<id> each", a, b,
			   pool->name);
	}
	qmempool_destroy(other);
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
	QMP_EXPECT(t, PTR_ERR_OR_ZERO(pool) == -EINVAL,
		   "a cache with %s: %d, not -EINVAL", what,
		   PTR_ERR_OR_ZERO(pool));
	qmempool_destroy(pool);
	kmem_cache_destroy(c);
}

void test_create_validation(struct qmp_test *t)
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
		QMP_EXPECT(t, PTR_ERR_OR_ZERO(pool) == -EINVAL,
			   "case %u (%u/%u/%u): %d, not -EINVAL", i,
			   bad[i].local, bad[i].shared, bad[i].prealloc,
			   PTR_ERR_OR_ZERO(pool));
		qmempool_destroy(pool);
	}
	expect_cache_refused(t, "a constructor", 0, obj_ctor);
	expect_cache_refused(t, "SLAB_TYPESAFE_BY_RCU", SLAB_TYPESAFE_BY_RCU,
			     NULL);
	if (SLAB_ACCOUNT)	/* 0 without CONFIG_MEMCG */
		expect_cache_refused(t, "SLAB_ACCOUNT", SLAB_ACCOUNT, NULL);
	else
		qmp_test_diag(t, "no SLAB_ACCOUNT in this kernel (no memcg)");
	pool = qmempool_create_flags(64, 256, 0, c, GFP_KERNEL, BIT(31));
	QMP_EXPECT(t, PTR_ERR_OR_ZERO(pool) == -EINVAL,
		   "unknown flags: %d, not -EINVAL", PTR_ERR_OR_ZERO(pool));
	qmempool_destroy(pool);
	pool = qmempool_create(QMEMPOOL_BULK, 2 * QMEMPOOL_BULK, 32, c,
			       GFP_KERNEL);
	if (QMP_EXPECT(t, !IS_ERR(pool), "smallest valid pool refused: %d",
		       PTR_ERR_OR_ZERO(pool))) {
		QMP_EXPECT(t, qmempool_cached(pool) == 32, "prealloc: %lu",
			   qmempool_cached(pool));
		expect_slab(t, c, 32, "prealloc");
		expect_debugfs_names(t, pool, c);
		destroy_and_check(t, pool, c, 0);
	}
	qmempool_destroy(NULL);
	qmempool_destroy(ERR_PTR(-EINVAL));
	kmem_cache_destroy(c);
}

/* Many objects on one CPU: distinct, writable, all returned */
static void do_accounting_one_cpu(struct qmp_test *t, struct qmempool *pool,
				  void *unused)
{
	const unsigned int n = 1000;
	struct kmem_cache *c = pool->kmem;
	void **objs;
	unsigned int i, round;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!QMP_EXPECT(t, objs, "out of memory"))
		return;
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
	kfree(objs);
}

void test_accounting_one_cpu(struct qmp_test *t)
{
	with_test_pool(t, 64, 256, 0, do_accounting_one_cpu, NULL);
}

/*
 * Zeroing.  Under init_on_alloc=1 (or with __GFP_ZERO) every object must
 * come out zeroed, byte by byte, whichever layer it comes from: the local
 * queue, the shared queue, the slab (a refill) or, in hardirq context, the
 * shared queue alone.  The checks hold on a poisoned cache too (slub_debug=P
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

/*
 * In hardirq context: the shared queue alone, which the rounds left full
 * of dirty objects; one of them, dirtied again and freed back there
 */
static void zero_hardirq_fn(struct irq_work *work)
{
	struct zero_run *z = container_of(work, struct zero_run, work);
	void *obj = qmempool_alloc(z->pool, GFP_ATOMIC |
				   (z->gfp & __GFP_ZERO));

	zero_check(z, obj, "the shared queue in hardirq context");
	if (obj) {
		memset(obj, 0xa5, OBJ_SIZE);
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

void test_init_on_alloc(struct qmp_test *t)
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
		if (!QMP_EXPECT(t, !IS_ERR(z.pool), "create: %ld",
				PTR_ERR(z.pool)))
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
static void do_init_on_free(struct qmp_test *t, struct qmempool *pool,
			    void *unused)
{
	struct kmem_cache *c = pool->kmem;
	void *objs[QMEMPOOL_BULK], *got[QMEMPOOL_BULK];
	unsigned long flags;
	unsigned int i, n, local = 0, dirty = 0;

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
}

void test_init_on_free(struct qmp_test *t)
{
	if (!want_init_on_free()) {
		qmp_test_skip(t, "init_on_free=0 (make check boots a guest with init_on_free=1)");
		return;
	}
	with_test_pool(t, 64, 256, 0, do_init_on_free, NULL);
}

/*
 * A caller with interrupts disabled (spin_lock_irqsave()) on a pool with
 * empty queues: refills from the slab and drains to it must leave them
 * disabled after every call.
 */
static void do_irqs_off_caller(struct qmp_test *t, struct qmempool *pool,
			       void *unused)
{
	const unsigned int n = 4 * 3 * QMEMPOOL_BULK;
	unsigned int i, got = 0, on = 0, corrupt = 0;
	unsigned long flags;
	void **objs;

	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!QMP_EXPECT(t, objs, "out of memory"))
		return;
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
	expect_slab(t, pool->kmem, qmempool_cached(pool), "after the calls");
	kfree(objs);
}

void test_irqs_off_caller(struct qmp_test *t)
{
	with_test_pool(t, QMEMPOOL_BULK, 2 * QMEMPOOL_BULK, 0,
		       do_irqs_off_caller, NULL);
}
