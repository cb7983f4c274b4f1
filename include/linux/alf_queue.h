/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alf_queue.h - Array-based Lock-Free bounded FIFO of pointers, with bulk
 * enqueue and dequeue.
 *
 * A queue is an array of @size (a power of two) pointer slots and two
 * "actors", the producer side and the consumer side, each with a @head
 * (how far that side has reserved) and a @tail (how far it has finished).
 * All four are free-running u32 indices: an index is reduced to a slot with
 * "& mask" only when a slot is touched, and every distance between two
 * indices is a u32 difference, so the indices may wrap past 2^32 freely.
 *
 *   consumer.tail <= consumer.head <= producer.tail <= producer.head
 *   producer.head - consumer.tail <= size                   (mod 2^32)
 *
 * Slots [consumer.head, producer.tail) hold published elements not yet
 * reserved; slots [producer.tail, producer.head) are reserved by the
 * producers, slots [consumer.tail, consumer.head) by the consumers.  A
 * Multi call reserves the slots it is about to write or read; a Single
 * side reserves all it has seen free or published (see "Reservation by a
 * Single side"), so its head stays ahead of its tail between calls.
 *
 * Variants, who may call them, from where
 * -----------------------------------------
 * alf_mp_enqueue()/alf_mc_dequeue() (Multi-Producer / Multi-Consumer):
 *   any number of callers, on any CPU, concurrently.  A call reserves its
 *   whole bulk with one cmpxchg() on the head, copies the pointers, then
 *   waits until every earlier reservation of the same side has finished
 *   and publishes by moving the tail.  That wait is why the window from
 *   reservation to publication must never be interrupted by anything that
 *   could touch the same queue on the same CPU: the interrupted window
 *   would never finish and the interrupter would spin on it for ever (the
 *   soft lockup of the 2014 RFC).  The MP/MC calls therefore run the
 *   window with local interrupts disabled (which also disables
 *   preemption), so they are safe from process context, softirq and
 *   hardirq, preemptible or not, and their spin is bounded by other CPUs'
 *   short, non-interruptible windows.  In NMI context they move nothing
 *   and return 0: an NMI can interrupt a window on its own CPU.
 *
 * alf_sp_enqueue()/alf_sc_dequeue() (Single-Producer / Single-Consumer):
 *   at most one caller of that side at a time, by the caller's own
 *   exclusion (one owning thread, a per-CPU queue used with preemption or
 *   bottom halves disabled, a lock, ...).  They never wait for anybody, so
 *   being preempted or interrupted inside them only delays the other side.
 *   They may be combined freely with the other side's Multi variant
 *   (MP+SC, SP+MC), but a side must not mix its Single and Multi variants,
 *   not even one after the other: a Single side leaves its head ahead of
 *   its tail, and a Multi call of that side would wait for ever for the
 *   tail to catch up with it.
 *   Any context, including NMI, if the caller provides the exclusion.
 *
 * Bulk semantics (open question 1 of the RFC)
 * -------------------------------------------
 * Every call takes (q, ptr, n) and returns the number of elements moved.
 *   alf_{mp,sp}_enqueue()            fixed: all n, or none (returns 0)
 *   alf_{mp,sp}_enqueue_variable()   as many as fit, 0..n
 *   alf_{mc,sc}_dequeue()            variable: as many as available, 0..n
 *   alf_{mc,sc}_dequeue_fixed()      fixed: all n, or none
 * (The RFC names keep the RFC's semantics.)  With n == 0 nothing happens.
 *
 * Misuse detection (open question 2 of the RFC)
 * ---------------------------------------------
 * With the debug mode on (module parameter alf_queue.debug=1, a static key:
 * a patched-out jump when off), every call checks that a side does not mix
 * Single and Multi variants (the variants a queue was allocated for with
 * alf_queue_alloc_flags(), else the first ones used) and that no two
 * Single calls of one side overlap.  A misused call moves nothing, returns
 * 0, is counted in q->debug_misuse and in alf_queue_debug_misuses (all
 * queues), and warned about once per queue.
 *
 * Memory ordering
 * ---------------
 * Publication goes through the tails only, with release/acquire pairs:
 *   (P) a producer's smp_store_release(&producer.tail) after writing its
 *       slots pairs with a consumer's smp_load_acquire(&producer.tail)
 *       before reading them;
 *   (C) a consumer's smp_store_release(&consumer.tail) after reading its
 *       slots pairs with a producer's smp_load_acquire(&consumer.tail)
 *       before overwriting them.
 * Each load of a head that a later cmpxchg() confirms is an acquire, so
 * that the following tail load cannot be satisfied earlier than it; this
 * keeps the computed space/count within [0, size] whenever the cmpxchg
 * succeeds.  The MP/MC wait for earlier reservations uses
 * smp_cond_load_acquire(), so the earlier finishers' slot accesses are
 * ordered before our own release of the tail (cumulativity of P and C).
 *
 * Seen tail (S)
 * -------------
 * Multi producers keep in their own cache line the consumer tail as a
 * producer last read it, plus @size (producer.seen: the index up to which
 * the slots were free then), and compute their space from that first:
 * the consumers' line, which they write on every call, is read again only
 * when that space is too small.  Between two CPUs streaming through a
 * queue this saves a cache-line transfer on most enqueues.  It is safe
 * because a tail only grows: a seen value gives no more space than the
 * current tail would, and the slots it frees were released by the
 * consumers (C) to the producer that read it, which passes that on to the
 * other producers with smp_store_release(&producer.seen), paired with
 * their smp_load_acquire() of it.  A Multi producer's seen value may lag
 * arbitrarily (a slow producer may store an old one): one more than @size
 * behind its head is read again.  Multi consumers keep no such copy: they
 * read producer.tail on every call.
 *
 * Reservation by a Single side (R)
 * --------------------------------
 * A Single producer or consumer has nobody of its own side to reserve
 * slots against, so it reserves all it has seen: when it reads the other
 * side's tail it moves its own head there (a producer to consumer.tail +
 * @size, a consumer to producer.tail), and a call takes its slots from
 * [tail, head) first, reading the other side's line again only when they
 * are too few.  While a backlog streams from one CPU to another, each side
 * then reads the other's line about once per batch of the other's
 * progress, not on every call (a consumer reading producer.tail on every
 * call pulls the producer's line over, and the producer's next store takes
 * it back, once per element each way).  The invariants above hold, as a
 * tail only grows: consumer.head is a past producer.tail, producer.head a
 * past consumer.tail + @size.  A call's slot accesses come after the
 * acquire of (P) or (C) that saw the slots free or published, in the
 * Single side's own order: program order, or the exclusion by which the
 * caller hands the side from one context to the next.  Nobody else reads
 * a Single side's head: alf_queue_count() and alf_queue_avail_space() use
 * the tails.
 *
 * The header also builds in user space (for ThreadSanitizer runs) when
 * qmp/user_compat.h provides the few kernel primitives it uses.
 */
#ifndef _LINUX_ALF_QUEUE_H
#define _LINUX_ALF_QUEUE_H

#ifdef __KERNEL__
#include <linux/qmempool_ns.h>
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/processor.h>
#include <linux/printk.h>
#include <linux/types.h>
#else
#include <qmp/user_compat.h>
#endif

/* Bounds of the number of slots accepted by alf_queue_alloc() */
#define ALF_QUEUE_MIN_SIZE	2U
#define ALF_QUEUE_MAX_SIZE	(1U << 20)

/*
 * Flags of alf_queue_alloc_flags(): the variants a queue will be used
 * with.  Checked only in debug mode; 0 means "learn from the first call".
 */
#define ALF_SP_ENQ	0x1U	/* producers use alf_sp_enqueue*() */
#define ALF_MP_ENQ	0x2U	/* producers use alf_mp_enqueue*() */
#define ALF_SC_DEQ	0x4U	/* consumers use alf_sc_dequeue*() */
#define ALF_MC_DEQ	0x8U	/* consumers use alf_mc_dequeue*() */
#define ALF_ENQ_MASK	(ALF_SP_ENQ | ALF_MP_ENQ)
#define ALF_DEQ_MASK	(ALF_SC_DEQ | ALF_MC_DEQ)

/* Internal debug-state bits in alf_queue.debug_flags */
#define ALF_DBG_WARNED	0

/*
 * The producer's indices, the consumer's and the slots start 128 bytes
 * (two cache lines) apart, wherever the queue lies: the L2 spatial
 * prefetcher of Intel's CPUs completes each 128-byte-aligned pair of
 * 64-byte lines, so a producer's line and a consumer's line that share a
 * pair bounce between their CPUs as one line would (DPDK's rte_ring keeps
 * an empty line between its heads for this).  make bench's user vehicle
 * on an Intel Xeon, the SPSC hand-off between two threads in bulks of 8,
 * three runs each: 4.8 to 5.8 ns per element in the best round and 12.2
 * to 13.7 in the median one with the lines 64 bytes apart, 3.8 to 4.2
 * and 7.3 to 11.2 with them 128 apart (rte_ring: 5.1 to 6.0, 5.9 to 6.9).
 * Those runs had gcc's vectorised slot copy, which the kernel never runs;
 * the rest of the medians' gap was that copy (alf_queue/user/Makefile).
 */
#define ALF_APART	(2 * SMP_CACHE_BYTES)

struct alf_actor {
	u32 head;	/* reserved up to here (exclusive) */
	u32 tail;	/* finished up to here (exclusive) */
	u32 busy;	/* debug mode: a Single call of this side is running */
	u32 seen;	/* Multi producers: consumer.tail + size, last read (S) */
};

/**
 * struct alf_queue - an ALF queue; allocate with alf_queue_alloc()
 * @size: number of slots, a power of two
 * @mask: @size - 1
 * @flags: ALF_{SP,MP}_ENQ | ALF_{SC,MC}_DEQ, declared or learnt (debug mode)
 * @debug_flags: debug-mode state bits (ALF_DBG_*)
 * @debug_misuse: misused calls refused in debug mode
 * @producer: producer side indices, ALF_APART from the rest
 * @consumer: consumer side indices, ALF_APART from the rest
 * @ring: the slots, ALF_APART from the consumer's indices
 */
struct alf_queue {
	u32 size;
	u32 mask;
	u32 flags;
	unsigned long debug_flags;
	atomic_t debug_misuse;
	struct alf_actor producer __aligned(ALF_APART);
	struct alf_actor consumer __aligned(ALF_APART);
	void *ring[] __aligned(ALF_APART);
};

/**
 * alf_queue_check_params() - validate the parameters of a new queue
 * @size: number of slots: a power of two in
 *        [ALF_QUEUE_MIN_SIZE, ALF_QUEUE_MAX_SIZE]
 * @flags: 0, or at most one of ALF_SP_ENQ/ALF_MP_ENQ and at most one of
 *         ALF_SC_DEQ/ALF_MC_DEQ
 *
 * Return: NULL if valid, else a text saying why not.
 */
static inline const char *alf_queue_check_params(u32 size, u32 flags)
{
	if (size < ALF_QUEUE_MIN_SIZE || size > ALF_QUEUE_MAX_SIZE)
		return "size out of bounds";
	if (size & (size - 1))
		return "size not a power of two";
	if (flags & ~(ALF_ENQ_MASK | ALF_DEQ_MASK))
		return "unknown flags";
	if ((flags & ALF_ENQ_MASK) == ALF_ENQ_MASK ||
	    (flags & ALF_DEQ_MASK) == ALF_DEQ_MASK)
		return "both Single and Multi declared for one side";
	return NULL;
}

/**
 * alf_queue_init() - initialise a zeroed queue of @size slots
 * @q: memory for struct alf_queue plus @size slots, zeroed
 * @size: number of slots, valid for alf_queue_check_params()
 * @flags: as for alf_queue_check_params()
 *
 * For users that place the queue themselves (user-space builds); kernel
 * users call alf_queue_alloc().
 */
static inline void alf_queue_init(struct alf_queue *q, u32 size, u32 flags)
{
	q->size = size;
	q->mask = size - 1;
	q->flags = flags;
}

struct alf_queue *alf_queue_alloc(u32 size, gfp_t gfp);
struct alf_queue *alf_queue_alloc_flags(u32 size, u32 flags, gfp_t gfp);
void alf_queue_free(struct alf_queue *q);

DECLARE_STATIC_KEY_FALSE(alf_queue_debug_key);
/* Misused calls refused in debug mode, over all queues */
extern atomic_long_t alf_queue_debug_misuses;

/*
 * Test seam: called in the MP/MC retry loop between the reading of the
 * indices and the cmpxchg() that claims a bulk.  A test module may define
 * it before including this header to make another actor move the queue at
 * that point (alf_queue_test.c); it is empty for everybody else.
 */
#ifndef ALF_QUEUE_RESERVE_HOOK
#define ALF_QUEUE_RESERVE_HOOK(q, actor)	do { (void)(q); (void)(actor); } while (0)
#endif

/* ------------------------------------------------------------------ */
/* Debug mode (cold, out of the fast path)                             */

static inline bool alf_queue_debug_enabled(void)
{
	return static_branch_unlikely(&alf_queue_debug_key);
}

static inline __cold bool __alf_debug_misuse(struct alf_queue *q, const char *why)
{
	atomic_inc(&q->debug_misuse);
	atomic_long_inc(&alf_queue_debug_misuses);
	if (!test_and_set_bit(ALF_DBG_WARNED, &q->debug_flags))
		pr_warn("misuse of ALF queue %p: %s (call refused; further misuse of this queue is counted, not reported)\n",
			q, why);
	return false;
}

/*
 * Returns true when the call may go on.  @variant is one ALF_*_ENQ/DEQ bit,
 * @side the actor it belongs to, @single whether it is a Single variant.
 */
static inline __cold bool __alf_debug_enter(struct alf_queue *q, u32 variant,
					    struct alf_actor *side, bool single)
{
	u32 mask = (variant & ALF_ENQ_MASK) ? ALF_ENQ_MASK : ALF_DEQ_MASK;
	u32 old = READ_ONCE(q->flags);

	while (!(old & mask)) {		/* learn the variant of this side */
		u32 cur = cmpxchg(&q->flags, old, old | variant);

		if (cur == old) {
			old |= variant;
			break;
		}
		old = cur;
	}
	if ((old & mask) != variant)
		return __alf_debug_misuse(q, single ?
			"Single variant on a side declared/used as Multi" :
			"Multi variant on a side declared/used as Single");
	if (single && xchg(&side->busy, 1))
		return __alf_debug_misuse(q,
			"two Single calls of the same side overlap");
	return true;
}

static inline void __alf_debug_exit(struct alf_actor *side)
{
	/* Pairs with the xchg() in __alf_debug_enter() of the next call */
	smp_store_release(&side->busy, 0);
}

/* ------------------------------------------------------------------ */
/* Slot copy helpers, shared by the Single and Multi variants          */

/* @n pointers from @src to @dst: the odd ones, then four at a time */
static __always_inline void __alf_copy(void **dst, void *const *src, u32 n)
{
	if (n & 1)
		*dst++ = *src++;
	if (n & 2) {
		dst[0] = src[0];
		dst[1] = src[1];
		dst += 2;
		src += 2;
	}
	for (n >>= 2; n; n--, dst += 4, src += 4) {
		dst[0] = src[0];
		dst[1] = src[1];
		dst[2] = src[2];
		dst[3] = src[3];
	}
}

/*
 * The @n (>= 1) slots from index @head: one slot directly; a bulk in one
 * straight copy when it does not wrap past the end of the ring (tested as
 * "n - 1 <= mask - idx": no room count to compute first), else the part
 * up to the end and the part from the start.  The ring and its mask are
 * read once (the stores through void ** could alias q->mask for the
 * compiler, which would then reload it on every element).  The ordering
 * is the callers': these are plain accesses to slots that the caller owns
 * between its reservation and its release of a tail.
 */
static __always_inline void __alf_store(struct alf_queue *q, u32 head,
					void *const *ptr, u32 n)
{
	void **ring = q->ring;
	u32 mask = q->mask, idx = head & mask, room;

	if (n == 1) {
		ring[idx] = ptr[0];
	} else if (likely(n - 1 <= mask - idx)) {
		__alf_copy(ring + idx, ptr, n);
	} else {
		room = mask + 1 - idx;
		__alf_copy(ring + idx, ptr, room);
		__alf_copy(ring, ptr + room, n - room);
	}
}

static __always_inline void __alf_load(struct alf_queue *q, u32 head,
				       void **ptr, u32 n)
{
	void **ring = q->ring;
	u32 mask = q->mask, idx = head & mask, room;

	if (n == 1) {
		ptr[0] = ring[idx];
	} else if (likely(n - 1 <= mask - idx)) {
		__alf_copy(ptr, ring + idx, n);
	} else {
		room = mask + 1 - idx;
		__alf_copy(ptr, ring + idx, room);
		__alf_copy(ptr + room, ring, n - room);
	}
}

/*
 * How many of the @want elements a call moves when @have slots (or
 * elements) are there: all or none when @fixed, else as many as there
 * are.  0 when @want is 0.  A fixed call tests "want - 1 >= have" (u32),
 * true for want == 0 and for want > have: one compare.
 */
static __always_inline u32 __alf_bulk_size(u32 want, u32 have, bool fixed)
{
	if (fixed)
		return unlikely(want - 1 >= have) ? 0 : want;
	return min(want, have);
}

/* ------------------------------------------------------------------ */
/* Multi-Producer / Multi-Consumer                                     */

static __always_inline unsigned int
__alf_mp_enqueue(struct alf_queue *q, void *const *ptr, unsigned int want,
		 bool fixed)
{
	unsigned long irqflags;
	u32 p_head, p_next, c_tail, space, n = 0;

	/* want == 0 gives n == 0 below: nothing is moved */
	if (unlikely(in_nmi()))
		return 0;
	if (alf_queue_debug_enabled() &&
	    (!want || !__alf_debug_enter(q, ALF_MP_ENQ, &q->producer, false)))
		return 0;

	local_irq_save(irqflags);
	do {
		/* acquire: the consumer.tail load below comes after this */
		p_head = smp_load_acquire(&q->producer.head);
		/*
		 * First from the last consumer tail read (see "Seen tail");
		 * pairs with smp_store_release(&producer.seen) (S)
		 */
		space = smp_load_acquire(&q->producer.seen) - p_head;
		if (unlikely(space > q->size) || want > space) {
			/* pairs with smp_store_release(&consumer.tail) (C) */
			c_tail = smp_load_acquire(&q->consumer.tail);
			/* (S): passes (C) on to the other producers */
			smp_store_release(&q->producer.seen, c_tail + q->size);
			space = q->size + c_tail - p_head;
		}
		/* From the caller's count on every attempt: space may grow */
		n = __alf_bulk_size(want, space, fixed);
		if (!n)
			goto out;
		p_next = p_head + n;
		ALF_QUEUE_RESERVE_HOOK(q, &q->producer);
	} while (unlikely(cmpxchg(&q->producer.head, p_head, p_next) != p_head));

	__alf_store(q, p_head, ptr, n);

	/*
	 * Wait for earlier producers to publish their slots; acquire so that
	 * their slot stores are ordered before our release below.
	 */
	smp_cond_load_acquire(&q->producer.tail, VAL == p_head);
	/* (P): pairs with smp_load_acquire(&producer.tail) in the consumers */
	smp_store_release(&q->producer.tail, p_next);
out:
	local_irq_restore(irqflags);
	return n;
}

static __always_inline unsigned int
__alf_mc_dequeue(struct alf_queue *q, void **ptr, unsigned int want,
		 bool fixed)
{
	unsigned long irqflags;
	u32 c_head, c_next, p_tail, avail, n = 0;

	/* want == 0 gives n == 0 below, as in __alf_mp_enqueue() */
	if (unlikely(in_nmi()))
		return 0;
	if (alf_queue_debug_enabled() &&
	    (!want || !__alf_debug_enter(q, ALF_MC_DEQ, &q->consumer, false)))
		return 0;

	local_irq_save(irqflags);
	do {
		/* acquire: the producer.tail load below comes after this */
		c_head = smp_load_acquire(&q->consumer.head);
		/* pairs with smp_store_release(&producer.tail) (P) */
		p_tail = smp_load_acquire(&q->producer.tail);
		avail = p_tail - c_head;
		/* From the caller's count on every attempt, as above */
		n = __alf_bulk_size(want, avail, fixed);
		if (!n)
			goto out;
		c_next = c_head + n;
		ALF_QUEUE_RESERVE_HOOK(q, &q->consumer);
	} while (unlikely(cmpxchg(&q->consumer.head, c_head, c_next) != c_head));

	__alf_load(q, c_head, ptr, n);

	/* Wait for earlier consumers; acquire as in __alf_mp_enqueue() */
	smp_cond_load_acquire(&q->consumer.tail, VAL == c_head);
	/* (C): pairs with smp_load_acquire(&consumer.tail) in the producers */
	smp_store_release(&q->consumer.tail, c_next);
out:
	local_irq_restore(irqflags);
	return n;
}

/* ------------------------------------------------------------------ */
/* Single-Producer / Single-Consumer                                   */

/* Write the @n slots from @p_tail on and publish them */
static __always_inline unsigned int
__alf_sp_put(struct alf_queue *q, u32 p_tail, void *const *ptr, unsigned int n)
{
	u32 next = p_tail + n;

	__alf_store(q, p_tail, ptr, n);
	/* (P): pairs with smp_load_acquire(&producer.tail) in the consumers */
	smp_store_release(&q->producer.tail, next);
	return n;
}

/* Read the @n slots from @c_tail on and release them */
static __always_inline unsigned int
__alf_sc_take(struct alf_queue *q, u32 c_tail, void **ptr, unsigned int n)
{
	u32 next = c_tail + n;

	__alf_load(q, c_tail, ptr, n);
	/* (C): pairs with smp_load_acquire(&consumer.tail) in the producers */
	smp_store_release(&q->consumer.tail, next);
	return n;
}

/*
 * The debug mode wraps the Single variants out of the way, so that their
 * fast path carries no state to its end.  "n - 1 >= space" (u32) is
 * "n == 0 or n > space" in one compare; a short call (variable, fewer than
 * @n) has a put of its own, so that the common one's @n stays the caller's.
 */
static __always_inline unsigned int
__alf_sp_enqueue_nodebug(struct alf_queue *q, void *const *ptr,
			 unsigned int n, bool fixed)
{
	u32 p_tail, c_tail, space;

	p_tail = q->producer.tail;	/* only we write it */
	/* First what we reserved (see "Reservation by a Single side") */
	space = q->producer.head - p_tail;
	if (n - 1 >= space) {
		/* pairs with smp_store_release(&consumer.tail) (C) */
		c_tail = smp_load_acquire(&q->consumer.tail);
		q->producer.head = c_tail + q->size;	/* (R): only we use it */
		space = q->size + c_tail - p_tail;
		if (n - 1 >= space) {
			if (fixed || !n || !space)
				return 0;
			return __alf_sp_put(q, p_tail, ptr, space);
		}
	}
	return __alf_sp_put(q, p_tail, ptr, n);
}

static inline __cold unsigned int
__alf_sp_enqueue_debug(struct alf_queue *q, void *const *ptr, unsigned int n,
		       bool fixed)
{
	if (!n || !__alf_debug_enter(q, ALF_SP_ENQ, &q->producer, true))
		return 0;
	n = __alf_sp_enqueue_nodebug(q, ptr, n, fixed);
	__alf_debug_exit(&q->producer);
	return n;
}

static __always_inline unsigned int
__alf_sp_enqueue(struct alf_queue *q, void *const *ptr, unsigned int n,
		 bool fixed)
{
	if (alf_queue_debug_enabled())
		return __alf_sp_enqueue_debug(q, ptr, n, fixed);
	return __alf_sp_enqueue_nodebug(q, ptr, n, fixed);
}

/* As __alf_sp_enqueue_nodebug() */
static __always_inline unsigned int
__alf_sc_dequeue_nodebug(struct alf_queue *q, void **ptr, unsigned int n,
			 bool fixed)
{
	u32 c_tail, p_tail, avail;

	c_tail = q->consumer.tail;	/* only we write it */
	/* First what we reserved (see "Reservation by a Single side") */
	avail = q->consumer.head - c_tail;
	if (n - 1 >= avail) {
		/* pairs with smp_store_release(&producer.tail) (P) */
		p_tail = smp_load_acquire(&q->producer.tail);
		q->consumer.head = p_tail;	/* (R): only we use it */
		avail = p_tail - c_tail;
		if (n - 1 >= avail) {
			if (fixed || !n || !avail)
				return 0;
			return __alf_sc_take(q, c_tail, ptr, avail);
		}
	}
	return __alf_sc_take(q, c_tail, ptr, n);
}

static inline __cold unsigned int
__alf_sc_dequeue_debug(struct alf_queue *q, void **ptr, unsigned int n,
		       bool fixed)
{
	if (!n || !__alf_debug_enter(q, ALF_SC_DEQ, &q->consumer, true))
		return 0;
	n = __alf_sc_dequeue_nodebug(q, ptr, n, fixed);
	__alf_debug_exit(&q->consumer);
	return n;
}

static __always_inline unsigned int
__alf_sc_dequeue(struct alf_queue *q, void **ptr, unsigned int n, bool fixed)
{
	if (alf_queue_debug_enabled())
		return __alf_sc_dequeue_debug(q, ptr, n, fixed);
	return __alf_sc_dequeue_nodebug(q, ptr, n, fixed);
}

/* ------------------------------------------------------------------ */
/* The API                                                             */

/**
 * alf_mp_enqueue() - multi-producer enqueue of a bulk, all or nothing
 * @q: the queue
 * @ptr: array of @n pointers to enqueue, in this order
 * @n: number of pointers
 *
 * Context: any but NMI (returns 0 there); see the top of this file.
 * Return: @n if all were enqueued, else 0 and the queue is unchanged.
 */
static __always_inline unsigned int
alf_mp_enqueue(struct alf_queue *q, void *const *ptr, unsigned int n)
{
	return __alf_mp_enqueue(q, ptr, n, true);
}

/**
 * alf_mp_enqueue_variable() - multi-producer enqueue of as many as fit
 * @q: the queue
 * @ptr: array of @n pointers; the first ones returned are enqueued
 * @n: number of pointers
 *
 * Context: any but NMI (returns 0 there).
 * Return: number of pointers enqueued, 0..@n.
 */
static __always_inline unsigned int
alf_mp_enqueue_variable(struct alf_queue *q, void *const *ptr, unsigned int n)
{
	return __alf_mp_enqueue(q, ptr, n, false);
}

/**
 * alf_mc_dequeue() - multi-consumer dequeue of up to @n elements
 * @q: the queue
 * @ptr: array receiving the elements, oldest first
 * @n: room in @ptr
 *
 * Context: any but NMI (returns 0 there).
 * Return: number of elements dequeued, 0..@n.
 */
static __always_inline unsigned int
alf_mc_dequeue(struct alf_queue *q, void **ptr, unsigned int n)
{
	return __alf_mc_dequeue(q, ptr, n, false);
}

/**
 * alf_mc_dequeue_fixed() - multi-consumer dequeue of exactly @n elements
 * @q: the queue
 * @ptr: array receiving the elements, oldest first
 * @n: number of elements wanted
 *
 * Context: any but NMI (returns 0 there).
 * Return: @n, or 0 (queue unchanged) if fewer than @n were available.
 */
static __always_inline unsigned int
alf_mc_dequeue_fixed(struct alf_queue *q, void **ptr, unsigned int n)
{
	return __alf_mc_dequeue(q, ptr, n, true);
}

/**
 * alf_sp_enqueue() - single-producer enqueue of a bulk, all or nothing
 * @q: the queue
 * @ptr: array of @n pointers to enqueue, in this order
 * @n: number of pointers
 *
 * Context: the caller guarantees it is the only producer of @q for the
 * duration of the call; any context.
 * Return: @n if all were enqueued, else 0 and the queue is unchanged.
 */
static __always_inline unsigned int
alf_sp_enqueue(struct alf_queue *q, void *const *ptr, unsigned int n)
{
	return __alf_sp_enqueue(q, ptr, n, true);
}

/**
 * alf_sp_enqueue_variable() - single-producer enqueue of as many as fit
 * @q: the queue
 * @ptr: array of @n pointers; the first ones returned are enqueued
 * @n: number of pointers
 *
 * Context: as alf_sp_enqueue().
 * Return: number of pointers enqueued, 0..@n.
 */
static __always_inline unsigned int
alf_sp_enqueue_variable(struct alf_queue *q, void *const *ptr, unsigned int n)
{
	return __alf_sp_enqueue(q, ptr, n, false);
}

/**
 * alf_sc_dequeue() - single-consumer dequeue of up to @n elements
 * @q: the queue
 * @ptr: array receiving the elements, oldest first
 * @n: room in @ptr
 *
 * Context: the caller guarantees it is the only consumer of @q for the
 * duration of the call; any context.
 * Return: number of elements dequeued, 0..@n.
 */
static __always_inline unsigned int
alf_sc_dequeue(struct alf_queue *q, void **ptr, unsigned int n)
{
	return __alf_sc_dequeue(q, ptr, n, false);
}

/**
 * alf_sc_dequeue_fixed() - single-consumer dequeue of exactly @n elements
 * @q: the queue
 * @ptr: array receiving the elements, oldest first
 * @n: number of elements wanted
 *
 * Context: as alf_sc_dequeue().
 * Return: @n, or 0 (queue unchanged) if fewer than @n were available.
 */
static __always_inline unsigned int
alf_sc_dequeue_fixed(struct alf_queue *q, void **ptr, unsigned int n)
{
	return __alf_sc_dequeue(q, ptr, n, true);
}

/**
 * alf_queue_count() - number of published elements not yet dequeued
 * @q: the queue
 *
 * A snapshot: exact when no call on @q runs concurrently.
 * Return: 0..size.
 */
static inline unsigned int alf_queue_count(struct alf_queue *q)
{
	/* acquire: the producer.tail load comes after the consumer.tail one */
	u32 c_tail = smp_load_acquire(&q->consumer.tail);
	u32 p_tail = READ_ONCE(q->producer.tail);

	return min(p_tail - c_tail, q->size);
}

/**
 * alf_queue_empty() - whether alf_queue_count() is 0
 * @q: the queue
 *
 * Return: true if no published element is waiting to be dequeued.
 */
static inline bool alf_queue_empty(struct alf_queue *q)
{
	return alf_queue_count(q) == 0;
}

/**
 * alf_queue_avail_space() - number of slots free for enqueueing
 * @q: the queue
 *
 * A snapshot: exact when no call on @q runs concurrently.
 * Return: 0..size.
 */
static inline unsigned int alf_queue_avail_space(struct alf_queue *q)
{
	/* acquire: the consumer.tail load comes after the producer.tail one */
	u32 p_tail = smp_load_acquire(&q->producer.tail);
	u32 c_tail = READ_ONCE(q->consumer.tail);

	return min(q->size + c_tail - p_tail, q->size);
}

#endif /* _LINUX_ALF_QUEUE_H */
