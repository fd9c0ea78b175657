/* The other unit of multi1.c. */
int pong(int n);

static int local_step(int n)
{
	return n - 1;
}

int ping(int n)
{
	return n <= 0 ? 0 : 2 + pong(local_step(n));
}
