/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kasan.h - make objects that sit in a pool invisible to their users the
 * way the slab makes freed objects invisible, under generic KASAN: an
 * access to a poisoned object is reported as a slab use-after-free.
 *
 * The kernel's own interface for this, kasan_mempool_poison_object() and
 * kasan_mempool_unpoison_object() (6.8+), calls __kasan_mempool_*(),
 * which no kernel exports to modules (6.1 has neither).  What both 6.1
 * and 6.12 export is kasan_poison() (mm/kasan/shadow.c; EXPORT_SYMBOL on
 * 6.1, EXPORT_SYMBOL_GPL on 6.12), declared only in mm/kasan/kasan.h: it
 * sets the shadow byte of every 8-byte granule of a granule-aligned range
 * to a value, and skips KFENCE objects.  Generic KASAN's shadow encoding
 * (Documentation/dev-tools/kasan.rst) gives the rest: 0 all 8 bytes
 * accessible, 1..7 that many leading bytes, 0xFB a freed slab object.
 * So qmp_kasan_poison() marks an object freed, and qmp_kasan_unpoison()
 * restores what the slab sets at allocation (the object's size
 * accessible, the granule after it as the slab left it).
 *
 * Rules for a pool: poison an object before it enters a queue (never
 * after: another CPU may take it at once) and unpoison what did not fit;
 * unpoison after taking it out, before writing to it (zeroing), and
 * before giving it back to the slab (whose free checks the first byte:
 * a poisoned object would be reported as a double free).
 *
 * qmp_kasan_shadow() reads the shadow byte of an object's first granule,
 * so that a pool can tell an object it holds, or that the slab freed
 * (QMP_KASAN_SLAB_FREE or QMP_KASAN_SLAB_FREE_META), from one in use: a
 * double free.
 *
 * Without CONFIG_KASAN_GENERIC (stock kernels, tag-based KASAN) all three
 * are no-ops (the shadow reads as 0, accessible).
 */
#ifndef _QMP_KASAN_H
#define _QMP_KASAN_H

#include <linux/kernel.h>
#include <linux/types.h>

#define QMP_KASAN_GRANULE	8	/* bytes per shadow byte (generic) */
#define QMP_KASAN_SLAB_FREE	0xFB	/* mm/kasan/kasan.h KASAN_SLAB_FREE */
/* KASAN_SLAB_FREE_META (6.12+), KASAN_SLAB_FREETRACK (6.1): freed too */
#define QMP_KASAN_SLAB_FREE_META	0xFA

#ifdef CONFIG_KASAN_GENERIC
#include <linux/kasan.h>

/* mm/kasan/shadow.c, not declared in include/linux */
void kasan_poison(const void *addr, size_t size, u8 value, bool init);

/**
 * qmp_kasan_poison() - mark a pooled object as freed for KASAN
 * @obj: the object (slab objects are 8-byte aligned)
 * @size: its size (the cache's object size)
 */
static inline void qmp_kasan_poison(const void *obj, size_t size)
{
	kasan_poison(obj, round_up(size, QMP_KASAN_GRANULE),
		     QMP_KASAN_SLAB_FREE, false);
}

/**
 * qmp_kasan_unpoison() - give a pooled object back its slab accessibility
 * @obj: the object, as given to qmp_kasan_poison()
 * @size: its size
 */
static inline void qmp_kasan_unpoison(const void *obj, size_t size)
{
	size_t whole = round_down(size, QMP_KASAN_GRANULE);

	if (whole)
		kasan_poison(obj, whole, 0, false);
	if (size > whole)	/* the first size - whole bytes of the last */
		kasan_poison((const u8 *)obj + whole, QMP_KASAN_GRANULE,
			     size - whole, false);
}

/**
 * qmp_kasan_shadow() - the shadow byte of the first granule of @obj
 * @obj: an address in the direct map
 *
 * Not instrumented itself: reading the shadow is KASAN's business.
 * Return: 0 all 8 bytes accessible, 1..7 that many, a value >= 0x80 none
 * (QMP_KASAN_SLAB_FREE: a freed slab object, or one a pool holds).
 */
static __no_kasan_or_inline u8 qmp_kasan_shadow(const void *obj)
{
	return READ_ONCE(*(const u8 *)kasan_mem_to_shadow(obj));
}
#else
static inline void qmp_kasan_poison(const void *obj, size_t size) { }
static inline void qmp_kasan_unpoison(const void *obj, size_t size) { }
static inline u8 qmp_kasan_shadow(const void *obj) { return 0; }
#endif

#endif /* _QMP_KASAN_H */
