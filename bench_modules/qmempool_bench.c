// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_bench.ko - qmempool against the slab it caches, same 256-byte
 * object cache, same boot; one time_bench line per case, per object
 * (one allocation plus one free):
 *
 *   qmempool/{slab,pool}_reuse        alloc 1, free 1
 *   qmempool/{slab,pool}_pattern256   alloc 256, then free the 256 (NIC)
 *   qmempool/pool_inline_{reuse,pattern256} the same through the inline
 *                                     fast paths of <linux/qmempool.h>
 *                                     (__qmempool_alloc/__qmempool_free)
 *                                     instead of the exported calls
 *   qmempool/pool_called_{reuse,pattern256} the inline paths of every
 *                                     context in one noinline function of
 *                                     this module, the shape the exported
 *                                     calls had before they kept the
 *                                     softirq path apart (qmempool_main.c):
 *                                     where the other contexts' registers
 *                                     and frame cost the softirq path
 *   qmempool/{slab,pool}_write_{reuse,pattern256} the same, each object
 *                                     written (one store per cache line)
 *                                     after its allocation, as a driver
 *                                     writes an skb head: the time
 *                                     vehicles show whether the pool hands
 *                                     out cache-hot objects
 *   qmempool/order_{lifo,fifo,lifo_bottom}_write_{reuse,pattern256}
 *                                     the order of a per-CPU cache: three
 *                                     model caches of the pool's local
 *                                     size in front of the same slab,
 *                                     refilled and drained in bulks of
 *                                     QMEMPOOL_BULK, that hand out the
 *                                     most recently freed object (LIFO,
 *                                     the pool's local layer) or the
 *                                     least recently freed (FIFO, the
 *                                     2014 prototype's SPSC queue); a full
 *                                     LIFO gives back its top bulk (as the
 *                                     pool does), lifo_bottom its bottom
 *                                     one (the oldest objects); each
 *                                     object written after its allocation
 *   qmempool/slab_bulk16              kmem_cache_alloc_bulk/free_bulk of 16
 *   qmempool/{slab,pool}_reuse_allcpu reuse on every CPU of cpus= at once
 *   qmempool/{slab,pool}_xcpu         alloc on one CPU, free on another: the
 *                                     first CPU of cpus= allocates and hands
 *                                     the objects in batches of 16 over an
 *                                     SPSC ALF queue to the second, which
 *                                     frees them (the RX-on-one-CPU, free-
 *                                     on-another pattern); per object
 *                                     transferred, needs 2 CPUs in cpus=
 *   qmempool/handoff_xcpu             the same transfer of a dummy pointer,
 *                                     no allocation: the handoff's own cost
 *   qmempool/objpool_{reuse,pattern256} the kernel's objpool (6.7+; it
 *                                     never zeroes objects)
 *   qmempool/pool_debug_{reuse,pattern256} a pool in debug mode
 *                                     (QMEMPOOL_DEBUG) on the same cache:
 *                                     what its free-side checks cost
 *   qmempool/pool_debug_check         those checks alone: one
 *                                     __qmempool_check_free() of a live
 *                                     object of that pool (it passes)
 *
 * each from process context and from softirq context (bottom halves
 * disabled; ctx= in the line).  Parameters: loops=, runs=, cpus= (the
 * parallel cases' CPUs, default every online CPU), stack_scan= (below).
 * The init_on_alloc and init_on_free settings, which decide whether
 * objects are zeroed, are printed first.
 *
 * stack_scan=1 runs, instead, the pool's NIC pattern through the exported
 * calls, the one-function call and inline, in softirq context, with the
 * case's stack moved down by 0 to 4032 bytes in 64-byte steps, one line
 * per offset (qmempool/<case>_stack<bytes>): whether a path's speed
 * depends on where its caller's stack lies (it did for the one-function
 * shape, in UML).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/alf_queue.h>
#include <linux/module.h>
#ifdef HAVE_OBJPOOL		/* set by Kbuild when the kernel has it */
#include <linux/objpool.h>
#endif
#include <linux/qmempool.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <qmp/compat.h>
#include <qmp/time_bench.h>
#include <qmp/version.h>

TIME_BENCH_MODULE_PARAMS(1000000, 5);
TIME_BENCH_CPUS_PARAM();

static bool stack_scan;
module_param(stack_scan, bool, 0444);
MODULE_PARM_DESC(stack_scan, "Only the NIC pattern cases, at 64 stack offsets (default off)");

#define OBJ_SIZE	256
#define PATTERN		256
#define LOCAL_SIZE	64	/* the pool's local cache, as created below */
#define XFER_BATCH	16	/* objects handed over at a time */
#define XFER_QSIZE	1024	/* slots of the handoff queue */

/*
 * A model per-CPU cache for the order cases: @slot[] used as a ring
 * (@head is the oldest object) or as a stack (@slot[@count - 1] is the
 * newest), never both.
 */
struct order_cache {
	unsigned int head;
	unsigned int count;
	void *slot[LOCAL_SIZE];
};

struct pool_bench {
	struct kmem_cache *cache;
	struct qmempool *pool;
	struct qmempool *debug_pool;	/* QMEMPOOL_DEBUG, same cache */
	struct order_cache order;	/* the order cases, one at a time */
#ifdef HAVE_OBJPOOL
	struct objpool_head objpool;
#endif
	void *objs[PATTERN];		/* the pattern cases (not parallel) */
	struct alf_queue *xq;		/* the cross-CPU cases' handoff */
	int x_producer;			/* the CPU that allocates */
	bool x_abort;			/* one side failed: the other stops */
};

/* What a case allocates from; a constant in each specialised case */
enum source {
	SLAB, POOL, POOL_INLINE, POOL_CALLED, POOL_DEBUG, OBJPOOL, LIFO, FIFO,
	LIFO_BOTTOM, NONE
};

/* POOL_CALLED: every context's path in one function, reached by a call */
static noinline void *called_alloc(struct qmempool *pool)
{
	return __qmempool_alloc(pool, GFP_ATOMIC);
}

static noinline void called_free(struct qmempool *pool, void *obj)
{
	__qmempool_free(pool, obj);
}

/*
 * The order caches: an empty one takes QMEMPOOL_BULK objects from the
 * slab, a full one gives QMEMPOOL_BULK back: the oldest of a ring, the
 * newest of a LIFO stack (as the pool drains its local cache), the oldest
 * of a LIFO_BOTTOM stack (the rest moved down).  Used by one case at a
 * time on one CPU (kind ONE), so they need no exclusion.
 */
static __always_inline void *order_alloc(struct pool_bench *b, enum source s)
{
	struct order_cache *c = &b->order;
	void *obj;

	if (unlikely(!c->count)) {
		if (qmp_slab_alloc_bulk(b->cache, GFP_ATOMIC, QMEMPOOL_BULK,
					c->slot) != QMEMPOOL_BULK)
			return NULL;
		c->head = 0;
		c->count = QMEMPOOL_BULK;
	}
	c->count--;
	if (s != FIFO)
		return c->slot[c->count];
	obj = c->slot[c->head];
	c->head = (c->head + 1) % LOCAL_SIZE;
	return obj;
}

static __always_inline void order_free(struct pool_bench *b, enum source s,
				       void *obj)
{
	struct order_cache *c = &b->order;
	unsigned int i;

	if (unlikely(c->count == LOCAL_SIZE)) {
		c->count -= QMEMPOOL_BULK;
		for (i = 0; i < QMEMPOOL_BULK; i++) {
			void *old;

			if (s == FIFO) {
				old = c->slot[c->head];
				c->head = (c->head + 1) % LOCAL_SIZE;
			} else {
				/* LIFO: from the top down; LIFO_BOTTOM: up */
				old = c->slot[s == LIFO ? LOCAL_SIZE - 1 - i : i];
			}
			kmem_cache_free(b->cache, old);
		}
		if (s == LIFO_BOTTOM)
			memmove(c->slot, c->slot + QMEMPOOL_BULK,
				c->count * sizeof(*c->slot));
	}
	c->slot[s == FIFO ? (c->head + c->count) % LOCAL_SIZE : c->count] = obj;
	c->count++;
}

/* What a finished order case leaves in its model cache goes to the slab */
static void order_empty(struct pool_bench *b, enum source s)
{
	while (b->order.count)
		kmem_cache_free(b->cache, order_alloc(b, s));
}

/*
 * What the loops hand bench_alloc() and bench_free(): the pool and the
 * cache, read from *b once and kept in registers for the whole loop.
 * Read through b, each would be loaded again after every call (which
 * might have changed *b, for all the compiler knows): the harness's
 * instructions, counted against the allocator's.
 */
struct bench_ref {
	struct pool_bench *b;
	struct qmempool *pool;
	struct qmempool *debug_pool;
	struct kmem_cache *cache;
};

static __always_inline struct bench_ref bench_ref(struct pool_bench *b)
{
	return (struct bench_ref){ .b = b, .pool = b->pool,
				   .debug_pool = b->debug_pool,
				   .cache = b->cache };
}

static __always_inline void *bench_alloc(struct bench_ref r, enum source s)
{
	struct pool_bench *b = r.b;

	if (s == NONE)
		return b;
	if (s == POOL_INLINE)
		return __qmempool_alloc(r.pool, GFP_ATOMIC);
	if (s == POOL_CALLED)
		return called_alloc(r.pool);
	if (s == POOL_DEBUG)
		return qmempool_alloc(r.debug_pool, GFP_ATOMIC);
	if (s == LIFO || s == FIFO || s == LIFO_BOTTOM)
		return order_alloc(b, s);
#ifdef HAVE_OBJPOOL
	if (s == OBJPOOL)
		return objpool_pop(&b->objpool);
#endif
	return s == POOL ? qmempool_alloc(r.pool, GFP_ATOMIC) :
			   kmem_cache_alloc(r.cache, GFP_ATOMIC);
}

static __always_inline void bench_free(struct bench_ref r, enum source s,
				       void *obj)
{
	struct pool_bench *b = r.b;

#ifdef HAVE_OBJPOOL
	if (s == OBJPOOL) {
		objpool_push(obj, &b->objpool);
		return;
	}
#endif
	if (s == NONE)
		return;
	if (s == LIFO || s == FIFO || s == LIFO_BOTTOM)
		order_free(b, s, obj);
	else if (s == POOL_INLINE)
		__qmempool_free(r.pool, obj);
	else if (s == POOL_CALLED)
		called_free(r.pool, obj);
	else if (s == POOL_DEBUG)
		qmempool_free(r.debug_pool, obj);
	else if (s == POOL)
		qmempool_free(r.pool, obj);
	else
		kmem_cache_free(r.cache, obj);
}

/* A driver's first touch of a new object: every cache line written */
static __always_inline void bench_write(void *obj, unsigned long val)
{
	unsigned int off;

	for (off = 0; off < OBJ_SIZE; off += L1_CACHE_BYTES)
		WRITE_ONCE(*(unsigned long *)(obj + off), val);
}

/* Reuse: one object allocated (and written if @write) and freed again */
static __always_inline int reuse(struct time_bench_record *rec,
				 struct pool_bench *b, enum source pool,
				 bool write)
{
	const struct bench_ref r = bench_ref(b);
	const unsigned long loops = rec->loops;
	unsigned long i;

	time_bench_start(rec);
	for (i = 0; i < loops; i++) {
		void *obj = bench_alloc(r, pool);

		if (unlikely(!obj))
			return -ENOMEM;
		if (write)
			bench_write(obj, i);
		bench_free(r, pool, obj);
	}
	time_bench_stop(rec, i);
	return 0;
}

static int slab_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, SLAB, false);
}

