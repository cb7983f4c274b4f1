/* SPDX-License-Identifier: GPL-2.0 */
/*
 * alf_stress.h - the ALF queue stress test, shared by the kernel test module
 * (kthreads and hrtimers on every vCPU) and the user-space ThreadSanitizer
 * program (pthreads): the same code checks the same properties.
 *
 * Producer p enqueues tokens p*tokens+1 .. p*tokens+quota(p), in order,
 * in random bulks with randomly fixed or variable semantics; quota(p) is
 * tokens, or short_tokens for the producers from short_first on (the
 * kernel's hardirq timers: an emulated machine fires them a few hundred
 * to a few thousand times a second, which would make full-length streams
 * the whole duration of the case without testing more).  A run may be
 * cut short (alf_stress_finish(), the kernel's time budget): then every
 * producer stops where it is and the tokens made so far are the ones
 * checked, each of them.  Consumers
 * dequeue random bulks and check every token:
 *   - it is a token some producer made (range);
 *   - per producer, each consumer sees increasing sequence numbers (FIFO:
 *     one producer's tokens leave the queue in the order they entered);
 *   - it was not seen before (a shared bitmap per producer, set atomically);
 *   - a fixed-semantics call moved all of its bulk or nothing.
 * At the end every token made must have been seen (none lost) and the
 * queue be empty.
 *
 * The environment supplies: the alf_queue API, atomic_t/atomic_long_t,
 * test_and_set_bit(), find_first_zero_bit(), kvcalloc()/kvfree().
 */
#ifndef _ALF_STRESS_H
#define _ALF_STRESS_H

#define ALF_STRESS_MAX_BULK	64

struct alf_stress_cfg {
	unsigned int producers;		/* token streams */
	unsigned int consumers;		/* consumer states */
	unsigned long tokens;		/* per producer, and each one's range */
	unsigned int short_first;	/* producers from here on ... */
	unsigned long short_tokens;	/* ... make this many (<= tokens) */
	unsigned int max_bulk;		/* 1..ALF_STRESS_MAX_BULK */
	bool single_producer;		/* alf_sp_* (then producers == 1) */
	bool single_consumer;		/* alf_sc_* (then consumers == 1) */
};

/* One token stream or one consumer; owned by one thread/timer at a time */
struct alf_stress_actor {
	unsigned long seq;		/* producer: next sequence number */
	bool done;			/* producer: finished (counted once) */
	unsigned long *last;		/* consumer: last seq seen, per producer */
	u32 rnd;			/* xorshift state */
	void *buf[ALF_STRESS_MAX_BULK];
};

struct alf_stress {
	struct alf_stress_cfg cfg;
	struct alf_queue *q;
	unsigned long **seen;		/* per producer bitmap of tokens */
	struct alf_stress_actor *prod, *cons;
	atomic_long_t consumed;
	atomic_t producers_done;	/* producers that made their last token */
	atomic_t finish;		/* producers: stop where you are */
	atomic_t errors;
	atomic_t stop;			/* set on error or timeout */
	char error[128];		/* the first error */
};

static inline u32 alf_stress_rand(struct alf_stress_actor *a)
{
	u32 x = a->rnd;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	a->rnd = x;
	return x;
}

static inline __printf(2, 3) void
alf_stress_error(struct alf_stress *s, const char *fmt, ...)
{
	va_list args;

	if (atomic_inc_return(&s->errors) == 1) {
		va_start(args, fmt);
		vsnprintf(s->error, sizeof(s->error), fmt, args);
		va_end(args);
	}
	atomic_set(&s->stop, 1);
}

/* How many tokens producer @p makes */
static inline unsigned long alf_stress_quota(const struct alf_stress *s,
					     unsigned int p)
{
	return p >= s->cfg.short_first ? s->cfg.short_tokens : s->cfg.tokens;
}

/* Every producer's quota: the most a run can make */
static inline unsigned long alf_stress_total(const struct alf_stress *s)
{
	unsigned int shorts = s->cfg.producers - min(s->cfg.short_first,
						     s->cfg.producers);

	return s->cfg.tokens * (s->cfg.producers - shorts) +
	       s->cfg.short_tokens * shorts;
}

