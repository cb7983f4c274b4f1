/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_info.h - what qmempool.ko needs to know about a kmem_cache that
 * the kernel does not export: whether it has a constructor and whether it
 * is SLAB_TYPESAFE_BY_RCU.  struct kmem_cache is private to mm/ (6.8+);
 * its layout is read from the running kernel's BTF (CONFIG_DEBUG_INFO_BTF,
 * /sys/kernel/btf/vmlinux), once.
 */
#ifndef _QMP_CACHE_INFO_H
#define _QMP_CACHE_INFO_H

#include <linux/types.h>

struct kmem_cache;

struct qmp_cache_info {
	bool ctor;		/* the cache has a constructor */
	bool typesafe_by_rcu;	/* SLAB_TYPESAFE_BY_RCU */
};

/*
 * qmp_cache_info() - fill @info for @s
 * Context: process context (the first call reads the BTF; may sleep).
 * Return: 0, or -ENOENT when the kernel's BTF is missing or does not
 * describe struct kmem_cache's ctor and flags (said once in the log).
 */
int qmp_cache_info(struct kmem_cache *s, struct qmp_cache_info *info);

#endif /* _QMP_CACHE_INFO_H */
