// SPDX-License-Identifier: GPL-2.0
/*
 * alf_queue_test.ko - tests of the ALF queue, run at insmod, KTAP output.
 *
 * Single-threaded cases check the semantics of every variant (FIFO order,
 * full/empty boundaries, fixed vs variable bulks, count/avail_space, 32-bit
 * index wrap-around, parameter validation, debug-mode misuse detection).
 * The stress cases run producers and consumers as kthreads pinned to every
 * online CPU (two or more per CPU), plus hrtimer producers and consumers in
 * hardirq context interrupting them, and account for every token.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/* The variable_retry case moves the queue inside a reservation attempt */
struct alf_queue;
struct alf_actor;
static void retry_hook(struct alf_queue *q, struct alf_actor *actor);
#define ALF_QUEUE_RESERVE_HOOK(q, actor)	retry_hook(q, actor)

#include <linux/alf_queue.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <qmp/compat.h>
#include <qmp/ktap.h>

#include "alf_stress.h"
#include <qmp/version.h>

static unsigned long tokens = 1000000;
module_param(tokens, ulong, 0444);
MODULE_PARM_DESC(tokens, "Tokens per producer in the MPMC/SPSC stress cases (default 1000000)");

static unsigned int stress_ms = 20000;
module_param(stress_ms, uint, 0444);
MODULE_PARM_DESC(stress_ms, "Milliseconds after which a stress case's producers stop where they are, every token made still checked (default 20000; 0: no limit)");

static unsigned int stress_timeout = 600;
module_param(stress_timeout, uint, 0444);
MODULE_PARM_DESC(stress_timeout, "Seconds a stress case may run before it fails (default 600)");

/* One combination of producer and consumer variants */
struct alf_variant {
	const char *name;
	u32 flags;
	unsigned int (*enq)(struct alf_queue *q, void *const *p, unsigned int n);
	unsigned int (*enq_var)(struct alf_queue *q, void *const *p,
				unsigned int n);
	unsigned int (*deq)(struct alf_queue *q, void **p, unsigned int n);
	unsigned int (*deq_fixed)(struct alf_queue *q, void **p,
				  unsigned int n);
};

static const struct alf_variant variants[] = {
	{ "mpmc", ALF_MP_ENQ | ALF_MC_DEQ, alf_mp_enqueue,
	  alf_mp_enqueue_variable, alf_mc_dequeue, alf_mc_dequeue_fixed },
	{ "spsc", ALF_SP_ENQ | ALF_SC_DEQ, alf_sp_enqueue,
	  alf_sp_enqueue_variable, alf_sc_dequeue, alf_sc_dequeue_fixed },
	{ "mpsc", ALF_MP_ENQ | ALF_SC_DEQ, alf_mp_enqueue,
	  alf_mp_enqueue_variable, alf_sc_dequeue, alf_sc_dequeue_fixed },
	{ "spmc", ALF_SP_ENQ | ALF_MC_DEQ, alf_sp_enqueue,
	  alf_sp_enqueue_variable, alf_mc_dequeue, alf_mc_dequeue_fixed },
};

#define TOKEN(i)	((void *)(unsigned long)(i))

static struct alf_queue *new_queue(struct qmp_test *t, u32 size, u32 flags)
{
	struct alf_queue *q = alf_queue_alloc_flags(size, flags, GFP_KERNEL);

	if (!QMP_EXPECT(t, !IS_ERR(q), "alloc(%u) failed: %ld", size,
			PTR_ERR(q)))
		return NULL;
	return q;
}

/* Put all indices of an empty queue at @idx, producer.seen too (+ size) */
static void set_index(struct alf_queue *q, u32 idx)
{
	q->producer.head = idx;
	q->producer.tail = idx;
	q->producer.seen = idx + q->size;
	q->consumer.head = idx;
	q->consumer.tail = idx;
}

static bool expect_level(struct qmp_test *t, const struct alf_variant *v,
			 struct alf_queue *q, unsigned int count)
{
	return QMP_EXPECT(t, alf_queue_count(q) == count &&
			  alf_queue_avail_space(q) == q->size - count &&
			  alf_queue_empty(q) == !count,
			  "%s: count %u avail %u empty %d, expected count %u",
			  v->name, alf_queue_count(q),
			  alf_queue_avail_space(q), alf_queue_empty(q), count);
}

