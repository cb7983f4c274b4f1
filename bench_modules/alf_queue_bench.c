// SPDX-License-Identifier: GPL-2.0
/*
 * alf_queue_bench.ko - ALF queue micro-benchmarks, run at insmod, one
 * time_bench line per case (see include/qmp/time_bench.h).  All figures
 * are per element moved through the queue (one enqueue plus one dequeue).
 *
 *   alf_queue/<variant>_simple     enqueue 1, dequeue 1
 *   alf_queue/<variant>_multi128   enqueue 128 one by one, then dequeue them
 *   alf_queue/<variant>_bulk<N>    enqueue a bulk of N, dequeue N
 *   alf_queue/mpmc_parallel_bulk8  bulk 8 on every CPU of cpus=, one queue
 *   alf_queue/ptr_ring_simple      the kernel's ptr_ring: produce 1, consume 1
 *   alf_queue/ptr_ring_bulk<N>     N ptr_ring_produce(), one
 *                                  ptr_ring_consume_batched() of N
 *
 * <variant>: mpmc, spsc, mpsc, spmc.  Parameters: loops=, runs=, bulk=
 * (the bulk sizes, 1..32, default 1,2,4,8,16,32), cpus= (the parallel
 * case's CPUs, default every online CPU).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/alf_queue.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/ptr_ring.h>
#include <qmp/time_bench.h>
#include <qmp/version.h>

#define MULTI		128	/* the multi case's step */
#define MAX_BULK	32	/* the largest bulk */

TIME_BENCH_MODULE_PARAMS(1000000, 5);
TIME_BENCH_CPUS_PARAM();

static unsigned int bulks[8] = { 1, 2, 4, 8, 16, 32 };
static int nr_bulks = 6;
module_param_array_named(bulk, bulks, uint, &nr_bulks, 0444);
MODULE_PARM_DESC(bulk, "Bulk sizes, up to 8 of 1..32 (default 1,2,4,8,16,32)");

struct alf_bench {
	struct alf_queue *q;
	struct ptr_ring ring;
	unsigned int bulk;
};

/* One set of cases per variant, with the calls inlined (no indirection) */
#define ALF_BENCH_VARIANT(v, enq, deq)					\
static int bench_##v##_simple(struct time_bench_record *rec, void *d)	\
{									\
	struct alf_bench *b = d;					\
	void *obj = b, *out = NULL;					\
	unsigned long i;						\
									\
	time_bench_start(rec);						\
	for (i = 0; i < rec->loops; i++) {				\
		if (unlikely(enq(b->q, &obj, 1) != 1 ||			\
			     deq(b->q, &out, 1) != 1))			\
			return -EIO;					\
	}								\
	time_bench_stop(rec, i);					\
	return out == obj ? 0 : -EIO;					\
}									\
									\
static int bench_##v##_multi(struct time_bench_record *rec, void *d)	\
{									\
	struct alf_bench *b = d;					\
	void *obj = b, *out = NULL;					\
	unsigned long i, j, steps = rec->loops / MULTI;		\
									\
	time_bench_start(rec);						\
	for (i = 0; i < steps; i++) {					\
		for (j = 0; j < MULTI; j++)				\
			if (unlikely(enq(b->q, &obj, 1) != 1))		\
				return -EIO;				\
		for (j = 0; j < MULTI; j++) {				\
			if (unlikely(deq(b->q, &out, 1) != 1))		\
				return -EIO;				\
			barrier_data(&out);	/* as below */		\
		}							\
	}								\
	time_bench_stop(rec, steps * MULTI);				\
	return 0;							\
}									\
									\
static int bench_##v##_bulk(struct time_bench_record *rec, void *d)	\
{									\
	struct alf_bench *b = d;					\
	void *objs[MAX_BULK], *out[MAX_BULK];				\
	unsigned long i, steps = rec->loops / b->bulk;			\
	unsigned int n = b->bulk;					\
									\
	memset(objs, 0, sizeof(objs));					\
	time_bench_start(rec);						\
	for (i = 0; i < steps; i++) {					\
		if (unlikely(enq(b->q, objs, n) != n ||			\
			     deq(b->q, out, n) != n))			\
			return -EIO;					\
		/* out[] is never read: keep the dequeue's copy */	\
		barrier_data(out);					\
	}								\
	time_bench_stop(rec, steps * n);				\
	return 0;							\
}

ALF_BENCH_VARIANT(mpmc, alf_mp_enqueue, alf_mc_dequeue)
ALF_BENCH_VARIANT(spsc, alf_sp_enqueue, alf_sc_dequeue)
ALF_BENCH_VARIANT(mpsc, alf_mp_enqueue, alf_sc_dequeue)
ALF_BENCH_VARIANT(spmc, alf_sp_enqueue, alf_mc_dequeue)

/* The kernel's own pointer ring, same patterns (locked on both sides) */
static int bench_ptr_ring_simple(struct time_bench_record *rec, void *d)
{
	struct alf_bench *b = d;
	unsigned long i;

	time_bench_start(rec);
	for (i = 0; i < rec->loops; i++) {
		if (unlikely(ptr_ring_produce(&b->ring, b) ||
			     ptr_ring_consume(&b->ring) != b))
			return -EIO;
	}
	time_bench_stop(rec, i);
	return 0;
}

