// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool.ko - quick queue-based memory pool: creation, slow paths, CPU
 * hotplug and debugfs.  The fast paths are inline in
 * include/linux/qmempool.h, whose top comment describes the design.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/qmempool.h>
#include <linux/seq_file.h>

static enum cpuhp_state qmempool_cpuhp_state;
/* Live pools, for reporting the ones a user forgot at module unload */
static LIST_HEAD(qmempool_list);
static DEFINE_MUTEX(qmempool_list_lock);
static struct dentry *qmempool_debugfs_dir;
static DEFINE_IDA(qmempool_ida);

static struct alf_queue *sharedq_of(struct qmempool *pool, int node)
{
	return pool->sharedq[node == NUMA_NO_NODE ? 0 : node];
}

#define qmempool_count(pool, field, n) \
	this_cpu_add((pool)->percpu->stats.field, (n))

/*
 * Give @n objects back: to the shared queue of @node as far as it has room,
 * the rest to the slab.  Any context but NMI; does not sleep.
 */
static void qmempool_spill(struct qmempool *pool, int node, void **objs,
			   unsigned int n)
{
	unsigned int moved = alf_mp_enqueue_variable(sharedq_of(pool, node),
						     objs, n);

	if (moved)
		qmempool_count(pool, free_shared, 1);
	if (moved < n) {
		kmem_cache_free_bulk(pool->kmem, n - moved, objs + moved);
		qmempool_count(pool, free_slab, n - moved);
	}
}

/*
 * Store @n spare objects: into this CPU's local queue as far as it has
 * room, the rest spilled.  @irq: process context (see __qmempool_ctx()).
 */
static void qmempool_stash(struct qmempool *pool, void **objs, unsigned int n,
			   bool irq)
{
	unsigned long flags = 0;
	unsigned int moved;

	if (!n)
		return;
	if (irq)
		local_irq_save(flags);
	moved = alf_sp_enqueue_variable(this_cpu_ptr(pool->percpu)->localq,
					objs, n);
	if (irq)
		local_irq_restore(flags);
	if (moved < n)
		qmempool_spill(pool, numa_mem_id(), objs + moved, n - moved);
}

/**
 * __qmempool_alloc_slow() - refill the local queue, then allocate
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 *
 * Called by __qmempool_alloc() when the local queue is empty: takes a bulk
 * from the node's shared queue, else from the slab (outside any critical
 * section, so @gfp_mask may sleep where the caller may), keeps one object
 * and stashes the rest.  Never loses an object: what does not fit goes on
 * to the next layer.
 *
 * Return: an object, or NULL if the slab had none.
 */
void *__qmempool_alloc_slow(struct qmempool *pool, gfp_t gfp_mask)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int n;
	bool irq;

	if (!__qmempool_ctx(&irq))
		return __qmempool_alloc_bypass(pool, gfp_mask);

	n = alf_mc_dequeue(sharedq_of(pool, numa_mem_id()), objs,
			   QMEMPOOL_BULK);
	if (n) {
		qmempool_count(pool, alloc_shared, 1);
		qmempool_stash(pool, objs + 1, n - 1, irq);
		if (want_init_on_alloc(gfp_mask))
			memset(objs[0], 0, pool->obj_size);
		return objs[0];
	}

	/* The slab zeroes what it returns as want_init_on_alloc() says */
	n = kmem_cache_alloc_bulk(pool->kmem, gfp_mask, QMEMPOOL_BULK, objs);
	if (!n) {
		objs[0] = kmem_cache_alloc(pool->kmem, gfp_mask);
		if (!objs[0]) {
			qmempool_count(pool, alloc_fail, 1);
			return NULL;
		}
		n = 1;
	}
	qmempool_count(pool, alloc_slab, n);
	qmempool_stash(pool, objs + 1, n - 1, irq);
	return objs[0];
}
EXPORT_SYMBOL_GPL(__qmempool_alloc_slow);

/**
 * __qmempool_free_slow() - drain the local queue, then free
 * @pool: the pool
 * @elem: the object being freed
 *
 * Called by __qmempool_free() when the local queue is full: moves its
 * oldest bulk to the node's shared queue (what does not fit to the slab)
 * and puts @elem, the cache-hot one, into the local queue.
 */
void __qmempool_free_slow(struct qmempool *pool, void *elem)
{
	void *objs[QMEMPOOL_BULK + 1];
	struct alf_queue *localq;
	unsigned long flags = 0;
	unsigned int n;
	bool irq;

	if (!__qmempool_ctx(&irq)) {
		__qmempool_free_bypass(pool, elem);
		return;
	}
	if (irq)
		local_irq_save(flags);
	localq = this_cpu_ptr(pool->percpu)->localq;
	n = alf_sc_dequeue(localq, objs, QMEMPOOL_BULK);
	if (alf_sp_enqueue(localq, &elem, 1) != 1)
		objs[n++] = elem;
	if (irq)
		local_irq_restore(flags);
	qmempool_spill(pool, numa_mem_id(), objs, n);
}
EXPORT_SYMBOL_GPL(__qmempool_free_slow);

