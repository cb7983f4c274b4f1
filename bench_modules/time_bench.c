// SPDX-License-Identifier: GPL-2.0
/*
 * time_bench.ko - micro-benchmark library: times cases with ktime and the
 * cycle counter, repeats them, prints one line per case (the format is
 * documented in include/qmp/time_bench.h).
 */
#define pr_fmt(fmt) "time_bench: " fmt

#include <linux/completion.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/wait.h>
#include <qmp/kthread.h>
#include <qmp/namelist.h>
#include <qmp/time_bench.h>
#include <qmp/version.h>

#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

/**
 * time_bench_cycles() - read the cycle counter, ordered with the code
 *                       around it
 *
 * Return: the counter, or 0 where the platform has none.
 */
u64 time_bench_cycles(void)
{
#ifdef CONFIG_X86
	return rdtsc_ordered();
#else
	return get_cycles();
#endif
}
QMP_EXPORT(time_bench_cycles);

/**
 * time_bench_cpus() - the online CPUs of a cpus= module parameter
 * @list: a CPU list such as "0-3,6"; NULL or "" for every online CPU
 * @mask: the result
 *
 * Context: any.
 * Return: 0, or -EINVAL (with a message) for a malformed list or one
 * without an online CPU.
 */
int time_bench_cpus(const char *list, struct cpumask *mask)
{
	int ret;

	if (!list || !*list) {
		cpumask_copy(mask, cpu_online_mask);
		return 0;
	}
	ret = cpulist_parse(list, mask);
	if (ret == -ERANGE) {
		pr_err("cpus=%s: no such CPU here (CPUs 0-%u)\n", list,
		       nr_cpu_ids - 1);
		return -EINVAL;
	}
	if (ret) {
		pr_err("cpus=%s is not a CPU list such as 0-3,6\n", list);
		return -EINVAL;
	}
	cpumask_and(mask, mask, cpu_online_mask);
	if (cpumask_empty(mask)) {
		pr_err("cpus=%s: none of these CPUs is online\n", list);
		return -EINVAL;
	}
	return 0;
}
QMP_EXPORT(time_bench_cpus);

/*
 * only=: the cases to run, e.g. for a profile of one case (scripts/bench's
 * icount profile boot writes it before each insmod of a benchmark
 * module): <suite>/<case> (every context) or <suite>/<case>:<ctx>
 * (process or softirq), comma-separated; empty runs every case.  A case
 * left out runs nothing and prints no line.
 */
static char *only;
module_param(only, charp, 0644);
MODULE_PARM_DESC(only, "Cases to run: suite/case or suite/case:ctx, comma-separated (default: every case)");

static const char *tb_ctx_name(enum time_bench_ctx ctx)
{
	return ctx == TB_SOFTIRQ ? "softirq" : "process";
}

/**
 * time_bench_selected() - whether time_bench.ko's only= selects a case
 * @suite: the suite's name, as time_bench_run() takes it
 * @name: the case's name
 * @ctx: the context it would run in
 *
 * For a set-up that only a case needs (e.g. switching a hook on for it):
 * time_bench_run() runs and prints nothing for a case this says false of.
 *
 * Context: process context (takes the module's parameter lock).
 * Return: true when only= is empty or names the case.
 */
bool time_bench_selected(const char *suite, const char *name,
			 enum time_bench_ctx ctx)
{
	char full[96];
	bool ret = true;

	kernel_param_lock(THIS_MODULE);
	if (only && *only) {
		snprintf(full, sizeof(full), "%s/%s", suite, name);
		ret = qmp_case_named(only, full);
		if (!ret) {
			snprintf(full, sizeof(full), "%s/%s:%s", suite, name,
				 tb_ctx_name(ctx));
			ret = qmp_case_named(only, full);
		}
	}
	kernel_param_unlock(THIS_MODULE);
	return ret;
}
QMP_EXPORT(time_bench_selected);

/* Per-invocation cost of one run, in picoseconds and milli-cycles */
struct tb_sample {
	u64 ps;
	u64 mcyc;
};

struct tb_summary {
	u64 ps_med, ps_min, mcyc_med;
	bool have_cycles;
};

static int tb_cmp(const void *a, const void *b)
{
	const struct tb_sample *x = a, *y = b;

	return x->ps < y->ps ? -1 : x->ps > y->ps;
}

/*
 * One run of a case.  Not inlined: bench_modules/bench-profile.sh keeps
 * the samples with this function in their call chain, the case's own.
 */
