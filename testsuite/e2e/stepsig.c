/*
 * A signal handler running instrumented code between any two of the
 * program's instructions: with "step", the processor's trap flag makes
 * every instruction of run()'s activations (theirs and the runtime's
 * under them) raise SIGTRAP, whose handler runs burst(), an activation
 * that makes breakpoints of its own.  Timers only hit a narrow window in
 * the runtime now and then; this hits each one, in the same place on
 * every run.  x86-64 Linux only (exit 77 elsewhere).
 *
 *   stepsig [step]
 *
 * With "step", standard error gets "handlers H": how many times the
 * handler ran burst().
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "churn.h"

static volatile unsigned long sink;
static volatile sig_atomic_t stepping;
static volatile long handled;

/* The activations stepped through: some breakpoints each. */
static __attribute__((noinline)) unsigned long
churn(long n, unsigned long seed)
{
	unsigned long acc = 0;

	CHURN(n, seed, acc);
	return acc;
}

/* What the handler runs: the same path every time, so that its records
 * are never new ones (a new record takes memory from malloc, which the
 * interrupted code may be inside). */
static __attribute__((noinline)) void burst(void)
{
	unsigned long acc = 0;

	CHURN(120, 13, acc);
	sink += acc;
}

#if defined(__x86_64__) && defined(__linux__)
#define TRAP_FLAG 0x100

/*
 * Keeps the trap flag set while stepping, and runs burst() at each
 * instruction, except where the interrupted code had signals blocked
 * (the kernel delivers SIGTRAP anyway, but no other signal could come
 * there).
 */
static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	if (!stepping) {
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
		return;
	}
	uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
	if (sigismember(&uc->uc_sigmask, SIGUSR2))
		return;
	burst();
	handled++;
}
#endif

static __attribute__((noinline)) unsigned long run(void)
{
	return churn(150, 5) + churn(90, 6);
}

int main(int argc, char **argv)
{
	int step = argc > 1 && !strcmp(argv[1], "step");
	unsigned long r;

#if defined(__x86_64__) && defined(__linux__)
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL))
		return 2;
#else
	if (step)
		return 77;
#endif
	burst();
	r = run();
	if (step) {
		stepping = 1;
		raise(SIGTRAP);
		r += run();
		stepping = 0;
		fprintf(stderr, "handlers %ld\n", (long)handled);
	} else {
		r += run();
	}
	printf("%lu\n", r);
	return 0;
}