static int pool_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, POOL, false);
}

static int slab_write_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, SLAB, true);
}

static int pool_write_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, POOL, true);
}

/* The NIC pattern: a ring's worth allocated (and written), then freed */
static __always_inline int pattern(struct time_bench_record *rec,
				   struct pool_bench *b, enum source pool,
				   bool write)
{
	const struct bench_ref r = bench_ref(b);
	unsigned long i, steps = rec->loops / PATTERN;
	void **p, **end;

	/*
	 * The ring walked by pointer, not by index: 7.x builds modules with
	 * -fsanitize=bounds-strict, which checks every b->objs[j] against
	 * the array's size (four compares per object, the harness's, not
	 * the allocator's)
	 */
	time_bench_start(rec);
	for (i = 0; i < steps; i++) {
		for (p = b->objs; p < b->objs + PATTERN; p++) {
			*p = bench_alloc(r, pool);
			if (unlikely(!*p))
				break;
			if (write)
				bench_write(*p, p - b->objs);
		}
		for (end = p, p = b->objs; p < end; p++)
			bench_free(r, pool, *p);
		if (unlikely(end < b->objs + PATTERN))
			return -ENOMEM;
	}
	time_bench_stop(rec, steps * PATTERN);
	return 0;
}

static int pool_called_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, POOL_CALLED, false);
}

