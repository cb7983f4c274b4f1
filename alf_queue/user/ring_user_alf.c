// SPDX-License-Identifier: GPL-2.0
/*
 * ring_user_alf.c - the ALF cases of alf_queue_user_bench.  They live in
 * a file of their own because they are compiled as the kernel compiles
 * the queue: no vectorised loops (ALF_KERNEL_CFLAGS in the Makefile;
 * scripts/lint checks the object), so that the timed code is the kernel's.
 */
#include "ring_user_bench.h"

ALF_USER_DEFINE_GLOBALS();

static void *alf_create(bool single)
{
	return alf_user_queue_alloc(QSIZE, single ? ALF_SP_ENQ | ALF_SC_DEQ :
						    ALF_MP_ENQ | ALF_MC_DEQ);
}

static __always_inline unsigned int
alf_mpmc_enq(void *r, void *const *p, unsigned int n)
{
	return alf_mp_enqueue(r, p, n);
}

static __always_inline unsigned int
alf_mpmc_deq(void *r, void **p, unsigned int n)
{
	return alf_mc_dequeue_fixed(r, p, n);
}

static __always_inline unsigned int
alf_spsc_enq(void *r, void *const *p, unsigned int n)
{
	return alf_sp_enqueue(r, p, n);
}

static __always_inline unsigned int
alf_spsc_deq(void *r, void **p, unsigned int n)
{
	return alf_sc_dequeue_fixed(r, p, n);
}

RING_BENCH(alf_mpmc, alf_mpmc_enq, alf_mpmc_deq)
RING_BENCH(alf_spsc, alf_spsc_enq, alf_spsc_deq)

const struct ring_impl ring_user_alf_mpmc = RING_IMPL(alf, mpmc, false);
const struct ring_impl ring_user_alf_spsc = RING_IMPL(alf, spsc, true);
