/* Thousands of calls whose sites have fan-ins of 3, so that the
 * register overflows often (calls-record.sh writes the expected sequence
 * from the loop below: for each i, "a main" when (i * 7) % 3, else
 * "b main"). */
#include <stdio.h>

static int a(int x)
{
	return x + 1;
}

static int b(int x)
{
	return x - 1;
}

int main(void)
{
	int i, s = 0;

	for (i = 0; i < 3000; i++)
		s += (i * 7) % 3 ? a(i) : b(i);
	printf("%d\n", s);
	return 0;
}
