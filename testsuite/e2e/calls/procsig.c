/* SPDX-License-Identifier: MIT */
/*
 * procsig.c - calls-proc.sh's signals: two interval timers (SIGALRM,
 * SIGPROF, each able to interrupt the other's handler) fire while an
 * instrumented loop runs, and their handlers (procsigwrap.c, not
 * instrumented) call instrumented functions, thousands of times; each
 * such handler is a sequence of its own, for pap and for the oracle.
 * Then a raise() inside an instrumented function: that handler runs
 * during a call to uninstrumented code and is part of the thread's
 * sequence.  The loop calls no uninstrumented code, so the handlers that
 * interrupt it interrupt instrumented code.  Prints only what the
 * signals do not change (calls-proc.sh counts the handlers' sequences).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

void on_signal(int sig);
void oracle_sig_prepare(void);

volatile int sig_mode;		/* 1: in the loop; 2: raise */
volatile unsigned long sig_count, sig_nested;
static unsigned long want;
unsigned long acc;

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	return x * 2654435761u + 1;
}

__attribute__((noinline)) unsigned long mid(unsigned long x)
{
	if (x & 1)
		return leaf(x) + leaf(x >> 1);
	return leaf(x ^ 5);
}

__attribute__((noinline)) void handler_body(unsigned depth)
{
	acc += mid(depth);
	if (depth)
		handler_body(depth - 1);
}

/* long enough for the other timer to fire inside */
__attribute__((noinline)) void handler_long(unsigned long n)
{
	unsigned long i, t = 0;

	for (i = 0; i < n; i++)
		t += mid(i) & 1 ? leaf(i) : 0;
	acc += t;
}

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long s = 0, i;

	for (i = 0; i < n; i++)
		s += i % 5 ? mid(i) : leaf(i);
	return s;
}

__attribute__((noinline)) unsigned long run(void)
{
	unsigned long s = 0, rounds = 0;

	sig_mode = 1;
	while (sig_count < want && rounds < 4000000) {
		s += work(64);
		rounds++;
	}
	sig_mode = 0;
	return s - s;	/* rounds vary with the timing */
}

__attribute__((noinline)) unsigned long inline_handler(void)
{
	sig_mode = 2;
	raise(SIGUSR1);
	sig_mode = 0;
	return leaf(7);
}

static void timers(long usec)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = usec;
	it.it_value.tv_usec = usec;
	setitimer(ITIMER_REAL, &it, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long r;

	want = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	oracle_sig_prepare();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGPROF, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	timers(50);
	r = run();
	timers(0);
	r += inline_handler();
	printf("%lu\n", r);
	fprintf(stderr, "nested %lu\n", sig_nested);
	return 0;
}
