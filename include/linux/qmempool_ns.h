/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qmempool_ns.h - the symbol namespace of the project's exports.
 *
 * alf_queue, qmempool, skb_pool, skb_pool_hook and time_bench export
 * their symbols in the namespace QMEMPOOL, not in the kernel's global
 * one.  A module that calls them says so once, in any of its files:
 *
 *	QMEMPOOL_IMPORT_NS();
 *
 * else modpost and the module loader refuse it.  The kernel's own
 * MODULE_IMPORT_NS() changed its argument in 6.13 (a bare name before, a
 * string since); this spelling is the modinfo record both make
 * (import_ns=QMEMPOOL), right on every kernel.  <linux/alf_queue.h>, and
 * so <linux/qmempool.h> and <linux/skb_pool.h>, include this header.
 */
#ifndef _LINUX_QMEMPOOL_NS_H
#define _LINUX_QMEMPOOL_NS_H

#include <linux/export.h>
#include <linux/module.h>

/**
 * QMEMPOOL_IMPORT_NS() - import the namespace of the project's exports
 *
 * Once in a module that calls alf_queue, qmempool, skb_pool or time_bench
 * functions.
 */
#define QMEMPOOL_IMPORT_NS()	MODULE_INFO(import_ns, "QMEMPOOL")

/*
 * The namespace argument of EXPORT_SYMBOL_NS_GPL(): a string since 6.13, a
 * name it stringifies before (Kbuild's feature test sets
 * HAVE_EXPORT_NS_STRING)
 */
#ifdef HAVE_EXPORT_NS_STRING
#define QMP_NS(ns)		#ns
#else
#define QMP_NS(ns)		ns
#endif

/* QMP_EXPORT(sym) - the project's own exports, GPL-only, in QMEMPOOL */
#define QMP_EXPORT(sym)		EXPORT_SYMBOL_NS_GPL(sym, QMP_NS(QMEMPOOL))

#endif /* _LINUX_QMEMPOOL_NS_H */
