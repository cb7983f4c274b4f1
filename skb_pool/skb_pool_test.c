// SPDX-License-Identifier: GPL-2.0
/*
 * skb_pool_test.ko - tests of skb_pool and skb_pool_hook, run at insmod,
 * KTAP output.
 *
 * A head freed on a CPU with bottom halves off lands in that CPU's local
 * queue (nothing else touches it meanwhile; hardirqs bypass the pool), so
 * the cases empty the local queue first, free their skbs, and then look
 * for each head in the local queue: found means the kernel's free path
 * brought it to the pool.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/qmempool.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/irq_work.h>
#include <linux/tracepoint.h>
#include <net/dst_metadata.h>
#include <qmp/compat.h>
#include <qmp/ktap.h>
#include <qmp/misuse.h>
#include <qmp/pool_take.h>
#include <qmp/kthread.h>
#include <qmp/version.h>

static unsigned int stress_ms = 2000;
module_param(stress_ms, uint, 0444);
MODULE_PARM_DESC(stress_ms, "Duration of the stress case in ms (default 2000)");
static unsigned int toggle_ms;
module_param(toggle_ms, uint, 0444);
MODULE_PARM_DESC(toggle_ms, "Turn the hook off and on every N ms under the stress (default 0: never; QEMU 7.2's multi-threaded TCG mis-executes code patched while other vCPUs run it)");

#define N_SKBS		48	/* fewer than a local queue holds */
#define FRAME		64

/* An RX buffer, a page fragment: headroom, frame, skb_shared_info */
#define BUF_SIZE	(SKB_DATA_ALIGN(NET_SKB_PAD + FRAME) + \
			 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))

static struct sk_buff *pool_skb(void)
{
	void *data = netdev_alloc_frag(BUF_SIZE);
	struct sk_buff *skb = data ? skb_pool_build_skb(data, BUF_SIZE) : NULL;

	if (!skb) {
		if (data)
			skb_free_frag(data);
		return NULL;
	}
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, FRAME);
	return skb;
}

/*
 * Bottom halves off: how many of @heads[] this CPU's local queue holds;
 * the queue is emptied to the slab.
 */
static unsigned int localq_holds(struct qmempool *pool,
				 struct sk_buff **heads, unsigned int n)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int i, j, k, found = 0;

	while ((k = qmempool_take_local(pool, smp_processor_id(), objs,
					ARRAY_SIZE(objs)))) {
		for (i = 0; i < k; i++)
			for (j = 0; j < n; j++)
				found += objs[i] == heads[j];
		kmem_cache_free_bulk(pool->kmem, k, objs);
	}
	return found;
}

enum free_how { CONSUME, KFREE, KFREE_DIRECT, NR_FREE_HOW };

static void free_skb_how(struct sk_buff *skb, enum free_how how)
{
	switch (how) {
	case CONSUME:
		consume_skb(skb);
		break;
	case KFREE:
		kfree_skb(skb);
		break;
	default:
		__kfree_skb(skb);
		break;
	}
}

/*
 * Build N_SKBS skbs (from the pool, from alloc_skb() or as fast clones),
 * free them as @how says, and return how many heads the local queue got;
 * *@local: how many of them were this node's memory (on a NUMA machine the
 * pool sends the others to the slab, and the skb head cache hands out
 * some of those).
 */
enum make_how { POOL, ALLOC, FCLONE };

static unsigned int round_trip(struct qmp_test *t, enum make_how make,
			       enum free_how how, unsigned int *local)
{
	struct qmempool *pool = skb_pool_get_pool();
	struct sk_buff *skbs[N_SKBS];
	unsigned int i, made = 0, found;

	local_bh_disable();
	localq_holds(pool, NULL, 0);		/* empties it */
	for (i = 0; i < N_SKBS; i++) {
		if (make == POOL)
			skbs[i] = pool_skb();
		else if (make == ALLOC)
			skbs[i] = alloc_skb(FRAME, GFP_ATOMIC);
		else
			skbs[i] = alloc_skb_fclone(FRAME, GFP_ATOMIC);
		if (!skbs[i])
			break;
		made++;
	}
	*local = 0;
	for (i = 0; i < made; i++)
		*local += !__qmempool_elsewhere(skbs[i]);
	for (i = 0; i < made; i++)
		free_skb_how(skbs[i], how);
	found = localq_holds(pool, skbs, made);
	local_bh_enable();
	QMP_EXPECT(t, made == N_SKBS, "built only %u of %u skbs", made, N_SKBS);
	return found;
}

/* Every node-local head came back, and there were some */
static void expect_back(struct qmp_test *t, const char *what,
			unsigned int found, unsigned int local)
{
	QMP_EXPECT(t, found == local && local,
		   "%s: %u of %u node-local heads came to the pool (%u built)",
		   what, found, local, N_SKBS);
}

static void test_pool_heads_come_back(struct qmp_test *t)
{
	static const char *const names[] = {
		[CONSUME] = "consume_skb()", [KFREE] = "kfree_skb()",
		[KFREE_DIRECT] = "__kfree_skb()",
	};
	unsigned int found, local;
	enum free_how how;

	for (how = 0; how < NR_FREE_HOW; how++) {
		found = round_trip(t, POOL, how, &local);
		expect_back(t, names[how], found, local);
	}
}

static void test_slab_heads_come_back(struct qmp_test *t)
{
	unsigned int local, found = round_trip(t, ALLOC, CONSUME, &local);

	expect_back(t, "alloc_skb() heads", found, local);
}

