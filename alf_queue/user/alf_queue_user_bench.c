// SPDX-License-Identifier: GPL-2.0
/*
 * alf_queue_user_bench - include/linux/alf_queue.h built natively in user
 * space (-O2, no sanitizer) and timed beside DPDK's rte_ring and
 * Concurrency Kit's ck_ring, same queue size, same loops.
 *
 * Cases, suite ring_user, <lib> alf, rte or ck, <variant> mpmc or spsc:
 *   <lib>_<variant>_bulk<N>       one thread (CPU 0): enqueue a bulk of N,
 *                                 dequeue N; N = 1, 2, 4, 8, 16, 32
 *   <lib>_<variant>_2thr_bulk<N>  producer pinned to CPU 0, consumer to
 *                                 CPU 1, bulks of up to N; N = 1, 8; run
 *                                 in rounds, every case once per round
 * Each prints one line in the time_bench format (include/qmp/time_bench.h)
 * with ctx=user: ns and cycles (TSC ticks) per element, median of the
 * runs.
 *
 * Bulk calls: ALF alf_{mp,sp}_enqueue() and alf_{mc,sc}_dequeue_fixed(),
 * rte_ring rte_ring_{mp,sp}_enqueue_bulk() and _{mc,sc}_dequeue_bulk(),
 * all or nothing; ck_ring has no bulk call, so a bulk is a loop of
 * ck_ring_{en,de}queue_{mpmc,spsc}() stopping at the first failure.
 * Queues have 1024 slots (rte_ring and ck_ring use 1023 of them).
 * rte_ring needs no EAL here: rte_ring_init() on our own memory of
 * rte_ring_get_memsize() bytes, no hugepages, no devices.
 *
 * Each queue is compiled as its users build it: the ALF cases
 * (ring_user_alf.c) as the kernel builds the queue, general registers
 * only; rte_ring and ck_ring here, with DPDK's flags (SSE4.2, and gcc's
 * vectoriser, on at -O2).  The harness is ring_user_bench.h.
 *
 * Usage: alf_queue_user_bench [loops [runs [elements-2thr]]]
 */
#include <unistd.h>
#include <rte_ring.h>
#include <ck_ring.h>

#include "ring_user_bench.h"

#define MAX_RUNS	64U

static const unsigned int bulks[] = { 1, 2, 4, 8, 16, 32 };
static const unsigned int bulks_2thr[] = { 1, 8 };

static unsigned long loops = 200000;	/* elements per single-thread run */
static unsigned int runs = 21;
static unsigned long elems = 2000000;	/* elements per 2-thread run */

/* ------------------------------------------------------------------ */
/* Timing, as time_bench.ko: per element, median run by time           */

static int sample_cmp(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return x->ps < y->ps ? -1 : x->ps > y->ps;
}

static void report(const char *name, struct sample *s, unsigned long n,
		   unsigned int cpus)
{
	const struct sample *med = &s[runs / 2];
	char cyc[32] = "-";

	qsort(s, runs, sizeof(*s), sample_cmp);	/* med: the median now */
	if (read_cycles())
		snprintf(cyc, sizeof(cyc), "%llu.%03llu",
			 (unsigned long long)(med->mcyc / 1000),
			 (unsigned long long)(med->mcyc % 1000));
	printf("time_bench: ring_user/%s ns=%llu.%03llu ns_min=%llu.%03llu cycles=%s n=%lu runs=%u cpus=%u ctx=user\n",
	       name, (unsigned long long)(med->ps / 1000),
	       (unsigned long long)(med->ps % 1000),
	       (unsigned long long)(s[0].ps / 1000),
	       (unsigned long long)(s[0].ps % 1000), cyc, n, runs, cpus);
	fflush(stdout);
}

static int pin_to_cpu(pthread_t thread, unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(thread, sizeof(set), &set);
}

/* ------------------------------------------------------------------ */
/* DPDK's and CK's queues behind one calling convention, forced inline */

static void *rte_create(bool single)
{
	ssize_t bytes = rte_ring_get_memsize(QSIZE);
	struct rte_ring *r;

	if (bytes < 0)
		return NULL;
	r = aligned_alloc(RTE_CACHE_LINE_SIZE,
			  RTE_ALIGN_CEIL(bytes, RTE_CACHE_LINE_SIZE));
	if (r && rte_ring_init(r, "ring_user", QSIZE,
			       single ? RING_F_SP_ENQ | RING_F_SC_DEQ : 0)) {
		free(r);
		r = NULL;
	}
	return r;
}