static int pool_called_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, POOL_CALLED, false);
}

static int pool_debug_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, POOL_DEBUG, false);
}

static int pool_debug_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, POOL_DEBUG, false);
}

/* Every check of a debug pool's free, on an object it may take */
static int pool_debug_check(struct time_bench_record *rec, void *d)
{
	struct qmempool *pool = ((struct pool_bench *)d)->debug_pool;
	const unsigned long loops = rec->loops;
	unsigned long i, passed = 0;
	void *obj = qmempool_alloc(pool, GFP_ATOMIC);

	if (!obj)
		return -ENOMEM;
	time_bench_start(rec);
	for (i = 0; i < loops; i++)
		passed += __qmempool_check_free(pool, obj, _RET_IP_);
	time_bench_stop(rec, i);
	qmempool_free(pool, obj);
	return passed == loops ? 0 : -EINVAL;
}

static int pool_inline_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, POOL_INLINE, false);
}

static int pool_inline_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, POOL_INLINE, false);
}

static int slab_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, SLAB, false);
}

static int pool_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, POOL, false);
}

static int slab_write_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, SLAB, true);
}

static int pool_write_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, POOL, true);
}

/* stack_scan: how far the scanned case's stack is moved down, in bytes */
static unsigned int scan_offset;

static __always_inline int stack_moved(struct time_bench_record *rec,
				       struct pool_bench *b, enum source s)
{
	/* Allocated in the frame of the case function it is inlined into */
	u8 *pad = __builtin_alloca(scan_offset + 1);

