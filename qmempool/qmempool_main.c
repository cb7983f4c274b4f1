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
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <qmp/cache_info.h>
#include <qmp/compat.h>
#include <qmp/pool_take.h>
#include <qmp/version.h>

static enum cpuhp_state qmempool_cpuhp_state;
/* Live pools, for reporting the ones a user forgot at module unload */
static LIST_HEAD(qmempool_list);
static DEFINE_MUTEX(qmempool_list_lock);
static struct dentry *qmempool_debugfs_dir;
static DEFINE_IDA(qmempool_ida);

/* More than one node possible: see __qmempool_remote() */
DEFINE_STATIC_KEY_FALSE(qmempool_numa_key);
QMP_EXPORT(qmempool_numa_key);
/* init_on_free or more than one node: see __qmempool_free_ctx() */
DEFINE_STATIC_KEY_FALSE(qmempool_free_extra_key);
QMP_EXPORT(qmempool_free_extra_key);

static bool debug;
module_param(debug, bool, 0644);
MODULE_PARM_DESC(debug,
		 "Pools created while set check every free for double and invalid frees (see include/linux/qmempool.h)");

/*
 * On while __qmempool_free_slow() has more to do than the push: zeroing
 * (init_on_free) or the frees of a debug pool.  It replaces the test of
 * init_on_free's own key there, so that without either the slow path runs
 * the same instructions as before debug mode existed.
 */
static DEFINE_STATIC_KEY_FALSE(qmempool_free_check_key);

/*
 * Debug mode: the first word of an object in a debug pool's queue (see
 * the top of include/linux/qmempool.h)
 */
static unsigned long qmempool_mark_secret __read_mostly;

static unsigned long qmempool_mark_of(const void *obj)
{
	return (unsigned long)obj ^ qmempool_mark_secret;
}

static void qmempool_mark(struct qmempool *pool, void **objs, unsigned int n)
{
	unsigned int i;

	if (qmempool_marks(pool))
		for (i = 0; i < n; i++)
			*(unsigned long *)objs[i] = qmempool_mark_of(objs[i]);
}

static struct alf_queue *sharedq_of(struct qmempool *pool, int node)
{
	return pool->sharedq[node == NUMA_NO_NODE ? 0 : node];
}

/* Where a local cache is refilled from: sharedq_of(), or empty (debug) */
static struct alf_queue *refillq_of(struct qmempool *pool, int node)
{
	return pool->refillq[node == NUMA_NO_NODE ? 0 : node];
}

#define qmempool_count(pool, field, n) \
	this_cpu_add((pool)->percpu->stats.field, (n))

static int obj_node(void *obj)
{
	return page_to_nid(virt_to_page(obj));
}

/*
 * Reorder @objs so that the ones of @node come first; returns how many
 * there are.
 */
static unsigned int qmempool_node_first(void **objs, unsigned int n, int node)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (obj_node(objs[i]) == node) {
			swap(objs[k], objs[i]);	/* a macro: no k++ inside */
			k++;
		}
	}
	return k;
}

/*
 * The slab's flags for objects the pool hands out or stashes: __GFP_ZERO
 * when they must be handed out zeroed, because the slab's own zeroing
 * (slab_want_init_on_alloc()) also depends on the cache, e.g. not for a
 * poisoned one.
 */
static gfp_t qmempool_slab_gfp(gfp_t gfp)
{
	return want_init_on_alloc(gfp) ? gfp | __GFP_ZERO : gfp;
}

/*
 * Up to @n objects from the slab into @objs; returns how many.  With
 * interrupts disabled one at a time: the bulk call must not run there on
 * every kernel (6.1's enables interrupts on return).
 */
static unsigned int qmempool_slab_alloc(struct qmempool *pool, gfp_t gfp,
					void **objs, unsigned int n)
{
	unsigned int i;

	gfp = qmempool_slab_gfp(gfp);
	if (!irqs_disabled()) {
		i = qmp_slab_alloc_bulk(pool->kmem, gfp, n, objs);
		if (i)
			return i;
		n = 1;		/* all or nothing failed: one may still work */
	}
	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(pool->kmem, gfp);
		if (!objs[i])
			break;
	}
	return i;
}

/*
 * KASAN: mark @n objects as in the pool (before they enter a queue); the
 * way back is qmempool_unpoison() (include/qmp/pool_take.h).  Empty
 * without generic KASAN.
 */
static void qmempool_poison(struct qmempool *pool, void **objs,
			    unsigned int n)
{
	unsigned int i;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		for (i = 0; i < n; i++)
			qmp_kasan_poison(objs[i], pool->obj_size);
}

/*
 * @n objects back to the slab (poisoned or not); with interrupts disabled
 * one at a time
 */
