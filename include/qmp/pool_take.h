/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool_take.h - objects taken out of a pool's queues as the pool hands
 * them out: unpoisoned for KASAN, a debug pool's mark cleared.  The pool
 * itself uses these (its drain, CPU hotplug, every slow path), and the
 * project's test modules use qmempool_take_local() and
 * qmempool_take_shared() to see where a pool's objects are.  None of it is
 * exported: a module that includes this header reaches into struct
 * qmempool under the rules below, as only the project's own modules do.
 */
#ifndef _QMP_POOL_TAKE_H
#define _QMP_POOL_TAKE_H

#include <linux/alf_queue.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/qmempool.h>
#include <linux/string.h>
#include <qmp/kasan.h>

/* Whether @pool marks its objects: debug mode, objects that hold a mark */
static inline bool qmempool_marks(const struct qmempool *pool)
{
	return pool->debug && pool->obj_size >= sizeof(unsigned long);
}

/* A debug pool's mark (the first word of an object it holds) cleared */
static inline void qmempool_unmark(struct qmempool *pool, void **objs,
				   unsigned int n)
{
	unsigned int i;

	if (qmempool_marks(pool))
		for (i = 0; i < n; i++)
			*(unsigned long *)objs[i] = 0;
}

/*
 * KASAN: mark @n objects as handed out (after they leave a queue, before
 * anybody writes them, and before the slab gets them back: its free
 * checks the first granule).  Empty without generic KASAN.
 */
static inline void qmempool_unpoison(struct qmempool *pool, void **objs,
				     unsigned int n)
{
	unsigned int i;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		for (i = 0; i < n; i++)
			qmp_kasan_unpoison(objs[i], pool->obj_size);
}

/*
 * Up to @n objects off the top of @c into @objs; returns how many.  The
 * caller provides the exclusion (see qmempool_take_local()).
 */
static inline unsigned int qmempool_pop_bulk(struct qmempool_percpu *c,
					     void **objs, unsigned int n)
{
	n = min_t(unsigned long, n, c->count);
	WRITE_ONCE(c->count, c->count - n);
	memcpy(objs, c->objs + c->count, n * sizeof(*objs));
	return n;
}

/**
 * qmempool_take_local() - take objects out of a CPU's local cache
 * @pool: the pool
 * @cpu: a possible CPU
 * @objs: receives the objects, most recently freed last
 * @n: room in @objs
 *
 * For tests and diagnostics: the objects are the caller's, to give back
 * with qmempool_free() or kmem_cache_free().  The caller provides the
 * exclusion of @cpu's cache: either @cpu is this CPU and the call runs
 * with bottom halves or interrupts disabled (outside hardirq), or nobody
 * uses @pool on @cpu meanwhile (e.g. @cpu is offline, or idle and the
 * pool is private to the caller).
 *
 * Context: see above.
 * Return: the number of objects taken, 0..@n.
 */
static inline unsigned int qmempool_take_local(struct qmempool *pool, int cpu,
					       void **objs, unsigned int n)
{
	n = qmempool_pop_bulk(per_cpu_ptr(pool->percpu, cpu), objs, n);
	qmempool_unpoison(pool, objs, n);
	qmempool_unmark(pool, objs, n);
	return n;
}

/**
 * qmempool_take_shared() - take objects out of a node's shared queue
 * @pool: the pool
 * @node: a possible node
 * @objs: receives the objects
 * @n: room in @objs
 *
 * For the pool's drain, tests and diagnostics, as qmempool_take_local():
 * the objects are the caller's, to give back with qmempool_free() or
 * kmem_cache_free().
 *
 * Context: any but NMI.
 * Return: the number of objects taken, 0..@n.
 */
static inline unsigned int qmempool_take_shared(struct qmempool *pool,
						int node, void **objs,
						unsigned int n)
{
	n = alf_mc_dequeue(pool->sharedq[node], objs, n);
	qmempool_unpoison(pool, objs, n);
	qmempool_unmark(pool, objs, n);
	return n;
}

#endif /* _QMP_POOL_TAKE_H */
