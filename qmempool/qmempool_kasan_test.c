// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_kasan_test.ko - KASAN's view of pooled objects (KTAP output at
 * insmod), for the KASAN debug kernel of `make check-debug`, where it runs
 * last (a KASAN report turns lockdep off for the rest of the boot).
 *
 * shadow_roundtrip: an object of a size that is not a multiple of the
 * 8-byte KASAN granule, poisoned then unpoisoned (include/qmp/kasan.h),
 * is used whole and freed to the slab: no report may follow (the slab's
 * free would report a double free if the first granule stayed poisoned,
 * any access a use-after-free if another one did).
 * poisoned_read_reported: a read of a poisoned object must be reported as
 * a slab use-after-free: the case announces it (`# expect-report:`,
 * which scripts/ktap-check then requires, one report in this case) and
 * checks that KASAN reported that very address (its error_report_end
 * tracepoint, which every KASAN report ends with).
 * pool_read_after_free: the same read after qmempool_free(), which
 * poisons what it holds (include/linux/qmempool.h).
 * pool_double_free, pool_invalid_free, pool_free_after_slab_free: under
 * KASAN every free into a pool is checked (no debug mode needed): a
 * second free of an object the pool holds, a free of an object the slab
 * already has back, an interior pointer and another cache's object are
 * reported ("qmempool: BUG: double-free" / "invalid-free", announced),
 * counted, and not stored: each object comes out of the pool once.
 * kcsan_race_reported: a deliberate data race between a kthread's plain
 * writes on one CPU and plain reads on another must be reported by KCSAN
 * (`# expect-reports:`, one report or more, which scripts/ktap-check
 * requires); the case checks that the writer wrote during the reads.
 * Without generic KASAN the KASAN cases are skipped, without KCSAN the
 * KCSAN case.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/qmempool.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <qmp/kasan.h>
#include <qmp/ktap.h>
#include <qmp/pool_check.h>
#include <qmp/version.h>
#include <trace/events/error_report.h>

/* Not a multiple of 8: the last granule is partly accessible */
#define OBJ_SIZE	250
#define REPORT		"BUG: KASAN: slab-use-after-free"

static struct kmem_cache *test_cache(struct qmp_test *t)
{
	struct kmem_cache *c = kmem_cache_create("qmp_kasan_obj", OBJ_SIZE, 0,
						 0, NULL);
	int ret;

	if (!QMP_EXPECT(t, c, "kmem_cache_create failed"))
		return NULL;
	/*
	 * KASAN leaves a KFENCE object's shadow alone: keep KFENCE off the
	 * cache, or a sampled object would be neither poisoned nor reported
	 */
	ret = qmp_write_str("/sys/kernel/slab/qmp_kasan_obj/skip_kfence", "1");
	QMP_EXPECT(t, !ret || ret == -ENOENT,
		   "cannot keep KFENCE off the test cache (%d)", ret);
	return c;
}

static void test_shadow_roundtrip(struct qmp_test *t)
{
	struct kmem_cache *c;
	u8 *obj;

	if (!IS_ENABLED(CONFIG_KASAN_GENERIC)) {
		qmp_test_skip(t, "no generic KASAN in this kernel");
		return;
	}
	c = test_cache(t);
	if (!c)
		return;
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	if (QMP_EXPECT(t, obj, "allocation failed")) {
		qmp_kasan_poison(obj, OBJ_SIZE);
		qmp_kasan_unpoison(obj, OBJ_SIZE);
		memset(obj, 0x5a, OBJ_SIZE);
		QMP_EXPECT(t, READ_ONCE(obj[OBJ_SIZE - 1]) == 0x5a,
			   "last byte not written");
		kmem_cache_free(c, obj);
	}
	kmem_cache_destroy(c);
}

/*
 * The address of the last KASAN report, seen through the tracepoint that
 * ends every report (trace_error_report_end()), whatever earlier cases
 * reported or tainted
 */
static unsigned long kasan_reported;

static void on_error_report(void *data, enum error_detector detector,
			    unsigned long id)
{
	if (detector == ERROR_DETECTOR_KASAN)
		WRITE_ONCE(kasan_reported, id);
}

/*
 * Read @obj, which must be poisoned, and check that KASAN reported that
 * address: announced first for scripts/ktap-check, then seen by the
 * tracepoint.
 */
