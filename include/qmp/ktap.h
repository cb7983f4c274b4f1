/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - the one test runner of the project's test modules (and of the
 * user-space test programs): runs an array of cases and prints a KTAP
 * document, the format of the kernel's own tests, which scripts/ktap-check
 * parses:
 *
 *	KTAP version 1
 *	1..<number of cases>
 *	# <diagnostic lines of a case>
 *	ok <n> <case>
 *	not ok <n> <case> # <first failed check>
 *	ok <n> <case> # SKIP <reason>
 *	# <suite>: pass:<p> fail:<f> skip:<s>
 *
 * A case is a function that makes checks with QMP_EXPECT(); every failed
 * check is printed as a diagnostic and fails the case.
 */
#ifndef _QMP_KTAP_H
#define _QMP_KTAP_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/stdarg.h>
#include <linux/string.h>
/*
 * KTAP lines carry no prefix: the functions below print with an empty
 * pr_fmt(), whatever the including module's pr_fmt() is (restored at the
 * end of this file).
 */
#pragma push_macro("pr_fmt")
#undef pr_fmt
#define pr_fmt(fmt) fmt
#define qmp_ktap_out(fmt, ...)	pr_info(fmt "\n", ##__VA_ARGS__)
#else
#include <qmp/user_compat.h>
#include <stdarg.h>
#define qmp_ktap_out(fmt, ...)	\
	do { printf(fmt "\n", ##__VA_ARGS__); fflush(stdout); } while (0)
#endif
#include <qmp/namelist.h>

struct qmp_test {
	const char *name;		/* the running case */
	unsigned int failed;		/* failed checks in it */
	const char *skip;		/* set by qmp_test_skip() */
	char first[160];		/* first failed check: "line N: ..." */
};

struct qmp_test_case {
	const char *name;
	void (*run)(struct qmp_test *t);
};

static inline __printf(3, 4) void
qmp_test_fail(struct qmp_test *t, int line, const char *fmt, ...)
{
	char msg[sizeof(t->first)];
	int len = snprintf(msg, sizeof(msg), "line %d: ", line);
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg + len, sizeof(msg) - len, fmt, args);
	va_end(args);
	qmp_ktap_out("# %s: %s", t->name, msg);
	if (!t->failed++)
		memcpy(t->first, msg, sizeof(msg));
}

/*
 * QMP_EXPECT(t, cond, fmt, ...) - check @cond; if false, fail the case
 * with the message.  Evaluates to @cond, so a case can stop early:
 *	if (!QMP_EXPECT(t, q, "alloc failed"))
 *		return;
 */
#define QMP_EXPECT(t, cond, fmt, ...) ({				\
	bool __qmp_ok = !!(cond);					\
	if (!__qmp_ok)							\
		qmp_test_fail((t), __LINE__, fmt, ##__VA_ARGS__);	\
	__qmp_ok;							\
})

/* Diagnostic line inside a case (KTAP "# ..." line) */
static inline __printf(2, 3) void
qmp_test_diag(struct qmp_test *t, const char *fmt, ...)
{
	char msg[160];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	qmp_ktap_out("# %s: %s", t->name, msg);
}

/* Mark the running case skipped (not passed), e.g. feature absent */
static inline void qmp_test_skip(struct qmp_test *t, const char *reason)
{
	t->skip = reason;
}

/**
 * qmp_run_suite_only() - run the cases named in @only, print the KTAP document
 * @suite: suite name, for the closing summary line
 * @cases: the cases, run in order
 * @n: number of cases
 * @only: comma-separated case names (a module's `only=` parameter), or
 *	NULL or "" for every case; the others are reported skipped, so the
 *	document still numbers every case of the suite
 *
 * Return: 0 if no case failed, else -EINVAL (so that a test module's init
 * can return it and insmod fails, as the kernel's own test modules do);
 * -EINVAL, before any case ran, if @only names a case the suite lacks.
 */
static inline int qmp_run_suite_only(const char *suite,
				     const struct qmp_test_case *cases,
				     unsigned int n, const char *only)
{
	unsigned int i, pass = 0, fail = 0, skip = 0;
	const char *p;
	size_t len;

	for (p = only ? only : ""; *p; p += len + !!p[len]) {
		len = qmp_only_len(p);
		for (i = 0; i < n; i++)
			if (qmp_name_is(p, len, cases[i].name))
				break;
		if (i == n) {
			qmp_ktap_out("# %s: only=%s: \"%.*s\" is no case of the suite",
				     suite, only, (int)len, p);
			return -EINVAL;
		}
	}
	qmp_ktap_out("KTAP version 1");
	qmp_ktap_out("1..%u", n);
	for (i = 0; i < n; i++) {
		struct qmp_test t = { .name = cases[i].name };

		if (only && *only && !qmp_case_named(only, t.name))
			qmp_test_skip(&t, "not in only=");
		else
			cases[i].run(&t);
		if (t.failed) {
			fail++;
			qmp_ktap_out("not ok %u %s # %s", i + 1, t.name, t.first);
		} else if (t.skip) {
			skip++;
			qmp_ktap_out("ok %u %s # SKIP %s", i + 1, t.name, t.skip);
		} else {
			pass++;
			qmp_ktap_out("ok %u %s", i + 1, t.name);
		}
	}
	qmp_ktap_out("# %s: pass:%u fail:%u skip:%u", suite, pass, fail, skip);
	return fail ? -EINVAL : 0;
}

/**
 * qmp_run_suite() - run @n cases and print their KTAP document
 * @suite: suite name, for the closing summary line
 * @cases: the cases, run in order
 * @n: number of cases
 *
 * Return: see qmp_run_suite_only().
 */
static inline int qmp_run_suite(const char *suite,
				const struct qmp_test_case *cases,
				unsigned int n)
{
	return qmp_run_suite_only(suite, cases, n, NULL);
}

#ifdef __KERNEL__
#include <linux/err.h>
#include <linux/fs.h>
#include <qmp/kthread.h>

/**
 * qmp_read_long() - the number at the start of a (sysfs) file
 * @path: e.g. "/sys/kernel/slab/<cache>/objects"
 *
 * Context: process context.
 * Return: the number, or a negative errno (-EINVAL: no number there).
 */
static inline long qmp_read_long(const char *path)
{
	char buf[64] = { };
	struct file *f;
	loff_t pos = 0;
	long n = -EINVAL;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (kernel_read(f, buf, sizeof(buf) - 1, &pos) > 0 &&
	    sscanf(buf, "%ld", &n) != 1)
		n = -EINVAL;
	filp_close(f, NULL);
	return n;
}

/**
 * qmp_write_str() - write a string to a (sysfs) file
 * @path: e.g. "/sys/kernel/slab/<cache>/skip_kfence"
 * @str: what to write
 *
 * Context: process context.
 * Return: 0, or a negative errno (-ENOENT: no such file).
 */
static inline int qmp_write_str(const char *path, const char *str)
{
	size_t len = strlen(str);
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, str, len, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

#pragma pop_macro("pr_fmt")
#endif

#endif /* _QMP_KTAP_H */