static int bench_ptr_ring_bulk(struct time_bench_record *rec, void *d)
{
	struct alf_bench *b = d;
	unsigned long i, steps = rec->loops / b->bulk;
	void *out[MAX_BULK];
	unsigned int j, n = b->bulk;

	time_bench_start(rec);
	for (i = 0; i < steps; i++) {
		for (j = 0; j < n; j++)
			if (unlikely(ptr_ring_produce(&b->ring, b)))
				return -EIO;
		if (unlikely(ptr_ring_consume_batched(&b->ring, out, n) != n))
			return -EIO;
	}
	time_bench_stop(rec, steps * n);
	return 0;
}

/* Each variant on a queue of its own: a side must not mix its variants */
static const struct {
	const char *name;
	u32 flags;
	time_bench_fn simple, multi, bulk;
} variants[] = {
	{ "mpmc", ALF_MP_ENQ | ALF_MC_DEQ,
	  bench_mpmc_simple, bench_mpmc_multi, bench_mpmc_bulk },
	{ "spsc", ALF_SP_ENQ | ALF_SC_DEQ,
	  bench_spsc_simple, bench_spsc_multi, bench_spsc_bulk },
	{ "mpsc", ALF_MP_ENQ | ALF_SC_DEQ,
	  bench_mpsc_simple, bench_mpsc_multi, bench_mpsc_bulk },
	{ "spmc", ALF_SP_ENQ | ALF_MC_DEQ,
	  bench_spmc_simple, bench_spmc_multi, bench_spmc_bulk },
};

/* Room for the multi case and a bulk per CPU */
static struct alf_queue *bench_queue(u32 flags)
{
	return alf_queue_alloc_flags(roundup_pow_of_two(MULTI *
							num_possible_cpus()),
				     flags, GFP_KERNEL);
}

static int run_all(struct alf_bench *b, const struct cpumask *par)
{
	unsigned int v, i;
	char name[32];
	int ret = 0;

	for (v = 0; v < ARRAY_SIZE(variants) && !ret; v++) {
		b->q = bench_queue(variants[v].flags);
		if (IS_ERR(b->q)) {
			ret = PTR_ERR(b->q);
			break;
		}
		snprintf(name, sizeof(name), "%s_simple", variants[v].name);
		ret = time_bench_run("alf_queue", name, TB_PROCESS, loops, runs,
				     variants[v].simple, b);
		snprintf(name, sizeof(name), "%s_multi128", variants[v].name);
		ret = ret ?: time_bench_run("alf_queue", name, TB_PROCESS,
					    max(loops, (unsigned long)MULTI),
					    runs, variants[v].multi, b);
		for (i = 0; i < nr_bulks && !ret; i++) {
			b->bulk = bulks[i];
			snprintf(name, sizeof(name), "%s_bulk%u",
				 variants[v].name, bulks[i]);
			ret = time_bench_run("alf_queue", name, TB_PROCESS,
					     max(loops, (unsigned long)MULTI),
					     runs, variants[v].bulk, b);
		}
		alf_queue_free(b->q);
	}
	ret = ret ?: time_bench_run("alf_queue", "ptr_ring_simple", TB_PROCESS,
				    loops, runs, bench_ptr_ring_simple, b);
	for (i = 0; i < nr_bulks && !ret; i++) {
		b->bulk = bulks[i];
		snprintf(name, sizeof(name), "ptr_ring_bulk%u", bulks[i]);
		ret = time_bench_run("alf_queue", name, TB_PROCESS,
				     max(loops, (unsigned long)MAX_BULK), runs,
				     bench_ptr_ring_bulk, b);
	}
	if (!ret) {
		/* Contention: every CPU of cpus= on the same queue */
		b->q = bench_queue(ALF_MP_ENQ | ALF_MC_DEQ);
		if (IS_ERR(b->q))
			return PTR_ERR(b->q);
		b->bulk = 8;
		ret = time_bench_run_parallel("alf_queue", "mpmc_parallel_bulk8",
					      TB_PROCESS, loops, runs, par,
					      bench_mpmc_bulk, b);
		alf_queue_free(b->q);
	}
	return ret;
}

static int __init alf_queue_bench_init(void)
{
	struct alf_bench b = { };
	cpumask_var_t par;
	int i, ret;

	for (i = 0; i < nr_bulks; i++) {
		if (!bulks[i] || bulks[i] > MAX_BULK) {
			pr_err("bulk=%u: bulk sizes must be 1..%u\n", bulks[i],
			       MAX_BULK);
			return -EINVAL;
		}
	}
	if (!zalloc_cpumask_var(&par, GFP_KERNEL))
		return -ENOMEM;
	ret = time_bench_cpus(cpus, par);
	if (ret)
		goto out_mask;
	ret = ptr_ring_init(&b.ring, MULTI, GFP_KERNEL);
	if (!ret) {
		ret = run_all(&b, par);
		ptr_ring_cleanup(&b.ring, NULL);
	}
out_mask:
	free_cpumask_var(par);
	return ret;
}

static void __exit alf_queue_bench_exit(void)
{
}

module_init(alf_queue_bench_init);
module_exit(alf_queue_bench_exit);
MODULE_DESCRIPTION("ALF queue micro-benchmarks (time_bench)");
