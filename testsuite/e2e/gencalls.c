/* SPDX-License-Identifier: MIT */
/*
 * gencalls - writes a random, terminating C program split into 2 or 3
 * translation units, for the call sequence tests (testsuite/e2e/calls.sh):
 * a call graph with loops (any function may call any other it can see,
 * each call one level less deep), recursion and mutual recursion,
 * function-pointer tables, calls in tail position (direct and through
 * a table; a qsort callback makes none, as the calling contexts cannot
 * tell its tail callee from a callback), qsort callbacks that call back
 * into the program, 1 to 3 threads, an atexit handler, in some programs
 * longjmps out of nested calls back to a catching function (which tells
 * the oracle with oracle_resumed()), and on some inputs exit() from a
 * deep frame or from inside a qsort callback.  Its control flow depends
 * on its input (argv[1]); it prints checksums of what it computed.
 * Every function is noipa, so that -O2 keeps each call a call to the
 * function written (the oracle, GCC's -finstrument-functions, sees the
 * source's functions).  The same SEED always writes the same files.
 *
 * Usage: gencalls SEED DIR    writes DIR/calls.h and DIR/u0.c .. u<n-1>.c
 *                             and prints the .c files' names
 */
#include <stdio.h>
#include <stdlib.h>

#define MAXF 12

static unsigned long long gstate;

static unsigned rnd(unsigned n)
{
	gstate = gstate * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((gstate >> 33) % n);
}

static int nf, nunits, ntab;
static int unit_of[MAXF], is_static[MAXF];
/* exit_at: the depth-0 activation of an exit_in function, counted over
 * them all in main's thread, that calls exit(); 0: none */
static int exit_in[MAXF], exit_at;
/* longjmps: whether the program has them; catcher[f]: f catches them */
static int longjmps, catcher[MAXF];

static void indent(FILE *o, int d)
{
	while (d-- > 0)
		fputc('\t', o);
}

/* A function visible from unit @u, at random. */
static int visible(int u)
{
	for (;;) {
		int g = (int)rnd((unsigned)nf);

		if (!is_static[g] || unit_of[g] == u)
			return g;
	}
}

/* Statements at nesting @d of function @f in unit @u. */
static void stmts(FILE *o, int f, int u, int d, int budget)
{
	int n = 1 + (int)rnd(3), i, g;
	unsigned c;

	for (i = 0; i < n && budget > 0; i++, budget--) {
		unsigned k = rnd(d >= 3 ? 5 : 11);

		indent(o, d);
		switch (k) {
		case 0:
			fprintf(o, "x = x * 1103515245u + 12345u; "
				"s += x >> %u;\n", rnd(20));
			break;
		case 1:		/* a direct call: loops in the call graph */
			fprintf(o, "if (depth > 0) s += f%d(x %% 97u + %u, "
				"depth - 1);\n", visible(u), rnd(50));
			break;
		case 2:		/* the same, on some inputs a tail call */
			g = visible(u);
			c = rnd(50);
			fprintf(o, "if (depth > 0) {\n");
			indent(o, d + 1);
			fprintf(o, "if ((x & 7u) == 3u)\n");
			indent(o, d + 2);
			fprintf(o, "return f%d(x %% 97u + %u, depth - 1);\n",
				g, c);
			indent(o, d + 1);
			fprintf(o, "s += f%d(x %% 97u + %u, depth - 1);\n", g,
				c);
			indent(o, d);
			fprintf(o, "}\n");
			break;
		case 3:		/* self recursion */
			fprintf(o, "if (depth > 0 && (x & 3u) != 0) s += "
				"f%d(x / 3u, depth - 1);\n", f);
			break;
		case 4:		/* through this unit's table; on some inputs
				 * a tail call */
			if (u < ntab) {
				c = rnd(9);
				fprintf(o, "if (depth > 0 && (x & 7u) == "
					"5u)\n");
				indent(o, d + 1);
				fprintf(o, "return tab%d[x %% TAB%dN](x + %u, "
					"depth - 1);\n", u, u, c);
				indent(o, d);
				fprintf(o, "if (depth > 0) s += tab%d[x %% "
					"TAB%dN](x + %u, depth - 1);\n", u, u,
					c);
			} else
				fprintf(o, "s ^= x >> 3;\n");
			break;
		case 5:		/* qsort with callbacks */
			fprintf(o, "if (depth > 0) s += sort_some(x, %u);\n",
				rnd(3));
			break;
		case 6:
		case 7:
			fprintf(o, "if ((x = x * 69069u + 1u) %% %u < %u) {\n",
				2 + rnd(4), 1 + rnd(2));
			stmts(o, f, u, d + 1, budget / 2);
			indent(o, d);
			fprintf(o, "} else {\n");
			stmts(o, f, u, d + 1, budget / 2);
			indent(o, d);
			fprintf(o, "}\n");
			break;
		case 8:
			fprintf(o, "for (int i%d = 0; i%d < (int)(x %% %uu); "
				"i%d++) {\n", d, d, 2 + rnd(2), d);
			stmts(o, f, u, d + 1, budget / 2);
			indent(o, d + 1);
			fprintf(o, "x = x * 69069u + 5u;\n");
			indent(o, d);
			fprintf(o, "}\n");
			break;
		case 9:		/* back to the innermost catcher, if any */
			if (longjmps) {
				fprintf(o, "if (jtop && depth > 0 && (x >> 2) "
					"%% 3u == 1u) { jcode = x %% 7u; "
					"longjmp(*jtop, 1); }\n");
				break;
			}
			/* fall through */
		default:
			fprintf(o, "if ((x >> 4) %% 7u == 0) return s + x;\n");
			break;
		}
	}
}

