/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - what every module of the project says about itself
 * (modinfo): license, author and the version of debian/changelog, the one
 * source of it (QMP_VERSION, passed by the top-level Kbuild).
 * Include it in the one source file of a module that has module_init().
 */
#ifndef _QMP_VERSION_H
#define _QMP_VERSION_H

#include <linux/module.h>
#include <linux/qmempool_ns.h>

#ifndef QMP_VERSION
#define QMP_VERSION "unknown"
#endif

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The qmempool developers");
MODULE_VERSION(QMP_VERSION);
/* Every module of the project calls, or is, one of the others */
QMEMPOOL_IMPORT_NS();

#endif /* _QMP_VERSION_H */