static void test_fclones_untouched(struct qmp_test *t)
{
	unsigned int local, found = round_trip(t, FCLONE, CONSUME, &local);

	QMP_EXPECT(t, !found, "%u fast-clone heads went into the pool", found);
}

/* The module's reference count, as rmmod sees it */
static long hook_refcnt(void)
{
	return qmp_read_long("/sys/module/skb_pool_hook/refcnt");
}

static void test_hook_off_on(struct qmp_test *t)
{
	unsigned int found, local;
	long on_refs = hook_refcnt();

	if (!QMP_EXPECT(t, skb_pool_hook_enabled(), "the hook is not on"))
		return;
	if (!QMP_EXPECT(t, !skb_pool_set_hook(false), "unhook"))
		return;
	/* The hook holds the module while it is on: rmmod says "in use" */
	QMP_EXPECT(t, on_refs > 0 && hook_refcnt() == on_refs - 1,
		   "module references %ld with the hook on, %ld off", on_refs,
		   hook_refcnt());
	QMP_EXPECT(t, !skb_pool_hook_enabled(), "still on after unhook");
	found = round_trip(t, ALLOC, CONSUME, &local);
	QMP_EXPECT(t, !found, "hook off, yet %u heads went into the pool", found);
	found = round_trip(t, POOL, CONSUME, &local);
	QMP_EXPECT(t, !found, "hook off, yet %u pool heads came back", found);
	if (!QMP_EXPECT(t, !skb_pool_set_hook(true), "hook again"))
		return;
	QMP_EXPECT(t, hook_refcnt() == on_refs,
		   "module references %ld after hooking again, %ld before",
		   hook_refcnt(), on_refs);
	found = round_trip(t, ALLOC, CONSUME, &local);
	expect_back(t, "hook on again", found, local);
}

/* ------------------------------------------------------------------ */
/* Heads are built right whatever layer they come from                 */

struct zero_run {
	struct qmp_test *t;
	struct qmempool *pool;
	void *bufs[2];			/* one for the pool's skb, one for ours */
	unsigned int diffs;
	const char *from;
	struct irq_work work;
};

/*
 * The rest of a pool head after the part build_skb() zeroes: the fields
 * from tail to users must be build_skb()'s (the buffers differ: head and
 * data are compared relatively), and under init_on_alloc what follows
 * (extensions, the object's padding) must be zero, since the pool hands
 * heads out unzeroed to skb_pool_build_skb() (qmempool_alloc_noinit()).
 */
static bool head_rest_ok(struct zero_run *z, struct sk_buff *skb,
			 struct sk_buff *ref)
{
	size_t from = offsetofend(struct sk_buff, users);
	void *rest = (u8 *)skb + from;

	if (!QMP_EXPECT(z->t, skb->tail == ref->tail && skb->end == ref->end &&
			skb->data - skb->head == ref->data - ref->head &&
			skb->truesize == ref->truesize &&
			refcount_read(&skb->users) == refcount_read(&ref->users),
			"%s: tail..users differ from build_skb()'s", z->from))
		return false;
	if (!want_init_on_alloc(GFP_ATOMIC))
		return true;
	return QMP_EXPECT(z->t, !memchr_inv(rest, 0, z->pool->obj_size - from),
			  "%s: init_on_alloc=1 but bytes %zu..%u of the head not zeroed",
			  z->from, from, z->pool->obj_size);
}

/*
 * Build an skb around bufs[0] from the pool and one around bufs[1] with
 * build_skb(), on the same CPU in the same context, and compare them byte
 * by byte up to tail: build_skb() zeroes that part itself, so any
 * difference is garbage the pool's head brought along.  The rest of the
 * head: head_rest_ok().
 */
static void zero_compare(struct zero_run *z)
{
	struct sk_buff *skb = skb_pool_build_skb(z->bufs[0], BUF_SIZE);
	struct sk_buff *ref = build_skb(z->bufs[1], BUF_SIZE);

	if (!QMP_EXPECT(z->t, skb && ref, "%s: build failed", z->from)) {
		z->diffs++;
	} else if (!head_rest_ok(z, skb, ref)) {
		z->diffs++;
	} else if (memcmp(skb, ref, offsetof(struct sk_buff, tail))) {
		u8 *a = (u8 *)skb, *b = (u8 *)ref;
		unsigned int i = 0;

		while (a[i] == b[i])
			i++;
		QMP_EXPECT(z->t, false,
			   "%s: head differs from build_skb()'s at byte %u: %02x vs %02x",
			   z->from, i, a[i], b[i]);
		z->diffs++;
	}
	/* The buffers are ours: free the heads only */
	if (skb) {
		skb->head = NULL;
		kfree_skb(skb);
	}
	if (ref) {
		ref->head = NULL;
		kfree_skb(ref);
	}
}

static void zero_hardirq_fn(struct irq_work *work)
{
	zero_compare(container_of(work, struct zero_run, work));
}

/*
 * A dirty head, as a previous user would leave it; of this CPU's node,
 * which alone the pool keeps in its local queue (the slab may hand out
 * another node's object to a plain kmem_cache_alloc())
 */
static void *dirty_head(struct qmempool *pool)
{
	void *head = kmem_cache_alloc_node(pool->kmem,
					   GFP_ATOMIC | __GFP_THISNODE,
					   numa_mem_id());

	if (head)
		memset(head, 0xa5, pool->obj_size);
	return head;
}

