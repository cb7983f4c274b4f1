// SPDX-License-Identifier: GPL-2.0
/*
 * qmempool_test_inspect.c - a cache the pool cannot inspect is refused
 * (cache_not_inspectable): a kretprobe on qmempool.ko's reader of the
 * kernel's BTF (qmp_btf_read()) fails the read, or hands the parser a
 * BTF with a kind it cannot skip, without struct kmem_cache, or with the
 * members at offsets that do not fit this kernel; a write
 * to the module parameter qmempool.cache_info makes the pool forget what
 * it read.  A failed
 * read is tried again at the next creation, a BTF that cannot be used is
 * not; the creator's QMEMPOOL_PLAIN_CACHE is taken meanwhile.
 */
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <uapi/linux/btf.h>
#include "qmempool_test.h"

#define CACHE_INFO	"/sys/module/qmempool/parameters/cache_info"

enum { BTF_REAL, BTF_READ_FAILS, BTF_BLOB };

static atomic_t btf_mode;
static atomic_t btf_reads;
static void *btf_blob;		/* BTF_BLOB: returned (once) instead */
static size_t btf_blob_size;
static void *btf_real;		/* what the real read returned meanwhile */

static int btf_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(size_t **)ri->data = (size_t *)regs_get_kernel_argument(regs, 0);
	atomic_inc(&btf_reads);
	return 0;
}

static int btf_read_return(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	void *ret = (void *)regs_return_value(regs), *blob;
	int mode = atomic_read(&btf_mode);

	if (mode == BTF_REAL)
		return 0;
	if (!IS_ERR(ret))	/* freed by the case, not here (atomic) */
		WRITE_ONCE(btf_real, ret);
	if (mode == BTF_READ_FAILS) {
		regs_set_return_value(regs, (unsigned long)ERR_PTR(-EIO));
		return 0;
	}
	blob = xchg(&btf_blob, NULL);
	if (blob)
		**(size_t **)ri->data = btf_blob_size;
	regs_set_return_value(regs, blob ? (unsigned long)blob :
			      (unsigned long)ERR_PTR(-EIO));
	return 0;
}

static struct kretprobe btf_probe = {
	.kp.symbol_name = "qmp_btf_read",
	.entry_handler = btf_read_entry, .handler = btf_read_return,
	.data_size = sizeof(size_t *), .maxactive = 4,
};

/*
 * A zeroed BTF blob (vmalloc()ed) with its header filled in: @type_len
 * bytes of types after the header, then @str_len bytes of strings
 */
static struct btf_header *new_blob(u32 type_len, u32 str_len, size_t *size)
{
	u32 hdr_len = offsetofend(struct btf_header, str_len);
	struct btf_header *h;

	*size = hdr_len + type_len + str_len;
	h = vzalloc(*size);
	if (!h)
		return NULL;
	h->magic = BTF_MAGIC;
	h->version = BTF_VERSION;
	h->hdr_len = hdr_len;
	h->type_off = 0;
	h->type_len = type_len;
	h->str_off = type_len;
	h->str_len = str_len;
	return h;
}

/*
 * A BTF blob (vmalloc()ed: the reader's caller frees it) of one type
 * whose struct btf_type carries @info and is followed by @extra zero
 * bytes, named "t"
 */
static void *make_blob(u32 info, u32 extra, size_t *size)
{
	static const char strs[] = "\0t";
	u32 type_len = sizeof(struct btf_type) + extra;
	struct btf_header *h;
	struct btf_type *t;

	h = new_blob(type_len, sizeof(strs), size);
	if (!h)
		return NULL;
	t = (void *)h + h->hdr_len;
	t->name_off = 1;
	t->info = info;
	t->size = 4;
	memcpy((char *)t + type_len, strs, sizeof(strs));
	return h;
}

/*
 * A BTF blob with a struct kmem_cache and a struct slab that have every
 * member the pool reads, each struct's members @step bytes apart from
 * offset 0: well formed, but not this kernel's layout
 */
static void *make_layout_blob(u32 step, size_t *size)
{
	/* The string section: "", then the names, each NUL-terminated */
	static const char *const names[] = {
		"kmem_cache", "ctor", "flags", "name", "object_size", "size",
		"red_left_pad", "slab", "slab_cache" };
	enum { CACHE, FIRST_MEMBER, SLAB = 7, SLAB_CACHE, NR_NAMES };
	u32 nc = SLAB - FIRST_MEMBER, i, name_off[NR_NAMES], str_len = 1;
	u32 type_len = 2 * sizeof(struct btf_type) +
		       (nc + 1) * sizeof(struct btf_member);
	struct btf_header *h;
	struct btf_member *m;
	struct btf_type *t;
	char *strs;

	for (i = 0; i < NR_NAMES; i++) {
		name_off[i] = str_len;
		str_len += strlen(names[i]) + 1;
	}
	h = new_blob(type_len, str_len, size);
	if (!h)
		return NULL;
	strs = (char *)h + h->hdr_len + type_len;
	for (i = 0; i < NR_NAMES; i++)
		memcpy(strs + name_off[i], names[i], strlen(names[i]) + 1);
	t = (void *)h + h->hdr_len;
	t->name_off = name_off[CACHE];
	t->info = BTF_KIND_STRUCT << 24 | nc;
	t->size = nc * step;
	m = (void *)(t + 1);
	for (i = 0; i < nc; i++, m++) {
		m->name_off = name_off[FIRST_MEMBER + i];
		m->offset = i * step * 8;
	}
	t = (void *)m;
	t->name_off = name_off[SLAB];
	t->info = BTF_KIND_STRUCT << 24 | 1;
	t->size = step;
	m = (void *)(t + 1);
	m->name_off = name_off[SLAB_CACHE];
	return h;
}

