/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qmempool_test.h - what the objects of qmempool_test.ko share: the test
 * cache, its accounting, a case's pool on it and tagged objects
 * (qmempool_test_util.c), the stress_ms parameter and the cases, one
 * file a subject:
 *
 *	qmempool_test_main.c	the case table, module init, parameters
 *	qmempool_test_util.c	the helpers above
 *	qmempool_test_basic.c	creation, accounting, zeroing, irqs off
 *	qmempool_test_inspect.c	caches that cannot be inspected (BTF)
 *	qmempool_test_debug.c	debug mode: double and invalid frees
 *	qmempool_test_cpu.c	cross-CPU frees, a CPU going offline
 *	qmempool_test_numa.c	node-local queues
 *	qmempool_test_fault.c	a failing slab (kretprobes)
 *	qmempool_test_shrink.c	the shrinker, and a CPU refilled meanwhile
 *	qmempool_test_stress.c	every context at once, CPU hotplug, the
 *				shrinker and destroy against it all
 */
#ifndef _QMEMPOOL_TEST_H
#define _QMEMPOOL_TEST_H

#include <linux/qmempool.h>
#include <linux/types.h>
#include <qmp/ktap.h>
#include <qmp/pool_take.h>

#define OBJ_SIZE	256
#define TEST_CACHE	"qmp_test_obj"

/* Duration of each stress case in ms (module parameter) */
extern unsigned int stress_ms;
/*
 * Whether the cases that kretprobe the slab's allocation calls run
 * (module parameter): `make check` runs them only in its single-threaded
 * TCG guest, see qmempool_test_fault.c
 */
extern bool slab_probes;

/*
 * Tag @obj as held by @owner for its allocation number @seq (the whole
 * object is written); obj_tag_ok() checks that the tag is still intact.
 */
void obj_tag(void *obj, unsigned long owner, unsigned long seq);
bool obj_tag_ok(void *obj, unsigned long owner, unsigned long seq);

/* A new test cache (TEST_CACHE, OBJ_SIZE), or NULL and a failed check */
struct kmem_cache *test_cache(struct qmp_test *t);
/* Check that the slab holds exactly @held objects of the test cache */
bool expect_slab(struct qmp_test *t, struct kmem_cache *c, long held,
		 const char *when);
/* Destroy @pool and check that the slab holds exactly @held objects */
void destroy_and_check(struct qmp_test *t, struct qmempool *pool,
		       struct kmem_cache *c, long held);
/*
 * Run @body on a pool of these sizes on a new test cache, then destroy
 * both, checking that the slab holds none of the cache's objects
 */
void with_test_pool(struct qmp_test *t, u32 localq_sz, u32 sharedq_sz,
		    u32 prealloc,
		    void (*body)(struct qmp_test *t, struct qmempool *pool,
				 void *arg),
		    void *arg);
/* The same with qmempool_create_flags()'s @flags */
void with_test_pool_flags(struct qmp_test *t, u32 localq_sz, u32 sharedq_sz,
			  u32 prealloc, unsigned int flags,
			  void (*body)(struct qmp_test *t,
				       struct qmempool *pool, void *arg),
			  void *arg);
/*
 * Announce a kernel report the case provokes next, for scripts/ktap-check
 * (`# expect-report: TEXT`, one report each, in the running case)
 */
void expect_report(struct qmp_test *t, const char *text);
/* echo 2 > /proc/sys/vm/drop_caches: every shrinker of every node runs */
int drop_slab_caches(void);
/* The counters of this CPU (the caller is pinned) */
struct qmempool_stats this_stats(struct qmempool *pool);

/* The cases, in the order of the table in qmempool_test_main.c */
void test_create_validation(struct qmp_test *t);
void test_cache_not_inspectable(struct qmp_test *t);
void test_accounting_one_cpu(struct qmp_test *t);
void test_init_on_alloc(struct qmp_test *t);
void test_init_on_free(struct qmp_test *t);
void test_irqs_off_caller(struct qmp_test *t);
void test_debug_double_free(struct qmp_test *t);
void test_debug_invalid_free(struct qmp_test *t);
void test_debug_param(struct qmp_test *t);
void test_cross_cpu(struct qmp_test *t);
void test_cpu_offline(struct qmp_test *t);
void test_numa_node_local(struct qmp_test *t);
void test_numa_refill_remote(struct qmp_test *t);
void test_slab_bulk_result(struct qmp_test *t);
void test_slab_failure(struct qmp_test *t);
void test_shrinker(struct qmp_test *t);
void test_shrinker_refilled(struct qmp_test *t);
void test_stress_all_contexts(struct qmp_test *t);
void test_stress_cpu_hotplug(struct qmp_test *t);
void test_stress_shrink_destroy(struct qmp_test *t);

#endif /* _QMEMPOOL_TEST_H */