/* A dirty head into this CPU's node's shared queue, the slab if it is full */
static void dirty_head_shared(struct qmempool *pool)
{
	void *head = dirty_head(pool);

	if (!head)
		return;
	/* Poisoned as every object in the pool's queues (KASAN) */
	qmp_kasan_poison(head, pool->obj_size);
	if (!alf_mp_enqueue(pool->sharedq[numa_mem_id()], &head, 1)) {
		qmp_kasan_unpoison(head, pool->obj_size);
		kmem_cache_free(pool->kmem, head);
	}
}

/* Empty this CPU's local queue and its node's shared queue to the slab */
static void empty_queues(struct qmempool *pool)
{
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	localq_holds(pool, NULL, 0);
	while ((n = qmempool_take_shared(pool, numa_mem_id(), objs,
					 ARRAY_SIZE(objs))))
		kmem_cache_free_bulk(pool->kmem, n, objs);
}

static void test_heads_zeroed(struct qmp_test *t)
{
	struct zero_run z = { .t = t, .pool = skb_pool_get_pool() };
	struct qmempool_stats before, after;
	int cpu;
	void *head;

	z.bufs[0] = netdev_alloc_frag(BUF_SIZE);
	z.bufs[1] = netdev_alloc_frag(BUF_SIZE);
	if (!QMP_EXPECT(t, z.bufs[0] && z.bufs[1], "out of memory"))
		goto out;
	migrate_disable();	/* this CPU's counters tell the sources */
	cpu = smp_processor_id();
	qmempool_get_stats(z.pool, cpu, &before);
	local_bh_disable();

	/* The local queue: a dirty head freed into it */
	z.from = "the local queue";
	empty_queues(z.pool);
	head = dirty_head(z.pool);
	if (head) {
		skb_pool_free_head(head);
		zero_compare(&z);
	}
	/* The shared queue: dirty heads put there, the local queue empty */
	z.from = "the shared queue";
	empty_queues(z.pool);
	dirty_head_shared(z.pool);
	zero_compare(&z);
	/* The slab (poisoned under slub_debug=P): both queues empty */
	z.from = "a slab refill";
	empty_queues(z.pool);
	zero_compare(&z);
	local_bh_enable();

	/* Hardirq context: the shared queue only, a dirty head there */
	z.from = "the shared queue in hardirq context";
	empty_queues(z.pool);
	dirty_head_shared(z.pool);
	init_irq_work(&z.work, zero_hardirq_fn);
	irq_work_queue(&z.work);
	irq_work_sync(&z.work);

	qmempool_get_stats(z.pool, cpu, &after);
	migrate_enable();
	QMP_EXPECT(t, !z.diffs, "%u heads differ", z.diffs);
	QMP_EXPECT(t, after.alloc_fast > before.alloc_fast &&
		   after.alloc_shared > before.alloc_shared &&
		   after.alloc_slab > before.alloc_slab &&
		   after.bypass > before.bypass,
		   "not every source served (local %lu, shared %lu, slab %lu, hardirq %lu)",
		   after.alloc_fast - before.alloc_fast,
		   after.alloc_shared - before.alloc_shared,
		   after.alloc_slab - before.alloc_slab,
		   after.bypass - before.bypass);
out:
	if (z.bufs[0])
		skb_free_frag(z.bufs[0]);
	if (z.bufs[1])
		skb_free_frag(z.bufs[1]);
}

/* ------------------------------------------------------------------ */
/* skb_pool_consume_skb(): plain skbs' heads into the pool, no hook     */

#define CONSUME_SKBS	8

struct consume_run {
	struct page *page;		/* CONSUME_SKBS buffers of one page */
	struct sk_buff *skbs[CONSUME_SKBS];
	unsigned int destructed;
};

static struct consume_run *consume_run;	/* for the destructor */

static void count_destructor(struct sk_buff *skb)
{
	consume_run->destructed++;
}

/* Plain pool skbs, each around its own part of one page, one ref each */
static unsigned int consume_build(struct consume_run *c)
{
	unsigned int i, size = PAGE_SIZE / CONSUME_SKBS;

	BUILD_BUG_ON(PAGE_SIZE / CONSUME_SKBS < BUF_SIZE);
	for (i = 0; i < CONSUME_SKBS; i++) {
		c->skbs[i] = skb_pool_build_skb(page_address(c->page) +
						i * size, size);
		if (!c->skbs[i])
			break;
		page_ref_inc(c->page);
		skb_reserve(c->skbs[i], NET_SKB_PAD);
		skb_put(c->skbs[i], FRAME);
	}
	return i;
}

/* Every reference an skb took on the buffer page was put */
static void expect_page_refs(struct qmp_test *t, struct consume_run *c,
			     int refs)
{
	QMP_EXPECT(t, page_ref_count(c->page) == refs,
		   "buffer page: %d references after the consumes, %d before the builds",
		   page_ref_count(c->page), refs);
}