/**
 * __qmempool_alloc_bypass() - allocation where the queues cannot be used
 * @pool: the pool
 * @gfp_mask: flags for the slab
 *
 * Return: an object straight from the slab (hardirq), or NULL (NMI).
 */
void *__qmempool_alloc_bypass(struct qmempool *pool, gfp_t gfp_mask)
{
	void *elem;

	if (in_nmi())
		return NULL;
	qmempool_count(pool, bypass, 1);
	elem = kmem_cache_alloc(pool->kmem, gfp_mask);
	if (!elem)
		qmempool_count(pool, alloc_fail, 1);
	return elem;
}
EXPORT_SYMBOL_GPL(__qmempool_alloc_bypass);

/**
 * __qmempool_free_bypass() - free where the queues cannot or should not be
 * used (hardirq, object of another NUMA node): straight to the slab
 * @pool: the pool
 * @elem: the object
 *
 * In NMI context nothing can free safely: the object is dropped (leaked)
 * with a one-time error message.
 */
void __qmempool_free_bypass(struct qmempool *pool, void *elem)
{
	if (in_nmi()) {
		pr_err_once("qmempool_free() called in NMI context: object %p leaked\n",
			    elem);
		return;
	}
	qmempool_count(pool, bypass, 1);
	kmem_cache_free(pool->kmem, elem);
}
EXPORT_SYMBOL_GPL(__qmempool_free_bypass);

/**
 * qmempool_alloc() - allocate an object from the pool
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 *
 * Context: any, see include/linux/qmempool.h.
 * Return: an object of the backing cache, or NULL.
 */
void *qmempool_alloc(struct qmempool *pool, gfp_t gfp_mask)
{
	return __qmempool_alloc(pool, gfp_mask);
}
EXPORT_SYMBOL_GPL(qmempool_alloc);

/**
 * qmempool_alloc_softirq() - qmempool_alloc() under its RFC softirq name
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 *
 * Context: any (the context is detected), see include/linux/qmempool.h.
 * Return: an object of the backing cache, or NULL.
 */
void *qmempool_alloc_softirq(struct qmempool *pool, gfp_t gfp_mask)
{
	return __qmempool_alloc(pool, gfp_mask);
}
EXPORT_SYMBOL_GPL(qmempool_alloc_softirq);

/**
 * qmempool_free() - give an object back to the pool
 * @pool: the pool
 * @elem: an object of the pool's backing cache, or NULL
 *
 * Context: any, see include/linux/qmempool.h.
 */
void qmempool_free(struct qmempool *pool, void *elem)
{
	__qmempool_free(pool, elem);
}
EXPORT_SYMBOL_GPL(qmempool_free);

/* Empty queue @q into the slab (nobody else may use it) */
static void qmempool_drain(struct qmempool *pool, struct alf_queue *q)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	if (IS_ERR_OR_NULL(q))
		return;
	while ((n = alf_mc_dequeue(q, objs, QMEMPOOL_BULK)))
		kmem_cache_free_bulk(pool->kmem, n, objs);
}

/* CPU hotplug, after @cpu died: move its local queue to its node */
static int qmempool_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct qmempool *pool = hlist_entry(node, struct qmempool, cpuhp_node);
	struct alf_queue *localq = per_cpu_ptr(pool->percpu, cpu)->localq;
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	/* The dead CPU's queue has no other user: Single calls are safe */
	while ((n = alf_sc_dequeue(localq, objs, QMEMPOOL_BULK)))
		qmempool_spill(pool, cpu_to_mem(cpu), objs, n);
	return 0;
}

/**
 * qmempool_cached() - objects the pool holds right now (all queues)
 * @pool: the pool
 *
 * Return: a snapshot of the number of cached objects.
 */
unsigned long qmempool_cached(struct qmempool *pool)
{
	unsigned long sum = 0;
	int cpu, node;

	for_each_possible_cpu(cpu)
		sum += alf_queue_count(per_cpu_ptr(pool->percpu, cpu)->localq);
	for_each_node(node)
		sum += alf_queue_count(pool->sharedq[node]);
	return sum;
}
EXPORT_SYMBOL_GPL(qmempool_cached);

