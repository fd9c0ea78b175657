/* Compiled without pap: a callee that is not instrumented, and one that
 * calls back into instrumented code. */
int plain_add(int a, int b)
{
	return a + b;
}

int plain_apply(int (*f)(int), int x)
{
	return f(x) + f(x + 1);
}