/*
 * Random bulks in and out of a small queue for many laps, starting at
 * index @start; checks order and count/avail after every call.
 */
static void fifo_run(struct qmp_test *t, const struct alf_variant *v,
		     u32 start)
{
	struct alf_queue *q = new_queue(t, 16, v->flags);
	unsigned long next_in = 1, next_out = 1, total = 3000;
	void *buf[24];
	u32 rnd = 0x9e3779b9;
	unsigned int i, n, want;

	if (!q)
		return;
	set_index(q, start);
	while (next_out <= total) {
		rnd = rnd * 1103515245 + 12345;
		want = 1 + (rnd >> 16) % 24;
		if ((rnd >> 8) & 1) {
			want = min_t(unsigned long, want, total + 1 - next_in);
			for (i = 0; i < want; i++)
				buf[i] = TOKEN(next_in + i);
			n = (rnd >> 9) & 1 ? v->enq(q, buf, want) :
					     v->enq_var(q, buf, want);
			next_in += n;
		} else {
			n = (rnd >> 9) & 1 ? v->deq_fixed(q, buf, want) :
					     v->deq(q, buf, want);
			for (i = 0; i < n; i++, next_out++)
				if (!QMP_EXPECT(t, buf[i] == TOKEN(next_out),
						"%s: got %lu, expected %lu",
						v->name, (unsigned long)buf[i],
						next_out))
					goto out;
		}
		if (!expect_level(t, v, q, next_in - next_out))
			goto out;
	}
	QMP_EXPECT(t, q->producer.tail - start == total,
		   "%s: producer index moved %u, expected %lu", v->name,
		   q->producer.tail - start, total);
out:
	alf_queue_free(q);
}

static void test_fifo_order(struct qmp_test *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(variants); i++)
		fifo_run(t, &variants[i], 0);
}

/* Indices start just below 2^32 and wrap during the run */
static void test_index_wraparound(struct qmp_test *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		const struct alf_variant *v = &variants[i];
		struct alf_queue *q;
		void *buf[16], *out[16];
		unsigned int j;

		fifo_run(t, v, U32_MAX - 1000);

		/* A full queue whose producer index wrapped, consumer not */
		q = new_queue(t, 16, v->flags);
		if (!q)
			return;
		set_index(q, U32_MAX - 4);
		for (j = 0; j < 16; j++)
			buf[j] = TOKEN(j + 1);
		QMP_EXPECT(t, v->enq(q, buf, 16) == 16, "%s: fill", v->name);
		QMP_EXPECT(t, q->producer.tail == 11 && q->consumer.tail ==
			   U32_MAX - 4, "%s: indices %u/%u", v->name,
			   q->producer.tail, q->consumer.tail);
		expect_level(t, v, q, 16);
		QMP_EXPECT(t, !v->enq(q, buf, 1) && !v->enq_var(q, buf, 1),
			   "%s: enqueue into a full queue across the wrap",
			   v->name);
		QMP_EXPECT(t, v->deq(q, out, 16) == 16 &&
			   !memcmp(out, buf, sizeof(buf)),
			   "%s: drain across the wrap", v->name);
		expect_level(t, v, q, 0);
		alf_queue_free(q);
	}
}

static void test_full_and_empty(struct qmp_test *t)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		const struct alf_variant *v = &variants[i];
		struct alf_queue *q = new_queue(t, 16, v->flags);
		void *buf[17], *out[17];

		if (!q)
			return;
		for (j = 0; j < 17; j++)
			buf[j] = TOKEN(100 + j);
		expect_level(t, v, q, 0);
		QMP_EXPECT(t, !v->deq(q, out, 1) && !v->deq_fixed(q, out, 1),
			   "%s: dequeue from an empty queue", v->name);
		QMP_EXPECT(t, !v->enq(q, buf, 17), "%s: fixed 17 into 16",
			   v->name);
		expect_level(t, v, q, 0);
		for (j = 0; j < 16; j++)
			QMP_EXPECT(t, v->enq(q, &buf[j], 1) == 1,
				   "%s: enqueue %u", v->name, j);
		expect_level(t, v, q, 16);
		QMP_EXPECT(t, !v->enq(q, buf, 1) && !v->enq_var(q, buf, 1),
			   "%s: enqueue into a full queue", v->name);
		QMP_EXPECT(t, v->deq(q, out, 17) == 16 &&
			   !memcmp(out, buf, 16 * sizeof(void *)),
			   "%s: drain a full queue", v->name);
		expect_level(t, v, q, 0);
		QMP_EXPECT(t, v->enq_var(q, buf, 17) == 16,
			   "%s: variable 17 into 16", v->name);
		QMP_EXPECT(t, v->deq_fixed(q, out, 16) == 16 &&
			   !memcmp(out, buf, 16 * sizeof(void *)),
			   "%s: fixed drain", v->name);
		QMP_EXPECT(t, !v->enq(q, buf, 0) && !v->enq_var(q, buf, 0) &&
			   !v->deq(q, out, 0) && !v->deq_fixed(q, out, 0),
			   "%s: n == 0 must move nothing", v->name);
		expect_level(t, v, q, 0);
		alf_queue_free(q);
	}
}

