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
#include <qmp/ktap.h>
#include <qmp/misuse.h>
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
		*local += page_to_nid(virt_to_page(skbs[i])) == numa_mem_id();
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

/* A dirty head, as a previous user would leave it */
static void *dirty_head(struct qmempool *pool)
{
	void *head = kmem_cache_alloc(pool->kmem, GFP_ATOMIC);

	if (head)
		memset(head, 0xa5, pool->obj_size);
	return head;
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
	head = dirty_head(z.pool);
	if (head) {
		/* Poisoned as every object in the pool's queues (KASAN) */
		qmp_kasan_poison(head, z.pool->obj_size);
		if (!alf_mp_enqueue(z.pool->sharedq[numa_mem_id()], &head, 1)) {
			qmp_kasan_unpoison(head, z.pool->obj_size);
			kmem_cache_free(z.pool->kmem, head);
		}
	}
	zero_compare(&z);
	/* The slab (poisoned under slub_debug=P): both queues empty */
	z.from = "a slab refill";
	empty_queues(z.pool);
	zero_compare(&z);
	local_bh_enable();

	/* Hardirq context: the slab directly */
	z.from = "the hardirq bypass";
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
		local += page_to_nid(virt_to_page(c.skbs[i])) == numa_mem_id();
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
	QMP_EXPECT(t, found == (page_to_nid(virt_to_page(c.skbs[0])) ==
				numa_mem_id()),
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
