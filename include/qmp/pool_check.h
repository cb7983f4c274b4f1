/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool_check.h - checks the test modules share on a pool they test: a
 * bad free is reported, counted and not stored; after it, each object the
 * pool holds for this CPU comes out of it once.  Test code only
 * (qmempool_test.ko, qmempool_kasan_test.ko).
 */
#ifndef _QMP_POOL_CHECK_H
#define _QMP_POOL_CHECK_H

#include <linux/qmempool.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <qmp/ktap.h>

/* The first words of the pool's reports (__qmempool_check_free()) */
#define QMP_REPORT_DOUBLE_FREE	"qmempool: BUG: double-free"
#define QMP_REPORT_INVALID_FREE	"qmempool: BUG: invalid-free"

/*
 * Free @bad into @pool, announcing @report (one of the above) for
 * scripts/ktap-check: the pool must count one bad free more and store
 * nothing.  @what names the pointer in a failed check.
 */
static inline void qmp_expect_bad_free(struct qmp_test *t,
				       struct qmempool *pool, void *bad,
				       const char *report, const char *what)
{
	unsigned long before = qmempool_bad_frees(pool);
	unsigned long cached = qmempool_cached(pool);

	pr_info("# expect-report: %s\n", report);
	qmempool_free(pool, bad);
	QMP_EXPECT(t, qmempool_bad_frees(pool) == before + 1,
		   "%s: %lu bad frees counted, expected %lu", what,
		   qmempool_bad_frees(pool), before + 1);
	QMP_EXPECT(t, qmempool_cached(pool) == cached,
		   "%s: stored (%lu objects cached, %lu before)", what,
		   qmempool_cached(pool), cached);
}

/*
 * Take every object @pool holds for this CPU (its local cache, its node's
 * shared queue) and one more: @obj (if not NULL) must come out once, no
 * object twice; all go back.  @when names the moment in a failed check.
 * The caller is pinned (migrate_disable()).
 */
static inline void qmp_expect_each_once(struct qmp_test *t,
					struct qmempool *pool, void *obj,
					const char *when)
{
	unsigned int i, j, n, seen = 0, dups = 0;
	void **objs;

	n = qmempool_cached_cpu(pool, smp_processor_id()) +
	    qmempool_cached_node(pool, numa_mem_id()) + 1;
	objs = kcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!QMP_EXPECT(t, objs, "%s: out of memory", when))
		return;
	for (i = 0; i < n; i++) {
		objs[i] = qmempool_alloc(pool, GFP_KERNEL);
		if (!QMP_EXPECT(t, objs[i], "%s: allocation failed", when))
			break;
		seen += objs[i] == obj;
		for (j = 0; j < i; j++)
			dups += objs[j] == objs[i];
	}
	n = i;
	for (i = 0; i < n; i++)
		qmempool_free(pool, objs[i]);
	kfree(objs);
	QMP_EXPECT(t, !dups, "%s: %u objects handed out twice", when, dups);
	if (obj)
		QMP_EXPECT(t, seen == 1, "%s: the object came out %u times",
			   when, seen);
}

#endif /* _QMP_POOL_CHECK_H */