static noinline int tb_once(enum time_bench_ctx ctx, unsigned long loops,
			    time_bench_fn fn, void *data, struct tb_sample *s)
{
	struct time_bench_record rec = {
		.loops = loops,
		.softirq = ctx == TB_SOFTIRQ,
	};
	int ret;

	if (rec.softirq)
		local_bh_disable();
	ret = fn(&rec, data);
	if (rec.softirq)
		local_bh_enable();
	if (ret < 0)
		return ret;
	if (!rec.done || rec.t1_ns < rec.t0_ns)
		return -EINVAL;
	s->ps = div64_u64((rec.t1_ns - rec.t0_ns) * 1000, rec.done);
	s->mcyc = rec.t1_cyc > rec.t0_cyc ?
		  div64_u64((rec.t1_cyc - rec.t0_cyc) * 1000, rec.done) : 0;
	return 0;
}

/* Run @runs times; summary by the median run (by time) and the fastest */
static int tb_series(enum time_bench_ctx ctx, unsigned long loops,
		     unsigned int runs, time_bench_fn fn, void *data,
		     struct tb_summary *sum)
{
	struct tb_sample s[TIME_BENCH_MAX_RUNS];
	unsigned int i;
	int ret;

	if (!runs || runs > TIME_BENCH_MAX_RUNS || !loops)
		return -EINVAL;
	for (i = 0; i < runs; i++) {
		ret = tb_once(ctx, loops, fn, data, &s[i]);
		if (ret)
			return ret;
		cond_resched();
	}
	sort(s, runs, sizeof(s[0]), tb_cmp, NULL);
	sum->ps_med = s[runs / 2].ps;
	sum->ps_min = s[0].ps;
	sum->mcyc_med = s[runs / 2].mcyc;
	sum->have_cycles = s[runs / 2].mcyc != 0;
	return 0;
}

static void tb_print(const char *suite, const char *name, int cpu,
		     const struct tb_summary *sum, unsigned long loops,
		     unsigned int runs, unsigned int cpus,
		     enum time_bench_ctx ctx)
{
	char where[16] = "", cyc[32] = "-";

	if (cpu >= 0)
		snprintf(where, sizeof(where), "@cpu%d", cpu);
	if (sum->have_cycles)
		snprintf(cyc, sizeof(cyc), "%llu.%03llu",
			 sum->mcyc_med / 1000, sum->mcyc_med % 1000);
	pr_info("%s/%s%s ns=%llu.%03llu ns_min=%llu.%03llu cycles=%s n=%lu runs=%u cpus=%u ctx=%s\n",
		suite, name, where, sum->ps_med / 1000, sum->ps_med % 1000,
		sum->ps_min / 1000, sum->ps_min % 1000, cyc, loops, runs, cpus,
		tb_ctx_name(ctx));
}

/**
 * time_bench_run() - time a case and print its result line
 * @suite: suite name (first part of the case name)
 * @name: case name
 * @ctx: TB_PROCESS, or TB_SOFTIRQ to run with bottom halves disabled
 * @loops: invocations per run
 * @runs: repetitions, 1..TIME_BENCH_MAX_RUNS; the median is reported
 * @fn: the case
 * @data: passed to @fn
 *
 * Runs nothing and prints nothing (returns 0) when time_bench.ko's only=
 * leaves the case out.
 *
 * Context: process context.
 * Return: 0, or the error of @fn, or -EINVAL for bad arguments.
 */
int time_bench_run(const char *suite, const char *name,
		   enum time_bench_ctx ctx, unsigned long loops,
		   unsigned int runs, time_bench_fn fn, void *data)
{
	struct tb_summary sum;
	int ret;

	if (!time_bench_selected(suite, name, ctx))
		return 0;
	ret = tb_series(ctx, loops, runs, fn, data, &sum);
	if (ret) {
		pr_err("%s/%s failed: %d\n", suite, name, ret);
		return ret;
	}
	tb_print(suite, name, -1, &sum, loops, runs, 1, ctx);
	return 0;
}
QMP_EXPORT(time_bench_run);

struct tb_par {
	enum time_bench_ctx ctx;
	unsigned long loops;
	unsigned int runs;
	time_bench_fn fn;
	void *data;
	atomic_t ready;
	bool go;
	bool cancel;		/* not every worker started: run nothing */
	wait_queue_head_t wq;
};

