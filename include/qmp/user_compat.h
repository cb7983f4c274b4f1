/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_compat.h - the few kernel primitives the project's inline headers
 * use, for building them in user space (ThreadSanitizer and benchmark runs
 * of the very same header code).  C11/GCC __atomic builtins give the
 * orderings the kernel primitives promise, so TSan checks the real
 * protocol.  Not a general kernel emulation layer.
 */
#ifndef _QMP_USER_COMPAT_H
#define _QMP_USER_COMPAT_H

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef unsigned int gfp_t;

#define GFP_KERNEL	0U

#define SMP_CACHE_BYTES		64
#define __aligned(x)		__attribute__((__aligned__(x)))
#define ____cacheline_aligned_in_smp	__aligned(SMP_CACHE_BYTES)
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define __cold			__attribute__((__cold__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Full-barrier cmpxchg/xchg returning the old value, as in the kernel */
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n((p), &__old, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);\
	__old;								\
})
#define xchg(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

/*
 * QMP_USER_KERNEL_TIMING: a program whose threads each have a CPU of their
 * own and that never turns a debug mode on (the benchmark) defines it to
 * get the kernel's code shape where the two differ: cpu_relax() is the
 * kernel's "pause", and a static key, which the kernel compiles to a jump
 * patched out while the key is off, is the constant false.  Without it (the
 * ThreadSanitizer test, more threads than CPUs) cpu_relax() yields and a
 * static key is a flag read at run time.
 */
#ifdef QMP_USER_KERNEL_TIMING
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" : : : "memory");
#endif
}
#else
/* A user thread can be preempted anywhere: yield rather than burn the CPU */
static inline void cpu_relax(void)
{
	sched_yield();
}
#endif

#define smp_cond_load_acquire(p, cond_expr) ({				\
	__typeof__(*(p)) VAL;						\
	for (;;) {							\
		VAL = smp_load_acquire(p);				\
		if (cond_expr)						\
			break;						\
		cpu_relax();						\
	}								\
	VAL;								\
})

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_read_acquire(v)	__atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_inc(v)		__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_inc_return(v)	__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_long_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE)
#define atomic_long_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_long_add(i, v)	__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_long_inc(v)	atomic_long_add(1, v)

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)

static inline bool test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	unsigned long mask = 1UL << (nr % BITS_PER_LONG);

	return __atomic_fetch_or(&addr[nr / BITS_PER_LONG], mask,
				 __ATOMIC_SEQ_CST) & mask;
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (__atomic_load_n(&addr[nr / BITS_PER_LONG], __ATOMIC_RELAXED) >>
		(nr % BITS_PER_LONG)) & 1;
}

static inline unsigned long find_first_zero_bit(const unsigned long *addr,
						unsigned long size)
{
	unsigned long i;

	for (i = 0; i < size; i++)
		if (!test_bit(i, addr))
			return i;
	return size;
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))

/* Static keys: see QMP_USER_KERNEL_TIMING above */
struct static_key_false { bool enabled; };
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define DEFINE_STATIC_KEY_FALSE(name)	struct static_key_false name
#ifdef QMP_USER_KERNEL_TIMING
#define static_branch_unlikely(k)	((void)(k), false)
#else
#define static_branch_unlikely(k) \
	__builtin_expect(__atomic_load_n(&(k)->enabled, __ATOMIC_RELAXED), 0)
#endif

/* User space has no interrupts and no NMIs */
#define in_nmi()		0
#define local_irq_save(f)	((f) = 0)
#define local_irq_restore(f)	((void)(f))

#define pr_warn(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

static inline void cond_resched(void)
{
	sched_yield();
}

#endif /* _QMP_USER_COMPAT_H */
