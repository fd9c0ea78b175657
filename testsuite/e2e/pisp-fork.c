/* SPDX-License-Identifier: MIT */
/*
 * pisp-fork.c - a thread that left the call sequences of interest forks
 * (testsuite/e2e/pisp.sh).  Under the spec
 *   calls main f main
 * main leaves at its call of off (no sequence names it) and goes on in
 * its copy; the child it forks then runs that copy too, so its own
 * sequence cannot be seen whole: it is counted as one that left, as the
 * parent's is, and neither is recorded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void off(void) { sink++; }
__attribute__((noinline)) void f(void) { sink += 2; }

int main(void)
{
	int st = 0;
	pid_t p;

	f();
	off();
	f();
	fflush(stdout);
	p = fork();
	f();
	f();
	if (p == 0) {
		printf("child %d\n", sink);
		exit(0);
	}
	waitpid(p, &st, 0);
	printf("parent %d %d\n", sink, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