static int qmempool_debugfs_show(struct seq_file *m, void *v)
{
	struct qmempool *pool = m->private;
	struct qmempool_stats sum = { };
	unsigned long local = 0, shared = 0;
	int cpu, node;

	for_each_possible_cpu(cpu) {
		struct qmempool_percpu *c = per_cpu_ptr(pool->percpu, cpu);

		local += alf_queue_count(c->localq);
		sum.alloc_fast += READ_ONCE(c->stats.alloc_fast);
		sum.alloc_shared += READ_ONCE(c->stats.alloc_shared);
		sum.alloc_slab += READ_ONCE(c->stats.alloc_slab);
		sum.alloc_fail += READ_ONCE(c->stats.alloc_fail);
		sum.free_fast += READ_ONCE(c->stats.free_fast);
		sum.free_shared += READ_ONCE(c->stats.free_shared);
		sum.free_slab += READ_ONCE(c->stats.free_slab);
		sum.bypass += READ_ONCE(c->stats.bypass);
	}
	for_each_node(node)
		shared += alf_queue_count(pool->sharedq[node]);

	seq_printf(m, "object_size %u\nlocalq_size %u\nsharedq_size %u\n",
		   pool->obj_size, pool->localq_sz, pool->sharedq_sz);
	seq_printf(m, "init_on_alloc %d\ninit_on_free %d\nnuma_check %d\n",
		   want_init_on_alloc(0), want_init_on_free(), pool->numa);
	seq_printf(m, "cached %lu\ncached_local %lu\ncached_shared %lu\n",
		   local + shared, local, shared);
	seq_printf(m, "alloc_fast %lu\nalloc_shared %lu\nalloc_slab %lu\nalloc_fail %lu\n",
		   sum.alloc_fast, sum.alloc_shared, sum.alloc_slab,
		   sum.alloc_fail);
	seq_printf(m, "free_fast %lu\nfree_shared %lu\nfree_slab %lu\nbypass %lu\n",
		   sum.free_fast, sum.free_shared, sum.free_slab, sum.bypass);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qmempool_debugfs);

static const char *qmempool_check(u32 localq_sz, u32 sharedq_sz, u32 prealloc,
				  struct kmem_cache *kmem)
{
	if (!kmem)
		return "kmem_cache is NULL";
	if (alf_queue_check_params(localq_sz, 0) || localq_sz < QMEMPOOL_BULK)
		return "localq_sz must be a power of two, at least QMEMPOOL_BULK (16), at most ALF_QUEUE_MAX_SIZE";
	if (alf_queue_check_params(sharedq_sz, 0) ||
	    sharedq_sz < QMEMPOOL_BULK * QMEMPOOL_REFILL_MULTIPLIER)
		return "sharedq_sz must be a power of two, at least 2 * QMEMPOOL_BULK (32), at most ALF_QUEUE_MAX_SIZE";
	if (prealloc > sharedq_sz)
		return "prealloc larger than sharedq_sz";
	return NULL;
}

/**
 * qmempool_create() - create a pool in front of a kmem_cache
 * @localq_sz: slots of each CPU's local queue (power of two, >= 16)
 * @sharedq_sz: slots of each node's shared queue (power of two, >= 32)
 * @prealloc: objects allocated now into this node's shared queue
 *            (<= @sharedq_sz)
 * @kmem: the backing cache (without constructor)
 * @gfp_mask: flags for the pool's own memory and the preallocation
 *
 * Context: process context (may sleep if @gfp_mask allows).
 * Return: the pool, or NULL after a pr_err() saying why (bad parameter or
 * out of memory).
 */
struct qmempool *qmempool_create(u32 localq_sz, u32 sharedq_sz, u32 prealloc,
				 struct kmem_cache *kmem, gfp_t gfp_mask)
{
	const char *why = qmempool_check(localq_sz, sharedq_sz, prealloc, kmem);
	struct qmempool *pool;
	void *objs[QMEMPOOL_BULK];
	int cpu, node, ret;
	u32 done;

	if (why) {
		pr_err("%s: refused (localq_sz %u sharedq_sz %u prealloc %u): %s\n",
		       __func__, localq_sz, sharedq_sz, prealloc, why);
		return NULL;
	}
	pool = kzalloc(sizeof(*pool), gfp_mask);
	if (!pool)
		goto nomem;
	pool->kmem = kmem;
	pool->obj_size = kmem_cache_size(kmem);
	pool->numa = num_online_nodes() > 1;
	pool->prealloc = prealloc;
	pool->gfp_mask = gfp_mask;
	pool->localq_sz = localq_sz;
	pool->sharedq_sz = sharedq_sz;
	pool->id = -1;
	INIT_LIST_HEAD(&pool->list);

