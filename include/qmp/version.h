/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - what every module of the project says about itself
 * (modinfo): license, author and the version of the VERSION file at the
 * top of the tree (QMP_VERSION, passed by the top-level Kbuild).
 * Include it in the one source file of a module that has module_init().
 */
#ifndef _QMP_VERSION_H
#define _QMP_VERSION_H

#include <linux/module.h>

#ifndef QMP_VERSION
#define QMP_VERSION "unknown"
#endif

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The qmempool developers");
MODULE_VERSION(QMP_VERSION);

#endif /* _QMP_VERSION_H */
