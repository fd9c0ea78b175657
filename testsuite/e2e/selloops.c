/* SPDX-License-Identifier: MIT */
/*
 * selloops.c - counted loops for selloops.sh: loops whose iterations are
 * all alike, run with trip counts near one another (a path of interest
 * and a run one iteration short or long), one after another, nested
 * (inner counts that change from one outer iteration to the next),
 * triangular, left early by a break, a loop with a branch that a
 * path of interest never takes, and one whose branch follows no pattern
 * (a flat automaton).  argv[1] is the number of rounds; from
 * 1000 on, the trip counts move by one (paths the smaller runs never
 * take).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long count(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i ^ 3;
	return s;
}

__attribute__((noinline)) static long twice(int n, int m)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += i & 5;
	for (i = m; i > 0; i--)
		s ^= i;
	i = n;
	do {
		s -= i & 1;
		i -= 3;
	} while (i > 0);
	return s;
}

__attribute__((noinline)) static long nested(int n, int m, int odd)
{
	long s = 0;
	int i, j;

	for (i = 0; i < n; i++) {
		int mm = i == odd ? m + 1 : m;

		for (j = 0; j < mm; j++)
			s += (i ^ j) & 5;
	}
	return s;
}

__attribute__((noinline)) static long tri(int n)
{
	long s = 0;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i; j < n; j++)
			s += i * j;
	return s;
}

__attribute__((noinline)) static int find(const int *a, int n, int x)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i] == x)
			break;
	return i < n ? i : -1;
}

__attribute__((noinline)) static long clip(const int *a, int n, int lim)
{
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		if (a[i] > lim)
			s += lim;
		else
			s += a[i];
	return s;
}

/* a loop whose branch follows a pseudo-random sequence: no repeats to
 * compress, more positions than a compressed automaton holds (a flat
 * one); @flip turns the last iteration's branch */
__attribute__((noinline)) static long mixed(unsigned seed, int n, int flip)
{
	unsigned x = seed;
	long s = 0;
	int i;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (((x >> 16) ^ (unsigned)(flip && i == n - 1)) & 1)
			s += x & 255;
		else
			s -= i;
	}
	return s;
}

/* the same with nine branches an iteration: digits up to 511, codes of
 * two bytes */
__attribute__((noinline)) static long wide(unsigned seed, int n)
{
	unsigned x = seed;
	long s = 0;
	int i;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (x >> 16 & 1)
			s += 1;
		if (x >> 17 & 1)
			s ^= 2;
		if (x >> 18 & 1)
			s += 4;
		if (x >> 19 & 1)
			s ^= 8;
		if (x >> 20 & 1)
			s += 16;
		if (x >> 21 & 1)
			s ^= 32;
		if (x >> 22 & 1)
			s += 64;
		if (x >> 23 & 1)
			s ^= 128;
		if (x >> 24 & 1)
			s -= i;
	}
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, k, a[40];
	int far = rounds >= 1000;
	long s = 0;

	for (k = 0; k < 40; k++)
		a[k] = k * 7 % 40;
	for (k = 0; k < rounds; k++) {
		s += count(far ? 59 + k % 7 : 60 + k % 5);
		s += twice(20 + k % 3, far ? 19 + k % 2 : 20);
		s += nested(3 + k % 2, far ? 7 + k % 3 : 8 + k % 2, k % 4);
		s += tri(far ? 3 + k % 4 : 4 + k % 2);
		s += find(a, 40, far ? k % 43 : k % 41);
		s += clip(a, 40, k % 5 ? 100 : 30 + far);
		s += mixed(1 + k % 3, far ? 149 + k % 3 : 150,
			   far && k % 5 == 0);
		s += wide(1 + k % 2, far ? 99 + k % 3 : 100);
	}
	printf("%ld\n", s);
	return 0;
}
