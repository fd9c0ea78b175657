/* Two units calling each other (multi2.c). */
#include <stdio.h>

int ping(int n);
int shared_count;

static int local_step(int n)
{
	shared_count++;
	return n - 1;
}

int pong(int n)
{
	return n <= 0 ? 0 : 1 + ping(local_step(n));	/* SITE pong direct ot ping */
}

int main(void)
{
	printf("%d %d\n", pong(9), shared_count);
	return 0;
}