static void qmempool_slab_free(struct qmempool *pool, void **objs,
			       unsigned int n)
{
	unsigned int i;

	if (!n)
		return;
	qmempool_count(pool, free_slab, n);
	qmempool_unpoison(pool, objs, n);
	qmempool_unmark(pool, objs, n);
	if (!irqs_disabled()) {
		kmem_cache_free_bulk(pool->kmem, n, objs);
		return;
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(pool->kmem, objs[i]);
}

/*
 * Give @n objects back: each to the shared queue of its own node as far as
 * it has room, the rest to the slab.  Any context but hardirq and NMI.
 */
static void qmempool_spill(struct qmempool *pool, void **objs, unsigned int n)
{
	qmempool_mark(pool, objs, n);
	qmempool_poison(pool, objs, n);
	while (n) {
		int node = pool->numa ? obj_node(objs[0]) : numa_mem_id();
		unsigned int same = pool->numa ?
				    qmempool_node_first(objs, n, node) : n;
		unsigned int moved;

		moved = alf_mp_enqueue_variable(sharedq_of(pool, node), objs,
						same);
		if (moved)
			qmempool_count(pool, free_shared, 1);
		qmempool_slab_free(pool, objs + moved, same - moved);
		objs += same;
		n -= same;
	}
}

/*
 * Store @n spare objects: this CPU's node's ones onto its local cache as
 * far as it has room, the rest spilled.
 */
static void qmempool_stash(struct qmempool *pool, enum qmempool_ctx ctx,
			   void **objs, unsigned int n)
{
	struct qmempool_percpu *c;
	unsigned long flags = 0;
	unsigned int local = n, moved;

	if (!n)
		return;
	qmempool_poison(pool, objs, n);
	__qmempool_lock(ctx, &flags);
	if (pool->numa)
		local = qmempool_node_first(objs, n, numa_mem_id());
	c = this_cpu_ptr(pool->percpu);
	moved = min_t(unsigned long, local, pool->localq_sz - c->count);
	memcpy(c->objs + c->count, objs, moved * sizeof(*objs));
	WRITE_ONCE(c->count, c->count + moved);
	__qmempool_unlock(ctx, flags);
	qmempool_spill(pool, objs + moved, n - moved);
}

/*
 * Objects a refill brings into an empty local cache, and a drain takes
 * off a full one: half of it (the NAPI skb cache's choice), at least a
 * bulk, so that the shared queue's fixed cost per call is spread over as
 * many objects as the local cache can spare.
 */
static unsigned int qmempool_move(struct qmempool *pool)
{
	return max_t(u32, QMEMPOOL_BULK, pool->localq_sz / 2);
}

/*
 * A debug pool's allocation first takes one object from the shared queue
 * (its local caches and refill queues stay empty), unmarked, else NULL.
 */
static void *qmempool_alloc_debug(struct qmempool *pool, gfp_t gfp_mask,
				  bool init)
{
	void *elem;

	if (!alf_mc_dequeue(sharedq_of(pool, numa_mem_id()), &elem, 1))
		return NULL;
	qmempool_count(pool, alloc_shared, 1);
	qmempool_unpoison(pool, &elem, 1);
	qmempool_unmark(pool, &elem, 1);
	if (init && want_init_on_alloc(gfp_mask))
		memset(elem, 0, pool->obj_size);
	return elem;
}

/*
 * The slab part of __qmempool_alloc_slow(), out of line so that the refill
 * from the shared queue has no array on its stack to set up.  A debug
 * pool's allocations all come here: what it does not hand out goes to the
 * shared queue, not to a local cache.
 */
static noinline void *qmempool_alloc_slab(struct qmempool *pool,
					  enum qmempool_ctx ctx,
					  gfp_t gfp_mask, bool init)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	if (pool->debug) {
		objs[0] = qmempool_alloc_debug(pool, gfp_mask, init);
		if (objs[0])
			return objs[0];
	}
	n = qmempool_slab_alloc(pool, init ? qmempool_slab_gfp(gfp_mask) :
				gfp_mask, objs, QMEMPOOL_BULK);
	if (!n) {
		qmempool_count(pool, alloc_fail, 1);
		return NULL;
	}
	qmempool_count(pool, alloc_slab, n);
	if (pool->debug)
		qmempool_spill(pool, objs + 1, n - 1);
	else
		qmempool_stash(pool, ctx, objs + 1, n - 1);
	return objs[0];
}

/**
 * __qmempool_alloc_slow() - refill the local cache, then allocate
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 * @init: zero the object as want_init_on_alloc(@gfp_mask) says
 *
 * Called by the inline allocation when the local cache is empty: takes
 * half a cache from the node's shared queue straight into it, else
 * from the slab (outside any critical section, so @gfp_mask may sleep
 * where the caller may), keeps one object and stashes the rest.  Never
 * loses an object: what does not fit goes on to the next layer.
 *
 * Context: any; see include/linux/qmempool.h.
 * Return: an object, or NULL if the slab had none.
 */
void *__qmempool_alloc_slow(struct qmempool *pool, gfp_t gfp_mask, bool init)
{
	enum qmempool_ctx ctx = __qmempool_ctx();
	struct qmempool_percpu *c;
	unsigned long flags = 0;
	unsigned int n;
	void *elem;

	if (ctx == QMEMPOOL_CTX_BYPASS)
		return __qmempool_alloc_bypass(pool, gfp_mask, init);

	__qmempool_lock(ctx, &flags);
	c = this_cpu_ptr(pool->percpu);
	n = c->count;
	/* A softirq may have freed here since the fast path looked */
	if (!n) {
		n = alf_mc_dequeue(refillq_of(pool, numa_mem_id()), c->objs,
				   qmempool_move(pool));
		if (n)
			c->stats.alloc_shared++;
	}
	if (unlikely(!n)) {
		__qmempool_unlock(ctx, flags);
		return qmempool_alloc_slab(pool, ctx, gfp_mask, init);
	}
	WRITE_ONCE(c->count, --n);
	elem = c->objs[n];
	__qmempool_unlock(ctx, flags);
	qmempool_unpoison(pool, &elem, 1);
	if (init && want_init_on_alloc(gfp_mask))
		memset(elem, 0, pool->obj_size);
	return elem;
}
QMP_EXPORT(__qmempool_alloc_slow);

/* Under the exclusion: @elem onto @c's stack, whose count is @n */
static void qmempool_put_top(struct qmempool *pool, struct qmempool_percpu *c,
			     unsigned int n, void *elem)
{
	qmempool_poison(pool, &elem, 1);
	c->objs[n] = elem;
	WRITE_ONCE(c->count, n + 1);
}

/*
 * The end of __qmempool_free_slow() when the shared queue took @moved of
 * the @n objects at the top of the local cache, fewer than @n: of the
 * rest, the topmost bulk goes to the slab, the others down.  Out of line
 * so that the common case has no array on its stack to set up.
 */
static noinline void qmempool_free_overflow(struct qmempool *pool,
					    enum qmempool_ctx ctx,
					    unsigned long flags,
					    unsigned int n, unsigned int moved,
					    void *elem)
{
	struct qmempool_percpu *c = this_cpu_ptr(pool->percpu);
	void *objs[QMEMPOOL_BULK], **top = c->objs + c->count - n;
	unsigned int left = min_t(u32, n - moved, QMEMPOOL_BULK);

	memcpy(objs, top + n - left, left * sizeof(*objs));
	memmove(top, top + moved, (n - moved - left) * sizeof(*objs));
	qmempool_put_top(pool, c, c->count - moved - left, elem);
	__qmempool_unlock(ctx, flags);
	qmempool_slab_free(pool, objs, left);
}

/*
 * The free of a debug pool: checked, then (zeroed under init_on_free)
 * marked into its node's shared queue, or to the slab if that is full.
 * Any context but hardirq and NMI.
 */
static noinline void qmempool_free_debug(struct qmempool *pool, void *elem,
					 unsigned long caller)
{
	if (!IS_ENABLED(CONFIG_KASAN_GENERIC) &&	/* else checked inline */
	    !__qmempool_check_free(pool, elem, caller))
		return;
	if (want_init_on_free())
		memset(elem, 0, pool->obj_size);
	qmempool_count(pool, free_shared, 1);
	qmempool_spill(pool, &elem, 1);
}