static void test_consume_plain(struct qmp_test *t)
{
	struct qmempool *pool = skb_pool_get_pool();
	struct consume_run c = { };
	bool was_on = skb_pool_hook_enabled();
	unsigned int i, n, local = 0, found;
	int refs;

	c.page = alloc_page(GFP_KERNEL);
	if (!QMP_EXPECT(t, c.page, "out of memory"))
		return;
	consume_run = &c;
	/* No hook: the heads must come back through skb_pool_consume_skb() */
	if (!QMP_EXPECT(t, !skb_pool_set_hook(false), "unhook"))
		goto out;
	refs = page_ref_count(c.page);
	local_bh_disable();
	localq_holds(pool, NULL, 0);
	n = consume_build(&c);
	for (i = 0; i < n; i++) {
		local += !__qmempool_elsewhere(c.skbs[i]);
		if (i & 1)
			c.skbs[i]->destructor = count_destructor;
		skb_pool_consume_skb(c.skbs[i], NAPI_POLL_WEIGHT);
	}
	found = localq_holds(pool, c.skbs, n);
	local_bh_enable();
	QMP_EXPECT(t, n == CONSUME_SKBS, "built %u of %u skbs", n, CONSUME_SKBS);
	expect_back(t, "skb_pool_consume_skb()", found, local);
	expect_page_refs(t, &c, refs);
	QMP_EXPECT(t, c.destructed == n / 2, "%u destructors ran for %u set",
		   c.destructed, n / 2);
out:
	QMP_EXPECT(t, !skb_pool_set_hook(was_on), "hook back as it was");
	consume_run = NULL;
	__free_page(c.page);
}

/* Shared, cloned, fragmented, fast-clone skbs and budget 0: the stock path */
static void test_consume_not_plain(struct qmp_test *t)
{
	struct qmempool *pool = skb_pool_get_pool();
	struct consume_run c = { };
	bool was_on = skb_pool_hook_enabled();
	struct sk_buff *clone = NULL, *fclone;
	unsigned int n, found;
	int refs;

	c.page = alloc_page(GFP_KERNEL);
	if (!QMP_EXPECT(t, c.page, "out of memory"))
		return;
	if (!QMP_EXPECT(t, !skb_pool_set_hook(false), "unhook"))
		goto out;
	refs = page_ref_count(c.page);
	local_bh_disable();
	localq_holds(pool, NULL, 0);
	n = consume_build(&c);
	if (n == CONSUME_SKBS) {
		skb_get(c.skbs[0]);			/* shared */
		skb_pool_consume_skb(c.skbs[0], NAPI_POLL_WEIGHT);
		clone = skb_clone(c.skbs[1], GFP_ATOMIC);	/* cloned */
		skb_pool_consume_skb(c.skbs[1], NAPI_POLL_WEIGHT);
		get_page(c.page);			/* a frag */
		skb_add_rx_frag(c.skbs[2], 0, c.page, 0, FRAME, FRAME);
		skb_pool_consume_skb(c.skbs[2], NAPI_POLL_WEIGHT);
		skb_pool_consume_skb(c.skbs[3], 0);	/* not NAPI */
	}
	fclone = alloc_skb_fclone(FRAME, GFP_ATOMIC);
	skb_pool_consume_skb(fclone, NAPI_POLL_WEIGHT);
	found = localq_holds(pool, c.skbs, 4);
	QMP_EXPECT(t, !found, "%u heads of skbs that are not plain came to the pool",
		   found);
	found = localq_holds(pool, &fclone, 1);
	QMP_EXPECT(t, !found, "a fast clone came to the pool");
	/* The last reference of the shared one: now it is plain */
	skb_pool_consume_skb(c.skbs[0], NAPI_POLL_WEIGHT);
	found = localq_holds(pool, c.skbs, 1);
	QMP_EXPECT(t, found == !__qmempool_elsewhere(c.skbs[0]),
		   "the last reference of a shared skb: head %s the pool",
		   found ? "in" : "not in");
	while (n > 4)
		napi_consume_skb(c.skbs[--n], NAPI_POLL_WEIGHT);
	if (clone)
		napi_consume_skb(clone, NAPI_POLL_WEIGHT);
	local_bh_enable();
	QMP_EXPECT(t, n >= 4 && clone, "built only %u skbs", n);
	expect_page_refs(t, &c, refs);
out:
	QMP_EXPECT(t, !skb_pool_set_hook(was_on), "hook back as it was");
	__free_page(c.page);
}

/* ------------------------------------------------------------------ */
/* skb_pool_consume_skb() releases as the kernel does                  */

/* The hook off for a case: heads come back through skb_pool_consume_skb() */
static bool hook_off(struct qmp_test *t, bool *was_on)
{
	*was_on = skb_pool_hook_enabled();
	return QMP_EXPECT(t, !skb_pool_set_hook(false), "unhook");
}

static void hook_restore(struct qmp_test *t, bool was_on)
{
	QMP_EXPECT(t, !skb_pool_set_hook(was_on), "hook back as it was");
}

/* The skb:consume_skb tracepoint, found by name (it is not exported) */
static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	struct tracepoint **found = priv;

	if (!strcmp(tp->name, "consume_skb"))
		*found = tp;
}

struct traced_run {
	struct sk_buff *skbs[CONSUME_SKBS];
	unsigned int n;
	unsigned int events;	/* of our skbs */
};

static QMP_CONSUME_SKB_PROBE(count_consumed, data, skb)
{
	struct traced_run *r = data;
	unsigned int i;

	for (i = 0; i < r->n; i++)
		r->events += skb == r->skbs[i];
}