static FILE *open_out(const char *dir, const char *name, int print)
{
	char path[4096];
	FILE *o;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	o = fopen(path, "w");
	if (!o) {
		perror(path);
		exit(1);
	}
	if (print)
		printf("%s\n", path);
	return o;
}

static void close_out(FILE *o)
{
	if (ferror(o) || fclose(o) != 0) {
		perror("gencalls");
		exit(1);
	}
}

static void header(const char *dir, unsigned long long seed)
{
	FILE *o = open_out(dir, "calls.h", 0);
	int f;

	fprintf(o, "/* generated by gencalls %llu */\n"
		"#include <stdio.h>\n#include <stdlib.h>\n\n"
		"#define NI __attribute__((noipa))\n\n"
		"extern __thread unsigned long long side;\n"
		"extern __thread int may_exit;\n"
		"extern __thread unsigned nexit;\n"
		"#include <setjmp.h>\n"
		"extern __thread jmp_buf *jtop;\n"
		"extern __thread unsigned jcode;\n"
		"void oracle_resumed(void *fn);\n"
		"unsigned sort_some(unsigned x, unsigned which);\n", seed);
	for (f = 0; f < nf; f++)
		if (!is_static[f])
			fprintf(o, "unsigned f%d(unsigned x, int depth);\n", f);
	close_out(o);
}

