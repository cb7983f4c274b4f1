// SPDX-License-Identifier: GPL-2.0
/*
 * cache_info.c - a kmem_cache's constructor and flags, read through the
 * offsets of struct kmem_cache's "ctor" and "flags" members that the
 * running kernel's BTF (/sys/kernel/btf/vmlinux) describes.  See
 * include/qmp/cache_info.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <qmp/cache_info.h>
#include <uapi/linux/btf.h>

#define BTF_PATH	"/sys/kernel/btf/vmlinux"

static DEFINE_MUTEX(cache_info_lock);
static bool cache_info_done;
static int ctor_off = -1, flags_off = -1;

/* Bytes that follow a struct btf_type of kind @kind with @vlen entries */
static long btf_extra(unsigned int kind, unsigned int vlen)
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
	return -1;		/* a kind this code does not know */
}

static const char *btf_str(const char *strs, u32 len, u32 off)
{
	return off < len ? strs + off : "";
}

/* Member offsets of the (complete) struct kmem_cache in a BTF blob */
static int btf_find_offsets(const void *data, size_t size)
{
	const struct btf_header *h = data;
	const char *types, *strs;
	u32 pos = 0;

	if (size < sizeof(*h) || h->magic != BTF_MAGIC ||
	    h->hdr_len > size || (u64)h->hdr_len + h->type_off +
	    h->type_len > size || (u64)h->hdr_len + h->str_off +
	    h->str_len > size)
		return -EINVAL;
	types = data + h->hdr_len + h->type_off;
	strs = data + h->hdr_len + h->str_off;
	while (pos + sizeof(struct btf_type) <= h->type_len) {
		const struct btf_type *t = (const void *)(types + pos);
		unsigned int kind = BTF_INFO_KIND(t->info);
		unsigned int vlen = BTF_INFO_VLEN(t->info);
		long extra = btf_extra(kind, vlen);
		const struct btf_member *m = (const void *)(t + 1);
		unsigned int i;

		if (extra < 0 || pos + sizeof(*t) + extra > h->type_len)
			return -EINVAL;
		pos += sizeof(*t) + extra;
		if (kind != BTF_KIND_STRUCT || !vlen ||
		    strcmp(btf_str(strs, h->str_len, t->name_off), "kmem_cache"))
			continue;
		for (i = 0; i < vlen; i++, m++) {
			const char *name = btf_str(strs, h->str_len, m->name_off);
			u32 bits = BTF_INFO_KFLAG(t->info) ?
				   BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;

			if (bits % 8)
				continue;
			if (!strcmp(name, "ctor"))
				ctor_off = bits / 8;
			else if (!strcmp(name, "flags"))
				flags_off = bits / 8;
		}
		return ctor_off >= 0 && flags_off >= 0 ? 0 : -ENOENT;
	}
	return -ENOENT;
}

/*
 * The whole BTF file into a vmalloc()ed buffer (*@size bytes); read with
 * kernel_read(): kernel_read_file() would ask the LSMs about a file kind
 * they do not know (IPE warns on 6.12).
 */
static void *btf_read(size_t *size)
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

static void cache_info_init(void)
{
	size_t size = 0;
	void *data = btf_read(&size);
	int ret;

	ret = IS_ERR(data) ? PTR_ERR(data) : btf_find_offsets(data, size);
	if (!IS_ERR(data))
		vfree(data);
	if (ret) {
		ctor_off = -1;
		flags_off = -1;
		pr_info("cannot read struct kmem_cache from %s (%d): caches with a constructor or SLAB_TYPESAFE_BY_RCU cannot be refused\n",
			BTF_PATH, ret);
	}
}

int qmp_cache_info(struct kmem_cache *s, struct qmp_cache_info *info)
{
	slab_flags_t flags;

	mutex_lock(&cache_info_lock);
	if (!cache_info_done) {
		cache_info_init();
		cache_info_done = true;
	}
	mutex_unlock(&cache_info_lock);
	if (ctor_off < 0)
		return -ENOENT;
	flags = *(const slab_flags_t *)((const char *)s + flags_off);
	info->ctor = !!*(void *const *)((const char *)s + ctor_off);
	info->typesafe_by_rcu = !!(flags & SLAB_TYPESAFE_BY_RCU);
	return 0;
}
