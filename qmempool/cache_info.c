// SPDX-License-Identifier: GPL-2.0
/*
 * cache_info.c - a kmem_cache's constructor, flags and name, and the
 * cache and position of an object, read through the offsets of the
 * members of struct kmem_cache and struct slab that the running kernel's
 * BTF (/sys/kernel/btf/vmlinux) describes.  See include/qmp/cache_info.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <qmp/cache_info.h>
#include <uapi/linux/btf.h>

#define BTF_PATH	"/sys/kernel/btf/vmlinux"

/*
 * Byte offsets of the members read (-1: not found).  Only a complete set
 * is published, once, in @layout; it never changes afterwards (it is the
 * running kernel's).
 */
struct cache_layout {
	int ctor, flags, name, object_size, size, red_left_pad;	/* kmem_cache */
	int slab_cache;						/* slab */
};

static DEFINE_MUTEX(cache_info_lock);
/* -EAGAIN: not read yet (or the last read failed), 0: read, else failed */
static int cache_info_state = -EAGAIN;
static struct cache_layout layout;
static bool layout_ready;	/* @layout published (smp_store_release) */

/*
 * From the BTF header's layout section (Linux 7.x and later writers):
 * the size of what follows each kind's struct btf_type, so that a kind
 * this code does not know can still be skipped.
 */
struct btf_kind_layout {
	u8 info_sz;	/* bytes after struct btf_type */
	u8 elem_sz;	/* bytes per vlen entry after those */
	u16 flags;
};

struct btf_blob {
	const char *types, *strs;
	u32 type_len, str_len;
	const struct btf_kind_layout *kinds;	/* NULL: no layout section */
	u32 nr_kinds;
};

/* Bytes that follow a struct btf_type of kind @kind with @vlen entries */
static long btf_extra(const struct btf_blob *b, unsigned int kind,
		      unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	if (b->kinds && kind < b->nr_kinds)
		return b->kinds[kind].info_sz +
		       (long)vlen * b->kinds[kind].elem_sz;
	return -1;		/* a kind this code cannot skip */
}

static const char *btf_str(const struct btf_blob *b, u32 off)
{
	return off < b->str_len ? b->strs + off : "";
}

/* The members of struct kmem_cache (@slab: of struct slab) wanted */
static void btf_members(const struct btf_blob *b, const struct btf_type *t,
			bool slab, struct cache_layout *l)
{
	const struct btf_member *m = (const void *)(t + 1);
	unsigned int i, vlen = BTF_INFO_VLEN(t->info);

	for (i = 0; i < vlen; i++, m++) {
		const char *name = btf_str(b, m->name_off);
		u32 bits = BTF_INFO_KFLAG(t->info) ?
			   BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		int off = bits / 8;

		if (bits % 8 || (BTF_INFO_KFLAG(t->info) &&
				 BTF_MEMBER_BITFIELD_SIZE(m->offset)))
			continue;	/* a bit field: not one of ours */
		if (slab) {
			if (!strcmp(name, "slab_cache"))
				l->slab_cache = off;
		} else if (!strcmp(name, "ctor")) {
			l->ctor = off;
		} else if (!strcmp(name, "flags")) {
			l->flags = off;
		} else if (!strcmp(name, "name")) {
			l->name = off;
		} else if (!strcmp(name, "object_size")) {
			l->object_size = off;
		} else if (!strcmp(name, "size")) {
			l->size = off;
		} else if (!strcmp(name, "red_left_pad")) {
			l->red_left_pad = off;
		}
	}
}

/*
 * The offsets of struct kmem_cache's and struct slab's members in a BTF
 * blob into @l; 0, or -EINVAL (a blob this code cannot walk), -ENOENT
 * (a member is missing).
 */
static int btf_find_offsets(const void *data, size_t size,
			    struct cache_layout *l)
{
	const struct btf_header *h = data;
	struct btf_blob b = { };
	bool cache_seen = false, slab_seen = false;
	u32 pos = 0;

