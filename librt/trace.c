/* SPDX-License-Identifier: MIT */
/*
 * trace.c - the test oracle: with -fplugin-arg-pap-trace, instrumented
 * code reports every block it enters, independently of path numbering.
 *
 * Each thread keeps a stack of open activations (recursion nests); when
 * one ends, the line "FUNCTION COMPLETE BLOCK..." is appended to the file
 * named by PAP_TRACE (default pap.trace), flushed at exit.  Slow, simple
 * and obviously right: that is the point.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pap/abi.h>

struct trace_act {
	const char *fn;
	uint32_t *blocks;
	size_t n, cap;
};

static __thread struct trace_act *tr_stack;
static __thread size_t tr_depth, tr_cap;
static pthread_mutex_t tr_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *tr_file;

static void tr_oom(void)
{
	fputs("pap: trace: out of memory\n", stderr);
	abort();
}

uint64_t __pap_trace_begin(const char *fn)
{
	if (tr_depth == tr_cap) {
		tr_cap = tr_cap ? tr_cap * 2 : 64;
		tr_stack = realloc(tr_stack, tr_cap * sizeof(*tr_stack));
		if (!tr_stack)
			tr_oom();
	}
	tr_stack[tr_depth].fn = fn;
	tr_stack[tr_depth].blocks = NULL;
	tr_stack[tr_depth].n = tr_stack[tr_depth].cap = 0;
	return ++tr_depth;
}

void __pap_trace_unwind(uint64_t depth)
{
	/* activations a longjmp abandoned: they never end */
	while (tr_depth > depth)
		free(tr_stack[--tr_depth].blocks);
}

void __pap_trace_block(uint32_t block)
{
	struct trace_act *a;

	if (!tr_depth)
		return;
	a = &tr_stack[tr_depth - 1];
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->blocks = realloc(a->blocks, a->cap * sizeof(*a->blocks));
		if (!a->blocks)
			tr_oom();
	}
	a->blocks[a->n++] = block;
}

void __pap_trace_end(int complete)
{
	struct trace_act *a;
	const char *colon;
	size_t i;

	if (!tr_depth)
		return;
	a = &tr_stack[--tr_depth];
	colon = strchr(a->fn, ':');
	pthread_mutex_lock(&tr_lock);
	if (!tr_file) {
		const char *path = getenv("PAP_TRACE");

		/* appended to, never through a planted link */
		int fd = open(path && *path ? path : "pap.trace",
			      O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
			      O_CLOEXEC, 0666);

		tr_file = fd < 0 ? NULL : fdopen(fd, "a");
		if (!tr_file) {
			perror("pap: trace");
			abort();
		}
	}
	fprintf(tr_file, "%.*s %d", (int)(colon ? colon - a->fn :
					  (long)strlen(a->fn)), a->fn,
		complete != 0);
	for (i = 0; i < a->n; i++)
		fprintf(tr_file, " %u", a->blocks[i]);
	fputc('\n', tr_file);
	pthread_mutex_unlock(&tr_lock);
	free(a->blocks);
}
