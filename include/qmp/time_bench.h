/* SPDX-License-Identifier: GPL-2.0 */
/*
 * time_bench.h - the project's micro-benchmark library (time_bench.ko).
 *
 * A benchmark case is a function that runs @rec->loops invocations of the
 * operation under test between time_bench_start() and time_bench_stop(),
 * so set-up and tear-down stay outside the timed part and the loop is not
 * an indirect call per invocation:
 *
 *	static int bench_x(struct time_bench_record *rec, void *data)
 *	{
 *		unsigned long i;
 *
 *		time_bench_start(rec);
 *		for (i = 0; i < rec->loops; i++)
 *			op(data);
 *		time_bench_stop(rec, i);
 *		return 0;
 *	}
 *
 * time_bench_run() repeats a case @runs times and prints ONE line per case
 * (the only format; scripts/bench-line.re matches it, never change it
 * silently):
 *
 *   time_bench: <suite>/<case> ns=<median> ns_min=<min> cycles=<median> \
 *     n=<loops> runs=<R> cpus=<k> ctx=<process|softirq|user>
 *
 * ns and cycles are per invocation, with 3 decimals; cycles=- when the
 * platform has no cycle counter.  time_bench_run_parallel() runs a case
 * on several CPUs at once (kthreads released together) and prints one line
 * per CPU (case "<case>@cpu<N>") and the aggregate line (median over CPUs
 * of each CPU's median, cpus=<k>).  User-space programs print the same
 * line with ctx=user (alf_queue/user/alf_queue_user_bench.c, suite
 * ring_user: ns per element, cycles are TSC ticks).
 */
#ifndef _QMP_TIME_BENCH_H
#define _QMP_TIME_BENCH_H

#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/timex.h>
#include <linux/types.h>

#define TIME_BENCH_MAX_RUNS	32

/* The loops= and runs= parameters every benchmark module takes */
#define TIME_BENCH_MODULE_PARAMS(def_loops, def_runs)			\
	static unsigned long loops = def_loops;				\
	module_param(loops, ulong, 0444);				\
	MODULE_PARM_DESC(loops, "Invocations per run (default "	\
			 #def_loops ")");				\
	static unsigned int runs = def_runs;				\
	module_param(runs, uint, 0444);					\
	MODULE_PARM_DESC(runs, "Runs per case, the median is reported " \
			 "(default " #def_runs ")")

/*
 * The cpus= parameter of a module with parallel cases: a CPU list such as
 * "0-3,6"; unset or empty means every online CPU.  time_bench_cpus()
 * turns it into a mask.
 */
#define TIME_BENCH_CPUS_PARAM()						\
	static char *cpus;						\
	module_param(cpus, charp, 0444);				\
	MODULE_PARM_DESC(cpus, "CPUs of the parallel cases, a list such " \
			 "as 0-3,6 (default: every online CPU)")

struct time_bench_record {
	unsigned long loops;		/* invocations per run (requested) */
	unsigned long done;		/* invocations of the last run */
	u64 t0_ns, t1_ns;		/* last run, ktime_get_ns() */
	u64 t0_cyc, t1_cyc;		/* last run, cycle counter (0 if none) */
	bool softirq;			/* the case ran with bottom halves off */
};

typedef int (*time_bench_fn)(struct time_bench_record *rec, void *data);

u64 time_bench_cycles(void);
int time_bench_cpus(const char *list, struct cpumask *mask);

/* Start the clock of one run; put last before the timed loop */
static inline void time_bench_start(struct time_bench_record *rec)
{
	rec->t0_cyc = time_bench_cycles();
	rec->t0_ns = ktime_get_ns();
}

/* Stop the clock; @done: invocations actually made */
static inline void time_bench_stop(struct time_bench_record *rec,
				   unsigned long done)
{
	rec->t1_ns = ktime_get_ns();
	rec->t1_cyc = time_bench_cycles();
	rec->done = done;
}

/* Whether time_bench_run() should run the case in softirq-like context */
enum time_bench_ctx {
	TB_PROCESS,		/* as called: process context */
	TB_SOFTIRQ,		/* with local_bh_disable(): in_softirq() */
};

bool time_bench_selected(const char *suite, const char *name,
			 enum time_bench_ctx ctx);

int time_bench_run(const char *suite, const char *name,
		   enum time_bench_ctx ctx, unsigned long loops,
		   unsigned int runs, time_bench_fn fn, void *data);

int time_bench_run_parallel(const char *suite, const char *name,
			    enum time_bench_ctx ctx, unsigned long loops,
			    unsigned int runs, const struct cpumask *cpus,
			    time_bench_fn fn, void *data);

#endif /* _QMP_TIME_BENCH_H */
