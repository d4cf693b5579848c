/* SPDX-License-Identifier: GPL-2.0-only */
/* x86-64's register frames for vmlinux.h (__TARGET_ARCH_x86) */
#ifndef __VMLINUX_X86_H__
#define __VMLINUX_X86_H__

/* the register frame (also the user-visible context of perf_event programs) */
struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
} __attribute__((preserve_access_index));

typedef struct pt_regs bpf_user_pt_regs_t;

#endif /* __VMLINUX_X86_H__ */