/* Consume up to CONSUME_SKBS pool skbs; how many heads came to the pool */
static unsigned int consume_traced(struct traced_run *r, unsigned int *local)
{
	struct qmempool *pool = skb_pool_get_pool();
	unsigned int i, found;

	local_bh_disable();
	localq_holds(pool, NULL, 0);
	for (r->n = 0; r->n < CONSUME_SKBS; r->n++) {
		r->skbs[r->n] = pool_skb();
		if (!r->skbs[r->n])
			break;
	}
	*local = 0;
	for (i = 0; i < r->n; i++) {
		*local += !__qmempool_elsewhere(r->skbs[i]);
		skb_pool_consume_skb(r->skbs[i], NAPI_POLL_WEIGHT);
	}
	found = localq_holds(pool, r->skbs, r->n);
	local_bh_enable();
	return found;
}

/*
 * Every skb skb_pool_consume_skb() frees is reported by the skb:consume_skb
 * tracepoint (perf, dropwatch, BPF) while it has a probe; without one the
 * heads come to the pool again.
 */
static void test_consume_traced(struct qmp_test *t)
{
	struct tracepoint *tp = NULL;
	struct traced_run r = { };
	unsigned int local, found;
	bool was_on;
	int ret;

	for_each_kernel_tracepoint(find_tracepoint, &tp);
	if (!tp) {
		qmp_test_skip(t, "no skb:consume_skb tracepoint");
		return;
	}
	if (!hook_off(t, &was_on))
		goto out;
	ret = tracepoint_probe_register(tp, (void *)count_consumed, &r);
	if (!QMP_EXPECT(t, !ret, "tracepoint_probe_register: %d", ret))
		goto out;
	consume_traced(&r, &local);
	tracepoint_probe_unregister(tp, (void *)count_consumed, &r);
	tracepoint_synchronize_unregister();
	QMP_EXPECT(t, r.n == CONSUME_SKBS, "built %u of %u skbs", r.n, CONSUME_SKBS);
	QMP_EXPECT(t, r.events == r.n, "skb:consume_skb reported %u of %u consumes",
		   r.events, r.n);
	/* No probe: the pool again */
	r.events = 0;
	found = consume_traced(&r, &local);
	QMP_EXPECT(t, !r.events, "%u events after the probe was removed", r.events);
	expect_back(t, "no probe", found, local);
out:
	hook_restore(t, was_on);
}

/*
 * A case of one skb given to skb_pool_consume_skb(): make() builds it
 * (bottom halves off; NULL: out of memory, nothing left to free), with
 * something attached whose state the consume must release; count() then
 * counts what tells (references left, destructor runs...): 1 is right.
 * A plain skb's head must come to the pool (so the pool's own release
 * ran), any other's must not.
 */
struct consume_case {
	const char *name;
	bool plain;
	struct sk_buff *(*make)(void *arg);
	int (*count)(void *arg);
	const char *counted;
};

/*
 * Bottom halves off, this CPU's local queue empty: make the pool's next head
 * here a node-local one (the queue is LIFO).  A head of another node, such
 * as a KFENCE-sampled object, goes to the slab whatever the skb holds, so a
 * case built on it would have no verdict.  False if a few tries gave none.
 */
static bool next_head_local(void)
{
	struct sk_buff *skb;
	unsigned int tries;
	bool local;

	for (tries = 0; tries < 8; tries++) {
		skb = pool_skb();
		if (!skb)
			return false;
		local = !__qmempool_elsewhere(skb);
		skb_pool_consume_skb(skb, NAPI_POLL_WEIGHT);
		if (local)
			return true;
	}
	return false;
}

static void consume_case(struct qmp_test *t, const struct consume_case *cc,
			 void *arg)
{
	struct qmempool *pool = skb_pool_get_pool();
	bool was_on, primed, local = false;
	struct sk_buff *skb = NULL;
	unsigned int pooled = 0;
	int count = 1;

	if (!hook_off(t, &was_on))
		goto out;
	local_bh_disable();
	localq_holds(pool, NULL, 0);
	primed = next_head_local();
	if (primed)
		skb = cc->make(arg);
	if (skb) {
		local = !__qmempool_elsewhere(skb);
		skb_pool_consume_skb(skb, NAPI_POLL_WEIGHT);
		pooled = localq_holds(pool, &skb, 1);
		if (cc->count)
			count = cc->count(arg);
	}
	local_bh_enable();
	if (!QMP_EXPECT(t, primed, "%s: no node-local head in 8 tries",
			cc->name) ||
	    !QMP_EXPECT(t, skb, "%s: out of memory", cc->name))
		goto out;
	QMP_EXPECT(t, local && !pooled == !cc->plain,
		   "%s: the head %s the pool (%s skb, node-local: %d)", cc->name,
		   pooled ? "came to" : "did not come to",
		   cc->plain ? "a plain" : "not a plain", local);
	QMP_EXPECT(t, count == 1, "%s: %d %s after the consume, not 1", cc->name,
		   count, cc->counted);
out:
	hook_restore(t, was_on);
}

/* A head-less skb (its data freed by its owner): released, no data to free */
static unsigned int destructed;

static void count_destructed(struct sk_buff *skb)
{
	destructed++;
}

static struct sk_buff *make_headless(void *arg)
{
	struct sk_buff *skb = pool_skb();

	if (skb) {
		skb->destructor = count_destructed;
		skb_free_frag(skb->head);
		skb->head = NULL;
	}
	return skb;
}

static int count_headless(void *arg)
{
	return destructed;
}

