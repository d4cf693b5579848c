// SPDX-License-Identifier: GPL-2.0-only
#include "privileges.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/common.h"

struct effective_caps {
	bool known;	/* capget() answered */
	__u32 set[_LINUX_CAPABILITY_U32S_3];
};

static struct effective_caps effective_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };
	struct effective_caps caps = { 0 };
	int i;

	if (syscall(SYS_capget, &hdr, data))
		return caps;
	caps.known = true;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		caps.set[i] = data[i].effective;
	return caps;
}

bool has_effective_cap(int cap)
{
	struct effective_caps caps = effective_caps();

	/* the kernel's bpf_capable() and perfmon_capable(): CAP_SYS_ADMIN grants what they check */
	return !caps.known || (caps.set[cap / 32] & (1u << (cap % 32))) ||
	       (caps.set[CAP_SYS_ADMIN / 32] & (1u << (CAP_SYS_ADMIN % 32)));
}

/* "WHAT need(s) root, or CAP_SYS_ADMIN: missing CAP_SYS_ADMIN", unless we have it */
static int require_sys_admin(const char *what)
{
	if (has_effective_cap(CAP_SYS_ADMIN))
		return 0;
	pr_err("%s root, or CAP_SYS_ADMIN: missing CAP_SYS_ADMIN", what);
	return -EPERM;
}

int require_shared_counter_caps(const char *asked_by)
{
	char what[160];

	snprintf(what, sizeof(what), "Shared counters (%s) need", asked_by);
	return require_sys_admin(what);
}

int require_bpf_prog_caps(void)
{
	return require_sys_admin("Counting BPF programs (-b) needs");
}
