/* SPDX-License-Identifier: GPL-2.0 */
/*
 * namelist.h - comma-separated name lists, as module parameters give
 * them ("a,b,c"): the test suites' only= (include/qmp/ktap.h) and
 * time_bench.ko's only= (bench_modules/time_bench.c).  A name is compared
 * whole: "pool" is not in "pool_reuse".  A newline ends a name as a comma
 * does: a parameter written through sysfs by echo ends in one.
 */
#ifndef _QMP_NAMELIST_H
#define _QMP_NAMELIST_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/types.h>
#else
#include <qmp/user_compat.h>
#endif

/* The length of the name at @p of a comma-separated list */
static inline size_t qmp_only_len(const char *p)
{
	return strcspn(p, ",\n");
}

/* Whether the @len characters at @p are @name */
static inline bool qmp_name_is(const char *p, size_t len, const char *name)
{
	return len == strlen(name) && !strncmp(p, name, len);
}

/* Whether the comma-separated list @list names @name (the whole name) */
static inline bool qmp_case_named(const char *list, const char *name)
{
	const char *p;
	size_t len;

	for (p = list; *p; p += len + !!p[len]) {
		len = qmp_only_len(p);
		if (qmp_name_is(p, len, name))
			return true;
	}
	return false;
}

#endif /* _QMP_NAMELIST_H */