/**
 * __qmempool_free_slow() - free when the fast path cannot
 * @pool: the pool
 * @elem: the object being freed
 *
 * Called by __qmempool_free() when the local cache is full (always, in
 * debug mode: then @elem is checked and goes to the shared queue), @elem
 * is of another node, or init_on_free is on (@elem is zeroed here).
 * Another node's object goes to the slab.  If the local cache has room,
 * @elem goes onto it.  Otherwise the top half of the local cache moves to
 * the node's shared queue, as the NAPI skb cache flushes its top half,
 * and @elem, the cache-hot one, goes onto the local cache.  If the shared
 * queue has no room for them all, a bulk of the rest goes to the slab and
 * the others stay.
 *
 * Context: any; see include/linux/qmempool.h.
 */
void __qmempool_free_slow(struct qmempool *pool, void *elem)
{
	enum qmempool_ctx ctx = __qmempool_ctx();
	struct qmempool_percpu *c;
	unsigned long flags = 0;
	unsigned int n, moved;

	if (ctx == QMEMPOOL_CTX_BYPASS) {
		__qmempool_free_bypass(pool, elem);
		return;
	}
	/* init_on_free, or a debug pool exists (the same cost as before) */
	if (static_branch_unlikely(&qmempool_free_check_key)) {
		if (pool->debug) {
			qmempool_free_debug(pool, elem, _RET_IP_);
			return;
		}
		if (want_init_on_free())
			memset(elem, 0, pool->obj_size);
	}
	__qmempool_lock(ctx, &flags);
	if (__qmempool_remote(elem)) {
		__qmempool_unlock(ctx, flags);
		qmempool_count(pool, free_remote, 1);
		kmem_cache_free(pool->kmem, elem);
		return;
	}
	/* init_on_free, or a softirq allocated since the fast path looked */
	if (__qmempool_push(pool, elem, false)) {
		__qmempool_unlock(ctx, flags);
		return;
	}
	c = this_cpu_ptr(pool->percpu);
	n = qmempool_move(pool);
	moved = alf_mp_enqueue_variable(sharedq_of(pool, numa_mem_id()),
					c->objs + c->count - n, n);
	if (moved)
		c->stats.free_shared++;
	if (unlikely(moved < n)) {
		qmempool_free_overflow(pool, ctx, flags, n, moved, elem);
		return;
	}
	qmempool_put_top(pool, c, c->count - n, elem);
	__qmempool_unlock(ctx, flags);
}
QMP_EXPORT(__qmempool_free_slow);

/*
 * Hardirq context, the bypass: the local cache may be in use by the code
 * the interrupt interrupted, and the slab is not called either, because
 * its locks are sleeping locks under PREEMPT_RT, a rule lockdep checks on
 * every kernel built with CONFIG_PROVE_RAW_LOCK_NESTING (the default with
 * lockdep on x86 since 6.x: "BUG: Invalid wait context").  The node's
 * shared queue is lock-free and safe there (its reservation windows run
 * with interrupts off): an allocation takes one object from it or fails,
 * as an atomic allocation may; a free puts the object into it or, when
 * it is full, on the pool's deferred list, which a work item gives back
 * to the slab (qmempool_free_deferred()).
 */

/**
 * __qmempool_alloc_bypass() - allocation where the local cache cannot be
 * used (hardirq): one object of this node's shared queue
 * @pool: the pool
 * @gfp_mask: flags of the call (only __GFP_ZERO matters here)
 * @init: zero the object as want_init_on_alloc(@gfp_mask) says
 *
 * Context: any.
 * Return: an object, or NULL if the shared queue is empty (or in NMI).
 */
void *__qmempool_alloc_bypass(struct qmempool *pool, gfp_t gfp_mask,
			      bool init)
{
	void *elem;

	if (in_nmi())
		return NULL;
	qmempool_count(pool, bypass, 1);
	if (!alf_mc_dequeue(sharedq_of(pool, numa_mem_id()), &elem, 1)) {
		qmempool_count(pool, alloc_fail, 1);
		return NULL;
	}
	qmempool_unpoison(pool, &elem, 1);
	qmempool_unmark(pool, &elem, 1);
	if (init && want_init_on_alloc(gfp_mask))
		memset(elem, 0, pool->obj_size);
	return elem;
}
QMP_EXPORT(__qmempool_alloc_bypass);

/**
 * __qmempool_free_bypass() - free where the local cache cannot be used
 * (hardirq): into the shared queue of the object's node, or when it is
 * full to the slab from a work item
 * @pool: the pool
 * @elem: the object
 *
 * In NMI context nothing can free safely: the object is dropped (leaked)
 * with a one-time error message.  In debug mode @elem is checked first.
 *
 * Context: any.
 */
void __qmempool_free_bypass(struct qmempool *pool, void *elem)
{
	int node;

	if (in_nmi()) {
		pr_err_once("qmempool_free() called in NMI context: object %p leaked\n",
			    elem);
		return;
	}
	/* Under KASAN checked inline already, as every free */
	if (!IS_ENABLED(CONFIG_KASAN_GENERIC) && unlikely(pool->debug) &&
	    !__qmempool_check_free(pool, elem, _RET_IP_))
		return;
	qmempool_count(pool, bypass, 1);
	if (want_init_on_free())
		memset(elem, 0, pool->obj_size);
	node = pool->numa ? obj_node(elem) : numa_mem_id();
	qmempool_mark(pool, &elem, 1);
	qmempool_poison(pool, &elem, 1);
	if (alf_mp_enqueue(sharedq_of(pool, node), &elem, 1))
		return;
	qmempool_unpoison(pool, &elem, 1);
	/* The object's first bytes are the list's link until the work runs */
	llist_add(elem, &pool->deferred);
	schedule_work(&pool->deferred_work);
}
QMP_EXPORT(__qmempool_free_bypass);

/* The objects hardirq frees could not queue, back to the slab */
static void qmempool_free_deferred(struct work_struct *work)
{
	struct qmempool *pool = container_of(work, struct qmempool,
					     deferred_work);
	struct llist_node *node = llist_del_all(&pool->deferred), *next;

	llist_for_each_safe(node, next, node) {
		qmempool_count(pool, free_slab, 1);
		kmem_cache_free(pool->kmem, node);
	}
}