/*
 * The tokens the producers made; final once they are all done (each
 * one's seq is then stable, ordered by producers_done's full barrier)
 */
static inline unsigned long alf_stress_made(struct alf_stress *s)
{
	unsigned long made = 0;
	unsigned int p;

	for (p = 0; p < s->cfg.producers; p++)
		made += READ_ONCE(s->prod[p].seq);
	return made;
}

static inline bool alf_stress_producers_done(struct alf_stress *s)
{
	/* pairs with atomic_inc_return() in alf_stress_producer_done() */
	return atomic_read_acquire(&s->producers_done) == s->cfg.producers;
}

/* Consumers: true once every token made is consumed (or on an error) */
static inline bool alf_stress_done(struct alf_stress *s)
{
	return atomic_read(&s->stop) ||
	       (alf_stress_producers_done(s) &&
		atomic_long_read(&s->consumed) >= alf_stress_made(s));
}

/* Cut the run short: every producer stops at its next attempt */
static inline void alf_stress_finish(struct alf_stress *s)
{
	atomic_set(&s->finish, 1);
}

/* Producer @p made its last token: counted once, then true for ever */
static inline bool alf_stress_producer_done(struct alf_stress *s,
					    unsigned int p)
{
	struct alf_stress_actor *a = &s->prod[p];

	if (!a->done) {
		a->done = true;
		/* fully ordered: our seq before the count (alf_stress_made) */
		atomic_inc_return(&s->producers_done);
	}
	return true;
}

/*
 * One enqueue attempt of producer @p.  Returns true when the producer has
 * nothing left to do.  Sets *@moved to the number enqueued.
 */
static inline bool alf_stress_produce(struct alf_stress *s, unsigned int p,
				      unsigned int *moved)
{
	struct alf_stress_actor *a = &s->prod[p];
	unsigned long left = alf_stress_quota(s, p) - a->seq;
	u32 r = alf_stress_rand(a);
	unsigned int i, n, bulk = 1 + r % s->cfg.max_bulk;
	bool fixed = r & 0x10000;

	*moved = 0;
	if (!left || atomic_read(&s->stop) || atomic_read(&s->finish))
		return alf_stress_producer_done(s, p);
	if (bulk > left)
		bulk = left;
	for (i = 0; i < bulk; i++)
		a->buf[i] = (void *)(p * s->cfg.tokens + a->seq + i + 1);

	if (s->cfg.single_producer)
		n = fixed ? alf_sp_enqueue(s->q, a->buf, bulk) :
			    alf_sp_enqueue_variable(s->q, a->buf, bulk);
	else
		n = fixed ? alf_mp_enqueue(s->q, a->buf, bulk) :
			    alf_mp_enqueue_variable(s->q, a->buf, bulk);
	if (n > bulk || (fixed && n && n != bulk))
		alf_stress_error(s, "producer %u: %s enqueue of %u moved %u",
				 p, fixed ? "fixed" : "variable", bulk, n);
	WRITE_ONCE(a->seq, a->seq + n);
	*moved = n;
	return a->seq == alf_stress_quota(s, p) &&
	       alf_stress_producer_done(s, p);
}

/* One dequeue attempt of consumer @c; returns the number dequeued */
static inline unsigned int alf_stress_consume(struct alf_stress *s,
					      unsigned int c)
{
	struct alf_stress_actor *a = &s->cons[c];
	u32 r = alf_stress_rand(a);
	unsigned int i, n, bulk = 1 + r % s->cfg.max_bulk;
	bool fixed = r & 0x10000;

	if (s->cfg.single_consumer)
		n = fixed ? alf_sc_dequeue_fixed(s->q, a->buf, bulk) :
			    alf_sc_dequeue(s->q, a->buf, bulk);
	else
		n = fixed ? alf_mc_dequeue_fixed(s->q, a->buf, bulk) :
			    alf_mc_dequeue(s->q, a->buf, bulk);
	if (n > bulk || (fixed && n && n != bulk))
		alf_stress_error(s, "consumer %u: %s dequeue of %u moved %u",
				 c, fixed ? "fixed" : "variable", bulk, n);

	for (i = 0; i < n && i < bulk; i++) {
		unsigned long v = (unsigned long)a->buf[i];
		unsigned long p, seq;

		if (!v || v > s->cfg.tokens * s->cfg.producers) {
			alf_stress_error(s, "consumer %u: bogus token %#lx",
					 c, v);
			break;
		}
		p = (v - 1) / s->cfg.tokens;
		seq = (v - 1) % s->cfg.tokens;
		if (seq >= alf_stress_quota(s, p)) {
			alf_stress_error(s, "consumer %u: bogus token %#lx",
					 c, v);
			break;
		}
		if (a->last[p] != ULONG_MAX && seq <= a->last[p])
			alf_stress_error(s, "consumer %u: producer %lu token %lu after %lu (FIFO order broken)",
					 c, p, seq, a->last[p]);
		a->last[p] = seq;
		if (test_and_set_bit(seq, s->seen[p]))
			alf_stress_error(s, "producer %lu token %lu dequeued twice",
					 p, seq);
	}
	if (n)
		atomic_long_add(n, &s->consumed);
	return n;
}

