// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_numa.c - NUMA: a node's queues only take objects of that
 * node (numa_node_local, numa_refill_remote; skipped with one node).
 */
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/workqueue.h>
#include "qmempool_test.h"

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

/* @body on a pool of a new test cache, its @arg two such nodes (int[2]) */
static void with_two_nodes(struct qmp_test *t,
			   void (*body)(struct qmp_test *t,
					struct qmempool *pool, void *nodes))
{
	int nodes[2];

	if (!numa_two_nodes(&nodes[0], &nodes[1])) {
		qmp_test_skip(t, "needs 2 NUMA nodes with CPUs and memory");
		return;
	}
	with_test_pool(t, 64, 256, 0, body, nodes);
}

static void do_numa_node_local(struct qmp_test *t, struct qmempool *pool,
			       void *nodes)
{
	const int na = ((int *)nodes)[0], nb = ((int *)nodes)[1];
	const int ca = numa_cpu_of(na), cb = numa_cpu_of(nb);
	struct numa_work *w;
	unsigned int queued;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!QMP_EXPECT(t, w, "out of memory"))
		return;
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
	expect_slab(t, pool->kmem, qmempool_cached(pool), "after remote frees");

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
	kfree(w);
}

void test_numa_node_local(struct qmp_test *t)
{
	with_two_nodes(t, do_numa_node_local);
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

static void do_numa_refill_remote(struct qmp_test *t, struct qmempool *pool,
				  void *nodes)
{
	const int na = ((int *)nodes)[0], nb = ((int *)nodes)[1];
	const int ca = numa_cpu_of(na);
	struct kmem_cache *c = pool->kmem;
	struct partial_work *pw;
	struct numa_work *w;
	unsigned int i, n, wrong = 0, local = 0, to_b;
	void *objs[QMEMPOOL_BULK];

	pw = kzalloc(sizeof(*pw), GFP_KERNEL);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!QMP_EXPECT(t, pw && w, "out of memory"))
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
	if (!wrong && !to_b)
		qmp_test_skip(t, "the slab handed out no remote object this time");
out:
	kfree(w);
	kfree(pw);
}

void test_numa_refill_remote(struct qmp_test *t)
{
	with_two_nodes(t, do_numa_refill_remote);
}
