/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user-space programs of the ALF queue share (the
 * ThreadSanitizer test and the native benchmark): placing a queue in
 * user memory.
 */
#ifndef _ALF_USER_H
#define _ALF_USER_H

#include <linux/alf_queue.h>

/* What alf_queue.ko defines in the kernel; once per program */
#define ALF_USER_DEFINE_GLOBALS()				\
	DEFINE_STATIC_KEY_FALSE(alf_queue_debug_key);		\
	atomic_long_t alf_queue_debug_misuses

/* A zeroed, cache-line aligned queue of @size slots; free() it */
static inline struct alf_queue *alf_user_queue_alloc(u32 size, u32 flags)
{
	size_t bytes = sizeof(struct alf_queue) + size * sizeof(void *);
	struct alf_queue *q;

	if (alf_queue_check_params(size, flags))
		return NULL;
	q = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	if (!q)
		return NULL;
	memset(q, 0, bytes);
	alf_queue_init(q, size, flags);
	return q;
}

#endif /* _ALF_USER_H */