	if (size < offsetofend(struct btf_header, str_len) ||
	    h->magic != BTF_MAGIC || h->hdr_len > size ||
	    h->hdr_len < offsetofend(struct btf_header, str_len) ||
	    (u64)h->hdr_len + h->type_off + h->type_len > size ||
	    (u64)h->hdr_len + h->str_off + h->str_len > size)
		return -EINVAL;
	b.types = data + h->hdr_len + h->type_off;
	b.type_len = h->type_len;
	b.strs = data + h->hdr_len + h->str_off;
	b.str_len = h->str_len;
	/* The layout section: two more u32s after str_len, 7.x headers */
	if (h->hdr_len >= offsetofend(struct btf_header, str_len) + 8) {
		const u32 *more = data +
				  offsetofend(struct btf_header, str_len);
		u32 off = more[0], len = more[1];

		if (len && !(off % 4) &&
		    (u64)h->hdr_len + off + len <= size) {
			b.kinds = data + h->hdr_len + off;
			b.nr_kinds = len / sizeof(*b.kinds);
		}
	}
	*l = (struct cache_layout){ -1, -1, -1, -1, -1, -1, -1 };
	while (pos + sizeof(struct btf_type) <= b.type_len &&
	       !(cache_seen && slab_seen)) {
		const struct btf_type *t = (const void *)(b.types + pos);
		unsigned int kind = BTF_INFO_KIND(t->info);
		unsigned int vlen = BTF_INFO_VLEN(t->info);
		long extra = btf_extra(&b, kind, vlen);
		const char *name;

		if (extra < 0 || pos + sizeof(*t) + extra > b.type_len)
			return -EINVAL;
		pos += sizeof(*t) + extra;
		if (kind != BTF_KIND_STRUCT || !vlen)
			continue;
		name = btf_str(&b, t->name_off);
		if (!cache_seen && !strcmp(name, "kmem_cache")) {
			btf_members(&b, t, false, l);
			cache_seen = true;
		} else if (!slab_seen && !strcmp(name, "slab")) {
			btf_members(&b, t, true, l);
			slab_seen = true;
		}
	}
	if (l->ctor < 0 || l->flags < 0 || l->name < 0 ||
	    l->object_size < 0 || l->size < 0 || l->red_left_pad < 0 ||
	    l->slab_cache < 0)
		return -ENOENT;
	return 0;
}

/*
 * The whole BTF file into a vmalloc()ed buffer (*@size bytes), or an
 * ERR_PTR(); read with kernel_read(): kernel_read_file() would ask the
 * LSMs about a file kind they do not know (IPE warns on 6.12).  Neither
 * static nor inlined: qmempool_test finds it by name for a kretprobe.
 */