static void expect_reported_read(struct qmp_test *t, const u8 *obj)
{
	int ret = register_trace_error_report_end(on_error_report, NULL);

	if (!QMP_EXPECT(t, !ret, "cannot watch KASAN's reports (%d)", ret))
		return;
	WRITE_ONCE(kasan_reported, 0);
	pr_info("# expect-report: %s\n", REPORT);
	(void)READ_ONCE(*obj);
	unregister_trace_error_report_end(on_error_report, NULL);
	tracepoint_synchronize_unregister();
	QMP_EXPECT(t, READ_ONCE(kasan_reported) == (unsigned long)obj,
		   "the read of %p was not reported by KASAN (last report: %#lx; kasan_multi_shot off?)",
		   obj, READ_ONCE(kasan_reported));
}

static void test_poisoned_read_reported(struct qmp_test *t)
{
	struct kmem_cache *c;
	u8 *obj;

	if (!IS_ENABLED(CONFIG_KASAN_GENERIC)) {
		qmp_test_skip(t, "no generic KASAN in this kernel");
		return;
	}
	c = test_cache(t);
	if (!c)
		return;
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	if (QMP_EXPECT(t, obj, "allocation failed")) {
		qmp_kasan_poison(obj, OBJ_SIZE);
		expect_reported_read(t, obj);
		qmp_kasan_unpoison(obj, OBJ_SIZE);
		kmem_cache_free(c, obj);
	}
	kmem_cache_destroy(c);
}

/* @body on a pool (no debug mode) of a new cache, then both destroyed */
static void with_kasan_pool(struct qmp_test *t,
			    void (*body)(struct qmp_test *t,
					 struct qmempool *pool))
{
	struct kmem_cache *c;
	struct qmempool *p;

	if (!IS_ENABLED(CONFIG_KASAN_GENERIC)) {
		qmp_test_skip(t, "no generic KASAN in this kernel");
		return;
	}
	c = test_cache(t);
	if (!c)
		return;
	p = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (QMP_EXPECT(t, !IS_ERR(p), "qmempool_create failed: %d",
		       PTR_ERR_OR_ZERO(p))) {
		QMP_EXPECT(t, !p->debug, "a debug pool (qmempool.debug set?)");
		migrate_disable();	/* this CPU's cache, its node's queue */
		body(t, p);
		migrate_enable();
		qmempool_destroy(p);
	}
	kmem_cache_destroy(c);
}

static void do_pool_read_after_free(struct qmp_test *t, struct qmempool *p)
{
	u8 *obj = qmempool_alloc(p, GFP_KERNEL);

	if (!QMP_EXPECT(t, obj, "qmempool_alloc failed"))
		return;
	qmempool_free(p, obj);
	expect_reported_read(t, obj);
}

static void test_pool_read_after_free(struct qmp_test *t)
{
	with_kasan_pool(t, do_pool_read_after_free);
}

static void do_pool_double_free(struct qmp_test *t, struct qmempool *p)
{
	void *obj = qmempool_alloc(p, GFP_KERNEL);

	if (!QMP_EXPECT(t, obj, "qmempool_alloc failed"))
		return;
	qmempool_free(p, obj);
	qmp_expect_bad_free(t, p, obj, QMP_REPORT_DOUBLE_FREE,
			    "a second free");
	qmp_expect_each_once(t, p, obj, "after a second free");
}

static void test_pool_double_free(struct qmp_test *t)
{
	with_kasan_pool(t, do_pool_double_free);
}

static void do_pool_invalid_free(struct qmp_test *t, struct qmempool *p)
{
	struct kmem_cache *other;
	void *obj, *foreign;

	obj = qmempool_alloc(p, GFP_KERNEL);
	if (!QMP_EXPECT(t, obj, "qmempool_alloc failed"))
		return;
	qmp_expect_bad_free(t, p, (char *)obj + 16, QMP_REPORT_INVALID_FREE,
			    "an interior pointer");
	/* Another size: never merged with the pool's cache */
	other = kmem_cache_create("qmp_kasan_other", 2 * OBJ_SIZE, 0, 0, NULL);
	if (QMP_EXPECT(t, other, "kmem_cache_create failed")) {
		foreign = kmem_cache_alloc(other, GFP_KERNEL);
		if (QMP_EXPECT(t, foreign, "allocation failed")) {
			qmp_expect_bad_free(t, p, foreign,
					    QMP_REPORT_INVALID_FREE,
					    "another cache's object");
			kmem_cache_free(other, foreign);
		}
		kmem_cache_destroy(other);
	}
	qmempool_free(p, obj);
	qmp_expect_each_once(t, p, obj, "after the invalid frees");
}