	WRITE_ONCE(*pad, 0);	/* used, so that it is not optimised away */
	return pattern(rec, b, s, false);
}

static int scan_pool(struct time_bench_record *rec, void *d)
{
	return stack_moved(rec, d, POOL);
}

static int scan_called(struct time_bench_record *rec, void *d)
{
	return stack_moved(rec, d, POOL_CALLED);
}

static int scan_inline(struct time_bench_record *rec, void *d)
{
	return stack_moved(rec, d, POOL_INLINE);
}

static int run_stack_scan(struct pool_bench *b, unsigned long n)
{
	static const struct {
		const char *name;
		time_bench_fn fn;
	} scan[] = {
		{ "pool_pattern256", scan_pool },
		{ "pool_called_pattern256", scan_called },
		{ "pool_inline_pattern256", scan_inline },
	};
	char name[48];
	unsigned int i;
	int ret = 0;

	for (scan_offset = 0; scan_offset < SZ_4K && !ret; scan_offset += 64) {
		for (i = 0; i < ARRAY_SIZE(scan) && !ret; i++) {
			snprintf(name, sizeof(name), "%s_stack%04u",
				 scan[i].name, scan_offset);
			ret = time_bench_run("qmempool", name, TB_SOFTIRQ, n,
					     runs, scan[i].fn, b);
		}
	}
	return ret;
}