noinline void *qmp_btf_read(size_t *size)
{
	size_t cap = 8 << 20, len = 0;
	struct file *f;
	loff_t pos = 0;
	void *buf;
	ssize_t n = 0;

	f = filp_open(BTF_PATH, O_RDONLY, 0);
	if (IS_ERR(f))
		return f;
	buf = vmalloc(cap);
	while (buf && (n = kernel_read(f, buf + len, cap - len, &pos)) > 0) {
		len += n;
		if (len == cap) {	/* grow: BTF is a few MiB */
			void *more = vmalloc(2 * cap);

			if (more)
				memcpy(more, buf, len);
			vfree(buf);
			buf = more;
			cap *= 2;
		}
	}
	filp_close(f, NULL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (n < 0) {
		vfree(buf);
		return ERR_PTR(n);
	}
	*size = len;
	return buf;
}

#define FIELD_OF(s, off, type)	(*(const type *)((const char *)(s) + (off)))

/*
 * The offsets read must fit the running kernel: object_size where
 * kmem_cache_size() (an exported reader of it) finds it, and a size that
 * can hold it.  A BTF of another build would not.
 */
static bool layout_fits(const struct cache_layout *l, struct kmem_cache *s)
{
	unsigned int object_size = FIELD_OF(s, l->object_size, unsigned int);

	return object_size == kmem_cache_size(s) &&
	       FIELD_OF(s, l->size, unsigned int) >= object_size;
}

/* Under cache_info_lock: read the BTF; the new cache_info_state */
static int cache_info_read(struct kmem_cache *s)
{
	struct cache_layout l;
	size_t size = 0;
	void *data;
	int ret;

	if (!IS_ENABLED(CONFIG_DEBUG_INFO_BTF)) {
		pr_err("this kernel has no BTF (CONFIG_DEBUG_INFO_BTF): caches cannot be inspected\n");
		return -EOPNOTSUPP;
	}
	data = qmp_btf_read(&size);
	if (IS_ERR(data)) {
		/* Not there in this mount namespace, out of memory, ... */
		pr_warn_ratelimited("cannot read %s (%ld): caches cannot be inspected now, the next pool creation tries again\n",
				    BTF_PATH, PTR_ERR(data));
		return -EAGAIN;
	}
	ret = btf_find_offsets(data, size, &l);
	vfree(data);
	if (!ret && !layout_fits(&l, s))
		ret = -ERANGE;
	if (ret) {
		pr_err("%s does not describe struct kmem_cache and struct slab as this code reads them (%d): caches cannot be inspected\n",
		       BTF_PATH, ret);
		return ret;
	}
	if (!layout_ready) {
		layout = l;
		/* Pairs with smp_load_acquire() in the readers of @layout */
		smp_store_release(&layout_ready, true);
	}
	return 0;
}

int qmp_cache_info(struct kmem_cache *s, struct qmp_cache_info *info)
{
	slab_flags_t flags;
	int ret;

	mutex_lock(&cache_info_lock);
	if (cache_info_state == -EAGAIN)
		cache_info_state = cache_info_read(s);
	ret = cache_info_state;
	mutex_unlock(&cache_info_lock);
	if (ret)
		return ret;
	flags = FIELD_OF(s, layout.flags, slab_flags_t);
	info->ctor = !!FIELD_OF(s, layout.ctor, void *);
	info->typesafe_by_rcu = !!(flags & SLAB_TYPESAFE_BY_RCU);
	info->account = !!(flags & SLAB_ACCOUNT);
	info->name = qmp_cache_name(s);
	return 0;
}

const char *qmp_cache_name(struct kmem_cache *s)
{
	const char *name;

	/* Pairs with smp_store_release() in cache_info_read() */
	if (!s || !smp_load_acquire(&layout_ready))
		return "?";
	name = FIELD_OF(s, layout.name, char *);
	return name ?: "?";
}

enum qmp_obj_kind qmp_obj_where(struct kmem_cache *s, const void *p,
				struct qmp_obj_where *where)
{
	struct kmem_cache *owner;
	struct folio *folio;
	unsigned long off;
	unsigned int size, pad = 0;

	/* Pairs with smp_store_release() in cache_info_read() */
	if (!smp_load_acquire(&layout_ready))
		return QMP_OBJ_UNKNOWN;
	if (!virt_addr_valid(p))
		return QMP_OBJ_NOT_SLAB;
	folio = virt_to_folio(p);
	if (!folio_test_slab(folio))
		return QMP_OBJ_NOT_SLAB;
	/* struct slab overlays the folio's first struct page */
	owner = READ_ONCE(*(struct kmem_cache **)((char *)folio +
						  layout.slab_cache));
	if (owner != s) {
		where->cache = owner;
		return QMP_OBJ_OTHER_CACHE;
	}
	/* One object per KFENCE page, not where the slab's stride says */
	if (is_kfence_address(p))
		return QMP_OBJ_START;
	/* As the slab's nearest_obj(): a stride of size, a left red zone */
	size = FIELD_OF(s, layout.size, unsigned int);
	if (FIELD_OF(s, layout.flags, slab_flags_t) & SLAB_RED_ZONE)
		pad = FIELD_OF(s, layout.red_left_pad, unsigned int);
	off = (const char *)p - (const char *)folio_address(folio);
	if (off < pad || (off - pad) % size ||
	    (off - pad) / size >= folio_size(folio) / size) {
		where->offset = off < pad ? 0 : (off - pad) % size;
		return QMP_OBJ_INSIDE;
	}
	return QMP_OBJ_START;
}

/*
 * /sys/module/qmempool/parameters/cache_info: what was read (the state,
 * the offsets); a write of anything has the next pool creation read the
 * BTF again (qmempool_test makes that read fail on purpose).
 */
static int cache_info_param_set(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&cache_info_lock);
	cache_info_state = -EAGAIN;
	mutex_unlock(&cache_info_lock);
	return 0;
}

static int cache_info_param_get(char *buf, const struct kernel_param *kp)
{
	int n;

	mutex_lock(&cache_info_lock);
	n = scnprintf(buf, PAGE_SIZE, "%s (%d)", !cache_info_state ? "read" :
		      cache_info_state == -EAGAIN ? "not read" : "failed",
		      cache_info_state);
	/* Pairs with smp_store_release() in cache_info_read() */
	if (smp_load_acquire(&layout_ready))
		n += scnprintf(buf + n, PAGE_SIZE - n,
			       ": kmem_cache ctor %d flags %d name %d object_size %d size %d red_left_pad %d, slab slab_cache %d",
			       layout.ctor, layout.flags, layout.name,
			       layout.object_size, layout.size,
			       layout.red_left_pad, layout.slab_cache);
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	mutex_unlock(&cache_info_lock);
	return n;
}

static const struct kernel_param_ops cache_info_param_ops = {
	.set = cache_info_param_set,
	.get = cache_info_param_get,
};
module_param_cb(cache_info, &cache_info_param_ops, NULL, 0644);
MODULE_PARM_DESC(cache_info,
		 "What was read of the kernel's BTF about struct kmem_cache and struct slab; a write has the next pool creation read it again");
