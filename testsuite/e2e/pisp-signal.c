/* SPDX-License-Identifier: MIT */
/*
 * pisp-signal.c - a signal handler whose thread leaves the call
 * sequences of interest inside it (testsuite/e2e/pisp.sh).  Under the
 * spec
 *   calls main h more h main
 * main spins without calls until a timer's SIGALRM runs h, which calls
 * off (no sequence names it) and then more: h goes on in its copy and
 * returns without its exit probe, and main, back from the signal, moves
 * to its copy after its next call.  The thread is only counted as one
 * that left; nothing of it, the handler's sequence included, is
 * recorded or counted lost.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile int got, sink;

__attribute__((noinline)) void off(void) { sink++; }
__attribute__((noinline)) void more(void) { sink += 2; }

void h(int sig)
{
	(void)sig;
	off();
	more();
	got = 1;
}

int main(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 2000 } };
	unsigned long spins = 0;

	signal(SIGALRM, h);
	setitimer(ITIMER_REAL, &it, NULL);
	while (!got)
		spins++;
	more();
	more();
	printf("%d %d %d\n", got, sink, spins > 0);
	return 0;
}
