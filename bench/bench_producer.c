/* SPDX-License-Identifier: MIT */
/*
 * bench_producer.c - a producer for `make bench-collector`: T threads
 * each make N records through libpaprt's ABI, over D distinct paths, the
 * way instrumented code does once per activation (__pap_enter, then
 * __pap_record).  Prints the producer's cost: the median over threads of
 * the thread's CPU time per record and of the wall time per record (which
 * includes waiting for a full ring), and the records made.
 *
 * With RATE, each thread makes RATE records per second and waits when it
 * is ahead, so that the CPU time per record is what a record costs at
 * that rate, not time spent waiting for a collector that cannot keep up
 * with a producer doing nothing else.  It waits by watching the clock,
 * as a program that makes records at that rate is busy between them, and
 * the waits are left out of its CPU time.  (Sleeping instead lets a
 * virtual machine's processor go idle, and the records made after each
 * wake-up then cost more, by an amount that varies from run to run by
 * more than a record costs.)
 *
 *   bench_producer THREADS RECORDS-PER-THREAD [DISTINCT [RATE]]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <pap/abi.h>

static const char *fn = "bench:0123456789abcdef";
static uint64_t per_thread, distinct = 8;
static double rate;	/* records per second per thread; 0: flat out */
static double ns[64], cpu[64];

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *producer(void *arg)
{
	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
	double busy = 0;	/* paced: CPU time outside the sleeps */
	uint64_t i, path = 0;

	/* no division per record: it would cost as much as the record */
	for (i = 0; i < per_thread; i++) {
		__pap_record(fn, __pap_enter(), path, 1);
		if (++path == distinct)
			path = 0;
		/* paced: a look at the clock every 65536 records (a few ms
		 * at the rates measured) */
		if (rate > 0 && (i & 65535) == 65535) {
			double ahead = (double)(i + 1) / rate * 1e9 -
				       (now(CLOCK_MONOTONIC) - t0);

			if (ahead > 0) {
				double until = now(CLOCK_MONOTONIC) + ahead;

				busy += now(CLOCK_THREAD_CPUTIME_ID) - c0;
				while (now(CLOCK_MONOTONIC) < until)
					;
				c0 = now(CLOCK_THREAD_CPUTIME_ID);
			}
		}
	}
	ns[(long)arg] = (now(CLOCK_MONOTONIC) - t0) / (double)per_thread;
	cpu[(long)arg] = (busy + now(CLOCK_THREAD_CPUTIME_ID) - c0) /
			 (double)per_thread;
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long t, nt = argc > 1 ? atol(argv[1]) : 1;

	per_thread = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000;
	if (argc > 3)
		distinct = strtoull(argv[3], NULL, 10);
	if (argc > 4)
		rate = strtod(argv[4], NULL);
	if (nt < 1 || nt > 64 || !distinct)
		return 2;
	for (t = 0; t < nt; t++)
		pthread_create(&th[t], NULL, producer, (void *)t);
	for (t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	qsort(ns, (size_t)nt, sizeof(ns[0]), cmp);
	qsort(cpu, (size_t)nt, sizeof(cpu[0]), cmp);
	printf("producer %ld threads %llu records %.2f cpu-ns/record %.2f "
	       "ns/record\n", nt, (unsigned long long)(per_thread * (uint64_t)nt),
	       cpu[nt / 2], ns[nt / 2]);
	return 0;
}
