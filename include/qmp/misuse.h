/* SPDX-License-Identifier: GPL-2.0 */
/*
 * misuse.h - the last case of a test suite that uses ALF queues: with the
 * queue's debug mode on (alf_queue.debug=1), the suite must not have
 * misused any queue.  QMP_MISUSE_CASE() defines the case and the counter
 * it starts from; qmp_misuse_start() goes first in the module's init.
 */
#ifndef _QMP_MISUSE_H
#define _QMP_MISUSE_H

#include <linux/alf_queue.h>
#include <qmp/ktap.h>

static long qmp_misuses_at_load;

static inline void qmp_misuse_start(void)
{
	qmp_misuses_at_load = atomic_long_read(&alf_queue_debug_misuses);
}

static inline void qmp_test_no_alf_misuse(struct qmp_test *t)
{
	long n = atomic_long_read(&alf_queue_debug_misuses) -
		 qmp_misuses_at_load;

	if (!alf_queue_debug_enabled()) {
		qmp_test_skip(t, "alf_queue.debug=0 (make check runs the suite once with 1)");
		return;
	}
	QMP_EXPECT(t, !n, "ALF queues misused %ld times since the suite began",
		   n);
}

#define QMP_MISUSE_CASE	{ "no_alf_misuse", qmp_test_no_alf_misuse }

#endif /* _QMP_MISUSE_H */