struct tb_worker {
	struct tb_par *par;
	struct task_struct *task;
	struct completion done;
	struct tb_summary sum;
	int cpu;
	int ret;
};

static int tb_worker_fn(void *arg)
{
	struct tb_worker *w = arg;
	struct tb_par *p = w->par;

	atomic_inc(&p->ready);
	/* Pairs with the smp_store_release() of go: cancel is set before */
	wait_event(p->wq, smp_load_acquire(&p->go));
	/* A case may need all its CPUs (a producer waits for its consumer) */
	w->ret = READ_ONCE(p->cancel) ? -ECANCELED :
		 tb_series(p->ctx, p->loops, p->runs, p->fn, p->data, &w->sum);
	complete(&w->done);
	qmp_kthread_wait_stop();
	return 0;
}

static int tb_cmp_summary(const void *a, const void *b)
{
	const struct tb_summary *x = a, *y = b;

	return x->ps_med < y->ps_med ? -1 : x->ps_med > y->ps_med;
}

/**
 * time_bench_run_parallel() - time a case on several CPUs at once
 * @suite: suite name
 * @name: case name
 * @ctx: TB_PROCESS or TB_SOFTIRQ
 * @loops: invocations per run on each CPU
 * @runs: repetitions on each CPU
 * @cpus: the CPUs (online ones are used)
 * @fn: the case; called concurrently, @data must allow that
 * @data: passed to @fn
 *
 * One kthread per CPU; all are released together once every one is ready,
 * and none runs the case if a kthread could not be created (so @fn may
 * rely on every CPU of @cpus taking part, e.g. a producer and a consumer
 * waiting for each other).  Prints a line per CPU and an aggregate line
 * (median of the CPUs' medians); nothing, and returns 0, when only= leaves
 * the case out.
 *
 * Context: process context.
 * Return: 0 or a negative error.
 */
int time_bench_run_parallel(const char *suite, const char *name,
			    enum time_bench_ctx ctx, unsigned long loops,
			    unsigned int runs, const struct cpumask *cpus,
			    time_bench_fn fn, void *data)
{
	struct tb_par par = { .ctx = ctx, .loops = loops, .runs = runs,
			      .fn = fn, .data = data };
	struct tb_summary *sums, agg = { };
	struct tb_worker *w;
	unsigned int n = 0, i;
	int cpu, ret = 0;

	if (!time_bench_selected(suite, name, ctx))
		return 0;
	init_waitqueue_head(&par.wq);
	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	sums = kcalloc(nr_cpu_ids, sizeof(*sums), GFP_KERNEL);
	if (!w || !sums) {
		ret = -ENOMEM;
		goto out;
	}
	cpus_read_lock();
	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		w[n].par = &par;
		w[n].cpu = cpu;
		init_completion(&w[n].done);
		w[n].task = kthread_create_on_cpu(tb_worker_fn, &w[n], cpu,
						  "time_bench/%u");
		if (IS_ERR(w[n].task)) {
			ret = PTR_ERR(w[n].task);
			break;
		}
		wake_up_process(w[n++].task);
	}
	cpus_read_unlock();
	while (atomic_read(&par.ready) < n)
		schedule_timeout_uninterruptible(1);
	WRITE_ONCE(par.cancel, ret != 0);
	smp_store_release(&par.go, true);	/* pairs with the workers' acquire */
	wake_up_all(&par.wq);
	for (i = 0; i < n; i++) {
		qmp_wait_completion(&w[i].done);
		kthread_stop(w[i].task);
		if (w[i].ret && !ret)
			ret = w[i].ret;
	}
	if (ret || !n) {
		pr_err("%s/%s failed: %d\n", suite, name, ret ? ret : -ENODEV);
		ret = ret ? ret : -ENODEV;
		goto out;
	}
	for (i = 0; i < n; i++) {
		tb_print(suite, name, w[i].cpu, &w[i].sum, loops, runs, 1, ctx);
		sums[i] = w[i].sum;
	}
	sort(sums, n, sizeof(sums[0]), tb_cmp_summary, NULL);
	agg = sums[n / 2];
	for (i = 0; i < n; i++)
		agg.ps_min = min(agg.ps_min, sums[i].ps_min);
	tb_print(suite, name, -1, &agg, loops, runs, n, ctx);
out:
	kfree(sums);
	kfree(w);
	return ret;
}
QMP_EXPORT(time_bench_run_parallel);

MODULE_DESCRIPTION("time_bench: micro-benchmark library of the qmempool project");