static void test_fixed_vs_variable(struct qmp_test *t)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(variants); i++) {
		const struct alf_variant *v = &variants[i];
		struct alf_queue *q = new_queue(t, 16, v->flags);
		void *buf[20], *out[20];

		if (!q)
			return;
		for (j = 0; j < 20; j++)
			buf[j] = TOKEN(200 + j);
		QMP_EXPECT(t, v->enq(q, buf, 11) == 11, "%s: 11 in", v->name);
		QMP_EXPECT(t, !v->enq(q, &buf[11], 8),
			   "%s: fixed 8 with 5 free must move nothing", v->name);
		expect_level(t, v, q, 11);
		QMP_EXPECT(t, v->enq_var(q, &buf[11], 8) == 5,
			   "%s: variable 8 with 5 free must move 5", v->name);
		expect_level(t, v, q, 16);
		QMP_EXPECT(t, !v->deq_fixed(q, out, 17),
			   "%s: fixed 17 of 16 must move nothing", v->name);
		expect_level(t, v, q, 16);
		QMP_EXPECT(t, v->deq_fixed(q, out, 4) == 4 &&
			   !memcmp(out, buf, 4 * sizeof(void *)),
			   "%s: fixed 4 of 16", v->name);
		QMP_EXPECT(t, v->deq(q, out, 20) == 12 &&
			   !memcmp(out, &buf[4], 12 * sizeof(void *)),
			   "%s: variable 20 of 12", v->name);
		expect_level(t, v, q, 0);
		alf_queue_free(q);
	}
}

/*
 * variable_retry: a "concurrent" actor, run once from inside the first
 * reservation attempt on retry_q, makes room (or brings elements) and
 * moves the attempt's own index, so that its cmpxchg() fails.  The retry
 * must size the bulk from the caller's count again: a bulk shrunk by the
 * first attempt is a bulk that moves fewer than fit.
 */
static struct alf_queue *retry_q;

static void retry_hook(struct alf_queue *q, struct alf_actor *actor)
{
	void *buf[4] = { TOKEN(900), TOKEN(901), TOKEN(902), TOKEN(903) };

	if (q != retry_q)
		return;
	retry_q = NULL;		/* once; the nested calls below pass */
	if (actor == &q->producer) {
		/* 4 slots freed, 1 taken by another producer: 5 free */
		alf_mc_dequeue_fixed(q, buf, 4);
		alf_mp_enqueue(q, buf, 1);
	} else {
		/* 4 elements brought, 1 taken by another consumer: 5 */
		alf_mp_enqueue(q, buf, 4);
		alf_mc_dequeue_fixed(q, buf, 1);
	}
}

