/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring_user_bench.h - what the two halves of alf_queue_user_bench share:
 * the timing, the one-thread and two-thread cases as a macro over a
 * queue's enqueue and dequeue calls, and the table entry of a queue.
 *
 * The ALF cases are compiled in a file of their own (ring_user_alf.c),
 * with the kernel's code generation options; DPDK's and Concurrency
 * Kit's cases with the options their users build them with
 * (alf_queue_user_bench.c).  See the Makefile.
 */
#ifndef _RING_USER_BENCH_H
#define _RING_USER_BENCH_H

#include <pthread.h>
#include <time.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include "alf_user.h"

#define QSIZE		1024U
#define MAX_BULK	32U

struct stamp {
	u64 ns;
	u64 cyc;
};

struct sample {
	u64 ps;		/* picoseconds per element */
	u64 mcyc;	/* cycles per element, times 1000 */
};

static inline u64 read_cycles(void)
{
#ifdef __x86_64__
	return __rdtsc();
#else
	return 0;
#endif
}

static inline u64 read_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void stamp_start(struct stamp *t)
{
	t->cyc = read_cycles();
	t->ns = read_ns();
}

static inline void stamp_stop(struct stamp *t)
{
	t->ns = read_ns();
	t->cyc = read_cycles();
}

static inline void sample_set(struct sample *s, const struct stamp *t0,
			      const struct stamp *t1, unsigned long done)
{
	s->ps = (t1->ns - t0->ns) * 1000 / done;
	s->mcyc = (t1->cyc - t0->cyc) * 1000 / done;
}

/* The compiler must not drop the dequeued pointers nobody reads */
static inline void barrier_data(void *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

/* One 2-thread transfer: pointers 1..total, checked in order */
struct xfer {
	void *r;
	unsigned long total;
	unsigned int bulk;
	int ready;		/* threads pinned and waiting */
	int go;			/* set by the main thread at t0 */
	bool error;
	struct stamp end;	/* the consumer's last element */
};

/* Wait for the main thread, which pins us first, to start the clock */
static inline void xfer_start(struct xfer *x)
{
	__atomic_add_fetch(&x->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&x->go, __ATOMIC_ACQUIRE))
		cpu_relax();
}

/*
 * The cases of one queue and variant, with its enqueue and dequeue calls
 * inlined: name##_bulk() (one thread, @loops elements in bulks of @n),
 * name##_producer() and name##_consumer() (the two threads of a struct
 * xfer).  Waiting is cpu_relax(), the "pause" of every queue's own loops.
 */
#define RING_BENCH(name, enq, deq)					\
static int name##_bulk(void *r, unsigned int n, unsigned long loops,	\
		       struct sample *s)				\
{									\
	void *objs[MAX_BULK] = { NULL }, *out[MAX_BULK];		\
	unsigned long i, steps = loops / n;				\
	struct stamp t0, t1;						\
									\
	stamp_start(&t0);						\
	for (i = 0; i < steps; i++) {					\
		if (unlikely(enq(r, objs, n) != n ||			\
			     deq(r, out, n) != n))			\
			return -1;					\
		barrier_data(out);					\
	}								\
	stamp_stop(&t1);						\
	sample_set(s, &t0, &t1, steps * n);				\
	return 0;							\
}									\
									\
static void *name##_producer(void *arg)				\
{									\
	struct xfer *x = arg;						\
	void *objs[MAX_BULK];						\
	unsigned long sent = 0;						\
	unsigned int i, k, m;						\
									\
	xfer_start(x);							\
	while (sent < x->total) {					\
		k = min(x->total - sent, (unsigned long)x->bulk);	\
		for (i = 0; i < k; i++)					\
			objs[i] = (void *)(uintptr_t)(sent + i + 1);	\
		for (;;) {						\
			m = enq(x->r, objs, k);				\
			if (m)						\
				break;					\
			cpu_relax();					\
		}							\
		sent += m;						\
	}								\
	return NULL;							\
}									\
									\
static void *name##_consumer(void *arg)				\
{									\
	struct xfer *x = arg;						\
	void *out[MAX_BULK];						\
	unsigned long got = 0;						\
	unsigned int i, k, m;						\
									\
	xfer_start(x);							\
	while (got < x->total) {					\
		k = min(x->total - got, (unsigned long)x->bulk);	\
		m = deq(x->r, out, k);					\
		if (!m) {						\
			cpu_relax();					\
			continue;					\
		}							\
		for (i = 0; i < m; i++)					\
			if (out[i] != (void *)(uintptr_t)(got + i + 1))	\
				x->error = true;			\
		got += m;						\
	}								\
	stamp_stop(&x->end);						\
	return NULL;							\
}

struct ring_impl {
	const char *name;	/* <lib>_<variant> */
	bool single;
	void *(*create)(bool single);
	int (*bulk)(void *r, unsigned int n, unsigned long loops,
		    struct sample *s);
	void *(*producer)(void *arg);
	void *(*consumer)(void *arg);
};

#define RING_IMPL(lib, v, single) \
	{ #lib "_" #v, single, lib##_create, lib##_##v##_bulk, \
	  lib##_##v##_producer, lib##_##v##_consumer }

/* ring_user_alf.c */
extern const struct ring_impl ring_user_alf_mpmc, ring_user_alf_spsc;

#endif /* _RING_USER_BENCH_H */
