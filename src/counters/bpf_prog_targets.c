// SPDX-License-Identifier: GPL-2.0-only
/* bperf stat -b: from the id list to open programs with the names trampolines attach to. */
#include "bpf_prog_targets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../util/common.h"
#include "prog_profiler.h"

int bpf_prog_ids_parse(const char *list, __u32 **ids, int *nr)
{
	const char *p = list;
	__u32 *out = NULL;
	int n = 0;

	do {
		unsigned long long id;
		char *end;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		id = strtoull(p, &end, 10);
		/* 0 and UINT_MAX are never program ids */
		if (errno || id == 0 || id >= 0xffffffffull || (*end && *end != ','))
			goto bad;
		out = xrealloc(out, (n + 1) * sizeof(*out));
		out[n++] = (__u32)id;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			goto bad;
	} while (*p);
	*ids = out;
	*nr = n;
	return 0;
bad:
	free(out);
	return -EINVAL;
}

/* The name of the program's first BTF function; -ENOENT when it has no BTF. */
static int first_func_name(struct bpf_prog_target *t)
{
	struct bpf_prog_info info = { 0 };
	struct bpf_func_info func = { 0 };
	__u32 len = sizeof(info);
	const struct btf_type *type;
	struct btf *btf;
	const char *name;

	if (bpf_obj_get_info_by_fd(t->fd, &info, &len))
		return -errno;
	if (!info.btf_id || !info.nr_func_info)
		return -ENOENT;
	/* only the first record: it describes the program's main function */
	memset(&info, 0, sizeof(info));
	info.nr_func_info = 1;
	info.func_info_rec_size = sizeof(func);
	info.func_info = (__u64)(unsigned long)&func;
	if (bpf_obj_get_info_by_fd(t->fd, &info, &len))
		return -errno;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return -errno;
	type = btf__type_by_id(btf, func.type_id);
	name = type ? btf__name_by_offset(btf, type->name_off) : NULL;
	if (name && *name)
		t->func_name = xstrdup(name);
	btf__free(btf);
	return t->func_name ? 0 : -ENOENT;
}

static int open_one(struct bpf_prog_target *t, __u32 id)
{
	int err;

	t->id = id;
	t->fd = bpf_prog_get_fd_by_id(id);
	if (t->fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			pr_err("Failed to open fd for bpf prog %u: no BPF program has this id", id);
		else if (err == -EPERM)
			pr_err("Failed to open fd for bpf prog %u: %s (counting BPF programs needs "
			       "root)", id, strerror(-err));
		else
			pr_err("Failed to open fd for bpf prog %u: %s", id, strerror(-err));
		return err;
	}
	err = first_func_name(t);
	if (err == -ENOENT)
		pr_err("bpf prog %u has no BTF function info: it cannot be counted (load it with "
		       "BTF)", id);
	else if (err)
		pr_err("Failed to get the BTF of bpf prog %u: %s", id, strerror(-err));
	return err;
}

int bpf_prog_targets_open(struct bpf_prog_targets *t, const char *list)
{
	__u32 *ids;
	int i, err;

	memset(t, 0, sizeof(*t));
	if (bpf_prog_ids_parse(list, &ids, &t->nr)) {
		pr_err("Failed to parse bpf prog ids %s", list);
		return -EINVAL;
	}
	t->progs = xzalloc(t->nr * sizeof(*t->progs));
	for (i = 0; i < t->nr; i++)
		t->progs[i].fd = -1;
	for (i = 0, err = 0; i < t->nr && !err; i++)
		err = open_one(&t->progs[i], ids[i]);
	free(ids);
	if (!err) {
		int refusal;

		err = prog_profiler_probe(&t->progs[0], &refusal);
		if (!err && refusal) {
			pr_err("bperf: the kernel refuses BPF trampolines (fexit on bpf prog %u: "
			       "%s): counting only runs and run time, from kernel BPF statistics",
			       t->progs[0].id, strerror(refusal));
			t->no_trampolines = true;
		}
	}
	if (err)
		bpf_prog_targets_close(t);
	return err;
}

void bpf_prog_targets_close(struct bpf_prog_targets *t)
{
	int i;

	for (i = 0; i < t->nr; i++) {
		if (t->progs[i].fd >= 0)
			close(t->progs[i].fd);
		free(t->progs[i].func_name);
	}
	free(t->progs);
	memset(t, 0, sizeof(*t));
}
