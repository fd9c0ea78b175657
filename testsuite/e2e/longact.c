/*
 * Long activations in the shapes that make the runtime hand an open
 * activation's breakpoints to its packer: nested ones (each older one
 * spilled while newer ones sit above it on the breakpoint stack, one
 * ending with all of its breakpoints in its packer), one
 * abandoned by longjmp while it holds a packer, a signal handler running
 * a long activation inside another, threads, and, with "timer", a
 * timer firing every 50 microseconds whose handler runs instrumented
 * code at any moment.
 *
 *   longact [N [timer]]   (N: work per activation, default 20000)
 *
 * With "timer", standard error gets "handlers H": how many times the
 * SIGPROF handler ran (each runs two activations: itself and work).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "churn.h"

static jmp_buf back;
static volatile unsigned long sink;
/* SIGPROF handlers run, by whichever thread the signal came to: two may
 * run at once, so it is counted atomically */
static long handled;

static unsigned long work(long n, unsigned long seed)
{
	unsigned long acc = 0;

	CHURN(n, seed, acc);
	return acc;
}

/* Each level works before and after the levels inside it. */
static unsigned long nest(int depth, long n)
{
	unsigned long a = 0;

	CHURN(n, (unsigned long)depth, a);
	if (depth > 0)
		a += nest(depth - 1, n / 2 + 100);
	CHURN(n, (unsigned long)depth + 100, a);
	return a;
}

/*
 * About 3,000 breakpoints, fewer than fill the stack, then a call that
 * fills it: both activations are spilled, this one while the other runs
 * above it, and it then ends with none of its breakpoints on the stack.
 */
static unsigned long spilled_below(long n)
{
	unsigned long a = 0;

	CHURN(n * 63 / 100, 21, a);
	return a + nest(0, n);
}

/* Works, then leaves by longjmp from inside its loop. */
static unsigned long leave_midway(long n)
{
	unsigned long acc = 0;
	long i;

	CHURN(n, 7, acc);
	for (i = 0; i < n; i++) {
		acc = acc * 31 + (unsigned long)i % 5;
		if (acc % 3 == 1)
			acc ^= 0x55;
		if (i == n / 2)
			longjmp(back, 1);
	}
	return acc;
}

/* Works around a longjmp out of a long activation. */
static unsigned long jumper(long n)
{
	volatile unsigned long a = 0;
	unsigned long b = 0;

	CHURN(n, 3, b);
	a = b;
	if (!setjmp(back))
		a += leave_midway(n);
	b = a;
	CHURN(n, 4, b);
	return b;
}

static void on_usr1(int sig)
{
	(void)sig;
	sink += work(6000, 11);
}

/*
 * The timer's handler; called once with 0 by each thread before the
 * timer runs, so that its records are not new ones when the signal
 * comes (a new record takes memory from malloc, which a handler must
 * not call while the thread it interrupted may be inside it).
 */
static void on_prof(int sig)
{
	sink += work(300, 13);
	if (sig)
		__atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

/* Works with a handler's long activation in the middle. */
static unsigned long interrupted(long n)
{
	unsigned long a = 0;

	CHURN(n, 5, a);
	raise(SIGUSR1);
	CHURN(n, 6, a);
	return a;
}

static void *thread_main(void *arg)
{
	long n = *(long *)arg;

	on_prof(0);
	sink += nest(3, n);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int timer = argc > 2 && !strcmp(argv[2], "timer");
	pthread_t t[2];
	timer_t tid;
	unsigned long r = 0;
	int i;

	signal(SIGUSR1, on_usr1);
	on_prof(0);
	if (timer) {
		struct sigevent ev;
		struct itimerspec it = { { 0, 50000 }, { 0, 50000 } };

		memset(&ev, 0, sizeof(ev));
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = SIGPROF;
		signal(SIGPROF, on_prof);
		if (timer_create(CLOCK_MONOTONIC, &ev, &tid) ||
		    timer_settime(tid, 0, &it, NULL))
			return 2;
	}
	r += nest(4, n);
	r += spilled_below(n);
	r += jumper(n);
	r += interrupted(n);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread_main, &n);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (timer) {
		timer_delete(tid);
		fprintf(stderr, "handlers %ld\n",
			__atomic_load_n(&handled, __ATOMIC_RELAXED));
	}
	printf("%lu\n", r);
	return 0;
}