/* Report a double or invalid free of @elem into @pool (see below) */
static __printf(5, 6) void qmempool_bad_free(struct qmempool *pool,
					     void *elem, const char *kind,
					     unsigned long caller,
					     const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_long_inc(&pool->bad_frees);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("BUG: %s in pool %d (cache %s)\n", kind, pool->id, pool->name);
	pr_err("object %p freed by %pS: %pV; not stored\n", elem,
	       (void *)caller, &vaf);
	va_end(args);
	dump_stack();
	add_taint(TAINT_BAD_PAGE, LOCKDEP_STILL_OK);
}

/**
 * __qmempool_check_free() - check a free before the pool takes the object
 * @pool: the pool
 * @elem: the object being freed, not NULL
 * @caller: the return address of the free, for the report
 *
 * For debug mode, and for every free under generic KASAN: @elem must be
 * the start of an object of the pool's cache (where the kernel's BTF lets
 * the pool see the slab's layout), and not a freed one: not in a pool
 * (debug mode's mark), not poisoned as freed (KASAN).  A free that fails
 * is reported ("qmempool: BUG: double-free" or "invalid-free", the pool,
 * the caller, a stack trace; taint B) and counted (qmempool_bad_frees()).
 *
 * Context: any but NMI.
 * Return: true if the pool may take @elem; false if the caller must drop
 * it (it was reported).
 */
bool __qmempool_check_free(struct qmempool *pool, void *elem,
			   unsigned long caller)
{
	struct qmp_obj_where where = { };
	u8 shadow;

	switch (qmp_obj_where(pool->kmem, elem, &where)) {
	case QMP_OBJ_NOT_SLAB:
		qmempool_bad_free(pool, elem, "invalid-free", caller,
				  "not slab memory");
		return false;
	case QMP_OBJ_OTHER_CACHE:
		qmempool_bad_free(pool, elem, "invalid-free", caller,
				  "an object of cache %s",
				  qmp_cache_name(where.cache));
		return false;
	case QMP_OBJ_INSIDE:
		qmempool_bad_free(pool, elem, "invalid-free", caller,
				  "%u bytes into an object of the cache",
				  where.offset);
		return false;
	case QMP_OBJ_UNKNOWN:	/* no BTF: only double frees are seen */
	case QMP_OBJ_START:
		break;
	}
	shadow = qmp_kasan_shadow(elem);
	if (shadow == QMP_KASAN_SLAB_FREE ||
	    shadow == QMP_KASAN_SLAB_FREE_META) {
		qmempool_bad_free(pool, elem, "double-free", caller,
				  "already freed (KASAN shadow %#x)", shadow);
		return false;
	}
	if (shadow >= 0x80) {	/* a red zone, a freed page, ... */
		qmempool_bad_free(pool, elem, "invalid-free", caller,
				  "not an accessible object (KASAN shadow %#x)",
				  shadow);
		return false;
	}
	/* Uninstrumented: the object may be anything, read only its mark */
	if (qmempool_marks(pool) &&
	    READ_ONCE_NOCHECK(*(unsigned long *)elem) == qmempool_mark_of(elem)) {
		qmempool_bad_free(pool, elem, "double-free", caller,
				  "already in a pool (its mark is set)");
		return false;
	}
	return true;
}
QMP_EXPORT(__qmempool_check_free);

/**
 * qmempool_bad_frees() - double and invalid frees the pool reported
 * @pool: the pool
 *
 * Counted in debug mode, and for every pool under generic KASAN; see
 * __qmempool_check_free().
 *
 * Context: any.
 * Return: the number so far.
 */
unsigned long qmempool_bad_frees(struct qmempool *pool)
{
	return atomic_long_read(&pool->bad_frees);
}
QMP_EXPORT(qmempool_bad_frees);

/*
 * The exported calls keep the softirq path (the network fast path) apart
 * from the other contexts: the process-context path needs saved registers
 * and, where local_irq_save() is a function call (UML), a stack frame;
 * in one function with it, the softirq path paid for both on every call.
 * Alone, it is a leaf whose only calls are tail calls: to the slow paths,
 * to the hardirq/NMI bypass, and to the process-context path below.
 * (Measured in UML: the NIC pattern through the one-function calls ran at
 * one of two speeds, 30% apart, chosen by where the caller's stack lay;
 * split, at the faster one wherever the stack lies.)
 */
static noinline void *qmempool_alloc_task(struct qmempool *pool,
					  gfp_t gfp_mask)
{
	return __qmempool_alloc_ctx(pool, gfp_mask, true, QMEMPOOL_CTX_TASK);
}

static noinline void *qmempool_alloc_task_noinit(struct qmempool *pool,
						 gfp_t gfp_mask)
{
	return __qmempool_alloc_ctx(pool, gfp_mask, false, QMEMPOOL_CTX_TASK);
}

static __always_inline void *qmempool_alloc_entry(struct qmempool *pool,
						  gfp_t gfp_mask, bool init)
{
	enum qmempool_ctx ctx = __qmempool_ctx();

	if (likely(ctx == QMEMPOOL_CTX_BH))
		return __qmempool_alloc_ctx(pool, gfp_mask, init,
					    QMEMPOOL_CTX_BH);
	if (ctx == QMEMPOOL_CTX_BYPASS)
		return __qmempool_alloc_bypass(pool, gfp_mask, init);
	return init ? qmempool_alloc_task(pool, gfp_mask) :
		      qmempool_alloc_task_noinit(pool, gfp_mask);
}

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
	return qmempool_alloc_entry(pool, gfp_mask, true);
}
QMP_EXPORT(qmempool_alloc);

/**
 * qmempool_alloc_noinit() - allocate an object the caller initialises
 * @pool: the pool
 * @gfp_mask: flags for the slab, if it must be asked
 *
 * qmempool_alloc() without the pool's zeroing: the caller must write every
 * byte of the object before anybody reads it, and zero what it does not
 * write when want_init_on_alloc(@gfp_mask) is true; see
 * __qmempool_alloc_noinit().
 *
 * Context: any, see include/linux/qmempool.h.
 * Return: an object of the backing cache, or NULL.
 */
void *qmempool_alloc_noinit(struct qmempool *pool, gfp_t gfp_mask)
{
	return qmempool_alloc_entry(pool, gfp_mask, false);
}
QMP_EXPORT(qmempool_alloc_noinit);

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
	return qmempool_alloc_entry(pool, gfp_mask, true);
}
QMP_EXPORT(qmempool_alloc_softirq);