/*
 * The order cases: the model cache starts half full (objects from the
 * slab, each written once), as a local cache between a burst of
 * allocations and a burst of frees, and is emptied after the case.
 */
static __always_inline int order_case(struct time_bench_record *rec,
				      struct pool_bench *b, enum source s,
				      bool reuse_case)
{
	void *objs[LOCAL_SIZE / 2];
	unsigned int i;
	int ret = -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = order_alloc(b, s);
		if (!objs[i])
			goto out;
		bench_write(objs[i], i);
	}
	while (i)
		order_free(b, s, objs[--i]);
	ret = reuse_case ? reuse(rec, b, s, true) : pattern(rec, b, s, true);
out:
	while (i)
		order_free(b, s, objs[--i]);
	order_empty(b, s);
	return ret;
}

static int order_lifo_write_reuse(struct time_bench_record *rec, void *d)
{
	return order_case(rec, d, LIFO, true);
}

static int order_fifo_write_reuse(struct time_bench_record *rec, void *d)
{
	return order_case(rec, d, FIFO, true);
}

static int order_lifo_write_pattern(struct time_bench_record *rec, void *d)
{
	return order_case(rec, d, LIFO, false);
}

static int order_fifo_write_pattern(struct time_bench_record *rec, void *d)
{
	return order_case(rec, d, FIFO, false);
}

static int order_lifo_bottom_write_reuse(struct time_bench_record *rec,
					 void *d)
{
	return order_case(rec, d, LIFO_BOTTOM, true);
}

static int order_lifo_bottom_write_pattern(struct time_bench_record *rec,
					   void *d)
{
	return order_case(rec, d, LIFO_BOTTOM, false);
}

#ifdef HAVE_OBJPOOL
static int objpool_reuse(struct time_bench_record *rec, void *d)
{
	return reuse(rec, d, OBJPOOL, false);
}

static int objpool_pattern(struct time_bench_record *rec, void *d)
{
	return pattern(rec, d, OBJPOOL, false);
}
#endif

/*
 * Cross-CPU: b->x_producer allocates batches and hands them over, the
 * other CPU frees them; both count the same number of objects per run.
 * A side that waits for the other gives up once that one has failed.
 */
static bool xcpu_wait(struct pool_bench *b)
{
	cpu_relax();
	return READ_ONCE(b->x_abort);
}

static __always_inline int xcpu(struct time_bench_record *rec,
				struct pool_bench *b, enum source s)
{
	const struct bench_ref r = bench_ref(b);
	bool producer = raw_smp_processor_id() == b->x_producer;
	unsigned long i, steps = rec->loops / XFER_BATCH;
	void *objs[XFER_BATCH];
	int ret = -ECANCELED;
	unsigned int j;

	time_bench_start(rec);
	for (i = 0; i < steps; i++) {
		if (!producer) {
			while (alf_sc_dequeue_fixed(b->xq, objs,
						    XFER_BATCH) != XFER_BATCH)
				if (xcpu_wait(b))
					return -ECANCELED;
			for (j = 0; j < XFER_BATCH; j++)
				bench_free(r, s, objs[j]);
			continue;
		}
		for (j = 0; j < XFER_BATCH; j++) {
			objs[j] = bench_alloc(r, s);
			if (unlikely(!objs[j])) {
				ret = -ENOMEM;
				goto fail;
			}
		}
		while (alf_sp_enqueue(b->xq, objs, XFER_BATCH) != XFER_BATCH)
			if (xcpu_wait(b))
				goto fail;
	}
	time_bench_stop(rec, steps * XFER_BATCH);
	return 0;
fail:
	WRITE_ONCE(b->x_abort, true);
	while (j--)
		bench_free(r, s, objs[j]);
	return ret;
}

static int slab_xcpu(struct time_bench_record *rec, void *d)
{
	return xcpu(rec, d, SLAB);
}

static int pool_xcpu(struct time_bench_record *rec, void *d)
{
	return xcpu(rec, d, POOL);
}