static void test_pool_invalid_free(struct qmp_test *t)
{
	with_kasan_pool(t, do_pool_invalid_free);
}

/* The slab has the object back (poisoned, in KASAN's quarantine) */
static void do_pool_free_after_slab_free(struct qmp_test *t,
					 struct qmempool *p)
{
	void *obj = kmem_cache_alloc(p->kmem, GFP_KERNEL);

	if (!QMP_EXPECT(t, obj, "allocation failed"))
		return;
	kmem_cache_free(p->kmem, obj);
	qmp_expect_bad_free(t, p, obj, QMP_REPORT_DOUBLE_FREE,
			    "a free after the slab's");
	qmp_expect_each_once(t, p, NULL, "after a free after the slab's");
}

static void test_pool_free_after_slab_free(struct qmp_test *t)
{
	with_kasan_pool(t, do_pool_free_after_slab_free);
}

/*
 * KCSAN: a deliberate data race, a kthread's plain writes on one CPU and
 * plain reads on another.  KCSAN watches about one access in 4000
 * (kcsan.skip_watch) for 80 us: RACE_READS reads give it a few dozen
 * chances, each reported when the writer wrote meanwhile.  KCSAN's own
 * count of races is only in a debugfs seq_file, which a module cannot
 * read (kernel_read() needs read_iter), so the report itself is
 * scripts/ktap-check's to require; the case checks that the race took
 * place (the writer wrote while the reads ran).
 */
#define RACE_REPORT	"BUG: KCSAN: data-race in qmp_race_read [qmempool_kasan_test] / qmp_race_write [qmempool_kasan_test]"
#define RACE_READS	100000

static unsigned long race_var;

static noinline void qmp_race_write(unsigned long v)
{
	race_var = v;		/* plain on purpose: the race under test */
}

static noinline unsigned long qmp_race_read(void)
{
	return race_var;	/* plain on purpose */
}

static int race_writer(void *arg)
{
	unsigned long i = 0;

	while (!kthread_should_stop()) {
		qmp_race_write(++i);
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

static void test_kcsan_race_reported(struct qmp_test *t)
{
	unsigned long deadline = jiffies + 20 * HZ, changes = 0, last = 0, v;
	struct task_struct *w;
	unsigned int i;
	int cpu;

	if (!IS_ENABLED(CONFIG_KCSAN)) {
		qmp_test_skip(t, "no KCSAN in this kernel");
		return;
	}
	if (num_online_cpus() < 2) {
		qmp_test_skip(t, "one CPU online");
		return;
	}
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	w = kthread_create(race_writer, NULL, "qmp_race");
	if (!QMP_EXPECT(t, !IS_ERR(w), "kthread_create failed"))
		return;
	kthread_bind(w, cpu);
	pr_info("# expect-reports: %s\n", RACE_REPORT);
	wake_up_process(w);
	for (i = 0; i < RACE_READS && time_before(jiffies, deadline); i++) {
		v = qmp_race_read();
		changes += v != last;
		last = v;
		if (!(i & 1023))
			cond_resched();
	}
	kthread_stop(w);
	QMP_EXPECT(t, changes >= 2,
		   "the writer on CPU %d wrote %lu times during %u reads",
		   cpu, changes, i);
}

static const struct qmp_test_case kasan_cases[] = {
	{ "shadow_roundtrip", test_shadow_roundtrip },
	{ "poisoned_read_reported", test_poisoned_read_reported },
	{ "pool_read_after_free", test_pool_read_after_free },
	{ "pool_double_free", test_pool_double_free },
	{ "pool_invalid_free", test_pool_invalid_free },
	{ "pool_free_after_slab_free", test_pool_free_after_slab_free },
	{ "kcsan_race_reported", test_kcsan_race_reported },
};

static int __init qmempool_kasan_test_init(void)
{
	return qmp_run_suite("qmempool_kasan", kasan_cases,
			     ARRAY_SIZE(kasan_cases));
}

static void __exit qmempool_kasan_test_exit(void)
{
}

module_init(qmempool_kasan_test_init);
module_exit(qmempool_kasan_test_exit);
MODULE_DESCRIPTION("KASAN's view of objects held by qmempool (KTAP)");
