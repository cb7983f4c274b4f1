// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_fault.c - a backing cache that fails: kretprobes on the
 * slab entry points fail the test cache's allocations (slab_failure) and
 * check how kmem_cache_alloc_bulk()'s result is read (slab_bulk_result).
 *
 * Registering the probes patches the entry of kmem_cache_alloc() and
 * kmem_cache_alloc_bulk() (through ftrace) while every other CPU keeps
 * calling them.  Real CPUs allow that; QEMU 7.2's multi-threaded TCG
 * does not always (a 6.1 guest of `make check` once jumped to address 0
 * with interrupts off in insmod, next to these cases), so `make check`
 * loads the suite with slab_probes=0 in its multi-threaded guests and
 * runs these two cases in the single-threaded one (only=).
 */
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <qmp/compat.h>
#include "qmempool_test.h"

/* Whether the case may run; if not, it is skipped */
static bool probes_allowed(struct qmp_test *t)
{
	if (!slab_probes)
		qmp_test_skip(t, "slab_probes=0 (make check runs it in its single-threaded guest)");
	return slab_probes;
}

static struct kmem_cache *fail_cache;
static atomic_t fail_mode;	/* FAIL_* */

enum { FAIL_NONE, FAIL_ALL, FAIL_HALF };

struct alloc_args {
	struct kmem_cache *s;
	size_t size;
	void **p;
};

static int bulk_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct alloc_args *a = (struct alloc_args *)ri->data;

	a->s = (struct kmem_cache *)regs_get_kernel_argument(regs, 0);
	a->size = regs_get_kernel_argument(regs, 2);
	a->p = (void **)regs_get_kernel_argument(regs, 3);
	return a->s != READ_ONCE(fail_cache);	/* 1: skip the return */
}

/*
 * Give back all (FAIL_ALL) or the second half (FAIL_HALF) of a bulk.  The
 * result is read and written in the kernel's own terms (see
 * qmp_slab_alloc_bulk()): a count up to 7.1; true or false since 7.2,
 * which cannot say "half", so there FAIL_HALF fails the whole bulk and
 * the pool's fallback of single allocations (which FAIL_HALF lets
 * through) must serve.
 */
static int bulk_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct alloc_args *a = (struct alloc_args *)ri->data;
	unsigned long ret = regs_return_value(regs);
	size_t n, keep;

	n = QMP_SLAB_BULK_BOOL ? ((u8)ret ? a->size : 0) : (int)ret;
	if (!n || atomic_read(&fail_mode) == FAIL_NONE)
		return 0;
	keep = atomic_read(&fail_mode) == FAIL_ALL || QMP_SLAB_BULK_BOOL ?
	       0 : n / 2;
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

void test_slab_failure(struct qmp_test *t)
{
	static const char *const bulk[] = {
		"kmem_cache_alloc_bulk_noprof", "kmem_cache_alloc_bulk" };
	static const char *const one[] = {
		"kmem_cache_alloc_noprof", "kmem_cache_alloc" };
	struct kmem_cache *c;
	struct qmempool *pool;
	void *objs[200];
	unsigned long cached;
	unsigned int i, n;

	if (!probes_allowed(t))
		return;
	c = test_cache(t);
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
	QMP_EXPECT(t, PTR_ERR_OR_ZERO(pool) == -ENOMEM,
		   "create without its preallocation: %d, not -ENOMEM",
		   PTR_ERR_OR_ZERO(pool));
	qmempool_destroy(pool);
	expect_slab(t, c, 0, "failed create");
	/* ... or gives half of a bulk (a count kernel): nothing leaks */
	atomic_set(&fail_mode, FAIL_HALF);
	pool = qmempool_create(64, 256, 64, c, GFP_KERNEL);
	QMP_EXPECT(t, PTR_ERR_OR_ZERO(pool) == -ENOMEM,
		   "create with half a preallocation: %d, not -ENOMEM",
		   PTR_ERR_OR_ZERO(pool));
	qmempool_destroy(pool);
	expect_slab(t, c, 0, "half-failed create");
	atomic_set(&fail_mode, FAIL_ALL);

	pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	if (!QMP_EXPECT(t, !IS_ERR(pool), "create: %ld", PTR_ERR(pool)))
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

/*
 * kmem_cache_alloc_bulk()'s result as this kernel means it (a count up to
 * 7.1, a bool since 7.2), read through qmp_slab_alloc_bulk() as every
 * caller reads it: a full bulk, a failed one and (where the kernel can
 * say so) a partial one, each checked against the slab's own accounting.
 * Read the other kernels' way, a full bulk on 7.2+ counts 1 of 16.
 */
void test_slab_bulk_result(struct qmp_test *t)
{
	static const char *const bulk[] = {
		"kmem_cache_alloc_bulk_noprof", "kmem_cache_alloc_bulk" };
	struct kmem_cache *c;
	void *objs[16];
	unsigned int n, i;

	if (!probes_allowed(t))
		return;
	c = test_cache(t);
	if (!c)
		return;
	qmp_test_diag(t, "kmem_cache_alloc_bulk() returns %s on this kernel",
		      QMP_SLAB_BULK_BOOL ? "bool" : "a count");
	memset(objs, 0, sizeof(objs));
	n = qmp_slab_alloc_bulk(c, GFP_KERNEL, ARRAY_SIZE(objs), objs);
	QMP_EXPECT(t, n == ARRAY_SIZE(objs), "full bulk: %u of %zu objects",
		   n, ARRAY_SIZE(objs));
	expect_slab(t, c, n, "full bulk");
	for (i = 0; i < n; i++)
		QMP_EXPECT(t, objs[i], "full bulk: object %u is NULL", i);
	if (n)
		kmem_cache_free_bulk(c, n, objs);
	expect_slab(t, c, 0, "full bulk freed");

	if (!QMP_EXPECT(t, !probe_one_of(&bulk_probe, bulk),
			"kretprobe on kmem_cache_alloc_bulk failed"))
		goto out;
	WRITE_ONCE(fail_cache, c);
	atomic_set(&fail_mode, FAIL_ALL);
	n = qmp_slab_alloc_bulk(c, GFP_KERNEL, ARRAY_SIZE(objs), objs);
	QMP_EXPECT(t, !n, "failed bulk: %u objects", n);
	expect_slab(t, c, 0, "failed bulk");

	atomic_set(&fail_mode, FAIL_HALF);
	n = qmp_slab_alloc_bulk(c, GFP_KERNEL, ARRAY_SIZE(objs), objs);
	QMP_EXPECT(t, n == (QMP_SLAB_BULK_BOOL ? 0 : ARRAY_SIZE(objs) / 2),
		   "half-failed bulk: %u objects", n);
	expect_slab(t, c, n, "half-failed bulk");
	if (n)
		kmem_cache_free_bulk(c, n, objs);
	atomic_set(&fail_mode, FAIL_NONE);
	WRITE_ONCE(fail_cache, NULL);
	unregister_kretprobe(&bulk_probe);
	expect_slab(t, c, 0, "half-failed bulk freed");
out:
	kmem_cache_destroy(c);
}
