/* C built with -fexceptions: cleanup variables whose landing pads run
 * while an exception from C++ (cxx_maybe_throw, in eh.cc) unwinds
 * through, in loops around the throwing calls. */
#include <setjmp.h>

extern void cxx_maybe_throw(int i);
int eh_c_step(int i);
long eh_c_log(void);

static long c_log;

static void release(int *p)
{
	c_log += *p % 2 ? *p : -*p;
}

static int with_cleanup(int i)
{
	int guard __attribute__((cleanup(release))) = i;
	int s = 0;

	for (int k = 0; k < i % 6; k++) {
		int inner __attribute__((cleanup(release))) = k;

		cxx_maybe_throw(i + k);
		s += k % 2 ? k : 1;
	}
	return s;
}

/* no landing pad: unwound through, never ends */
static int plain_caller(int i)
{
	int s = with_cleanup(i);

	cxx_maybe_throw(s);
	return s + 1;
}

static int outer(int i)
{
	int g __attribute__((cleanup(release))) = -i;
	int s = 0;

	while (s < 30) {
		s += plain_caller(i + s) + 3;
		if (s % 7 == 0)
			break;
	}
	return s;
}

static jmp_buf back;

static int jumper(int i)
{
	if (i % 7 == 3)
		longjmp(back, 1);
	return i % 5;
}

/* setjmp, longjmp and a cleanup in one function */
static int sj_cleanup(int i)
{
	int g __attribute__((cleanup(release))) = i;
	volatile int s = 0;

	if (setjmp(back))
		return s - 1;
	for (int k = 0; k < 3; k++) {
		s += jumper(i + k);
		cxx_maybe_throw(i + s);
	}
	return s;
}

int eh_c_step(int i)
{
	int total = sj_cleanup(i);

	for (int k = 0; k < 3; k++) {
		int step __attribute__((cleanup(release))) = i + k;

		total += outer(i % 4 ? i + k : 1);
	}
	return total;
}

long eh_c_log(void)
{
	return c_log;
}
