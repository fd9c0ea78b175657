/* SPDX-License-Identifier: MIT */
/* lufact - LU decomposition with partial pivoting (Linpack dgefa/dgesl,
 * as in JGF section 2 LUFact), then a solve, on a fixed random matrix. */
#include <math.h>
#include <string.h>
#include "bench.h"

#define N 200

static double a[N][N], b[N], lu[N][N];
static int piv[N];

static __attribute__((noinline)) int lu_factor(void)
{
	int i, j, k, p;

	for (k = 0; k < N - 1; k++) {
		double big = fabs(lu[k][k]), t;

		p = k;
		for (i = k + 1; i < N; i++)
			if (fabs(lu[i][k]) > big) {
				big = fabs(lu[i][k]);
				p = i;
			}
		piv[k] = p;
		if (big == 0.0)
			return k;
		if (p != k)
			for (j = 0; j < N; j++) {
				t = lu[k][j];
				lu[k][j] = lu[p][j];
				lu[p][j] = t;
			}
		for (i = k + 1; i < N; i++) {
			double m = lu[i][k] / lu[k][k];

			lu[i][k] = m;
			for (j = k + 1; j < N; j++)
				lu[i][j] -= m * lu[k][j];
		}
	}
	return -1;
}

static __attribute__((noinline)) void lu_solve(double *x)
{
	int i, j;

	for (i = 0; i < N - 1; i++)
		if (piv[i] != i) {
			double t = x[i];

			x[i] = x[piv[i]];
			x[piv[i]] = t;
		}
	for (i = 1; i < N; i++)
		for (j = 0; j < i; j++)
			x[i] -= lu[i][j] * x[j];
	for (i = N - 1; i >= 0; i--) {
		for (j = i + 1; j < N; j++)
			x[i] -= lu[i][j] * x[j];
		x[i] /= lu[i][i];
	}
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 720), k;
	uint64_t s = 42, sum = 0;
	double x[N];
	int i, j;

	for (i = 0; i < N; i++) {
		for (j = 0; j < N; j++)
			a[i][j] = (double)(bench_rand(&s) % 2001) / 1000.0 - 1.0;
		b[i] = (double)(bench_rand(&s) % 1000) / 100.0;
	}
	for (k = 0; k < n; k++) {
		a[k % N][(k * 7) % N] += 0.5;
		memcpy(lu, a, sizeof(lu));
		if (lu_factor() >= 0)
			sum = bench_mix(sum, 0xdead);
		memcpy(x, b, sizeof(x));
		lu_solve(x);
		for (i = 0; i < N; i++)
			sum = bench_mix(sum, (uint64_t)(int64_t)(x[i] * 1e6));
	}
	bench_print("lufact", sum);
	return 0;
}