static inline void alf_stress_free(struct alf_stress *s)
{
	unsigned int i;

	if (s->seen)
		for (i = 0; i < s->cfg.producers; i++)
			kvfree(s->seen[i]);
	if (s->cons)
		for (i = 0; i < s->cfg.consumers; i++)
			kvfree(s->cons[i].last);
	kvfree(s->seen);
	kvfree(s->prod);
	kvfree(s->cons);
}

/* Set up @s for @q and @cfg; returns 0 or -ENOMEM (then freed) */
static inline int alf_stress_init(struct alf_stress *s, struct alf_queue *q,
				  const struct alf_stress_cfg *cfg, u32 seed)
{
	unsigned int i, p;

	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	if (!cfg->short_first && !cfg->short_tokens)	/* no short streams */
		s->cfg.short_first = cfg->producers;
	s->q = q;
	s->seen = kvcalloc(cfg->producers, sizeof(*s->seen), GFP_KERNEL);
	s->prod = kvcalloc(cfg->producers, sizeof(*s->prod), GFP_KERNEL);
	s->cons = kvcalloc(cfg->consumers, sizeof(*s->cons), GFP_KERNEL);
	if (!s->seen || !s->prod || !s->cons)
		goto nomem;
	for (p = 0; p < cfg->producers; p++) {
		s->seen[p] = kvcalloc(BITS_TO_LONGS(cfg->tokens),
				      sizeof(unsigned long), GFP_KERNEL);
		if (!s->seen[p])
			goto nomem;
		s->prod[p].rnd = seed + 2 * p + 1;
	}
	for (i = 0; i < cfg->consumers; i++) {
		s->cons[i].last = kvcalloc(cfg->producers,
					   sizeof(unsigned long), GFP_KERNEL);
		if (!s->cons[i].last)
			goto nomem;
		for (p = 0; p < cfg->producers; p++)
			s->cons[i].last[p] = ULONG_MAX;
		s->cons[i].rnd = seed + 2 * (cfg->producers + i) + 1;
	}
	return 0;
nomem:
	alf_stress_free(s);
	return -ENOMEM;
}

/*
 * Final accounting, after every actor stopped.  Returns true if every
 * token made arrived exactly once, else false with the reason in
 * s->error.
 */
static inline bool alf_stress_verify(struct alf_stress *s)
{
	unsigned long got = atomic_long_read(&s->consumed);
	unsigned long made = alf_stress_made(s);
	unsigned int p;

	if (atomic_read(&s->errors))
		return false;
	for (p = 0; p < s->cfg.producers; p++) {
		unsigned long miss = find_first_zero_bit(s->seen[p],
							 s->prod[p].seq);

		if (miss < s->prod[p].seq) {
			snprintf(s->error, sizeof(s->error),
				 "producer %u token %lu lost (%lu/%lu consumed, %u queued)",
				 p, miss, got, made, alf_queue_count(s->q));
			return false;
		}
	}
	if (got != made || !alf_queue_empty(s->q)) {
		snprintf(s->error, sizeof(s->error),
			 "consumed %lu of %lu, %u left queued", got, made,
			 alf_queue_count(s->q));
		return false;
	}
	return true;
}

#endif /* _ALF_STRESS_H */