static void unit(const char *dir, int u)
{
	char name[32];
	FILE *o;
	int f, i, n;

	snprintf(name, sizeof(name), "u%d.c", u);
	o = open_out(dir, name, 1);
	fprintf(o, "#include \"calls.h\"\n\n");
	for (f = 0; f < nf; f++) {
		if (is_static[f] && unit_of[f] == u)
			fprintf(o, "NI static unsigned f%d(unsigned x, "
				"int depth);\n", f);
		if (catcher[f] && unit_of[f] == u)
			fprintf(o, "NI static unsigned f%d_body(unsigned x, "
				"int depth);\n", f);
	}
	if (u < ntab) {
		n = 2 + (int)rnd(3);
		fprintf(o, "\n#define TAB%dN %du\n"
			"static unsigned (*const tab%d[])(unsigned, int) = {",
			u, n, u);
		for (i = 0; i < n; i++)
			fprintf(o, "%s f%d", i ? "," : "", visible(u));
		fprintf(o, " };\n");
	}
	if (u == 0) {
		/* the qsort callbacks, one of which calls back in */
		fprintf(o, "\n__thread unsigned long long side;\n"
			"__thread int may_exit;\n"
			"__thread unsigned nexit;\n"
			"__thread jmp_buf *jtop;\n"
			"__thread unsigned jcode;\n\n"
			"/* the oracle's, when linked in, replaces it */\n"
			"__attribute__((weak, no_instrument_function))\n"
			"void oracle_resumed(void *fn)\n{\n\t(void)fn;\n}\n\n"
			"NI static int cmp_plain(const void *a, const void *b)\n"
			"{\n\tunsigned x = *(const unsigned *)a, "
			"y = *(const unsigned *)b;\n\n"
			"\treturn (x > y) - (x < y);\n}\n\n"
			"NI static int cmp_calls(const void *a, const void *b)\n"
			"{\n\tunsigned x = *(const unsigned *)a, "
			"y = *(const unsigned *)b;\n\n"
			"\tif ((x & 3u) == 1u)\n"
			"\t\tside += f%d(x, 0);\n"
			"\treturn (x > y) - (x < y);\n}\n\n"
			"NI static int cmp_rev(const void *a, const void *b)\n"
			"{\n\treturn -cmp_plain(a, b);\n}\n\n"
			"NI unsigned sort_some(unsigned x, unsigned which)\n"
			"{\n\tstatic int (*const cmps[])(const void *, "
			"const void *) = { cmp_plain, cmp_calls, cmp_rev };\n"
			"\tunsigned a[6], n = 2 + x %% 5u, i, s = 0;\n\n"
			"\tfor (i = 0; i < n; i++)\n"
			"\t\ta[i] = (x = x * 69069u + 7u) >> 20;\n"
			"\tqsort(a, n, sizeof(a[0]), cmps[which]);\n"
			"\tfor (i = 0; i < n; i++)\n"
			"\t\ts = s * 3u + a[i];\n"
			"\treturn s;\n}\n", visible(0));
	}
	for (f = 0; f < nf; f++) {
		if (unit_of[f] != u)
			continue;
		if (catcher[f])
			fprintf(o, "\nNI %sunsigned f%d(unsigned x, int depth)\n"
				"{\n\tjmp_buf jb;\n"
				"\tjmp_buf *volatile saved = jtop;\n"
				"\tvolatile unsigned r = 0;\n\n"
				"\tif (setjmp(jb)) {\n"
				"\t\toracle_resumed((void *)f%d);\n"
				"\t\tjtop = saved;\n"
				"\t\treturn r + 1000u + jcode;\n\t}\n"
				"\tjtop = &jb;\n"
				"\tr = f%d_body(x, depth);\n"
				"\tjtop = saved;\n"
				"\treturn r;\n}\n", is_static[f] ? "static " : "",
				f, f, f);
		fprintf(o, "\nNI %sunsigned f%d%s(unsigned x, int depth)\n{\n"
			"\tunsigned s = %u;\n\n",
			is_static[f] || catcher[f] ? "static " : "", f,
			catcher[f] ? "_body" : "", rnd(100));
		if (exit_in[f])
			/* exit from a deep frame, or a qsort callback */
			fprintf(o, "\tif (may_exit && depth <= 1 && ++nexit == %du) "
				"{\n\t\tprintf(\"exit %%u %%llu\\n\", x, side);\n"
				"\t\texit((int)(x %% 5u));\n\t}\n", exit_at);
		stmts(o, f, u, 1, 12);
		fprintf(o, "\treturn s;\n}\n");
	}
	if (u == 0) {
		int nthreads = (int)rnd(3);

		fprintf(o, "\nNI static void bye(void)\n{\n"
			"\tmay_exit = 0;\n"
			"\tjtop = NULL;\n"
			"\tside += f%d(%u, 1);\n"
			"\tprintf(\"bye %%llu\\n\", side);\n}\n", visible(0),
			rnd(1000));
		fprintf(o, "\n#include <pthread.h>\n\n"
			"NI static void *worker(void *arg)\n{\n"
			"\tunsigned x = (unsigned)(size_t)arg, s = 0;\n\n"
			"\tfor (int i = 0; i < 4; i++)\n"
			"\t\ts += f%d(x + (unsigned)i, 2);\n"
			"\treturn (void *)(size_t)(s + side);\n}\n", visible(0));
		fprintf(o, "\nint main(int argc, char **argv)\n{\n"
			"\tunsigned seed = argc > 1 ? "
			"(unsigned)atoi(argv[1]) : 1;\n"
			"\tunsigned long long total = 0;\n"
			"\tpthread_t t[2];\n"
			"\tvoid *ret;\n"
			"\tint i;\n\n"
			"\tatexit(bye);\n"
			"\tfor (i = 0; i < %d; i++)\n"
			"\t\tpthread_create(&t[i], NULL, worker, "
			"(void *)(size_t)(seed * 7u + (unsigned)i));\n"
			"\tfor (i = 0; i < %d; i++) {\n"
			"\t\tpthread_join(t[i], &ret);\n"
			"\t\ttotal += (size_t)ret;\n\t}\n"
			"\tmay_exit = 1;\n"
			"\tfor (i = 0; i < 12; i++)\n"
			"\t\ttotal += f0(seed * 31u + (unsigned)i, 3);\n"
			"\tprintf(\"%%llu %%llu\\n\", total, side);\n"
			"\treturn (int)(total %% 7);\n}\n", nthreads, nthreads);
	}
	close_out(o);
}

int main(int argc, char **argv)
{
	unsigned long long seed;
	int f, u;

	if (argc != 3) {
		fputs("usage: gencalls SEED DIR\n", stderr);
		return 2;
	}
	seed = strtoull(argv[1], NULL, 10);
	gstate = seed;
	nf = 5 + (int)rnd(MAXF - 5);
	nunits = 2 + (int)rnd(2);
	ntab = 1 + (int)rnd((unsigned)nunits);
	for (f = 0; f < nf; f++) {
		/* f0 (called by main) is extern and in unit 0 */
		unit_of[f] = f == 0 ? 0 : (int)rnd((unsigned)nunits);
		is_static[f] = f != 0 && rnd(3) == 0;
	}
	longjmps = (int)rnd(2);
	for (f = 0; f < nf && longjmps; f++)
		catcher[f] = rnd(2) == 0;
	if (rnd(2)) {
		for (f = 0; f < nf; f++)
			exit_in[f] = rnd(2) == 0;
		exit_at = 1 + (int)rnd(8);
	}
	header(argv[2], seed);
	for (u = 0; u < nunits; u++)
		unit(argv[2], u);
	return 0;
}
