// SPDX-License-Identifier: GPL-2.0
/*
 * alf_queue.ko - Array-based Lock-Free queue: allocation and debug mode.
 *
 * The enqueue/dequeue paths are inline in include/linux/alf_queue.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/alf_queue.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <qmp/version.h>

/* Debug mode of the inline paths (DEFINE_STATIC_KEY_FALSE, spelled out) */
struct static_key_false alf_queue_debug_key = STATIC_KEY_FALSE_INIT;
QMP_EXPORT(alf_queue_debug_key);

/* Misused calls refused in debug mode, all queues (see alf_queue.h) */
atomic_long_t alf_queue_debug_misuses = ATOMIC_LONG_INIT(0);
QMP_EXPORT(alf_queue_debug_misuses);

static int alf_debug_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	if (on)
		static_branch_enable(&alf_queue_debug_key);
	else
		static_branch_disable(&alf_queue_debug_key);
	return 0;
}

static int alf_debug_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n",
			  static_key_enabled(&alf_queue_debug_key) ? 'Y' : 'N');
}

static const struct kernel_param_ops alf_debug_ops = {
	.set = alf_debug_set,
	.get = alf_debug_get,
};
module_param_cb(debug, &alf_debug_ops, NULL, 0644);
MODULE_PARM_DESC(debug,
		 "Detect misuse of the Single/Multi variants (default: off)");

/**
 * alf_queue_alloc_flags() - allocate an empty ALF queue
 * @size: number of slots: a power of two in
 *        [ALF_QUEUE_MIN_SIZE, ALF_QUEUE_MAX_SIZE]
 * @flags: the variants the queue will be used with (ALF_SP_ENQ or
 *         ALF_MP_ENQ, ALF_SC_DEQ or ALF_MC_DEQ), checked in debug mode;
 *         0 lets the first calls decide
 * @gfp: allocation flags; a mask that may sleep (GFP_KERNEL) allows a
 *       vmalloc fallback for large queues
 *
 * Context: process context if @gfp may sleep, else any but NMI.
 * Return: the queue, or ERR_PTR(-EINVAL) for a bad @size or @flags,
 * ERR_PTR(-ENOMEM) when out of memory.
 */
struct alf_queue *alf_queue_alloc_flags(u32 size, u32 flags, gfp_t gfp)
{
	const char *why = alf_queue_check_params(size, flags);
	struct alf_queue *q;

	if (why) {
		pr_err("invalid queue (size %u, flags %#x): %s; size must be a power of two in [%u, %u]\n",
		       size, flags, why, ALF_QUEUE_MIN_SIZE, ALF_QUEUE_MAX_SIZE);
		return ERR_PTR(-EINVAL);
	}

	q = kvzalloc(struct_size(q, ring, size), gfp);
	if (!q)
		return ERR_PTR(-ENOMEM);
	alf_queue_init(q, size, flags);
	return q;
}
QMP_EXPORT(alf_queue_alloc_flags);

/**
 * alf_queue_alloc() - allocate an empty ALF queue (the RFC's interface)
 * @size: number of slots, see alf_queue_alloc_flags()
 * @gfp: allocation flags
 *
 * Context: see alf_queue_alloc_flags().
 * Return: the queue, ERR_PTR(-EINVAL) or ERR_PTR(-ENOMEM).
 */
struct alf_queue *alf_queue_alloc(u32 size, gfp_t gfp)
{
	return alf_queue_alloc_flags(size, 0, gfp);
}
QMP_EXPORT(alf_queue_alloc);

/**
 * alf_queue_free() - free a queue
 * @q: the queue, or NULL or an ERR_PTR (then nothing happens)
 *
 * The elements still queued are not freed (the queue does not own them):
 * drain the queue first.  Nobody may use @q any more.
 *
 * Context: any context in which kvfree() may be called (not NMI).
 */
void alf_queue_free(struct alf_queue *q)
{
	if (IS_ERR_OR_NULL(q))
		return;
	kvfree(q);
}
QMP_EXPORT(alf_queue_free);

MODULE_DESCRIPTION("ALF: Array-based Lock-Free bounded FIFO with bulk operations");