static int handoff_xcpu(struct time_bench_record *rec, void *d)
{
	return xcpu(rec, d, NONE);
}

static int slab_bulk16(struct time_bench_record *rec, void *d)
{
	struct pool_bench *b = d;
	unsigned long i, steps = rec->loops / 16;
	void *objs[16];

	time_bench_start(rec);
	for (i = 0; i < steps; i++) {
		if (unlikely(qmp_slab_alloc_bulk(b->cache, GFP_ATOMIC, 16,
						 objs) != 16))
			return -ENOMEM;
		kmem_cache_free_bulk(b->cache, 16, objs);
	}
	time_bench_stop(rec, steps * 16);
	return 0;
}

/* How a case runs */
enum kind {
	ONE,		/* on the loading CPU */
	ALLCPU,		/* on every online CPU at once */
	XCPU,		/* on the first two online CPUs, as a pair */
};

static const struct {
	const char *name;
	time_bench_fn fn;
	enum kind kind;
	enum source src;	/* XCPU: what is left in the handoff */
} cases[] = {
	{ "slab_reuse", slab_reuse },
	{ "pool_reuse", pool_reuse },
	{ "slab_pattern256", slab_pattern },
	{ "pool_pattern256", pool_pattern },
	{ "pool_inline_reuse", pool_inline_reuse },
	{ "pool_inline_pattern256", pool_inline_pattern },
	{ "pool_called_reuse", pool_called_reuse },
	{ "pool_called_pattern256", pool_called_pattern },
	{ "pool_debug_reuse", pool_debug_reuse },
	{ "pool_debug_pattern256", pool_debug_pattern },
	{ "pool_debug_check", pool_debug_check },
	{ "slab_write_reuse", slab_write_reuse },
	{ "pool_write_reuse", pool_write_reuse },
	{ "slab_write_pattern256", slab_write_pattern },
	{ "pool_write_pattern256", pool_write_pattern },
	{ "order_lifo_write_reuse", order_lifo_write_reuse },
	{ "order_fifo_write_reuse", order_fifo_write_reuse },
	{ "order_lifo_write_pattern256", order_lifo_write_pattern },
	{ "order_fifo_write_pattern256", order_fifo_write_pattern },
	{ "order_lifo_bottom_write_reuse", order_lifo_bottom_write_reuse },
	{ "order_lifo_bottom_write_pattern256",
	  order_lifo_bottom_write_pattern },
	{ "slab_bulk16", slab_bulk16 },
	{ "slab_reuse_allcpu", slab_reuse, ALLCPU },
	{ "pool_reuse_allcpu", pool_reuse, ALLCPU },
	{ "handoff_xcpu", handoff_xcpu, XCPU, NONE },
	{ "slab_xcpu", slab_xcpu, XCPU, SLAB },
	{ "pool_xcpu", pool_xcpu, XCPU, POOL },
#ifdef HAVE_OBJPOOL
	{ "objpool_reuse", objpool_reuse },
	{ "objpool_pattern256", objpool_pattern },
#endif
};

/* A cross-CPU case on @pair; what a failed run left in flight is freed */
static int run_xcpu(struct pool_bench *b, unsigned int i,
		    enum time_bench_ctx ctx, unsigned long n,
		    const struct cpumask *pair)
{
	void *obj;
	int ret;

	b->x_producer = cpumask_first(pair);
	b->x_abort = false;
	ret = time_bench_run_parallel("qmempool", cases[i].name, ctx, n, runs,
				      pair, cases[i].fn, b);
	while (alf_sc_dequeue(b->xq, &obj, 1))
		bench_free(bench_ref(b), cases[i].src, obj);
	return ret;
}

