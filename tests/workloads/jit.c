// SPDX-License-Identifier: GPL-2.0-only
/*
 * jit [-n] ROUNDS: a small JIT. Writes five x86-64 functions (each counts a register down from
 * 200000) into anonymous memory, makes it executable, and calls each one ROUNDS times, so
 * that nearly all of its time is spent in code no file holds. Unless -n, it first writes
 * /tmp/perf-PID.map as JITs do for perf: four of the functions, one of them sizeless, one named
 * with spaces as V8 names them; the fifth is left out. Prints the map file's path.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define NR_FUNCS 5
#define FUNC_ALIGN 64
#define SPINS 200000
#define SIZELESS 4	/* listed with size 0: perf gives it only its first byte */

static const char *const names[NR_FUNCS] = {
	"jit_alpha", "LazyCompile:*beta jit.js:7", NULL, "jit_delta", "jit_sizeless",
};

/* mov $SPINS, %ecx; 1: dec %ecx; jnz 1b; ret */
static size_t emit_spin(unsigned char *p)
{
	static const unsigned char tail[] = { 0xff, 0xc9, 0x75, 0xfc, 0xc3 };
	unsigned int n = SPINS;

	p[0] = 0xb9;
	memcpy(p + 1, &n, 4);
	memcpy(p + 5, tail, sizeof(tail));
	return 5 + sizeof(tail);
}

static int write_map(const char *path, const unsigned char *code, size_t size)
{
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		return -1;
	for (i = 0; i < NR_FUNCS; i++) {
		if (!names[i])
			continue;
		/* perf's format: start and size in hex, then the name up to the line's end */
		fprintf(f, "%lx %zx %s\n", (unsigned long)(code + i * FUNC_ALIGN),
			i == SIZELESS ? 0 : size, names[i]);
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	int with_map = !(argc > 1 && !strcmp(argv[1], "-n"));
	unsigned long rounds = workload_count(argc, argv, with_map ? 1 : 2, "[-n] ROUNDS"), r;
	char path[64];
	unsigned char *code;
	size_t size = 0;
	int i;

#if !defined(__x86_64__)
	fprintf(stderr, "jit: writes x86-64 code only\n");
	return 2;
#endif
	code = mmap(NULL, NR_FUNCS * FUNC_ALIGN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jit: mmap");
		return 1;
	}
	for (i = 0; i < NR_FUNCS; i++)
		size = emit_spin(code + i * FUNC_ALIGN);
	/* as JITs do: writable, then executable, never both */
	if (mprotect(code, NR_FUNCS * FUNC_ALIGN, PROT_READ | PROT_EXEC)) {
		perror("jit: mprotect");
		return 1;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (with_map && write_map(path, code, size)) {
		perror(path);
		return 1;
	}
	printf("%s\n", path);
	fflush(stdout);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < NR_FUNCS; i++)
			((void (*)(void))(code + i * FUNC_ALIGN))();
	return 0;
}
