// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_debug.c - debug mode: a double free (debug_double_free)
 * and frees of pointers that are no object of the pool's cache
 * (debug_invalid_free) are reported, counted and not stored, and nothing
 * else is lost, in process context and in hardirq context (the bypass); the module parameter makes new pools debug pools
 * (debug_param).  Each report is announced for scripts/ktap-check.
 */
#include <linux/irq_work.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <qmp/pool_check.h>
#include "qmempool_test.h"

/*
 * Free @obj twice (the second a report), then allocate everything: @obj
 * comes out once.  The pool counts one bad free.
 */
static void double_free_then_alloc(struct qmp_test *t, struct qmempool *pool,
				   void *obj)
{
	qmempool_free(pool, obj);
	qmp_expect_bad_free(t, pool, obj, QMP_REPORT_DOUBLE_FREE,
			    "a second free");
	qmp_expect_each_once(t, pool, obj, "after a double free");
}

/*
 * Run @body pinned to a CPU: the objects freed on it are the ones its
 * allocations get back (the pool's queues are per CPU and per node)
 */
struct body {
	void (*fn)(struct qmp_test *t, struct qmempool *pool);
};

static void pinned(struct qmp_test *t, struct qmempool *pool, void *arg)
{
	const struct body *body = arg;

	migrate_disable();
	body->fn(t, pool);
	migrate_enable();
}

/* A free in hardirq context: the bypass, into the shared queue */
struct hardirq_free {
	struct irq_work work;
	struct qmempool *pool;
	void *obj;
};

static void hardirq_free_fn(struct irq_work *work)
{
	struct hardirq_free *h = container_of(work, struct hardirq_free, work);

	qmempool_free(h->pool, h->obj);
}

static void hardirq_free(struct qmempool *pool, void *obj)
{
	struct hardirq_free h = { .pool = pool, .obj = obj };

	init_irq_work(&h.work, hardirq_free_fn);
	irq_work_queue(&h.work);
	irq_work_sync(&h.work);
}

static void do_double_free(struct qmp_test *t, struct qmempool *pool)
{
	unsigned long bad = qmempool_bad_frees(pool);
	void *obj;

	obj = qmempool_alloc(pool, GFP_KERNEL);
	if (!QMP_EXPECT(t, obj, "allocation failed"))
		return;
	double_free_then_alloc(t, pool, obj);
	/*
	 * No false alarm: an object out of the queue (marked there), handed
	 * out without zeroing and freed without a write, is no double free
	 */
	obj = qmempool_alloc_noinit(pool, GFP_KERNEL);
	if (!QMP_EXPECT(t, obj, "allocation failed"))
		return;
	qmempool_free(pool, obj);
	QMP_EXPECT(t, qmempool_bad_frees(pool) == bad + 1,
		   "%lu bad frees counted after a clean free, expected %lu",
		   qmempool_bad_frees(pool), bad + 1);
	/* The same twice in hardirq context, where the pool is bypassed */
	obj = qmempool_alloc(pool, GFP_KERNEL);
	if (!QMP_EXPECT(t, obj, "allocation failed"))
		return;
	hardirq_free(pool, obj);
	expect_report(t, QMP_REPORT_DOUBLE_FREE);
	hardirq_free(pool, obj);
	QMP_EXPECT(t, qmempool_bad_frees(pool) == bad + 2,
		   "%lu bad frees counted after a double free in hardirq context, expected %lu",
		   qmempool_bad_frees(pool), bad + 2);
	qmp_expect_each_once(t, pool, obj, "after a double free in hardirq context");
	/* Nothing in a local cache: every free went through the checks */
	QMP_EXPECT(t, !qmempool_cached_cpu(pool, raw_smp_processor_id()),
		   "a debug pool's local cache holds %u objects",
		   qmempool_cached_cpu(pool, raw_smp_processor_id()));
}

void test_debug_double_free(struct qmp_test *t)
{
	struct body body = { do_double_free };

	with_test_pool_flags(t, 64, 256, 0, QMEMPOOL_DEBUG, pinned, &body);
}

static void do_invalid_free(struct qmp_test *t, struct qmempool *pool)
{
	static unsigned long not_slab[OBJ_SIZE / sizeof(unsigned long)];
	struct kmem_cache *other;
	void *obj, *foreign;

	obj = qmempool_alloc(pool, GFP_KERNEL);
	if (!QMP_EXPECT(t, obj, "allocation failed"))
		return;
	qmp_expect_bad_free(t, pool, (char *)obj + 64, QMP_REPORT_INVALID_FREE,
			    "an interior pointer");
	other = kmem_cache_create("qmp_test_other", OBJ_SIZE, 0,
				  SLAB_NOLEAKTRACE, NULL);
	if (QMP_EXPECT(t, other, "kmem_cache_create failed")) {
		foreign = kmem_cache_alloc(other, GFP_KERNEL);
		if (QMP_EXPECT(t, foreign, "allocation failed")) {
			qmp_expect_bad_free(t, pool, foreign,
					    QMP_REPORT_INVALID_FREE,
					    "another cache's object");
			kmem_cache_free(other, foreign);
		}
		kmem_cache_destroy(other);
	}
	qmp_expect_bad_free(t, pool, not_slab, QMP_REPORT_INVALID_FREE,
			    "a module's static array");
	/* The pool still works and holds each object once */
	qmempool_free(pool, obj);
	qmp_expect_each_once(t, pool, obj, "after the invalid frees");
}

void test_debug_invalid_free(struct qmp_test *t)
{
	struct body body = { do_invalid_free };

	with_test_pool_flags(t, 64, 256, 0, QMEMPOOL_DEBUG, pinned, &body);
}

#define DEBUG_PARAM	"/sys/module/qmempool/parameters/debug"

/* qmempool.debug=1: a pool created meanwhile is a debug pool */
static void do_debug_param(struct qmp_test *t, struct qmempool *pool)
{
	void *obj;

	QMP_EXPECT(t, pool->debug, "created under qmempool.debug=1, no debug pool");
	obj = qmempool_alloc(pool, GFP_KERNEL);
	if (QMP_EXPECT(t, obj, "allocation failed"))
		double_free_then_alloc(t, pool, obj);
}

void test_debug_param(struct qmp_test *t)
{
	struct body body = { do_debug_param };
	int ret = qmp_write_str(DEBUG_PARAM, "1");

	if (!QMP_EXPECT(t, !ret, "writing %s failed (%d)", DEBUG_PARAM, ret))
		return;
	with_test_pool(t, 64, 256, 0, pinned, &body);
	ret = qmp_write_str(DEBUG_PARAM, "0");
	QMP_EXPECT(t, !ret, "writing %s failed (%d)", DEBUG_PARAM, ret);
}