/* qmempool_free() in process context; see qmempool_alloc_task() */
static noinline void qmempool_free_task(struct qmempool *pool, void *elem)
{
	__qmempool_free_ctx(pool, elem, QMEMPOOL_CTX_TASK);
}

/**
 * qmempool_free() - give an object back to the pool
 * @pool: the pool
 * @elem: an object of the pool's backing cache, or NULL
 *
 * Context: any, see include/linux/qmempool.h.
 */
void qmempool_free(struct qmempool *pool, void *elem)
{
	enum qmempool_ctx ctx = __qmempool_ctx();

	if (likely(ctx == QMEMPOOL_CTX_BH))
		__qmempool_free_ctx(pool, elem, QMEMPOOL_CTX_BH);
	else if (ctx == QMEMPOOL_CTX_BYPASS)
		__qmempool_free_ctx(pool, elem, QMEMPOOL_CTX_BYPASS);
	else
		qmempool_free_task(pool, elem);
}
QMP_EXPORT(qmempool_free);

/* Empty the shared queue of @node into the slab; nobody else may use it */
static void qmempool_drain(struct qmempool *pool, int node)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	if (IS_ERR_OR_NULL(pool->sharedq[node]))
		return;
	while ((n = qmempool_take_shared(pool, node, objs, QMEMPOOL_BULK)))
		kmem_cache_free_bulk(pool->kmem, n, objs);
}

/* CPU hotplug, after @cpu died: move its local cache to its node */
static int qmempool_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct qmempool *pool = hlist_entry(node, struct qmempool, cpuhp_node);
	struct qmempool_percpu *c = per_cpu_ptr(pool->percpu, cpu);
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	/* The dead CPU's cache has no other user */
	while ((n = qmempool_pop_bulk(c, objs, QMEMPOOL_BULK)))
		qmempool_spill(pool, objs, n);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory pressure                                                     */

/*
 * On one CPU: its local cache back to the slab (the shrinker's work), as
 * many objects as it held when the work started.  Softirqs run at each
 * local_bh_enable() and may free into the cache meanwhile: those are
 * left (they are the fresh ones, and the shrinker asks again while the
 * pressure lasts), or a softirq that keeps freeing would keep the work,
 * and on a kernel without preemption the CPU, forever.  Up to 1024
 * objects, zeroed or poisoned one by one by the slab: cond_resched()
 * between the bulks.
 */
static void qmempool_drain_local(struct work_struct *work)
{
	struct qmempool_percpu *c = container_of(work, struct qmempool_percpu,
						 drain);
	unsigned long left = READ_ONCE(c->count);
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	while (left) {
		local_bh_disable();	/* the local cache's exclusion */
		/* A work of a CPU gone offline runs elsewhere: not ours */
		n = c == this_cpu_ptr(c->pool->percpu) ?
		    qmempool_pop_bulk(c, objs, min_t(unsigned long, left,
						     QMEMPOOL_BULK)) : 0;
		local_bh_enable();
		if (!n)
			break;
		qmempool_slab_free(c->pool, objs, n);
		left -= n;
		cond_resched();
	}
}

/* Objects @pool caches for @node: its shared queue and its CPUs' queues */
static unsigned long qmempool_node_cached(struct qmempool *pool, int node)
{
	unsigned long n = qmempool_cached_node(pool, node);
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu_to_mem(cpu) == node || !pool->numa)
			n += qmempool_cached_cpu(pool, cpu);
	return n;
}

static unsigned long qmempool_shrink_count(struct shrinker *shrinker,
					   struct shrink_control *sc)
{
	struct qmempool *pool;
	unsigned long n = 0;

	if (!mutex_trylock(&qmempool_list_lock))
		return 0;
	list_for_each_entry(pool, &qmempool_list, list)
		n += qmempool_node_cached(pool, sc->nid);
	mutex_unlock(&qmempool_list_lock);
	return n;
}

/*
 * The shared queue of the node under pressure first, synchronously; then
 * each online CPU of that node empties its local cache (a CPU's cache is
 * only ever used on that CPU), asynchronously: those are counted the
 * next time.
 */
static unsigned long qmempool_shrink_scan(struct shrinker *shrinker,
					  struct shrink_control *sc)
{
	struct alf_queue *q;
	struct qmempool *pool;
	void *objs[QMEMPOOL_BULK];
	unsigned long freed = 0;
	unsigned int n;
	int cpu;

	if (!mutex_trylock(&qmempool_list_lock))
		return SHRINK_STOP;
	list_for_each_entry(pool, &qmempool_list, list) {
		q = sharedq_of(pool, pool->numa ? sc->nid : numa_mem_id());
		while (freed < sc->nr_to_scan &&
		       (n = alf_mc_dequeue(q, objs, QMEMPOOL_BULK))) {
			qmempool_slab_free(pool, objs, n);
			freed += n;
		}
		for_each_online_cpu(cpu) {
			struct qmempool_percpu *c = per_cpu_ptr(pool->percpu,
								cpu);

			if ((!pool->numa || cpu_to_mem(cpu) == sc->nid) &&
			    READ_ONCE(c->count))
				queue_work_on(cpu, system_wq, &c->drain);
		}
	}
	mutex_unlock(&qmempool_list_lock);
	return freed;
}

static struct shrinker *qmempool_shrinker;

#ifdef HAVE_SHRINKER_ALLOC	/* 6.7+, set by Kbuild */
static int qmempool_shrinker_register(void)
{
	qmempool_shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "qmempool");
	if (!qmempool_shrinker)
		return -ENOMEM;
	qmempool_shrinker->count_objects = qmempool_shrink_count;
	qmempool_shrinker->scan_objects = qmempool_shrink_scan;
	shrinker_register(qmempool_shrinker);
	return 0;
}

static void qmempool_shrinker_unregister(void)
{
	shrinker_free(qmempool_shrinker);
}
#else
static struct shrinker qmempool_shrinker_s = {
	.count_objects	= qmempool_shrink_count,
	.scan_objects	= qmempool_shrink_scan,
	.seeks		= DEFAULT_SEEKS,
	.flags		= SHRINKER_NUMA_AWARE,
};

static int qmempool_shrinker_register(void)
{
	qmempool_shrinker = &qmempool_shrinker_s;
	return register_shrinker(qmempool_shrinker, "qmempool");
}

