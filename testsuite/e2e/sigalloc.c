/* SPDX-License-Identifier: MIT */
/*
 * sigalloc.c - a program whose signal handler runs instrumented code
 * while the program is inside malloc (sigalloc.sh).
 *
 * The main loop allocates and frees blocks too large for malloc's
 * per-thread cache, so that it is nearly always inside malloc's arena;
 * a timer fires every 100 microseconds and its handler calls walk(),
 * whose path depends on how many times the handler ran, so that nearly
 * every call makes a path not seen before and the runtime's aggregate
 * keeps growing.  walk() only computes, so the handler is
 * async-signal-safe and the program is correct: it prints a sum of the
 * blocks' first bytes, and on stderr how many times the handler ran.
 *
 *   sigalloc [N]   N blocks allocated (default 2,000,000)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticking = 1;
static volatile unsigned long handlers, made;

/* A path that depends on @k: its trip count and which arms it takes. */
static unsigned long walk(unsigned long k)
{
	unsigned long s = 0, i;

	for (i = 0; i < (k % 61) + 3; i++) {
		if ((k >> (i % 17)) & 1)
			s += i * 3;
		else
			s ^= i + k;
		if ((k * 7 + i) % 5 == 0)
			s += 11;
	}
	return s;
}

static void on_alarm(int sig)
{
	(void)sig;
	if (!ticking)
		return;
	made += walk(handlers * 2654435761u);
	handlers++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000, i;
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	struct sigaction sa;
	void *keep[64] = { 0 };
	unsigned long sum = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n; i++) {
		size_t size = 2000 + (size_t)(i * 7919) % 60000;
		int k = (int)(i % 64);

		free(keep[k]);
		keep[k] = malloc(size);
		if (!keep[k])
			return 1;
		((unsigned char *)keep[k])[0] = (unsigned char)i;
		sum += ((unsigned char *)keep[k])[0];
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	ticking = 0;
	for (i = 0; i < 64; i++)
		free(keep[i]);
	printf("%lu\n", sum);
	fprintf(stderr, "handlers %lu\n", handlers);
	return 0;
}
