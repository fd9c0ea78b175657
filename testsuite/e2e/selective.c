/* selective.c - the program of selective.sh: loops, branches, a switch,
 * recursion and threads, whose paths depend on the input N. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

/* a loop with two ifs and an early exit */
static int scan(const int *v, int n, int limit)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (v[i] & 1)
			s += v[i];
		else
			s -= 1;
		if (v[i] > limit)
			break;
	}
	return s;
}

/* a switch in a loop */
static int classify(int x)
{
	int c = 0;

	while (x > 0) {
		switch (x % 4) {
		case 0:
			c += 3;
			break;
		case 1:
			c -= 1;
			break;
		case 2:
			c *= 2;
			break;
		default:
			c ^= 5;
		}
		x /= 3;
	}
	return c;
}

/* recursion, with a branch on the way down */
static int walk(int d, int x)
{
	if (d == 0)
		return x & 7;
	if (x % 3 == 0)
		return walk(d - 1, x / 3) + 1;
	return walk(d - 1, x + d) * 2 % 1000;
}

/* no loop: the paths spp takes */
static int pick(int a, int b)
{
	int r = 0;

	if (a > b)
		r = a;
	else
		r = b;
	if (r > 1000)
		r = 1000;
	if ((a ^ b) & 4)
		r += 7;
	return r;
}

/* setjmp: a body that cannot be copied (selective.cc falls back) */
static jmp_buf env;

static int risky(int x)
{
	if (x % 5 == 0)
		longjmp(env, 1);
	return x * 2;
}

static int guarded(int n)
{
	volatile int r = 0, i;

	if (setjmp(env) == 0) {
		for (i = 0; i < n; i++)
			r += risky(i + n);
	} else {
		r = -r;
	}
	return r;
}

struct job {
	int seed, n, out;
};

static void *work(void *arg)
{
	struct job *j = arg;
	int v[64], i, s = 0;

	for (i = 0; i < 64; i++)
		v[i] = (j->seed * 37 + i * i * 11) % 101;
	for (i = 0; i < j->n; i++) {
		s += scan(v + i % 32, 1 + i % 31, 60 + i % 41);
		s += classify(i * j->seed % 997);
		s += pick(i % 13, (i * 7) % 17 + j->seed % 5);
	}
	j->out = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	struct job jobs[2] = { { 3, n, 0 }, { 8, n / 2 + 1, 0 } };
	pthread_t t[2];
	int i, s = 0;

	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, work, &jobs[i]))
			return 2;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		s += walk(i % 6, i * 5 + n);
	s += pick(n, 3 * n) + pick(2000, n);
	for (i = 0; i < n; i += 7)
		s += guarded(i % 9);
	printf("%d %d %d\n", jobs[0].out, jobs[1].out, s);
	return (jobs[0].out + jobs[1].out + s) & 7;
}
