/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kthread.h - the two kthread helpers the project's test and benchmark
 * modules share.
 */
#ifndef _QMP_KTHREAD_H
#define _QMP_KTHREAD_H

#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/sched.h>

/*
 * After its work, a test or benchmark kthread waits here for kthread_stop(),
 * so the test can stop every thread whether or not it already finished.
 */
static inline void qmp_kthread_wait_stop(void)
{
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

/* Wait in 1 s steps, so a long wait is no hung task */
static inline void qmp_wait_completion(struct completion *done)
{
	while (!wait_for_completion_timeout(done, HZ))
		;
}

#endif /* _QMP_KTHREAD_H */