static void test_consume_headless(struct qmp_test *t)
{
	static const struct consume_case cc = {
		"head-less", false, make_headless, count_headless,
		"destructor runs",
	};

	destructed = 0;
	consume_case(t, &cc, NULL);
}

/* A kmalloc()ed head (alloc_skb()): not a page fragment, skb_free_frag() must not see it */
static struct sk_buff *make_kmalloc_head(void *arg)
{
	struct sk_buff *skb = alloc_skb(FRAME, GFP_ATOMIC);

	*(bool *)arg = skb && !skb->head_frag;
	return skb;
}

static int count_kmalloc_head(void *arg)
{
	return *(bool *)arg;
}

static void test_consume_kmalloc_head(struct qmp_test *t)
{
	static const struct consume_case cc = {
		"kmalloc()ed head", false, make_kmalloc_head,
		count_kmalloc_head, "kmalloc()ed heads built",
	};
	bool kmalloced;

	consume_case(t, &cc, &kmalloced);
}

/* Data of a page_pool page: the page goes back to its page_pool */
struct pp_case {
	struct page_pool *pp;
	struct page *page;
};

static struct sk_buff *make_pp_recycle(void *arg)
{
	struct pp_case *c = arg;
	struct sk_buff *skb;

	c->page = page_pool_dev_alloc_pages(c->pp);
	if (!c->page)
		return NULL;
	skb = skb_pool_build_skb(page_address(c->page), PAGE_SIZE);
	if (!skb) {
		page_pool_put_full_page(c->pp, c->page, false);
		return NULL;
	}
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, FRAME);
	skb_mark_for_recycle(skb);
	return skb;
}

/* Recycled, the page_pool holds the page; freed, nobody does */
static int count_pp_recycle(void *arg)
{
	return page_ref_count(((struct pp_case *)arg)->page);
}

static void test_consume_pp_recycle(struct qmp_test *t)
{
	static const struct consume_case cc = {
		"page_pool data", false, make_pp_recycle, count_pp_recycle,
		"references on the page (its page_pool's: 1)",
	};
	struct page_pool_params params = {
		.order = 0, .pool_size = 16, .nid = NUMA_NO_NODE,
	};
	struct pp_case c = { .pp = page_pool_create(&params) };

	if (!QMP_EXPECT(t, !IS_ERR(c.pp), "page_pool_create: %ld", PTR_ERR(c.pp)))
		return;
	consume_case(t, &cc, &c);
	page_pool_destroy(c.pp);
}

/* A frag list: its skbs are put with the skb (one of ours, held twice) */
static struct sk_buff *make_frag_list(void *arg)
{
	struct sk_buff **child = arg;
	struct sk_buff *skb = pool_skb();

	*child = skb ? alloc_skb(FRAME, GFP_ATOMIC) : NULL;
	if (!*child) {
		kfree_skb(skb);
		return NULL;
	}
	skb_shinfo(skb)->frag_list = skb_get(*child);
	return skb;
}

static int count_frag_list(void *arg)
{
	return refcount_read(&(*(struct sk_buff **)arg)->users);
}

static void test_consume_frag_list(struct qmp_test *t)
{
	static const struct consume_case cc = {
		"frag list", false, make_frag_list, count_frag_list,
		"references on the frag list's skb (ours: 1)",
	};
	struct sk_buff *child = NULL;

	consume_case(t, &cc, &child);
	kfree_skb(child);
}

/* Zerocopy data: its owner's completion runs (ours puts a reference) */
static void zc_complete(struct sk_buff *skb, struct ubuf_info *uarg,
			bool success)
{
	refcount_dec(&uarg->refcnt);
}

QMP_UBUF_INFO_OPS(zc_ops, zc_complete);

static struct sk_buff *make_zerocopy(void *arg)
{
	struct sk_buff *skb = pool_skb();

	if (skb)
		skb_zcopy_set(skb, arg, NULL);
	return skb;
}

static int count_zerocopy(void *arg)
{
	return refcount_read(&((struct ubuf_info *)arg)->refcnt);
}

static void test_consume_zerocopy(struct qmp_test *t)
{
	static const struct consume_case cc = {
		"zerocopy", false, make_zerocopy, count_zerocopy,
		"references on the ubuf_info (ours: 1)",
	};
	struct ubuf_info uarg = { .flags = SKBFL_ZEROCOPY_FRAG };

	refcount_set(&uarg.refcnt, 1);
	qmp_ubuf_info_set_ops(&uarg, zc_ops);
	consume_case(t, &cc, &uarg);
}

/* A dst: the skb's reference is dropped (a metadata dst, held twice) */
static struct sk_buff *make_dst(void *arg)
{
	struct sk_buff *skb = pool_skb();

	if (skb) {
		dst_hold(arg);
		skb_dst_set(skb, arg);
	}
	return skb;
}

static int count_dst(void *arg)
{
	return qmp_dst_refcnt(arg);
}

static void test_consume_dst(struct qmp_test *t)
{
	static const struct consume_case cc = {
		"dst", true, make_dst, count_dst,
		"references on the dst (ours: 1)",
	};
	struct metadata_dst *md = metadata_dst_alloc(0, METADATA_IP_TUNNEL,
						     GFP_KERNEL);

	if (!QMP_EXPECT(t, md, "out of memory"))
		return;
	consume_case(t, &cc, &md->dst);
	dst_release(&md->dst);
}

