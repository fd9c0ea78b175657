/* SPDX-License-Identifier: MIT */
/*
 * procfork.c - calls-proc.sh's fork: a thread ends (its sequence is
 * recorded in the parent) before main forks three frames deep; the child
 * calls more functions and returns up through the frames open at the
 * fork, the parent waits for it and goes on.  oracle_fork() tells the
 * oracle (cygoracle.c) where the child's sequence begins.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void oracle_fork(void);

static int in_child;

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int more(int x)
{
	int r = leaf(x);

	if (x & 1)
		r += leaf(r);
	return r;
}

static void *worker(void *arg)
{
	*(int *)arg = more(*(int *)arg);
	return NULL;
}

__attribute__((noinline)) int f3(int x)
{
	int r = more(x), st;
	pid_t p;

	fflush(stdout);
	p = fork();
	if (p < 0)
		exit(2);
	if (p == 0) {
		oracle_fork();
		in_child = 1;
		r += more(r) + more(r + 1);
	} else {
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st))
			exit(3);
		r += leaf(r);
	}
	return r;
}

__attribute__((noinline)) int f2(int x)
{
	int r = f3(x + 1);

	return r + more(r & 7);
}

__attribute__((noinline)) int f1(int x)
{
	int r = f2(x) ^ leaf(x);

	return r + (in_child ? more(2) : leaf(3));
}

int main(void)
{
	pthread_t t;
	int v = 4, r;

	if (pthread_create(&t, NULL, worker, &v) || pthread_join(t, NULL))
		return 1;
	r = f1(v);
	printf("%s %d %d\n", in_child ? "child" : "parent", v, r);
	return 0;
}