static void qmempool_shrinker_unregister(void)
{
	unregister_shrinker(qmempool_shrinker);
}
#endif

/**
 * qmempool_cached() - objects the pool holds right now (all queues)
 * @pool: the pool
 *
 * Context: any.
 * Return: a snapshot of the number of cached objects.
 */
unsigned long qmempool_cached(struct qmempool *pool)
{
	unsigned long sum = 0;
	int cpu, node;

	for_each_possible_cpu(cpu)
		sum += qmempool_cached_cpu(pool, cpu);
	for_each_node(node)
		sum += qmempool_cached_node(pool, node);
	return sum;
}
QMP_EXPORT(qmempool_cached);

/**
 * qmempool_cached_cpu() - objects in the local cache of a CPU
 * @pool: the pool
 * @cpu: a possible CPU
 *
 * Context: any.
 * Return: a snapshot of the number.
 */
unsigned int qmempool_cached_cpu(struct qmempool *pool, int cpu)
{
	return READ_ONCE(per_cpu_ptr(pool->percpu, cpu)->count);
}
QMP_EXPORT(qmempool_cached_cpu);

/**
 * qmempool_cached_node() - objects in the shared queue of a node
 * @pool: the pool
 * @node: a possible node
 *
 * Context: any.
 * Return: a snapshot of the number.
 */
unsigned int qmempool_cached_node(struct qmempool *pool, int node)
{
	return alf_queue_count(pool->sharedq[node]);
}
QMP_EXPORT(qmempool_cached_node);

/**
 * qmempool_get_stats() - the event counters of a pool
 * @pool: the pool
 * @cpu: a possible CPU, or -1 for the sum over all of them
 * @stats: filled with the counters
 *
 * Context: any.
 */
void qmempool_get_stats(struct qmempool *pool, int cpu,
			struct qmempool_stats *stats)
{
	const unsigned long *from;
	unsigned long *to = (unsigned long *)stats;
	unsigned int i, n = sizeof(*stats) / sizeof(unsigned long);
	int c;

	memset(stats, 0, sizeof(*stats));
	for_each_possible_cpu(c) {
		if (cpu >= 0 && c != cpu)
			continue;
		from = (const unsigned long *)&per_cpu_ptr(pool->percpu,
							   c)->stats;
		for (i = 0; i < n; i++)
			to[i] += READ_ONCE(from[i]);
	}
}
QMP_EXPORT(qmempool_get_stats);

static int qmempool_debugfs_show(struct seq_file *m, void *v)
{
	struct qmempool *pool = m->private;
	struct qmempool_stats sum;
	unsigned long local = 0, shared = 0;
	int cpu, node;

	for_each_possible_cpu(cpu)
		local += qmempool_cached_cpu(pool, cpu);
	for_each_node(node)
		shared += qmempool_cached_node(pool, node);
	qmempool_get_stats(pool, -1, &sum);

	seq_printf(m, "object_size %u\nlocalq_size %u\nsharedq_size %u\n",
		   pool->obj_size, pool->localq_sz, pool->sharedq_sz);
	seq_printf(m, "init_on_alloc %d\ninit_on_free %d\nnuma_check %d\n",
		   want_init_on_alloc(0), want_init_on_free(), pool->numa);
	seq_printf(m, "cached %lu\ncached_local %lu\ncached_shared %lu\nbytes %lu\n",
		   local + shared, local, shared,
		   (local + shared) * pool->obj_size);
	seq_printf(m, "alloc_fast %lu\nalloc_shared %lu\nalloc_slab %lu\nalloc_fail %lu\n",
		   sum.alloc_fast, sum.alloc_shared, sum.alloc_slab,
		   sum.alloc_fail);
	seq_printf(m, "free_fast %lu\nfree_shared %lu\nfree_slab %lu\nfree_remote %lu\nbypass %lu\n",
		   sum.free_fast, sum.free_shared, sum.free_slab,
		   sum.free_remote, sum.bypass);
	seq_printf(m, "cache %s\ndebug %d\nbad_frees %lu\n", pool->name,
		   pool->debug, qmempool_bad_frees(pool));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qmempool_debugfs);

/*
 * Why the pool cannot serve @kmem, or NULL.  A cache the pool cannot
 * inspect (no usable BTF) is refused unless @flags has
 * QMEMPOOL_PLAIN_CACHE, the creator's word.
 */
static const char *qmempool_check_cache(struct kmem_cache *kmem,
					unsigned int flags)
{
	struct qmp_cache_info info;
	int ret = qmp_cache_info(kmem, &info);

	if (ret == -EAGAIN && !(flags & QMEMPOOL_PLAIN_CACHE))
		return "the cache cannot be inspected now: the kernel's BTF could not be read (see above; the next creation tries again); a creator that knows the cache has no constructor and is neither SLAB_TYPESAFE_BY_RCU nor SLAB_ACCOUNT may say so with QMEMPOOL_PLAIN_CACHE";
	if (ret && !(flags & QMEMPOOL_PLAIN_CACHE))
		return "the cache cannot be inspected: this kernel's BTF does not describe it (see above); a creator that knows the cache has no constructor and is neither SLAB_TYPESAFE_BY_RCU nor SLAB_ACCOUNT may say so with QMEMPOOL_PLAIN_CACHE";
	if (ret)
		return NULL;	/* not inspectable: the creator's word */
	if (info.ctor)
		return "the cache has a constructor (the pool zeroes objects)";
	if (info.typesafe_by_rcu)
		return "the cache is SLAB_TYPESAFE_BY_RCU (a freed object may still be read)";
	if (info.account)
		return "the cache is SLAB_ACCOUNT (an object the pool hands out would stay charged to the memory cgroup that first allocated it)";
	return NULL;
}

static const char *qmempool_check(u32 localq_sz, u32 sharedq_sz, u32 prealloc,
				  struct kmem_cache *kmem, unsigned int flags)
{
	if (!kmem)
		return "kmem_cache is NULL";
	if (alf_queue_check_params(localq_sz, 0) || localq_sz < QMEMPOOL_BULK ||
	    localq_sz > QMEMPOOL_LOCAL_MAX)
		return "localq_sz must be a power of two, at least QMEMPOOL_BULK (16), at most QMEMPOOL_LOCAL_MAX (1024)";
	if (alf_queue_check_params(sharedq_sz, 0) ||
	    sharedq_sz < QMEMPOOL_BULK * QMEMPOOL_REFILL_MULTIPLIER)
		return "sharedq_sz must be a power of two, at least 2 * QMEMPOOL_BULK (32), at most ALF_QUEUE_MAX_SIZE";
	if (prealloc > sharedq_sz)
		return "prealloc larger than sharedq_sz";
	if (flags & ~(QMEMPOOL_PLAIN_CACHE | QMEMPOOL_DEBUG))
		return "unknown flags";
	return qmempool_check_cache(kmem, flags);
}