static int run_cases(struct pool_bench *b, unsigned long n,
		     const struct cpumask *par, const struct cpumask *pair)
{
	unsigned int i, ctx;
	int ret = 0;

	for (ctx = TB_PROCESS; ctx <= TB_SOFTIRQ && !ret; ctx++) {
		for (i = 0; i < ARRAY_SIZE(cases) && !ret; i++) {
			switch (cases[i].kind) {
			case ONE:
				ret = time_bench_run("qmempool", cases[i].name,
						     ctx, n, runs,
						     cases[i].fn, b);
				break;
			case ALLCPU:
				ret = time_bench_run_parallel("qmempool",
							      cases[i].name,
							      ctx, n, runs,
							      par,
							      cases[i].fn, b);
				break;
			case XCPU:
				if (cpumask_weight(pair) == 2)
					ret = run_xcpu(b, i, ctx, n, pair);
				else if (ctx == TB_PROCESS)
					pr_info("%s skipped: needs 2 CPUs (online, in cpus=)\n",
						cases[i].name);
				break;
			}
		}
	}
	return ret;
}

static int __init qmempool_bench_init(void)
{
	unsigned long n = max_t(unsigned long, loops, PATTERN);
	struct pool_bench *b = kzalloc(sizeof(*b), GFP_KERNEL);
	cpumask_var_t par, pair;
	int cpu, ret = -ENOMEM;

	pr_info("init_on_alloc=%d init_on_free=%d object_size=%d\n",
		want_init_on_alloc(GFP_ATOMIC), want_init_on_free(), OBJ_SIZE);
	if (!b)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&par, GFP_KERNEL))
		goto out_b;
	if (!zalloc_cpumask_var(&pair, GFP_KERNEL))
		goto out_par;
	ret = time_bench_cpus(cpus, par);
	if (ret)
		goto out_pair;
	ret = -ENOMEM;
	b->cache = kmem_cache_create("qmempool_bench", OBJ_SIZE, 0,
				     SLAB_HWCACHE_ALIGN, NULL);
	if (!b->cache)
		goto out;
	/*
	 * Its own cache, created plain just above: said for kernels
	 * without BTF (UML), where the pool cannot see it
	 */
	b->pool = qmempool_create_flags(64, 1024, 0, b->cache, GFP_KERNEL,
					QMEMPOOL_PLAIN_CACHE);
	if (IS_ERR(b->pool)) {
		b->pool = NULL;
		goto out;
	}
	b->debug_pool = qmempool_create_flags(64, 1024, 0, b->cache,
					      GFP_KERNEL,
					      QMEMPOOL_PLAIN_CACHE |
					      QMEMPOOL_DEBUG);
	if (IS_ERR(b->debug_pool)) {
		ret = PTR_ERR(b->debug_pool);
		b->debug_pool = NULL;
		goto out;
	}
	b->xq = alf_queue_alloc_flags(XFER_QSIZE, ALF_SP_ENQ | ALF_SC_DEQ,
				      GFP_KERNEL);
	if (IS_ERR(b->xq)) {
		ret = PTR_ERR(b->xq);
		b->xq = NULL;
		goto out;
	}
#ifdef HAVE_OBJPOOL
	ret = objpool_init(&b->objpool, 4 * PATTERN, OBJ_SIZE, GFP_KERNEL,
			   NULL, NULL, NULL);
	if (ret)
		goto out;
#endif
	/* The pair of the cross-CPU cases: the first two of cpus= */
	for_each_cpu(cpu, par) {
		cpumask_set_cpu(cpu, pair);
		if (cpumask_weight(pair) == 2)
			break;
	}
	ret = stack_scan ? run_stack_scan(b, n) : run_cases(b, n, par, pair);
#ifdef HAVE_OBJPOOL
	objpool_fini(&b->objpool);
#endif
out:
	if (b->xq)
		alf_queue_free(b->xq);
	if (b->debug_pool)
		qmempool_destroy(b->debug_pool);
	if (b->pool)
		qmempool_destroy(b->pool);
	kmem_cache_destroy(b->cache);
out_pair:
	free_cpumask_var(pair);
out_par:
	free_cpumask_var(par);
out_b:
	kfree(b);
	return ret;
}

static void __exit qmempool_bench_exit(void)
{
}

module_init(qmempool_bench_init);
module_exit(qmempool_bench_exit);
MODULE_DESCRIPTION("qmempool against the slab (time_bench)");
