/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64's register frames for vmlinux.h (__TARGET_ARCH_arm64). libbpf's PT_REGS_* macros read
 * struct user_pt_regs here, and perf_event programs see it as their context (UAPI: declared
 * plainly); the kernel's pt_regs starts with the same registers.
 */
#ifndef __VMLINUX_ARM64_H__
#define __VMLINUX_ARM64_H__

struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};

struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			u64 regs[31];
			u64 sp;
			u64 pc;
			u64 pstate;
		};
	};
	u64 orig_x0;
	s32 syscallno;
} __attribute__((preserve_access_index));

typedef struct user_pt_regs bpf_user_pt_regs_t;

#endif /* __VMLINUX_ARM64_H__ */