static __always_inline unsigned int
rte_mpmc_enq(void *r, void *const *p, unsigned int n)
{
	return rte_ring_mp_enqueue_bulk(r, p, n, NULL);
}

static __always_inline unsigned int
rte_mpmc_deq(void *r, void **p, unsigned int n)
{
	return rte_ring_mc_dequeue_bulk(r, p, n, NULL);
}

static __always_inline unsigned int
rte_spsc_enq(void *r, void *const *p, unsigned int n)
{
	return rte_ring_sp_enqueue_bulk(r, p, n, NULL);
}

static __always_inline unsigned int
rte_spsc_deq(void *r, void **p, unsigned int n)
{
	return rte_ring_sc_dequeue_bulk(r, p, n, NULL);
}

struct ck_queue {
	struct ck_ring ring;
	struct ck_ring_buffer buf[];
};

static void *ck_create(bool single)
{
	size_t bytes = sizeof(struct ck_queue) +
		       QSIZE * sizeof(struct ck_ring_buffer);
	struct ck_queue *q = aligned_alloc(64, (bytes + 63) & ~(size_t)63);

	if (q) {
		memset(q, 0, bytes);
		ck_ring_init(&q->ring, QSIZE);
	}
	return q;
}

/* ck has no bulk calls: a bulk is a loop that stops at the first failure */
#define CK_BULK(v)							\
static __always_inline unsigned int					\
ck_##v##_enq(void *r, void *const *p, unsigned int n)			\
{									\
	struct ck_queue *q = r;						\
	unsigned int i;							\
									\
	for (i = 0; i < n; i++)						\
		if (!ck_ring_enqueue_##v(&q->ring, q->buf, p[i]))	\
			break;						\
	return i;							\
}									\
									\
static __always_inline unsigned int					\
ck_##v##_deq(void *r, void **p, unsigned int n)				\
{									\
	struct ck_queue *q = r;						\
	unsigned int i;							\
									\
	for (i = 0; i < n; i++)						\
		if (!ck_ring_dequeue_##v(&q->ring, q->buf, &p[i]))	\
			break;						\
	return i;							\
}

CK_BULK(mpmc)
CK_BULK(spsc)

/* ------------------------------------------------------------------ */
/* The cases, one set per queue and variant, with enq/deq inlined      */

RING_BENCH(rte_mpmc, rte_mpmc_enq, rte_mpmc_deq)
RING_BENCH(rte_spsc, rte_spsc_enq, rte_spsc_deq)
RING_BENCH(ck_mpmc, ck_mpmc_enq, ck_mpmc_deq)
RING_BENCH(ck_spsc, ck_spsc_enq, ck_spsc_deq)

static const struct ring_impl rte_mpmc = RING_IMPL(rte, mpmc, false);
static const struct ring_impl ck_mpmc = RING_IMPL(ck, mpmc, false);
static const struct ring_impl rte_spsc = RING_IMPL(rte, spsc, true);
static const struct ring_impl ck_spsc = RING_IMPL(ck, spsc, true);

static const struct ring_impl *const impls[] = {
	&ring_user_alf_mpmc, &rte_mpmc, &ck_mpmc,
	&ring_user_alf_spsc, &rte_spsc, &ck_spsc,
};

/* ------------------------------------------------------------------ */

/*
 * The one-thread cases in rounds too: each round runs every queue and bulk
 * once, on a queue of its own after a warm-up run, so that a slow spell of
 * the host (a vCPU sharing its core, a frequency step) hits every queue
 * alike instead of the few cases that ran during it; each case's figure is
 * the median of its rounds.
 */
static int run_single_rounds(void)
{
	static struct sample s[ARRAY_SIZE(impls)][ARRAY_SIZE(bulks)][MAX_RUNS];
	unsigned int r, i, j;
	char name[64];
	void *q;
	int err;

	for (r = 0; r < runs; r++)
		for (i = 0; i < ARRAY_SIZE(impls); i++)
			for (j = 0; j < ARRAY_SIZE(bulks); j++) {
				q = impls[i]->create(impls[i]->single);
				err = !q ||
				      impls[i]->bulk(q, bulks[j], loops, &s[i][j][r]) ||
				      impls[i]->bulk(q, bulks[j], loops, &s[i][j][r]);
				free(q);
				if (err) {
					fprintf(stderr, "ring_user: %s_bulk%u failed\n",
						impls[i]->name, bulks[j]);
					return -1;
				}
			}
	for (i = 0; i < ARRAY_SIZE(impls); i++)
		for (j = 0; j < ARRAY_SIZE(bulks); j++) {
			snprintf(name, sizeof(name), "%s_bulk%u",
				 impls[i]->name, bulks[j]);
			report(name, s[i][j], loops, 1);
		}
	return 0;
}

static int run_2thr_once(const struct ring_impl *ri, unsigned int n,
			 struct sample *s)
{
	struct xfer x = { .total = elems, .bulk = n };
	pthread_t prod, cons;
	struct stamp t0;
	int pinned;

	x.r = ri->create(ri->single);
	if (!x.r)
		return -1;
	/* Once started, each thread needs the other: no way back */
	if (pthread_create(&cons, NULL, ri->consumer, &x) ||
	    pthread_create(&prod, NULL, ri->producer, &x)) {
		perror("ring_user: pthread_create");
		exit(1);
	}
	pinned = !pin_to_cpu(prod, 0) && !pin_to_cpu(cons, 1);
	while (__atomic_load_n(&x.ready, __ATOMIC_ACQUIRE) < 2)
		usleep(100);
	stamp_start(&t0);
	__atomic_store_n(&x.go, 1, __ATOMIC_RELEASE);
	pthread_join(prod, NULL);
	pthread_join(cons, NULL);
	free(x.r);
	if (!pinned)
		fprintf(stderr, "ring_user: cannot pin to CPUs 0 and 1\n");
	if (!pinned || x.error)
		return -1;
	sample_set(s, &t0, &x.end, elems);
	return 0;
}

/*
 * The 2-thread cases in rounds: each round runs every queue and bulk once,
 * so a change of the host's load, or of where the hypervisor places the
 * two vCPUs (2.5x apart on the VM this was written on, stable within a
 * process), hits every queue alike; each case's median is over its rounds.
 */
static int run_2thr_rounds(void)
{
	static struct sample s[ARRAY_SIZE(impls)][ARRAY_SIZE(bulks_2thr)][MAX_RUNS];
	unsigned int r, i, j;
	char name[64];

	for (r = 0; r < runs; r++)
		for (i = 0; i < ARRAY_SIZE(impls); i++)
			for (j = 0; j < ARRAY_SIZE(bulks_2thr); j++)
				if (run_2thr_once(impls[i], bulks_2thr[j],
						  &s[i][j][r])) {
					fprintf(stderr, "ring_user: %s_2thr_bulk%u failed\n",
						impls[i]->name, bulks_2thr[j]);
					return -1;
				}
	for (i = 0; i < ARRAY_SIZE(impls); i++)
		for (j = 0; j < ARRAY_SIZE(bulks_2thr); j++) {
			snprintf(name, sizeof(name), "%s_2thr_bulk%u",
				 impls[i]->name, bulks_2thr[j]);
			report(name, s[i][j], elems, 2);
		}
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0;
	u64 t0;

	if (argc > 1)
		loops = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		runs = strtoul(argv[2], NULL, 0);
	if (argc > 3)
		elems = strtoul(argv[3], NULL, 0);
	if (loops < MAX_BULK || !runs || runs > MAX_RUNS || !elems) {
		fprintf(stderr,
			"usage: %s [loops (>= %u) [runs (1..%u) [elements-2thr]]]\n",
			argv[0], MAX_BULK, MAX_RUNS);
		return 2;
	}
	if (pin_to_cpu(pthread_self(), 0))
		fprintf(stderr, "ring_user: cannot pin to CPU 0, not pinned\n");
	t0 = read_ns();			/* 0.2 s busy: let the clock ramp up */
	while (read_ns() - t0 < 200000000)
		cpu_relax();
	if (run_single_rounds())
		ret = 1;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "ring_user: fewer than 2 CPUs, no 2-thread cases\n");
		return ret;
	}
	if (run_2thr_rounds())
		ret = 1;
	return ret;
}
