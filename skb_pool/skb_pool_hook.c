// SPDX-License-Identifier: GPL-2.0
/*
 * skb_pool_hook.ko - puts the sk_buff heads the kernel frees into
 * skb_pool.ko's pool; see include/linux/skb_pool.h.
 *
 * An ftrace handler on kfree_skbmem() (a static function, but traceable)
 * changes the return address of the ftrace call to skb_pool_free_head(),
 * which takes the same argument, for every skb that is not a fast clone:
 * the kernel's function never runs for those.
 *
 * Lifetime: the handler runs on every free of an skb, so this module's
 * code must outlive the hook.  Turning the hook on takes a reference on
 * the module and turning it off (after every task left the redirected
 * call) drops it: while the hook is on, rmmod refuses with "in use", and
 * if ftrace ever failed to remove the hook, the module stays loaded
 * instead of leaving the kernel a call into freed memory.  Once rmmod
 * has passed its check, the hook parameter, whose file outlives the
 * module's exit, can no longer turn the hook on (-ENODEV).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/skb_pool.h>
#include <linux/skbuff.h>
#include <qmp/version.h>

#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#error "skb_pool_hook needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS"
#endif

/* The ftrace_regs accessors were renamed in 6.5 */
#ifdef ftrace_regs_get_argument
#define skbp_arg0(fregs)	ftrace_regs_get_argument(fregs, 0)
#define skbp_set_ip(fregs, ip)	ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define skbp_arg0(fregs)	regs_get_kernel_argument(&(fregs)->regs, 0)
#define skbp_set_ip(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#endif

static DEFINE_MUTEX(skb_pool_hook_lock);
static bool skb_pool_hooked;	/* under the lock */
static bool skb_pool_hook_ready;	/* module init done, under the lock */
static bool hook = true;	/* wanted at load, until init is done */

static void notrace skb_pool_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct sk_buff *skb = (struct sk_buff *)skbp_arg0(fregs);

	/* Fast clones are another cache's; in NMI nothing may be freed */
	if (skb->fclone != SKB_FCLONE_UNAVAILABLE || in_nmi())
		return;
	skbp_set_ip(fregs, (unsigned long)skb_pool_free_head);
}

static struct ftrace_ops skb_pool_ops = {
	.func	= skb_pool_ftrace,
	/* IPMODIFY: the handler redirects; RECURSION: it calls nothing */
	.flags	= FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_RECURSION,
};

static int skb_pool_hook_switch(bool on)
{
	int ret;

	if (on == skb_pool_hooked)
		return 0;
	if (on) {
		/*
		 * Not once the module is going: rmmod checked that nothing
		 * holds it (the hook is off) and runs the exit next, while
		 * the hook parameter can still be written.  A reference
		 * taken before that check makes rmmod refuse instead.
		 */
		if (!try_module_get(THIS_MODULE))
			return -ENODEV;
		ret = register_ftrace_function(&skb_pool_ops);
		if (ret)
			module_put(THIS_MODULE);
		else
			skb_pool_hooked = true;
	} else {
		ret = unregister_ftrace_function(&skb_pool_ops);
		if (!ret) {
			/*
			 * A task preempted in skb_pool_free_head() has not
			 * passed a voluntary context switch yet: wait for
			 * every task to, before the module may go.
			 */
			synchronize_rcu_tasks();
			skb_pool_hooked = false;
			module_put(THIS_MODULE);
		}
	}
	if (ret && on)
		pr_err("cannot hook kfree_skbmem(): %d%s\n", ret, ret == -EBUSY ?
		       " (another ftrace user modifies it, e.g. a livepatch)" : "");
	/* ftrace could not remove the redirect: a kernel bug, not the user's */
	WARN(ret && !on, "cannot unhook kfree_skbmem(): %d; the hook stays on and the module loaded\n",
	     ret);
	return ret;
}

