// SPDX-License-Identifier: GPL-2.0-only
/* Parsers of the feature sections `stat report` needs, each bounded by its section's size. */
#include "env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/target.h"

static int read_cmdline(struct perf_data_reader *r, struct data_env *env)
{
	struct feat_cursor c;
	const char *s;
	__u32 n, i;
	int ret = feat_cursor_load(r, FEAT_CMDLINE, &c);

	if (ret <= 0)
		return ret;
	ret = feat_cursor_u32(&c, &n);
	/* each string takes at least its 4-byte length */
	if (!ret && n > (c.size - c.pos) / 4)
		ret = data_error(r, c.offset, "command line of %u words in %zu bytes", n, c.size);
	if (!ret)
		env->cmdline = xzalloc((n + 1) * sizeof(char *));
	for (i = 0; !ret && i < n; i++) {
		ret = feat_cursor_string(&c, &s);
		if (!ret)
			env->cmdline[env->nr_cmdline++] = xstrdup(s);
	}
	feat_cursor_free(&c);
	return ret;
}

static int read_event_desc(struct perf_data_reader *r, struct data_env *env)
{
	struct feat_cursor c;
	__u32 nr, attr_size, i;
	int ret = feat_cursor_load(r, FEAT_EVENT_DESC, &c);

	if (ret <= 0)
		return ret;
	ret = feat_cursor_u32(&c, &nr);
	if (!ret)
		ret = feat_cursor_u32(&c, &attr_size);
	if (!ret && (attr_size < 64 || attr_size > DATA_MAX_ATTR_SIZE))
		ret = data_error(r, c.offset + 4, "event description attr size %u", attr_size);
	if (!ret && nr > (c.size - c.pos) / (attr_size + 8))
		ret = data_error(r, c.offset, "%u event descriptions in %zu bytes", nr, c.size);
	if (!ret)
		env->events = xzalloc((nr + 1) * sizeof(*env->events));
	for (i = 0; !ret && i < nr; i++) {
		struct data_event_desc *e = &env->events[i];
		__u64 at = c.offset + c.pos;
		const char *name;
		__u32 k;

		if (c.size - c.pos < attr_size) {
			ret = data_error(r, at, "event description %u is cut short", i);
			break;
		}
		ret = data_attr_from_file(r, at, c.data + c.pos, attr_size, &e->attr);
		c.pos += attr_size;
		env->nr_events++;
		if (!ret)
			ret = feat_cursor_u32(&c, &e->nr_ids);
		if (!ret)
			ret = feat_cursor_string(&c, &name);
		if (!ret && e->nr_ids > (c.size - c.pos) / 8)
			ret = data_error(r, at, "event %s claims %u ids", name, e->nr_ids);
		if (ret)
			break;
		e->name = xstrdup(name);
		e->ids = xzalloc((e->nr_ids + 1) * sizeof(__u64));
		for (k = 0; !ret && k < e->nr_ids; k++)
			ret = feat_cursor_u64(&c, &e->ids[k]);
	}
	feat_cursor_free(&c);
	return ret;
}

static int read_nr_cpus(struct perf_data_reader *r, struct data_env *env)
{
	struct feat_cursor c;
	__u32 avail;
	int ret = feat_cursor_load(r, FEAT_NRCPUS, &c);

	if (ret <= 0)
		return ret;
	ret = feat_cursor_u32(&c, &avail);
	if (!ret && avail > DATA_MAX_CPUS)
		ret = data_error(r, c.offset, "%u CPUs", avail);
	if (!ret)
		env->nr_cpus_avail = avail;
	feat_cursor_free(&c);
	return ret;
}

static int skip_strings(struct feat_cursor *c)
{
	const char *s;
	__u32 n, i;

	if (feat_cursor_u32(c, &n))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (feat_cursor_string(c, &s))
			return -EINVAL;
	return 0;
}

static int *ids_alloc(int nr)
{
	int *ids = xzalloc((nr + 1) * sizeof(int));

	memset(ids, 0xff, (nr + 1) * sizeof(int));
	return ids;
}

/* Package and thread sibling lists, then core and socket ids; dies since perf 5.x. */
static int read_cpu_topology(struct perf_data_reader *r, struct data_env *env)
{
	int nr = env->nr_cpus_avail, i, ret;
	struct feat_cursor c;
	__u32 core, socket, die;

	env->core_id = ids_alloc(nr);
	env->socket_id = ids_alloc(nr);
	env->die_id = ids_alloc(nr);
	ret = feat_cursor_load(r, FEAT_CPU_TOPOLOGY, &c);
	if (ret <= 0)
		return ret;
	ret = skip_strings(&c);
	if (!ret)
		ret = skip_strings(&c);
	/* older perf: no ids at all */
	if (!ret && c.size - c.pos >= 8ull * nr) {
		for (i = 0; i < nr && !ret; i++) {
			ret = feat_cursor_u32(&c, &core);
			if (!ret)
				ret = feat_cursor_u32(&c, &socket);
			env->core_id[i] = (int)core;
			env->socket_id[i] = (int)socket;
		}
		if (!ret && c.pos < c.size) {
			ret = skip_strings(&c);
			for (i = 0; i < nr && !ret; i++) {
				ret = feat_cursor_u32(&c, &die);
				env->die_id[i] = (int)die;
			}
		}
	}
	feat_cursor_free(&c);
	return ret;
}

static void mark_node_cpus(struct data_env *env, const char *list, int node)
{
	struct cpu_map map;

	if (cpu_map_parse(&map, list))
		return;
	for (int i = 0; i < map.nr && map.cpus[i] < env->nr_cpus_avail; i++)
		env->node_id[map.cpus[i]] = node;
	cpu_map_free(&map);
}

static int read_numa_topology(struct perf_data_reader *r, struct data_env *env)
{
	struct feat_cursor c;
	__u32 nr, i, node;
	__u64 mem;
	const char *cpus;
	int ret;

	env->node_id = ids_alloc(env->nr_cpus_avail);
	ret = feat_cursor_load(r, FEAT_NUMA_TOPOLOGY, &c);
	if (ret <= 0)
		return ret;
	ret = feat_cursor_u32(&c, &nr);
	for (i = 0; !ret && i < nr; i++) {
		ret = feat_cursor_u32(&c, &node);
		if (!ret)
			ret = feat_cursor_u64(&c, &mem);
		if (!ret)
			ret = feat_cursor_u64(&c, &mem);
		if (!ret)
			ret = feat_cursor_string(&c, &cpus);
		if (!ret)
			mark_node_cpus(env, cpus, (int)node);
	}
	feat_cursor_free(&c);
	return ret;
}

int data_env_read(struct perf_data_reader *r, struct data_env *env)
{
	int ret;

	memset(env, 0, sizeof(*env));
	ret = read_cmdline(r, env);
	if (ret >= 0)
		ret = read_event_desc(r, env);
	if (ret >= 0)
		ret = read_nr_cpus(r, env);
	if (ret >= 0)
		ret = read_cpu_topology(r, env);
	if (ret >= 0)
		ret = read_numa_topology(r, env);
	return ret < 0 ? ret : 0;
}

void data_env_free(struct data_env *env)
{
	int i;

	for (i = 0; i < env->nr_cmdline; i++)
		free(env->cmdline[i]);
	free(env->cmdline);
	for (i = 0; i < env->nr_events; i++) {
		free(env->events[i].name);
		free(env->events[i].ids);
	}
	free(env->events);
	free(env->core_id);
	free(env->socket_id);
	free(env->die_id);
	free(env->node_id);
	memset(env, 0, sizeof(*env));
}