/* The queues of a new pool; false when out of memory */
static bool qmempool_alloc_queues(struct qmempool *pool, gfp_t gfp)
{
	int cpu, node;

	pool->sharedq = kcalloc(nr_node_ids, sizeof(*pool->sharedq), gfp);
	/* localq_sz <= QMEMPOOL_LOCAL_MAX: no overflow */
	pool->percpu = __alloc_percpu_gfp(sizeof(struct qmempool_percpu) +
					  pool->localq_sz * sizeof(void *),
					  __alignof__(struct qmempool_percpu),
					  gfp);
	if (!pool->sharedq || !pool->percpu)
		return false;
	for_each_node(node) {
		pool->sharedq[node] = alf_queue_alloc_flags(pool->sharedq_sz,
					ALF_MP_ENQ | ALF_MC_DEQ, gfp);
		if (IS_ERR(pool->sharedq[node]))
			return false;
	}
	pool->refillq = pool->sharedq;
	if (pool->debug) {	/* nothing to refill a local cache from */
		pool->refillq = kcalloc(nr_node_ids, sizeof(*pool->refillq),
					gfp);
		pool->emptyq = alf_queue_alloc_flags(2 * QMEMPOOL_BULK,
						     ALF_MP_ENQ | ALF_MC_DEQ,
						     gfp);
		if (!pool->refillq || IS_ERR(pool->emptyq))
			return false;
		for_each_node(node)
			pool->refillq[node] = pool->emptyq;
	}
	for_each_possible_cpu(cpu) {
		struct qmempool_percpu *c = per_cpu_ptr(pool->percpu, cpu);

		c->pool = pool;
		INIT_WORK(&c->drain, qmempool_drain_local);
	}
	return true;
}

/*
 * @n objects from the slab into the shared queues of their nodes; false
 * if the slab gave fewer (what it gave of the last bulk goes back to it,
 * the earlier bulks are the pool's and qmempool_destroy() frees them)
 */
static bool qmempool_prealloc(struct qmempool *pool, u32 n, gfp_t gfp)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int got;
	u32 done;

	for (done = 0; done < n; done += QMEMPOOL_BULK) {
		unsigned int want = min_t(u32, QMEMPOOL_BULK, n - done);

		got = qmp_slab_alloc_bulk(pool->kmem, gfp, want, objs);
		if (got != want) {
			if (got)
				kmem_cache_free_bulk(pool->kmem, got, objs);
			return false;
		}
		qmempool_spill(pool, objs, want);
	}
	return true;
}

/* Make a new pool visible: CPU hotplug, the list of pools, debugfs */
static int qmempool_register(struct qmempool *pool)
{
	char name[64];
	int ret;

	ret = cpuhp_state_add_instance_nocalls(qmempool_cpuhp_state,
					       &pool->cpuhp_node);
	if (ret)
		return ret;
	mutex_lock(&qmempool_list_lock);
	list_add(&pool->list, &qmempool_list);
	mutex_unlock(&qmempool_list_lock);
	pool->id = ida_alloc(&qmempool_ida, GFP_KERNEL);
	if (pool->id >= 0) {	/* debugfs is optional */
		/* Named after the cache, the id keeps two pools apart */
		snprintf(name, sizeof(name), "%s-%d", pool->name, pool->id);
		pool->debugfs = debugfs_create_file(name, 0444,
						    qmempool_debugfs_dir, pool,
						    &qmempool_debugfs_fops);
	}
	return 0;
}

/**
 * qmempool_create_flags() - create a pool in front of a kmem_cache
 * @localq_sz: objects each CPU's local cache holds (power of two, 16..1024)
 * @sharedq_sz: slots of each node's shared queue (power of two, >= 32)
 * @prealloc: objects allocated now into the shared queues (<= @sharedq_sz)
 * @kmem: the backing cache: no constructor, neither SLAB_TYPESAFE_BY_RCU
 *        nor SLAB_ACCOUNT
 * @gfp_mask: flags for the pool's own memory and the preallocation
 * @flags: QMEMPOOL_PLAIN_CACHE, QMEMPOOL_DEBUG (include/linux/qmempool.h)
 *
 * A cache the pool cannot inspect (no usable BTF) is refused unless
 * @flags has QMEMPOOL_PLAIN_CACHE.  The pool is in debug mode if @flags
 * has QMEMPOOL_DEBUG or the module parameter qmempool.debug is set.
 *
 * Context: process context; may sleep.
 * Return: the pool, or an ERR_PTR() after a pr_err() saying why, as
 * alf_queue_alloc(): -EINVAL for a bad parameter or a cache the pool
 * cannot serve or inspect, -ENOMEM when the pool's memory or its
 * preallocation could not be had, CPU hotplug's error if it refused.
 */
struct qmempool *qmempool_create_flags(u32 localq_sz, u32 sharedq_sz,
				       u32 prealloc, struct kmem_cache *kmem,
				       gfp_t gfp_mask, unsigned int flags)
{
	const char *why = qmempool_check(localq_sz, sharedq_sz, prealloc, kmem,
					 flags);
	struct qmempool *pool;
	int ret;

	if (why) {
		pr_err("%s: refused (localq_sz %u sharedq_sz %u prealloc %u flags %#x, cache %s): %s\n",
		       __func__, localq_sz, sharedq_sz, prealloc, flags,
		       qmp_cache_name(kmem), why);
		return ERR_PTR(-EINVAL);
	}
	pool = kzalloc(sizeof(*pool), gfp_mask);
	if (!pool)
		return ERR_PTR(-ENOMEM);	/* the allocator said so */
	pool->kmem = kmem;
	pool->obj_size = kmem_cache_size(kmem);
	pool->numa = static_branch_unlikely(&qmempool_numa_key);
	pool->prealloc = prealloc;
	pool->gfp_mask = gfp_mask;
	pool->debug = (flags & QMEMPOOL_DEBUG) || READ_ONCE(debug);
	/* Debug mode: nothing in a local cache, every free reaches a check */
	pool->localq_sz = pool->debug ? 0 : localq_sz;
	pool->sharedq_sz = sharedq_sz;
	pool->name = qmp_cache_name(kmem);
	pool->id = -1;
	INIT_LIST_HEAD(&pool->list);
	init_llist_head(&pool->deferred);
	INIT_WORK(&pool->deferred_work, qmempool_free_deferred);
	if (pool->debug)	/* undone by qmempool_destroy() */
		static_branch_inc(&qmempool_free_check_key);

	ret = -ENOMEM;
	if (!qmempool_alloc_queues(pool, gfp_mask)) {
		pr_err("%s: out of memory for the queues\n", __func__);
		goto fail;
	}
	if (!qmempool_prealloc(pool, prealloc, gfp_mask)) {
		pr_err("%s: the slab refused the preallocation of %u objects\n",
		       __func__, prealloc);
		goto fail;
	}
	ret = qmempool_register(pool);
	if (ret) {
		pr_err("%s: CPU hotplug registration failed: %d\n", __func__,
		       ret);
		goto fail;
	}
	return pool;
fail:
	qmempool_destroy(pool);
	return ERR_PTR(ret);
}
QMP_EXPORT(qmempool_create_flags);