/**
 * skb_pool_set_hook() - put the heads the kernel frees into the pool, or not
 * @on: true to redirect kfree_skbmem() to the pool, false to stop
 *
 * A global switch, also /sys/module/skb_pool_hook/parameters/hook: a user
 * that changes it for a while (a benchmark) reads skb_pool_hook_enabled()
 * first and restores it.  Heads already in the pool stay there.
 *
 * Context: process context, may sleep (turning off waits for tasks RCU).
 * Return: 0; -ENODEV when turning on while the module is being unloaded;
 * or the error of register_ftrace_function() (e.g. -EBUSY when a livepatch
 * modifies kfree_skbmem()) or unregister_ftrace_function() (then the hook
 * stays on and the module loaded).
 */
int skb_pool_set_hook(bool on)
{
	int ret;

	mutex_lock(&skb_pool_hook_lock);
	ret = skb_pool_hook_switch(on);
	mutex_unlock(&skb_pool_hook_lock);
	return ret;
}
QMP_EXPORT(skb_pool_set_hook);

/**
 * skb_pool_hook_enabled() - whether freed heads go into the pool now
 *
 * Context: any.
 * Return: true while the hook is on.
 */
bool skb_pool_hook_enabled(void)
{
	return READ_ONCE(skb_pool_hooked);
}
QMP_EXPORT(skb_pool_hook_enabled);

/* The hook parameter: wanted state at load, the switch afterwards */
static int hook_param_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&skb_pool_hook_lock);
	if (skb_pool_hook_ready)
		ret = skb_pool_hook_switch(on);
	else
		hook = on;
	mutex_unlock(&skb_pool_hook_lock);
	return ret;
}

static int hook_param_get(char *buf, const struct kernel_param *kp)
{
	bool on;

	mutex_lock(&skb_pool_hook_lock);
	on = skb_pool_hook_ready ? skb_pool_hooked : hook;
	mutex_unlock(&skb_pool_hook_lock);
	return sysfs_emit(buf, "%c\n", on ? 'Y' : 'N');
}

static const struct kernel_param_ops hook_param_ops = {
	.set = hook_param_set,
	.get = hook_param_get,
};
module_param_cb(hook, &hook_param_ops, NULL, 0644);
MODULE_PARM_DESC(hook, "Freed heads go into the pool (default 1; write 0 before rmmod)");

#ifdef SKB_POOL_HOOK_TEST	/* a test build (QMP_TEST=1), see skb_pool/Kbuild */
static unsigned int test_exit_delay_ms;
module_param(test_exit_delay_ms, uint, 0444);
MODULE_PARM_DESC(test_exit_delay_ms, "Test builds only: sleep this long at the start of the module's exit (default 0)");
#endif

static int __init skb_pool_hook_init(void)
{
	char fn[] = "kfree_skbmem";
	int ret;

	ret = ftrace_set_filter(&skb_pool_ops, fn, strlen(fn), 0);
	if (ret) {
		pr_err("kfree_skbmem() is not traceable in this kernel: %d\n",
		       ret);
		return ret;
	}
	mutex_lock(&skb_pool_hook_lock);
	ret = skb_pool_hook_switch(hook);
	skb_pool_hook_ready = !ret;
	mutex_unlock(&skb_pool_hook_lock);
	if (ret) {
		ftrace_free_filter(&skb_pool_ops);
		return ret;
	}
	pr_info("free hook %s\n", hook ? "on" : "off");
	return 0;
}

static void __exit skb_pool_hook_exit(void)
{
#ifdef SKB_POOL_HOOK_TEST
	/* The window between rmmod's check of the references and here */
	msleep(test_exit_delay_ms);
#endif
	/* The hook holds a module reference: it is off when we get here */
	WARN_ON_ONCE(skb_pool_hooked);
	ftrace_free_filter(&skb_pool_ops);
}

module_init(skb_pool_hook_init);
module_exit(skb_pool_hook_exit);
MODULE_DESCRIPTION("Free hook of skb_pool: freed sk_buff heads into the pool");
