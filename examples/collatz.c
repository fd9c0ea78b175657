/* The bundled example: the Collatz step counts of 1..N-1.  Build it with
 * pap-gcc, run it, and pap-decode shows every path collatz() took. */
#include <stdio.h>
#include <stdlib.h>

static int collatz(unsigned long n)
{
	int steps = 0;

	while (n != 1) {
		if (n % 2)
			n = 3 * n + 1;
		else
			n /= 2;
		steps++;
	}
	return steps;
}

int main(int argc, char **argv)
{
	int i, total = 0;

	for (i = 1; i < (argc > 1 ? atoi(argv[1]) : 10); i++)
		total += collatz(i);
	printf("%d\n", total);
	return 0;
}