/**
 * qmempool_create() - create a pool in front of a kmem_cache
 * @localq_sz: objects each CPU's local cache holds (power of two, 16..1024)
 * @sharedq_sz: slots of each node's shared queue (power of two, >= 32)
 * @prealloc: objects allocated now into the shared queues (<= @sharedq_sz)
 * @kmem: the backing cache: no constructor, neither SLAB_TYPESAFE_BY_RCU
 *        nor SLAB_ACCOUNT
 * @gfp_mask: flags for the pool's own memory and the preallocation
 *
 * qmempool_create_flags() with no flags: a cache the pool cannot inspect
 * is refused.
 *
 * Context: process context; may sleep.
 * Return: the pool, or an ERR_PTR() after a pr_err() saying why (see
 * qmempool_create_flags()).
 */
struct qmempool *qmempool_create(u32 localq_sz, u32 sharedq_sz, u32 prealloc,
				 struct kmem_cache *kmem, gfp_t gfp_mask)
{
	return qmempool_create_flags(localq_sz, sharedq_sz, prealloc, kmem,
				     gfp_mask, 0);
}
QMP_EXPORT(qmempool_create);

/**
 * qmempool_destroy() - return every cached object to the slab, free the pool
 * @pool: the pool, NULL or an ERR_PTR() (then nothing happens)
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

	if (IS_ERR_OR_NULL(pool))
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
	/* Nobody frees any more: what hardirq frees deferred goes back now */
	flush_work(&pool->deferred_work);
	qmempool_free_deferred(&pool->deferred_work);

	if (pool->percpu) {
		for_each_possible_cpu(cpu) {
			struct qmempool_percpu *c = per_cpu_ptr(pool->percpu,
								cpu);

			/* Off the list: the shrinker queues no more work */
			if (c->pool)
				cancel_work_sync(&c->drain);
			qmempool_unpoison(pool, c->objs, c->count);
			if (c->count)
				kmem_cache_free_bulk(pool->kmem, c->count,
						     c->objs);
		}
		free_percpu(pool->percpu);
	}
	if (pool->sharedq) {
		for_each_node(node) {
			qmempool_drain(pool, node);
			alf_queue_free(pool->sharedq[node]);
		}
		kfree(pool->sharedq);
	}
	if (pool->refillq != pool->sharedq)
		kfree(pool->refillq);
	alf_queue_free(pool->emptyq);
	if (pool->debug)
		static_branch_dec(&qmempool_free_check_key);
	kfree(pool);
}
QMP_EXPORT(qmempool_destroy);

static int __init qmempool_init(void)
{
	bool numa = num_possible_nodes() > 1;
	bool zero_on_free = want_init_on_free();	/* a boot parameter */
	int ret;

	if (numa)
		static_branch_enable(&qmempool_numa_key);
	if (zero_on_free)
		static_branch_inc(&qmempool_free_check_key);
	if (numa || zero_on_free)
		static_branch_enable(&qmempool_free_extra_key);
	qmempool_mark_secret = get_random_long();
	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN, "qmempool:dead",
				      NULL, qmempool_cpu_dead);
	if (ret < 0)
		return ret;
	qmempool_cpuhp_state = ret;
	ret = qmempool_shrinker_register();
	if (ret) {
		cpuhp_remove_multi_state(qmempool_cpuhp_state);
		return ret;
	}
	qmempool_debugfs_dir = debugfs_create_dir("qmempool", NULL);
	return 0;
}

/*
 * Only reached when no module using qmempool is loaded any more: a pool
 * still listed was leaked by its (unloaded) user.  Its objects cannot be
 * given back safely without knowing whether its cache still exists, so
 * they stay allocated; the pool is detached from CPU hotplug and reported.
 * The shrinker goes first, so that no scan queues a drain work any more;
 * then the works it queued for a leaked pool, and the pool's work for
 * its hardirq frees, whose functions are in this module, are cancelled
 * (or waited for), as qmempool_destroy() flushes them.
 */
static void __exit qmempool_exit(void)
{
	struct qmempool *pool;
	unsigned int pending;
	int cpu;

	qmempool_shrinker_unregister();
	mutex_lock(&qmempool_list_lock);
	list_for_each_entry(pool, &qmempool_list, list) {
		cpuhp_state_remove_instance_nocalls(qmempool_cpuhp_state,
						    &pool->cpuhp_node);
		cancel_work_sync(&pool->deferred_work);
		pending = 0;
		for_each_possible_cpu(cpu)
			pending += cancel_work_sync(&per_cpu_ptr(pool->percpu,
								 cpu)->drain);
		/* Not the cache's name: the cache may be gone with its user */
		pr_err("pool %d (object size %u, %lu objects cached) was never destroyed by its user (%u drain works cancelled)\n",
		       pool->id, pool->obj_size, qmempool_cached(pool),
		       pending);
	}
	mutex_unlock(&qmempool_list_lock);
	debugfs_remove_recursive(qmempool_debugfs_dir);
	cpuhp_remove_multi_state(qmempool_cpuhp_state);
}

module_init(qmempool_init);
module_exit(qmempool_exit);
MODULE_DESCRIPTION("qmempool: quick queue-based memory pool in front of a kmem_cache");