static void test_variable_retry(struct qmp_test *t)
{
	struct alf_queue *q = new_queue(t, 8, ALF_MP_ENQ | ALF_MC_DEQ);
	void *buf[8], *out[8];
	unsigned int i, n;

	if (!q)
		return;
	for (i = 0; i < 8; i++)
		buf[i] = TOKEN(i + 1);

	/* 6 of 8 slots used: the first attempt sees room for 2 of 4 */
	QMP_EXPECT(t, alf_mp_enqueue(q, buf, 6) == 6, "fill 6");
	retry_q = q;
	n = alf_mp_enqueue_variable(q, buf, 4);
	QMP_EXPECT(t, !retry_q, "the reservation hook did not run");
	QMP_EXPECT(t, n == 4,
		   "enqueue_variable of 4 after a failed cmpxchg moved %u with 5 slots free",
		   n);
	QMP_EXPECT(t, alf_queue_count(q) == 3 + n, "count %u, expected %u",
		   alf_queue_count(q), 3 + n);

	/* 2 elements: the first attempt sees 2 of the 4 wanted */
	alf_mc_dequeue(q, out, 8);
	QMP_EXPECT(t, alf_mp_enqueue(q, buf, 2) == 2, "fill 2");
	retry_q = q;
	n = alf_mc_dequeue(q, out, 4);
	QMP_EXPECT(t, !retry_q, "the reservation hook did not run");
	QMP_EXPECT(t, n == 4,
		   "dequeue of 4 after a failed cmpxchg moved %u with 5 available",
		   n);
	/* FIFO: the hook's consumer took buf[0]; then buf[1], 900, 901, ... */
	QMP_EXPECT(t, n < 2 || (out[0] == buf[1] && out[1] == TOKEN(900)),
		   "order after the retry: %lu %lu",
		   (unsigned long)out[0], (unsigned long)out[1]);
	retry_q = NULL;
	alf_queue_free(q);
}

static void test_invalid_params(struct qmp_test *t)
{
	static const u32 bad_sizes[] = {
		0, 1, 3, 6, 100, ALF_QUEUE_MAX_SIZE + 1,
		ALF_QUEUE_MAX_SIZE * 2, 1U << 31, U32_MAX,
	};
	static const u32 bad_flags[] = {
		ALF_SP_ENQ | ALF_MP_ENQ, ALF_SC_DEQ | ALF_MC_DEQ, 0x10, ~0U,
	};
	struct alf_queue *q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_sizes); i++) {
		q = alf_queue_alloc(bad_sizes[i], GFP_KERNEL);
		QMP_EXPECT(t, PTR_ERR(q) == -EINVAL,
			   "size %u: got %ld, expected -EINVAL", bad_sizes[i],
			   PTR_ERR(q));
		if (!IS_ERR(q))
			alf_queue_free(q);
	}
	for (i = 0; i < ARRAY_SIZE(bad_flags); i++) {
		q = alf_queue_alloc_flags(16, bad_flags[i], GFP_KERNEL);
		QMP_EXPECT(t, PTR_ERR(q) == -EINVAL,
			   "flags %#x: got %ld, expected -EINVAL", bad_flags[i],
			   PTR_ERR(q));
		if (!IS_ERR(q))
			alf_queue_free(q);
	}
	/* The bounds themselves are valid; the largest needs vmalloc */
	q = alf_queue_alloc(ALF_QUEUE_MIN_SIZE, GFP_KERNEL);
	QMP_EXPECT(t, !IS_ERR(q) && q->size == ALF_QUEUE_MIN_SIZE,
		   "minimum size refused");
	alf_queue_free(q);
	q = alf_queue_alloc(ALF_QUEUE_MAX_SIZE, GFP_KERNEL);
	QMP_EXPECT(t, !IS_ERR(q) && alf_queue_avail_space(q) ==
		   ALF_QUEUE_MAX_SIZE, "maximum size refused");
	alf_queue_free(q);
	/* Freeing nothing is fine */
	alf_queue_free(NULL);
	alf_queue_free(ERR_PTR(-EINVAL));
}

/* Runs @fn with the debug mode on, then restores the previous mode */
static void with_debug(struct qmp_test *t, void (*fn)(struct qmp_test *t))
{
	bool was = static_key_enabled(&alf_queue_debug_key);

	static_branch_enable(&alf_queue_debug_key);
	fn(t);
	if (!was)
		static_branch_disable(&alf_queue_debug_key);
}

