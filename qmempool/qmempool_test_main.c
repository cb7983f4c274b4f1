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
 *
 * This file has the case table, the module's init and its parameters;
 * the cases are in qmempool_test_*.c by subject (see qmempool_test.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <qmp/ktap.h>
#include <qmp/misuse.h>
#include <qmp/version.h>
#include "qmempool_test.h"

unsigned int stress_ms = 3000;
module_param(stress_ms, uint, 0444);
MODULE_PARM_DESC(stress_ms, "Duration of each stress case in ms (default 3000)");

bool slab_probes = true;
module_param(slab_probes, bool, 0444);
MODULE_PARM_DESC(slab_probes, "Run the cases that put kretprobes on the slab's allocation calls (default 1; 0 skips them)");

static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Comma-separated cases to run (default: all; the others are skipped)");

static const struct qmp_test_case qmempool_cases[] = {
	{ "create_validation", test_create_validation },
	{ "cache_not_inspectable", test_cache_not_inspectable },
	{ "accounting_one_cpu", test_accounting_one_cpu },
	{ "init_on_alloc", test_init_on_alloc },
	{ "init_on_free", test_init_on_free },
	{ "irqs_off_caller", test_irqs_off_caller },
	{ "debug_double_free", test_debug_double_free },
	{ "debug_invalid_free", test_debug_invalid_free },
	{ "debug_param", test_debug_param },
	{ "cross_cpu", test_cross_cpu },
	{ "cpu_offline", test_cpu_offline },
	{ "numa_node_local", test_numa_node_local },
	{ "numa_refill_remote", test_numa_refill_remote },
	{ "slab_bulk_result", test_slab_bulk_result },
	{ "slab_failure", test_slab_failure },
	{ "shrinker", test_shrinker },
	{ "shrinker_refilled", test_shrinker_refilled },
	{ "stress_all_contexts", test_stress_all_contexts },
	{ "stress_cpu_hotplug", test_stress_cpu_hotplug },
	{ "stress_shrink_destroy", test_stress_shrink_destroy },
	QMP_MISUSE_CASE,
};

static int __init qmempool_test_init(void)
{
	qmp_misuse_start();
	return qmp_run_suite_only("qmempool", qmempool_cases,
				  ARRAY_SIZE(qmempool_cases), only);
}

static void __exit qmempool_test_exit(void)
{
}

module_init(qmempool_test_init);
module_exit(qmempool_test_exit);
MODULE_DESCRIPTION("Tests of qmempool (KTAP)");
