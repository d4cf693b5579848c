// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who else counts with a leader. Upstream perf's sessions attach a follower, an fexit program,
 * to the leader's on_switch and hold the leader's link. Neither Linux 6.1 nor 6.18 reports how
 * many hold a program or link, but every BPF trampoline link reports its target: for a program
 * the target's id, for a kernel function the id of the kernel BTF it is in (bpf_link_info
 * tracing.target_obj_id; since Linux 5.13). So the links are walked.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "leader.h"

/*
 * Whether the program a trampoline link attached was loaded for a BPF program, not a kernel
 * function: then the kernel reports no kernel BTF (0; the target program's BTF before attach).
 */
static bool attached_to_program(__u32 prog_id, __u32 target_btf_obj_id)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(prog_id);
	bool ok;

	if (fd < 0)
		return false;
	ok = !bpf_obj_get_info_by_fd(fd, &info, &len) &&
	     (!info.attach_btf_obj_id || info.attach_btf_obj_id == target_btf_obj_id);
	close(fd);
	return ok;
}

/*
 * Before Linux 5.13 a trampoline link reports no target (0, where a kernel function's is the
 * kernel BTF's id): a program named as upstream perf's follower may then follow this leader, and
 * the entry stays (a dead leader's is swept later).
 */
static bool may_follow_untold(const struct bpf_link_info *info)
{
	struct bpf_prog_info prog = { 0 };
	__u32 len = sizeof(prog);
	int fd;
	bool named;

	if (info->type != BPF_LINK_TYPE_TRACING || info->tracing.target_obj_id)
		return false;
	fd = bpf_prog_get_fd_by_id(info->prog_id);
	if (fd < 0)
		return false;
	named = !bpf_obj_get_info_by_fd(fd, &prog, &len) && !strcmp(prog.name, "fexit_XXX");
	close(fd);
	return named;
}

bool leader_has_followers(const struct leader_handle *h)
{
	struct bpf_prog_info leader = { 0 };
	__u32 len = sizeof(leader), id = 0;

	/* a leader bperf cannot tell about keeps its entry: a dead one is swept later */
	if (bpf_obj_get_info_by_fd(h->prog_fd, &leader, &len))
		return true;
	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = { 0 };
		__u32 ilen = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);
		bool follows;

		if (fd < 0)
			continue;	/* gone meanwhile */
		follows = !bpf_obj_get_info_by_fd(fd, &info, &ilen) &&
			  info.type == BPF_LINK_TYPE_TRACING &&
			  info.tracing.target_obj_id == leader.id;
		close(fd);
		if (follows && attached_to_program(info.prog_id, leader.btf_id))
			return true;
		if (may_follow_untold(&info))
			return true;
	}
	/* the walk's end; any other refusal (EPERM) means bperf cannot tell: the entry stays */
	return errno != ENOENT;
}