/* Create pools on @c as a creator would and as one that vouches for it */
static void expect_created(struct qmp_test *t, struct kmem_cache *c,
			   bool refused, const char *when)
{
	struct qmempool *pool = qmempool_create(64, 256, 0, c, GFP_KERNEL);

	QMP_EXPECT(t, refused ? PTR_ERR_OR_ZERO(pool) == -EINVAL : !IS_ERR(pool),
		   "%s: the cache was %s (%d)", when,
		   IS_ERR(pool) ? "refused" : "accepted", PTR_ERR_OR_ZERO(pool));
	qmempool_destroy(pool);
	vfree(xchg(&btf_real, NULL));
	if (!refused)
		return;
	pool = qmempool_create_flags(64, 256, 0, c, GFP_KERNEL,
				     QMEMPOOL_PLAIN_CACHE);
	QMP_EXPECT(t, !IS_ERR(pool), "%s: refused with QMEMPOOL_PLAIN_CACHE",
		   when);
	qmempool_destroy(pool);
	vfree(xchg(&btf_real, NULL));
}

static int forget(struct qmp_test *t)
{
	int ret = qmp_write_str(CACHE_INFO, "1");

	QMP_EXPECT(t, !ret, "writing %s failed (%d)", CACHE_INFO, ret);
	return ret;
}

/* A BTF the pool cannot use (@blob): refused, and not read again */
static void expect_unusable_blob(struct qmp_test *t, struct kmem_cache *c,
				 void *blob, size_t size, const char *what)
{
	int reads;

	if (!QMP_EXPECT(t, blob, "out of memory") || forget(t)) {
		vfree(blob);
		return;
	}
	btf_blob_size = size;
	btf_blob = blob;
	atomic_set(&btf_mode, BTF_BLOB);
	expect_created(t, c, true, what);
	vfree(xchg(&btf_blob, NULL));	/* if it was not read */
	atomic_set(&btf_mode, BTF_REAL);
	reads = atomic_read(&btf_reads);
	expect_created(t, c, true, what);
	QMP_EXPECT(t, atomic_read(&btf_reads) == reads,
		   "%s: the BTF was read again", what);
}

void test_cache_not_inspectable(struct qmp_test *t)
{
	struct kmem_cache *c = test_cache(t);
	int reads, ret;
	size_t size;
	void *blob;

	if (!c)
		return;
	ret = register_kretprobe(&btf_probe);
	if (!QMP_EXPECT(t, !ret, "kretprobe on qmp_btf_read failed (%d)", ret))
		goto out;
	/* The BTF file cannot be read now: refused, read again each time */
	if (forget(t))
		goto out_probe;
	atomic_set(&btf_mode, BTF_READ_FAILS);
	reads = atomic_read(&btf_reads);
	expect_created(t, c, true, "BTF read failed");
	QMP_EXPECT(t, atomic_read(&btf_reads) == reads + 2,
		   "the BTF was read %d times for 2 creations",
		   atomic_read(&btf_reads) - reads);
	atomic_set(&btf_mode, BTF_REAL);
	expect_created(t, c, false, "BTF readable again");

	/* A kind the parser does not know and the BTF does not describe */
	blob = make_blob(31 << 24, 0, &size);
	expect_unusable_blob(t, c, blob, size, "unknown BTF kind");
	/* A BTF without struct kmem_cache (an int) */
	blob = make_blob(BTF_KIND_INT << 24, 4, &size);
	expect_unusable_blob(t, c, blob, size,
			     "no struct kmem_cache in the BTF");
	/* Every member there, but not where this kernel has them */
	blob = make_layout_blob(4, &size);
	expect_unusable_blob(t, c, blob, size, "another kernel's layout");

	/* The real BTF again, for what follows */
	if (!forget(t))
		expect_created(t, c, false, "real BTF");
out_probe:
	atomic_set(&btf_mode, BTF_REAL);
	unregister_kretprobe(&btf_probe);
	vfree(xchg(&btf_real, NULL));
out:
	kmem_cache_destroy(c);
}
