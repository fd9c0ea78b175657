/* Calls reached by computed gotos (GNU C labels as values), as in
 * threaded interpreters: the sites' predecessors come through abnormal
 * edges.  From the source: i = 0..4 alternates a (f) and b (g), so the
 * sequence is main f main g main f main g main f main. */
#include <stdio.h>

static int f(int x)
{
	return x + 1;
}

static int g(int x)
{
	return x * 2;
}

int main(void)
{
	static void *const tab[] = { &&a, &&b, &&done };
	int i = 0, s = 0;

	goto *tab[0];
a:
	s += f(i);
	i++;
	goto *tab[i < 5 ? 1 : 2];
b:
	s += g(i);
	i++;
	goto *tab[i < 5 ? 0 : 2];
done:
	printf("%d\n", s);
	return 0;
}