/*
 * A conntrack entry: the skb's reference is put.  The entry is ours, no
 * nf_conn: the release puts only the generic reference count of struct
 * nf_conntrack, which stays above zero (nothing would destroy it).
 */
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
static struct sk_buff *make_conntrack(void *arg)
{
	struct sk_buff *skb = pool_skb();

	if (skb) {
		refcount_inc(&((struct nf_conntrack *)arg)->use);
		skb_set_nfct(skb, (unsigned long)arg | IP_CT_ESTABLISHED);
	}
	return skb;
}

static int count_conntrack(void *arg)
{
	return refcount_read(&((struct nf_conntrack *)arg)->use);
}
#endif

static void test_consume_conntrack(struct qmp_test *t)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	static const struct consume_case cc = {
		"conntrack", true, make_conntrack, count_conntrack,
		"references on the conntrack entry (ours: 1)",
	};
	struct nf_conntrack *ct = kzalloc(sizeof(*ct), GFP_KERNEL);

	if (!QMP_EXPECT(t, ct, "out of memory"))
		return;
	refcount_set(&ct->use, 1);
	consume_case(t, &cc, ct);
	kfree(ct);
#else
	qmp_test_skip(t, "no CONFIG_NF_CONNTRACK");
#endif
}

/* An skb extension: the skb's reference is put (MPTCP's: no side effects) */
#if defined(CONFIG_SKB_EXTENSIONS) && IS_ENABLED(CONFIG_MPTCP)
static struct sk_buff *make_extension(void *arg)
{
	struct skb_ext **ext = arg;
	struct sk_buff *skb = pool_skb();

	if (skb && !skb_ext_add(skb, SKB_EXT_MPTCP)) {
		kfree_skb(skb);
		return NULL;
	}
	if (skb) {
		*ext = skb->extensions;
		refcount_inc(&(*ext)->refcnt);
	}
	return skb;
}

static int count_extension(void *arg)
{
	return refcount_read(&(*(struct skb_ext **)arg)->refcnt);
}
#endif

static void test_consume_extension(struct qmp_test *t)
{
#if defined(CONFIG_SKB_EXTENSIONS) && IS_ENABLED(CONFIG_MPTCP)
	static const struct consume_case cc = {
		"extension", true, make_extension, count_extension,
		"references on the extension (ours: 1)",
	};
	struct skb_ext *ext = NULL;

	consume_case(t, &cc, &ext);
	if (ext)
		__skb_ext_put(ext);
#else
	qmp_test_skip(t, "no CONFIG_SKB_EXTENSIONS with CONFIG_MPTCP");
#endif
}

/* ------------------------------------------------------------------ */
/* Stress: every CPU builds and frees (while the hook goes off and on) */

struct stress {
	atomic_long_t skbs;
	atomic_t failed;
	atomic_t live_twice;	/* a head handed out while still live */
	atomic_t live_lost;	/* a freed head that was not live */
	struct xarray live;	/* heads built and not yet freed */
	bool stop;
};

/* A head is live from its build to its free, and only once */
static void live_add(struct stress *s, struct sk_buff *skb)
{
	int ret = xa_insert(&s->live, (unsigned long)skb, skb, GFP_ATOMIC);

	if (ret == -EBUSY)
		atomic_inc(&s->live_twice);
	else if (ret)
		atomic_inc(&s->failed);
}

/* Before the free: after it, another CPU may get the head again */
static void live_del(struct stress *s, struct sk_buff *skb)
{
	if (xa_erase(&s->live, (unsigned long)skb) != skb)
		atomic_inc(&s->live_lost);
}

struct stress_thread {
	struct stress *s;
	struct task_struct *task;
	struct completion done;
};

static int stress_fn(void *arg)
{
	struct stress_thread *st = arg;
	struct sk_buff *skbs[8];
	unsigned long round = 0;
	unsigned int i;

	while (!READ_ONCE(st->s->stop)) {
		bool bh = round & 1;

		if (bh)
			local_bh_disable();
		for (i = 0; i < ARRAY_SIZE(skbs); i++) {
			skbs[i] = (round + i) & 1 ? pool_skb() :
				  alloc_skb(FRAME, GFP_ATOMIC);
			if (!skbs[i])
				atomic_inc(&st->s->failed);
			else
				live_add(st->s, skbs[i]);
		}
		for (i = 0; i < ARRAY_SIZE(skbs); i++) {
			if (!skbs[i])
				continue;
			live_del(st->s, skbs[i]);
			if (bh && (round + i) % 4 == 3)
				skb_pool_consume_skb(skbs[i], NAPI_POLL_WEIGHT);
			else
				free_skb_how(skbs[i], (round + i) % NR_FREE_HOW);
		}
		if (bh)
			local_bh_enable();
		atomic_long_add(ARRAY_SIZE(skbs), &st->s->skbs);
		round++;
		/* Unhooking waits for every task to pass a quiescent state */
		cond_resched_tasks_rcu_qs();
	}
	complete(&st->done);
	qmp_kthread_wait_stop();
	return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* A CPU's local queue, taken by that CPU with bottom halves off */
struct take_work {
	struct work_struct work;
	struct qmempool *pool;
	void **objs;
	unsigned int n;
};

static void take_localq_fn(struct work_struct *work)
{
	struct take_work *w = container_of(work, struct take_work, work);
	unsigned int k;

	local_bh_disable();
	while ((k = qmempool_take_local(w->pool, smp_processor_id(),
					w->objs + w->n,
					w->pool->localq_sz - w->n)))
		w->n += k;
	local_bh_enable();
}

/* Every head in the pool's queues, once: a double free would show twice */
static void expect_no_duplicates(struct qmp_test *t, struct qmempool *pool)
{
	unsigned int cap = num_possible_cpus() * pool->localq_sz +
			   num_possible_nodes() * pool->sharedq_sz;
	void **all = kvmalloc_array(cap, sizeof(*all), GFP_KERNEL);
	struct take_work w = { .pool = pool };
	unsigned int n = 0, dups = 0, i;
	int cpu, node;

	if (!QMP_EXPECT(t, all, "out of memory"))
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		w.objs = all + n;
		w.n = 0;
		INIT_WORK_ONSTACK(&w.work, take_localq_fn);
		schedule_work_on(cpu, &w.work);
		flush_work(&w.work);
		destroy_work_on_stack(&w.work);
		n += w.n;
	}
	cpus_read_unlock();
	for_each_node(node)	/* node ids may be sparse */
		n += qmempool_take_shared(pool, node, all + n, cap - n);
	sort(all, n, sizeof(*all), ptr_cmp, NULL);
	for (i = 1; i < n; i++)
		dups += all[i] == all[i - 1];
	QMP_EXPECT(t, !dups, "%u heads are in the pool twice", dups);
	qmp_test_diag(t, "%u heads in the pool", n);
	/* Back to the slab, a duplicate only once */
	for (i = 0; i < n; i++)
		if (!i || all[i] != all[i - 1])
			kmem_cache_free(pool->kmem, all[i]);
	kvfree(all);
}