static void debug_variant_mixing(struct qmp_test *t)
{
	struct alf_queue *q = new_queue(t, 16, ALF_SP_ENQ | ALF_SC_DEQ);
	void *p = TOKEN(1), *out;

	if (!q)
		return;
	QMP_EXPECT(t, !alf_mp_enqueue(q, &p, 1) &&
		   atomic_read(&q->debug_misuse) == 1,
		   "MP enqueue on an SP queue not refused");
	QMP_EXPECT(t, alf_sp_enqueue(q, &p, 1) == 1, "SP enqueue refused");
	QMP_EXPECT(t, !alf_mc_dequeue(q, &out, 1) &&
		   atomic_read(&q->debug_misuse) == 2,
		   "MC dequeue on an SC queue not refused");
	QMP_EXPECT(t, alf_sc_dequeue(q, &out, 1) == 1 && out == p,
		   "SC dequeue refused");
	alf_queue_free(q);

	/* Undeclared: the first call of each side decides */
	q = new_queue(t, 16, 0);
	if (!q)
		return;
	QMP_EXPECT(t, alf_mp_enqueue(q, &p, 1) == 1, "first MP refused");
	QMP_EXPECT(t, !alf_sp_enqueue(q, &p, 1) &&
		   atomic_read(&q->debug_misuse) == 1,
		   "SP after MP not refused");
	QMP_EXPECT(t, alf_sc_dequeue(q, &out, 1) == 1, "first SC refused");
	QMP_EXPECT(t, !alf_mc_dequeue_fixed(q, &out, 1) &&
		   atomic_read(&q->debug_misuse) == 2,
		   "MC after SC not refused");
	QMP_EXPECT(t, test_bit(ALF_DBG_WARNED, &q->debug_flags),
		   "misuse not reported");
	alf_queue_free(q);
}

static void debug_single_overlap(struct qmp_test *t)
{
	struct alf_queue *q = new_queue(t, 16, ALF_SP_ENQ | ALF_SC_DEQ);
	void *p = TOKEN(7), *out;

	if (!q)
		return;
	/* As if another single producer/consumer were inside its call */
	WRITE_ONCE(q->producer.busy, 1);
	QMP_EXPECT(t, !alf_sp_enqueue(q, &p, 1) &&
		   atomic_read(&q->debug_misuse) == 1,
		   "overlapping SP enqueue not refused");
	WRITE_ONCE(q->producer.busy, 0);
	QMP_EXPECT(t, alf_sp_enqueue(q, &p, 1) == 1 &&
		   !READ_ONCE(q->producer.busy), "SP enqueue after overlap");
	WRITE_ONCE(q->consumer.busy, 1);
	QMP_EXPECT(t, !alf_sc_dequeue(q, &out, 1) &&
		   atomic_read(&q->debug_misuse) == 2,
		   "overlapping SC dequeue not refused");
	WRITE_ONCE(q->consumer.busy, 0);
	QMP_EXPECT(t, alf_sc_dequeue(q, &out, 1) == 1 && out == p,
		   "SC dequeue after overlap");
	alf_queue_free(q);
}

static void test_debug_variant_mixing(struct qmp_test *t)
{
	with_debug(t, debug_variant_mixing);
}

static void test_debug_single_overlap(struct qmp_test *t)
{
	with_debug(t, debug_single_overlap);
}

/* With the debug mode off, nothing is checked (and nothing refused) */
static void test_debug_off_unchecked(struct qmp_test *t)
{
	struct alf_queue *q;
	void *p = TOKEN(3), *out;

	if (static_key_enabled(&alf_queue_debug_key)) {
		qmp_test_skip(t, "alf_queue.debug=1");
		return;
	}
	q = new_queue(t, 16, ALF_SP_ENQ | ALF_SC_DEQ);
	if (!q)
		return;
	QMP_EXPECT(t, alf_mp_enqueue(q, &p, 1) == 1 &&
		   alf_mc_dequeue(q, &out, 1) == 1 &&
		   !atomic_read(&q->debug_misuse),
		   "calls checked with the debug mode off");
	alf_queue_free(q);
}

/* ------------------------------------------------------------------ */
/* Stress: kthreads on every online CPU, hrtimers in hardirq context   */

#define STRESS_TIMER_NS	(10 * NSEC_PER_USEC)

struct stress_worker {
	struct alf_stress *s;
	struct task_struct *task;
	struct completion done;
	bool producer;
	unsigned int id;		/* producer or consumer index */
	int timer_id;			/* index of the hrtimer's actor, or -1 */
	struct hrtimer timer;
};

static enum hrtimer_restart stress_timer_fn(struct hrtimer *timer)
{
	struct stress_worker *w = container_of(timer, struct stress_worker,
					       timer);
	unsigned int moved;

	if (w->producer) {
		if (alf_stress_produce(w->s, w->timer_id, &moved))
			return HRTIMER_NORESTART;
	} else {
		if (alf_stress_done(w->s))
			return HRTIMER_NORESTART;
		alf_stress_consume(w->s, w->timer_id);
	}
	hrtimer_forward_now(timer, ns_to_ktime(STRESS_TIMER_NS));
	return HRTIMER_RESTART;
}

