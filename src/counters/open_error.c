// SPDX-License-Identifier: GPL-2.0-only
#include "open_error.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

int perf_event_paranoid(void)
{
	char buf[32], *end;
	long v;

	if (read_text_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)))
		return INT_MAX;
	v = strtol(buf, &end, 0);
	if (end == buf || v < INT_MIN || v > INT_MAX)
		return INT_MAX;
	return (int)v;
}

bool open_error_fallback(struct evsel *evsel, int err, int verbose)
{
	struct perf_event_attr *attr = &evsel->attr;
	const char *sep = ":";
	char *name;
	int paranoid;

	if (err != -EACCES || attr->exclude_kernel)
		return false;
	paranoid = perf_event_paranoid();
	if (paranoid <= 1 || attr->exclude_user)
		return false;
	if (!evsel->name)
		evsel->name = evsel_name_from_attr(attr);
	/* perf appends "u" to a modifier list or a pmu/.../ term list already there */
	if (strchr(evsel->name, '/') || strchr(evsel->name, ':'))
		sep = "";
	name = xasprintf("%s%su", evsel->name, sep);
	free(evsel->name);
	evsel->name = name;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	/* perf's text, two blanks before "samples" included */
	if (verbose)
		pr_err("Warning:\nkernel.perf_event_paranoid=%d, trying to fall back to excluding "
		       "kernel and hypervisor  samples", paranoid);
	return true;
}

/* SELinux in enforcing mode gets a paragraph of its own in perf's permission text. */
static bool selinux_enforcing(void)
{
	char buf[16];

	return !read_text_file("/sys/fs/selinux/enforce", buf, sizeof(buf)) && atoi(buf);
}

static void print_permission_error(void)
{
	pr_err("Error:\nAccess to performance monitoring and observability operations is limited.\n"
	       "%s"
	       "Consider adjusting /proc/sys/kernel/perf_event_paranoid setting to open\n"
	       "access to performance monitoring and observability operations for processes\n"
	       "without CAP_PERFMON, CAP_SYS_PTRACE or CAP_SYS_ADMIN Linux capability.\n"
	       "More information can be found at 'Perf events and tool security' document:\n"
	       "https://www.kernel.org/doc/html/latest/admin-guide/perf-security.html\n"
	       "perf_event_paranoid setting is %d:\n"
	       "  -1: Allow use of (almost) all events by all users\n"
	       "      Ignore mlock limit after perf_event_mlock_kb without CAP_IPC_LOCK\n"
	       ">= 0: Disallow raw and ftrace function tracepoint access\n"
	       ">= 1: Disallow CPU event access\n"
	       ">= 2: Disallow kernel profiling\n"
	       "To make the adjusted perf_event_paranoid setting permanent preserve it\n"
	       "in /etc/sysctl.conf (e.g. kernel.perf_event_paranoid = <setting>)",
	       selinux_enforcing() ?
	       "Enforced MAC policy settings (SELinux) can limit access to performance\n"
	       "monitoring and observability operations. Inspect system audit records for\n"
	       "more perf_event access control information and adjusting the policy.\n" : "",
	       perf_event_paranoid());
}

/* perf prints its message as "%s\n", hence the blank line after texts that end in '\n'. */
void open_error_print(const struct evsel *evsel, int err, bool per_task)
{
	const char *name = evsel->name ? evsel->name : "";

	switch (err) {
	case -EACCES:
		print_permission_error();
		return;
	case -EPERM:
		/*
		 * perf 6.1 writes this line over the start of its permission text, and the
		 * rest of that text lands after the line's end: only the line is printed.
		 */
		pr_err("Error:\nNo permission to enable %s event.\n\n", name);
		return;
	case -EMFILE:
		pr_err("Error:\nToo many events are opened.\n"
		       "Probably the maximum number of open file descriptors has been reached.\n"
		       "Hint: Try again after reducing the number of events.\n"
		       "Hint: Try increasing the limit with 'ulimit -n <limit>'");
		return;
	case -ENOENT:
		/* perf's text has no '\n' of its own here: no blank line */
		pr_err("Error:\nThe %s event is not supported.", name);
		return;
	case -EINVAL:
		/* perf's guess where there is no CPU target (a leader only -a could open) */
		if (per_task) {
			pr_err("Error:\nInvalid event (%s) in per-thread mode, enable system wide "
			       "with '-a'.", name);
			return;
		}
		break;
	}
	pr_err("Error:\nThe sys_perf_event_open() syscall returned with %d (%s) for event (%s).\n"
	       "/bin/dmesg | grep -i perf may provide additional information.\n",
	       -err, strerror(-err), name);
}
