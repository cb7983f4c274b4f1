// SPDX-License-Identifier: GPL-2.0
/*
 * alf_queue_user_test - the ALF queue's header and stress test
 * (alf_stress.h) built in user space, run under ThreadSanitizer by
 * `make check`.  Prints KTAP like the kernel test module.
 *
 * Usage: alf_queue_user_test [tokens-per-producer [threads-per-side]]
 */
#include <linux/alf_queue.h>
#include <pthread.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include <qmp/ktap.h>

#include "../alf_stress.h"
#include "alf_user.h"

ALF_USER_DEFINE_GLOBALS();

static unsigned long tokens = 200000;
static unsigned int threads = 4;
static unsigned int timeout_s = 300;

struct worker {
	struct alf_stress *s;
	unsigned int id;
	bool producer;
	pthread_t tid;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned int moved;

	if (w->producer) {
		while (!alf_stress_produce(w->s, w->id, &moved))
			if (!moved)
				sched_yield();
	} else {
		while (!alf_stress_done(w->s))
			if (!alf_stress_consume(w->s, w->id))
				sched_yield();
	}
	return NULL;
}

static void run_stress(struct qmp_test *t, u32 qsize, u32 flags,
		       unsigned int np, unsigned int nc, unsigned long ntok)
{
	struct alf_stress_cfg cfg = {
		.producers = np, .consumers = nc, .tokens = ntok,
		.max_bulk = 32,
		.single_producer = flags & ALF_SP_ENQ,
		.single_consumer = flags & ALF_SC_DEQ,
	};
	struct alf_queue *q = alf_user_queue_alloc(qsize, flags);
	struct worker *w = calloc(np + nc, sizeof(*w));
	struct alf_stress s;
	time_t deadline = time(NULL) + timeout_s;
	unsigned int i, created = 0;

	if (!QMP_EXPECT(t, q && w, "out of memory") ||
	    !QMP_EXPECT(t, !alf_stress_init(&s, q, &cfg, 0xabcdef),
			"out of memory"))
		goto out;
	for (i = 0; i < np + nc; i++) {
		w[i].s = &s;
		w[i].producer = i < np;
		w[i].id = i < np ? i : i - np;
		if (pthread_create(&w[i].tid, NULL, worker_fn, &w[i])) {
			alf_stress_error(&s, "pthread_create failed");
			break;
		}
		created++;
	}
	while (!alf_stress_done(&s) && time(NULL) < deadline)
		usleep(10000);
	if (!alf_stress_done(&s))
		alf_stress_error(&s, "timeout after %us: %ld of %lu consumed",
				 timeout_s, atomic_long_read(&s.consumed),
				 alf_stress_total(&s));
	for (i = 0; i < created; i++)
		pthread_join(w[i].tid, NULL);
	QMP_EXPECT(t, alf_stress_verify(&s), "%s", s.error);
	qmp_test_diag(t, "%u+%u threads, %lu tokens", np, nc,
		      alf_stress_total(&s));
	alf_stress_free(&s);
out:
	free(w);
	free(q);
}

static void test_stress_mpmc(struct qmp_test *t)
{
	run_stress(t, 128, ALF_MP_ENQ | ALF_MC_DEQ, threads, threads, tokens);
}

static void test_stress_spsc(struct qmp_test *t)
{
	run_stress(t, 128, ALF_SP_ENQ | ALF_SC_DEQ, 1, 1, tokens);
}

static void test_stress_mpsc(struct qmp_test *t)
{
	run_stress(t, 64, ALF_MP_ENQ | ALF_SC_DEQ, threads, 1, tokens / 4);
}

static void test_stress_spmc(struct qmp_test *t)
{
	run_stress(t, 64, ALF_SP_ENQ | ALF_MC_DEQ, 1, threads, tokens / 4);
}

static const struct qmp_test_case cases[] = {
	{ "user_stress_mpmc", test_stress_mpmc },
	{ "user_stress_spsc", test_stress_spsc },
	{ "user_stress_mpsc", test_stress_mpsc },
	{ "user_stress_spmc", test_stress_spmc },
};

int main(int argc, char **argv)
{
	if (argc > 1)
		tokens = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		threads = strtoul(argv[2], NULL, 0);
	if (!tokens || !threads || threads > 64) {
		fprintf(stderr, "usage: %s [tokens [threads (1..64)]]\n",
			argv[0]);
		return 2;
	}
	if (qmp_run_suite("alf_queue_user", cases, ARRAY_SIZE(cases)))
		return 1;
	return 0;
}
