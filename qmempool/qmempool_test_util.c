// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_util.c - what the cases share: the test cache and the
 * slab's own accounting of it, a case's pool on it (with_test_pool()),
 * tagged objects, the counters of this CPU.
 */
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "qmempool_test.h"

/* The first bytes of a test object while a test holds it */
struct obj_tag {
	unsigned long owner;	/* who holds it */
	unsigned long seq;	/* which of its allocations */
	unsigned long check;	/* owner ^ seq ^ OBJ_MAGIC */
};

#define OBJ_MAGIC	0x5a5aa5a5deadbeefUL

void obj_tag(void *obj, unsigned long owner, unsigned long seq)
{
	struct obj_tag *t = obj;

	t->owner = owner;
	t->seq = seq;
	t->check = owner ^ seq ^ OBJ_MAGIC;
	memset(t + 1, (u8)seq, OBJ_SIZE - sizeof(*t));
}

bool obj_tag_ok(void *obj, unsigned long owner, unsigned long seq)
{
	const struct obj_tag *t = obj;

	return t->owner == owner && t->seq == seq &&
	       t->check == (owner ^ seq ^ OBJ_MAGIC) &&
	       !memchr_inv(t + 1, (u8)seq, OBJ_SIZE - sizeof(*t));
}

struct kmem_cache *test_cache(struct qmp_test *t)
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

bool expect_slab(struct qmp_test *t, struct kmem_cache *c, long held,
		 const char *when)
{
	long n = slab_objects(c);

	return QMP_EXPECT(t, n == held,
			  "%s: slab holds %ld objects, test holds %ld", when,
			  n, held);
}

/* Destroy @pool and check that the slab holds exactly @held objects */
void destroy_and_check(struct qmp_test *t, struct qmempool *pool,
		       struct kmem_cache *c, long held)
{
	qmempool_destroy(pool);
	expect_slab(t, c, held, "after destroy");
}

/**
 * with_test_pool_flags() - a case's work on a pool of a new test cache
 * @t: the running case
 * @localq_sz: the pool's local queue size (as qmempool_create_flags())
 * @sharedq_sz: its shared queue size
 * @prealloc: objects it preallocates
 * @flags: its flags (QMEMPOOL_DEBUG, ...)
 * @body: the case's work on @pool (the test cache is @pool->kmem); it
 *	gives every object it took back before it returns
 * @arg: passed to @body
 *
 * Creates the test cache and the pool, each a check, runs @body, then
 * destroys the pool: the slab must then hold no object of the cache.
 * If the cache or the pool cannot be created, @body does not run.
 */
void with_test_pool_flags(struct qmp_test *t, u32 localq_sz, u32 sharedq_sz,
			  u32 prealloc, unsigned int flags,
			  void (*body)(struct qmp_test *t,
				       struct qmempool *pool, void *arg),
			  void *arg)
{
	struct kmem_cache *c = test_cache(t);
	struct qmempool *pool;

	if (!c)
		return;
	pool = qmempool_create_flags(localq_sz, sharedq_sz, prealloc, c,
				     GFP_KERNEL, flags);
	if (QMP_EXPECT(t, !IS_ERR(pool), "create: %d", PTR_ERR_OR_ZERO(pool))) {
		body(t, pool, arg);
		destroy_and_check(t, pool, c, 0);
	}
	kmem_cache_destroy(c);
}

/* with_test_pool_flags() without flags */
void with_test_pool(struct qmp_test *t, u32 localq_sz, u32 sharedq_sz,
		    u32 prealloc,
		    void (*body)(struct qmp_test *t, struct qmempool *pool,
				 void *arg),
		    void *arg)
{
	with_test_pool_flags(t, localq_sz, sharedq_sz, prealloc, 0, body, arg);
}

/* The counters of this CPU (the caller is pinned) */
struct qmempool_stats this_stats(struct qmempool *pool)
{
	struct qmempool_stats st;

	qmempool_get_stats(pool, raw_smp_processor_id(), &st);
	return st;
}

void expect_report(struct qmp_test *t, const char *text)
{
	pr_info("# expect-report: %s\n", text);
}
