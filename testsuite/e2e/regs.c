/*
 * regs.c - values in registers across a count's rare arm, for regs.sh.
 *
 *   regs NTHREADS
 *
 * Each thread's first count in a function takes the rare arm, which calls
 * the runtime through a thunk that keeps the general registers and whose
 * asm statement tells the compiler which others it clobbers: mix keeps
 * doubles live across it, vmix (where the CPU has AVX) four doubles in
 * an AVX register, ints many integers.  Each of NTHREADS threads runs
 * them once; the results are printed in order.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef double v4d __attribute__((vector_size(32)));

__attribute__((noinline)) double mix(double a, double b, int n)
{
	double x = a * 1.25, y = b * 0.75, z = a + b;
	int i;

	for (i = 0; i < n; i++) {
		if ((i * 7) & 4)
			x += y * 0.5;
		else
			y -= x * 0.25;
		z = z * 0.999 + x - y;
	}
	return x + y + z;
}

__attribute__((noinline, target("avx"))) double vmix(double s, int n)
{
	v4d a = { s, s * 2, s * 3, s * 4 }, acc = a;
	int i;

	for (i = 0; i < n; i++) {
		if (i & 1)
			acc = acc * 1.5 + a;
		else
			acc = acc - a * 0.5;
	}
	return acc[0] + acc[1] + acc[2] + acc[3];
}

__attribute__((noinline)) long ints(long a, long b, long c, long d, int n)
{
	long e = a ^ b, f = c + d, g = a * 3, h = b - c, k = d << 2;
	int i;

	for (i = 0; i < n; i++) {
		if ((a + i) & 2)
			e += f ^ g;
		else
			h -= k + e;
		g ^= h;
		f += i;
	}
	return a + b + c + d + e + f + g + h + k;
}

static int have_avx;
static char out[256][160];

static void *work(void *arg)
{
	long t = (long)arg;

	snprintf(out[t], sizeof(out[t]), "%ld %.17g %.17g %ld", t,
		 mix(t + 0.5, t * 0.25, 40 + (int)t),
		 have_avx ? vmix(t + 1.5, 30 + (int)t) : 0.0,
		 ints(t, t * 7, t + 100, t * t, 50 + (int)t));
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 8, t;
	pthread_t th[256];

	if (n < 1 || n > 256)
		return 2;
	__builtin_cpu_init();
	have_avx = __builtin_cpu_supports("avx");
	work((void *)0);	/* the main thread first */
	for (t = 1; t < n; t++)
		if (pthread_create(&th[t], NULL, work, (void *)t))
			return 1;
	for (t = 1; t < n; t++)
		pthread_join(th[t], NULL);
	for (t = 0; t < n; t++)
		puts(out[t]);
	return 0;
}
