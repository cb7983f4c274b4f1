/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_info.h - what qmempool.ko needs to know about a kmem_cache and
 * its objects that the kernel does not export: whether the cache has a
 * constructor, is SLAB_TYPESAFE_BY_RCU or SLAB_ACCOUNT, its name, and
 * which cache an address belongs to (for the checks of a free).  struct
 * kmem_cache and struct slab are private to mm/; their layout is read
 * from the running kernel's BTF (CONFIG_DEBUG_INFO_BTF,
 * /sys/kernel/btf/vmlinux) once it could be read.
 *
 * A failure to read the BTF file (not there in the caller's mount
 * namespace, out of memory) is transient: the next call tries again.  A
 * BTF that cannot be parsed (a kind this code does not know and the BTF
 * does not describe) or that lacks the members, or a kernel without BTF,
 * is permanent: said once, and every later call fails the same way,
 * until a write to the module parameter qmempool.cache_info has the next
 * call read the BTF again (for tests).
 */
#ifndef _QMP_CACHE_INFO_H
#define _QMP_CACHE_INFO_H

#include <linux/types.h>

struct kmem_cache;

struct qmp_cache_info {
	bool ctor;		/* the cache has a constructor */
	bool typesafe_by_rcu;	/* SLAB_TYPESAFE_BY_RCU */
	bool account;		/* SLAB_ACCOUNT: objects charged to a memcg */
	const char *name;	/* the cache's name */
};

/*
 * qmp_cache_info() - fill @info for @s
 * Context: process context (reads the BTF until it could; may sleep).
 * Return: 0; -EAGAIN when the BTF could not be read this time (a later
 * call reads it again); another negative errno when this kernel's BTF
 * cannot describe the cache (permanent, said once in the log).
 */
int qmp_cache_info(struct kmem_cache *s, struct qmp_cache_info *info);

/* Where an address lies among the objects of a cache: qmp_obj_where() */
enum qmp_obj_kind {
	QMP_OBJ_START,		/* the start of an object of the cache */
	QMP_OBJ_UNKNOWN,	/* cannot tell: the layout was never read */
	QMP_OBJ_NOT_SLAB,	/* not in a slab page */
	QMP_OBJ_OTHER_CACHE,	/* an address in another cache's slab */
	QMP_OBJ_INSIDE,		/* in the cache's slab, not at an object start */
};

struct qmp_obj_where {
	struct kmem_cache *cache;	/* QMP_OBJ_OTHER_CACHE: that cache */
	unsigned int offset;		/* QMP_OBJ_INSIDE: bytes past a start */
};

/*
 * qmp_obj_where() - which object of @s, if any, @p is the start of
 * Context: any but NMI; no lock, no sleep.  Uses the layout read by an
 * earlier successful qmp_cache_info().  KFENCE objects of @s count as
 * starts wherever @p points in them.
 */
enum qmp_obj_kind qmp_obj_where(struct kmem_cache *s, const void *p,
				struct qmp_obj_where *where);

/* The name of @s, "?" if unknown (any context) */
const char *qmp_cache_name(struct kmem_cache *s);

/* Reads the BTF file (for qmempool_test's kretprobe: not inlined) */
void *qmp_btf_read(size_t *size);

#endif /* _QMP_CACHE_INFO_H */
