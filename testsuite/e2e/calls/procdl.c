/* SPDX-License-Identifier: MIT */
/*
 * procdl.c - calls-proc.sh's dlopen: loads procdlib.so (built with the
 * calls mode too), calls its functions through dlsym's pointers, and
 * they call back into the program; after dlclose the program goes on.
 * With a second argument, the library is loaded again after dlclose.
 * oracle_dlopened() tells the oracle where the library lies.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void oracle_dlopened(void *anchor);

typedef int (*lib_run_t)(int (*cb)(int), int x);

__attribute__((noinline)) int leaf(int x)
{
	return x * 5 + 2;
}

__attribute__((noinline)) int callback(int x)
{
	return leaf(x) - 1;
}

__attribute__((noinline)) int use(const char *path, int x)
{
	void *h = dlopen(path, RTLD_NOW);
	lib_run_t run, twice;
	int v;

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(2);
	}
	oracle_dlopened(dlsym(h, "lib_anchor"));
	run = (lib_run_t)dlsym(h, "lib_run");
	twice = (lib_run_t)dlsym(h, "lib_twice");
	if (!run || !twice)
		exit(3);
	v = run(callback, x) + twice(callback, x + 1);
	dlclose(h);
	return v;
}

int main(int argc, char **argv)
{
	int v;

	if (argc < 2)
		return 1;
	v = use(argv[1], 3);
	v += leaf(v & 15);
	if (argc > 2)
		v += use(argv[1], 5);
	v += callback(1);
	printf("%d\n", v);
	return 0;
}