/* A failed attempt: let the other threads of this CPU run now and then */
static void stress_backoff(unsigned int *fails)
{
	if (++*fails % 16)
		cond_resched();
	else
		usleep_range(5, 10);
}

static int stress_thread(void *arg)
{
	struct stress_worker *w = arg;
	struct alf_stress *s = w->s;
	unsigned int moved, fails = 0;

	if (w->timer_id >= 0)
		hrtimer_start(&w->timer, ns_to_ktime(STRESS_TIMER_NS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	if (w->producer) {
		while (!alf_stress_produce(s, w->id, &moved))
			if (!moved)
				stress_backoff(&fails);
		/* Our timer's stream must finish before we cancel it */
		while (w->timer_id >= 0 && !atomic_read(&s->stop) &&
		       !READ_ONCE(s->prod[w->timer_id].done))
			schedule_timeout_uninterruptible(1);
	} else {
		while (!alf_stress_done(s))
			if (!alf_stress_consume(s, w->id))
				stress_backoff(&fails);
	}
	if (w->timer_id >= 0)
		hrtimer_cancel(&w->timer);
	complete(&w->done);
	qmp_kthread_wait_stop();
	return 0;
}

/*
 * Run a stress case: @np producer and @nc consumer threads pinned round
 * robin to the online CPUs; with @irq, each thread also owns a hardirq
 * hrtimer actor of its kind (its own token stream or consumer state).
 */
static void run_stress(struct qmp_test *t, u32 qsize, u32 flags,
		       unsigned int np, unsigned int nc, unsigned long ntok,
		       bool irq)
{
	struct alf_stress_cfg cfg = {
		.producers = irq ? 2 * np : np,
		.consumers = irq ? 2 * nc : nc,
		.tokens = ntok,
		/* the timers' streams (see alf_stress.h): 1/16 of the threads' */
		.short_first = np,
		.short_tokens = max(ntok / 16, 1UL),
		.max_bulk = 32,
		.single_producer = flags & ALF_SP_ENQ,
		.single_consumer = flags & ALF_SC_DEQ,
	};
	unsigned int i, p, nw = np + nc, cpu = cpumask_first(cpu_online_mask);
	unsigned long deadline = jiffies + stress_timeout * HZ;
	unsigned long finish_at = jiffies + msecs_to_jiffies(stress_ms);
	struct stress_worker *w;
	struct alf_stress *s;
	struct alf_queue *q;
	u64 start = ktime_get_ns();

	q = new_queue(t, qsize, flags);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	w = kcalloc(nw, sizeof(*w), GFP_KERNEL);
	if (!q || !QMP_EXPECT(t, s && w, "out of memory") ||
	    !QMP_EXPECT(t, !alf_stress_init(s, q, &cfg, 0x1234567),
			"stress state: out of memory"))
		goto free;

	for (i = 0; i < nw; i++) {
		w[i].s = s;
		w[i].producer = i < np;
		w[i].id = w[i].producer ? i : i - np;
		w[i].timer_id = !irq ? -1 : w[i].producer ? np + i :
			nc + w[i].id;
		init_completion(&w[i].done);
		hrtimer_setup(&w[i].timer, stress_timer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		w[i].task = kthread_create(stress_thread, &w[i], "alf_%s/%u",
					   w[i].producer ? "prod" : "cons",
					   w[i].id);
		if (IS_ERR(w[i].task)) {
			QMP_EXPECT(t, 0, "kthread_create: %ld",
				   PTR_ERR(w[i].task));
			w[i].task = NULL;
			nw = i;
			atomic_set(&s->stop, 1);
			break;
		}
		kthread_bind(w[i].task, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	for (i = 0; i < nw; i++)
		wake_up_process(w[i].task);

	/*
	 * Wait in 100 ms steps (no hung-task report); at stress_ms the
	 * producers stop where they are and the consumers drain what was
	 * made; at the deadline the case fails
	 */
	for (i = 0; i < nw; i++) {
		while (!wait_for_completion_timeout(&w[i].done, HZ / 10)) {
			if (stress_ms && time_after(jiffies, finish_at))
				alf_stress_finish(s);
			if (time_after(jiffies, deadline) &&
			    !atomic_read(&s->stop)) {
				alf_stress_error(s, "timeout after %us: %ld of %lu tokens consumed",
						 stress_timeout,
						 atomic_long_read(&s->consumed),
						 alf_stress_made(s));
			}
		}
	}
	for (i = 0; i < nw; i++)
		kthread_stop(w[i].task);

	QMP_EXPECT(t, alf_stress_verify(s), "%s", s->error);
	/* Every actor took part: each stream made tokens */
	for (p = 0; p < cfg.producers; p++)
		QMP_EXPECT(t, s->prod[p].seq, "producer %u (%s) made no token",
			   p, p < np ? "thread" : "hardirq timer");
	qmp_test_diag(t, "%u+%u threads%s on %u CPUs, %lu of %lu tokens in %llu ms%s",
		      np, nc, irq ? " + hardirq timers" : "",
		      num_online_cpus(), alf_stress_made(s),
		      alf_stress_total(s),
		      div_u64(ktime_get_ns() - start, NSEC_PER_MSEC),
		      atomic_read(&s->finish) ? " (cut at stress_ms)" : "");
	alf_stress_free(s);
free:
	kfree(w);
	kfree(s);
	alf_queue_free(q);
}

/*
 * Same-CPU re-entry: on every CPU a thread keeps taking a bulk out of one
 * MPMC queue and putting it back, while a hardirq hrtimer on that CPU does
 * the same, interrupting the thread wherever it is, including inside a
 * reservation-to-publication window.  If such a window could be
 * interrupted, the timer would spin on it for ever (the RFC's lockup).
 * The tokens are conserved: at the end each must be in the queue once.
 */
#define REENTRY_QSIZE	256
#define REENTRY_TOKENS	(REENTRY_QSIZE / 2)

struct reentry {
	struct alf_queue *q;
	atomic_t stop;
	atomic_t errors;
	atomic_long_t timer_moves;
	atomic_long_t thread_moves;
};

struct reentry_worker {
	struct reentry *r;
	struct task_struct *task;
	struct completion done;
	struct hrtimer timer;
	struct alf_stress_actor thread, irq;	/* rnd and buf of each */
};

/* Take up to 8 tokens and put them back; they always fit back */
static unsigned int reentry_cycle(struct reentry *r,
				  struct alf_stress_actor *a)
{
	unsigned int n = alf_mc_dequeue(r->q, a->buf,
					1 + alf_stress_rand(a) % 8);

	if (n && alf_mp_enqueue(r->q, a->buf, n) != n) {
		atomic_inc(&r->errors);
		atomic_set(&r->stop, 1);
	}
	return n;
}

static enum hrtimer_restart reentry_timer_fn(struct hrtimer *timer)
{
	struct reentry_worker *w = container_of(timer, struct reentry_worker,
						timer);

	if (atomic_read(&w->r->stop))
		return HRTIMER_NORESTART;
	atomic_long_add(reentry_cycle(w->r, &w->irq), &w->r->timer_moves);
	hrtimer_forward_now(timer, ns_to_ktime(STRESS_TIMER_NS));
	return HRTIMER_RESTART;
}

static int reentry_thread(void *arg)
{
	struct reentry_worker *w = arg;
	unsigned long moves = 0, i = 0;

	hrtimer_start(&w->timer, ns_to_ktime(STRESS_TIMER_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (!atomic_read(&w->r->stop)) {
		moves += reentry_cycle(w->r, &w->thread);
		if (!(++i % 64))
			cond_resched();
	}
	hrtimer_cancel(&w->timer);
	atomic_long_add(moves, &w->r->thread_moves);
	complete(&w->done);
	qmp_kthread_wait_stop();
	return 0;
}

static void test_irq_reentry(struct qmp_test *t)
{
	unsigned int i, cpu, nw = 0, n;
	DECLARE_BITMAP(seen, REENTRY_TOKENS + 1) = { 0 };
	struct reentry_worker *w;
	struct reentry r = { };
	void **buf;

	r.q = new_queue(t, REENTRY_QSIZE, ALF_MP_ENQ | ALF_MC_DEQ);
	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	buf = kcalloc(REENTRY_QSIZE, sizeof(*buf), GFP_KERNEL);
	if (!r.q || !QMP_EXPECT(t, w && buf, "out of memory"))
		goto out;
	for (i = 0; i < REENTRY_TOKENS; i++)
		buf[i] = TOKEN(i + 1);
	QMP_EXPECT(t, alf_mp_enqueue(r.q, buf, REENTRY_TOKENS) ==
		   REENTRY_TOKENS, "prefill");

	for_each_online_cpu(cpu) {
		struct reentry_worker *x = &w[nw];

		x->r = &r;
		x->thread.rnd = 2 * cpu + 1;
		x->irq.rnd = 2 * cpu + 2;
		init_completion(&x->done);
		hrtimer_setup(&x->timer, reentry_timer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		x->task = kthread_create_on_cpu(reentry_thread, x, cpu,
						"alf_reentry/%u");
		if (!QMP_EXPECT(t, !IS_ERR(x->task), "kthread_create"))
			break;
		nw++;
	}
	for (i = 0; i < nw; i++)
		wake_up_process(w[i].task);
	msleep(3000);
	atomic_set(&r.stop, 1);
	for (i = 0; i < nw; i++) {
		qmp_wait_completion(&w[i].done);
		kthread_stop(w[i].task);
	}

	n = alf_mc_dequeue(r.q, buf, REENTRY_QSIZE);
	QMP_EXPECT(t, !atomic_read(&r.errors), "a bulk did not fit back");
	QMP_EXPECT(t, n == REENTRY_TOKENS, "%u tokens left, expected %u", n,
		   REENTRY_TOKENS);
	for (i = 0; i < n; i++) {
		unsigned long v = (unsigned long)buf[i];

		if (!QMP_EXPECT(t, v >= 1 && v <= REENTRY_TOKENS &&
				!test_and_set_bit(v, seen),
				"token %lu bogus or duplicated", v))
			break;
	}
	QMP_EXPECT(t, atomic_long_read(&r.timer_moves) > 0,
		   "the hardirq timers moved nothing");
	qmp_test_diag(t, "%u CPUs, %ld moves by threads, %ld by hardirq timers",
		      nw, atomic_long_read(&r.thread_moves),
		      atomic_long_read(&r.timer_moves));
out:
	kfree(buf);
	kfree(w);
	alf_queue_free(r.q);
}

/* Producers and consumers on every CPU, more threads than CPUs */
static void test_stress_mpmc(struct qmp_test *t)
{
	unsigned int n = num_online_cpus();

	run_stress(t, 128, ALF_MP_ENQ | ALF_MC_DEQ, n, n, tokens, true);
}

/* One producer and one consumer on two different CPUs */
static void test_stress_spsc(struct qmp_test *t)
{
	if (num_online_cpus() < 2) {
		qmp_test_skip(t, "needs 2 CPUs");
		return;
	}
	run_stress(t, 128, ALF_SP_ENQ | ALF_SC_DEQ, 1, 1, tokens, false);
}

/* The mixed variants: many producers to one consumer and vice versa */
static void test_stress_mpsc(struct qmp_test *t)
{
	run_stress(t, 64, ALF_MP_ENQ | ALF_SC_DEQ, num_online_cpus(), 1,
		   tokens / 4, false);
}

static void test_stress_spmc(struct qmp_test *t)
{
	run_stress(t, 64, ALF_SP_ENQ | ALF_MC_DEQ, 1, num_online_cpus(),
		   tokens / 4, false);
}

static const struct qmp_test_case alf_cases[] = {
	{ "invalid_params", test_invalid_params },
	{ "fifo_order", test_fifo_order },
	{ "full_and_empty", test_full_and_empty },
	{ "fixed_vs_variable", test_fixed_vs_variable },
	{ "variable_retry", test_variable_retry },
	{ "index_wraparound", test_index_wraparound },
	{ "debug_variant_mixing", test_debug_variant_mixing },
	{ "debug_single_overlap", test_debug_single_overlap },
	{ "debug_off_unchecked", test_debug_off_unchecked },
	{ "irq_reentry", test_irq_reentry },
	{ "stress_mpmc", test_stress_mpmc },
	{ "stress_spsc", test_stress_spsc },
	{ "stress_mpsc", test_stress_mpsc },
	{ "stress_spmc", test_stress_spmc },
};

static int __init alf_queue_test_init(void)
{
	return qmp_run_suite("alf_queue", alf_cases, ARRAY_SIZE(alf_cases));
}

static void __exit alf_queue_test_exit(void)
{
}

module_init(alf_queue_test_init);
module_exit(alf_queue_test_exit);
MODULE_DESCRIPTION("Tests of the ALF queue (KTAP)");
