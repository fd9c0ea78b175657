/* SPDX-License-Identifier: MIT */
/* procdlib.c - the library procdl.c loads with dlopen. */
__attribute__((noinline)) void lib_anchor(void)
{
	__asm__ volatile("");
}

__attribute__((noinline)) int lib_leaf(int x)
{
	return x ^ 0x55;
}

__attribute__((noinline)) int lib_run(int (*cb)(int), int x)
{
	int v = lib_leaf(x);

	return v + cb(v & 7);
}

__attribute__((noinline)) int lib_twice(int (*cb)(int), int x)
{
	int v = lib_run(cb, x);

	return v + lib_run(cb, v & 3);
}