static void test_stress(struct qmp_test *t)
{
	unsigned int nthreads = num_online_cpus(), i, toggles = 0;
	bool was_on = skb_pool_hook_enabled();
	struct stress s = { };
	struct stress_thread *th;
	unsigned long end;
	int cpu;

	th = kcalloc(nthreads, sizeof(*th), GFP_KERNEL);
	if (!QMP_EXPECT(t, th, "out of memory"))
		return;
	xa_init(&s.live);
	i = 0;
	for_each_online_cpu(cpu) {
		if (i == nthreads)
			break;
		th[i].s = &s;
		init_completion(&th[i].done);
		th[i].task = kthread_create_on_cpu(stress_fn, &th[i], cpu,
						   "skb_pool_stress/%u");
		if (!QMP_EXPECT(t, !IS_ERR(th[i].task), "kthread_create")) {
			th[i].task = NULL;
			break;
		}
		wake_up_process(th[i++].task);
	}
	nthreads = i;
	end = jiffies + msecs_to_jiffies(stress_ms);
	while (time_before(jiffies, end)) {
		msleep(toggle_ms ?: 20);
		if (!toggle_ms)
			continue;
		if (!QMP_EXPECT(t, !skb_pool_set_hook(toggles & 1),
				"toggle %u", toggles))
			break;
		toggles++;
	}
	WRITE_ONCE(s.stop, true);
	for (i = 0; i < nthreads; i++) {
		qmp_wait_completion(&th[i].done);
		kthread_stop(th[i].task);
	}
	QMP_EXPECT(t, !skb_pool_set_hook(was_on), "hook back as it was");
	QMP_EXPECT(t, atomic_long_read(&s.skbs) > 0, "no skb was built");
	QMP_EXPECT(t, !atomic_read(&s.live_twice) && !atomic_read(&s.live_lost),
		   "%d heads handed out while live, %d freed heads were not live",
		   atomic_read(&s.live_twice), atomic_read(&s.live_lost));
	QMP_EXPECT(t, xa_empty(&s.live), "heads still live after the stress");
	xa_destroy(&s.live);
	qmp_test_diag(t, "%u threads, %ld skbs, %d failed allocations, %u hook toggles",
		      nthreads, atomic_long_read(&s.skbs), atomic_read(&s.failed),
		      toggles);
	expect_no_duplicates(t, skb_pool_get_pool());
	kfree(th);
}

static const struct qmp_test_case skb_pool_cases[] = {
	{ "pool_heads_come_back", test_pool_heads_come_back },
	{ "slab_heads_come_back", test_slab_heads_come_back },
	{ "fclones_untouched", test_fclones_untouched },
	{ "hook_off_on", test_hook_off_on },
	{ "heads_zeroed", test_heads_zeroed },
	{ "consume_plain", test_consume_plain },
	{ "consume_not_plain", test_consume_not_plain },
	{ "consume_traced", test_consume_traced },
	{ "consume_headless", test_consume_headless },
	{ "consume_kmalloc_head", test_consume_kmalloc_head },
	{ "consume_pp_recycle", test_consume_pp_recycle },
	{ "consume_frag_list", test_consume_frag_list },
	{ "consume_zerocopy", test_consume_zerocopy },
	{ "consume_dst", test_consume_dst },
	{ "consume_conntrack", test_consume_conntrack },
	{ "consume_extension", test_consume_extension },
	{ "stress", test_stress },
	QMP_MISUSE_CASE,
};

static int __init skb_pool_test_init(void)
{
	qmp_misuse_start();
	return qmp_run_suite("skb_pool", skb_pool_cases,
			     ARRAY_SIZE(skb_pool_cases));
}

static void __exit skb_pool_test_exit(void)
{
}

module_init(skb_pool_test_init);
module_exit(skb_pool_test_exit);
MODULE_DESCRIPTION("Tests of skb_pool_hook (KTAP)");
