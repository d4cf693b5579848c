// SPDX-License-Identifier: GPL-2.0-only
#include "privileges.h"

#include <linux/capability.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

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

/* The kernel's bpf_capable() and perfmon_capable(): CAP_SYS_ADMIN grants what they check. */
static bool has_cap(const struct effective_caps *caps, int cap)
{
	bool has = caps->set[cap / 32] & (1u << (cap % 32));

	return !caps->known || has ||
	       (caps->set[CAP_SYS_ADMIN / 32] & (1u << (CAP_SYS_ADMIN % 32)));
}

int require_shared_counter_caps(const char *asked_by)
{
	struct effective_caps caps = effective_caps();
	bool bpf = has_cap(&caps, CAP_BPF), perfmon = has_cap(&caps, CAP_PERFMON);

	if (bpf && perfmon)
		return 0;
	pr_err("Shared counters (%s) need root, or CAP_BPF and CAP_PERFMON: missing %s", asked_by,
	       !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" : "CAP_PERFMON");
	return EXIT_FATAL;
}

int require_bpf_prog_caps(void)
{
	struct effective_caps caps = effective_caps();

	if (has_cap(&caps, CAP_SYS_ADMIN))
		return 0;
	pr_err("Counting BPF programs (-b) needs root, or CAP_SYS_ADMIN: missing CAP_SYS_ADMIN");
	return EXIT_FATAL;
}