	pool->sharedq = kcalloc(nr_node_ids, sizeof(*pool->sharedq), gfp_mask);
	pool->percpu = alloc_percpu_gfp(struct qmempool_percpu, gfp_mask);
	if (!pool->sharedq || !pool->percpu)
		goto fail;
	for_each_node(node) {
		pool->sharedq[node] = alf_queue_alloc_flags(sharedq_sz,
					ALF_MP_ENQ | ALF_MC_DEQ, gfp_mask);
		if (IS_ERR(pool->sharedq[node]))
			goto fail;
	}
	for_each_possible_cpu(cpu) {
		struct qmempool_percpu *c = per_cpu_ptr(pool->percpu, cpu);

		c->localq = alf_queue_alloc_flags(localq_sz,
						  ALF_SP_ENQ | ALF_SC_DEQ,
						  gfp_mask);
		if (IS_ERR(c->localq))
			goto fail;
	}

	for (done = 0; done < prealloc; done += QMEMPOOL_BULK) {
		unsigned int want = min_t(u32, QMEMPOOL_BULK, prealloc - done);
		unsigned int n = kmem_cache_alloc_bulk(kmem, gfp_mask, want,
						       objs);

		if (n != want) {
			if (n)
				kmem_cache_free_bulk(kmem, n, objs);
			goto fail;
		}
		qmempool_spill(pool, numa_mem_id(), objs, n);
	}

	ret = cpuhp_state_add_instance_nocalls(qmempool_cpuhp_state,
					       &pool->cpuhp_node);
	if (ret)
		goto fail;

	mutex_lock(&qmempool_list_lock);
	list_add(&pool->list, &qmempool_list);
	mutex_unlock(&qmempool_list_lock);
	pool->id = ida_alloc(&qmempool_ida, GFP_KERNEL);
	if (pool->id >= 0) {
		char name[16];

		snprintf(name, sizeof(name), "%d", pool->id);
		pool->debugfs = debugfs_create_file(name, 0444,
						    qmempool_debugfs_dir, pool,
						    &qmempool_debugfs_fops);
	}
	return pool;

fail:
	qmempool_destroy(pool);
nomem:
	pr_err("%s: out of memory\n", __func__);
	return NULL;
}
EXPORT_SYMBOL_GPL(qmempool_create);

/**
 * qmempool_destroy() - return every cached object to the slab, free the pool
 * @pool: the pool, or NULL
 *
 * Afterwards the backing cache holds exactly the objects the callers still
 * hold; they must go back with kmem_cache_free().  Nobody may use @pool
 * any more.
 *
 * Context: process context.
 */
void qmempool_destroy(struct qmempool *pool)
{
	int cpu, node;

	if (!pool)
		return;
	mutex_lock(&qmempool_list_lock);
	list_del_init(&pool->list);
	mutex_unlock(&qmempool_list_lock);
	if (!hlist_unhashed(&pool->cpuhp_node))
		cpuhp_state_remove_instance_nocalls(qmempool_cpuhp_state,
						    &pool->cpuhp_node);
	debugfs_remove(pool->debugfs);
	if (pool->id >= 0)
		ida_free(&qmempool_ida, pool->id);

	if (pool->percpu) {
		for_each_possible_cpu(cpu) {
			struct alf_queue *q = per_cpu_ptr(pool->percpu,
							  cpu)->localq;

			qmempool_drain(pool, q);
			alf_queue_free(q);
		}
		free_percpu(pool->percpu);
	}
	if (pool->sharedq) {
		for_each_node(node) {
			qmempool_drain(pool, pool->sharedq[node]);
			alf_queue_free(pool->sharedq[node]);
		}
		kfree(pool->sharedq);
	}
	kfree(pool);
}
EXPORT_SYMBOL_GPL(qmempool_destroy);

static int __init qmempool_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "qmempool:dead",
				      NULL, qmempool_cpu_dead);
	if (ret < 0)
		return ret;
	qmempool_cpuhp_state = ret;
	qmempool_debugfs_dir = debugfs_create_dir("qmempool", NULL);
	return 0;
}

/*
 * Only reached when no module using qmempool is loaded any more: a pool
 * still listed was leaked by its (unloaded) user.  Its objects cannot be
 * given back safely without knowing whether its cache still exists, so
 * they stay allocated; the pool is detached from CPU hotplug and reported.
 */
static void __exit qmempool_exit(void)
{
	struct qmempool *pool;

	mutex_lock(&qmempool_list_lock);
	list_for_each_entry(pool, &qmempool_list, list) {
		pr_err("pool %d (object size %u, %lu objects cached) was never destroyed by its user\n",
		       pool->id, pool->obj_size, qmempool_cached(pool));
		cpuhp_state_remove_instance_nocalls(qmempool_cpuhp_state,
						    &pool->cpuhp_node);
	}
	mutex_unlock(&qmempool_list_lock);
	debugfs_remove_recursive(qmempool_debugfs_dir);
	cpuhp_remove_multi_state(qmempool_cpuhp_state);
}

module_init(qmempool_init);
module_exit(qmempool_exit);
MODULE_DESCRIPTION("qmempool: quick queue-based memory pool in front of a kmem_cache");
MODULE_LICENSE("GPL");
