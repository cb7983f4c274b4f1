// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_unload_test.ko - a user of qmempool that never destroys its
 * pool, for qmempool/unload-test.sh: at insmod it creates a cache and a
 * pool on it and has a thread on every online CPU free objects into that
 * CPU's local cache; at rmmod it leaves both behind (their memory stays
 * allocated for good).  The script then has the shrinker queue its drain
 * works and unloads qmempool.ko while they wait.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/qmempool.h>
#include <linux/slab.h>
#include <qmp/kthread.h>
#include <qmp/version.h>

#define OBJS	48	/* per CPU: fewer than the local cache holds */

struct fill {
	struct qmempool *pool;
	struct completion done;
};

static int fill_cpu(void *arg)
{
	struct fill *f = arg;
	void *objs[OBJS];
	unsigned int i, n;

	for (n = 0; n < OBJS; n++) {
		objs[n] = qmempool_alloc(f->pool, GFP_KERNEL);
		if (!objs[n])
			break;
	}
	for (i = 0; i < n; i++)
		qmempool_free(f->pool, objs[i]);
	complete(&f->done);
	qmp_kthread_wait_stop();
	return 0;
}

static int __init qmempool_unload_test_init(void)
{
	struct kmem_cache *cache;
	struct qmempool *pool;
	struct task_struct *t;
	struct fill f;
	unsigned int filled = 0;
	int cpu;

	/* SLAB_NOLEAKTRACE: never merged with another cache */
	cache = kmem_cache_create("qmp_unload_obj", 256, 0, SLAB_NOLEAKTRACE,
				  NULL);
	if (!cache)
		return -ENOMEM;
	pool = qmempool_create(64, 64, 0, cache, GFP_KERNEL);
	if (IS_ERR(pool)) {
		kmem_cache_destroy(cache);
		return PTR_ERR(pool);
	}
	f.pool = pool;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		init_completion(&f.done);
		t = kthread_create_on_cpu(fill_cpu, &f, cpu, "qmp_unload/%u");
		if (IS_ERR(t))
			continue;
		wake_up_process(t);
		qmp_wait_completion(&f.done);
		kthread_stop(t);
		filled += qmempool_cached_cpu(pool, cpu) > 0;
	}
	cpus_read_unlock();
	pr_info("pool with %lu objects cached, in the local caches of %u CPUs, left behind\n",
		qmempool_cached(pool), filled);
	return 0;
}

static void __exit qmempool_unload_test_exit(void)
{
}

module_init(qmempool_unload_test_init);
module_exit(qmempool_unload_test_exit);
MODULE_DESCRIPTION("A qmempool user that never destroys its pool (unload-test.sh)");
