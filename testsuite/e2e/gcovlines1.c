/* gcovlines1.c - gcov.sh: a switch, a loop on one line, if/else on one line,
 * nested calls from a for loop, a while that never runs its body. */
#include <stdio.h>
#include <stdlib.h>

static int classify(int x)
{
	switch (x % 4) {
	case 0:
		return 10;
	case 1:
	case 2:
		x += 3;
		break;
	default:
		x = -x;
	}
	return x;
}

static int oneline(int n)
{
	int s = 0, i;
	for (i = 0; i < n; i++) s += i;
	if (n > 3) s++; else s--;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, i, t = 0;

	for (i = 0; i < n; i++) {
		if (i % 3 == 0)
			t += classify(i);
		else
			t -= oneline(i);
	}
	while (t > 100)
		t /= 2;
	printf("%d\n", t);
	return 0;
}
