/* SPDX-License-Identifier: MIT */
/*
 * calls-check - turns cygoracle's per-thread event files into the call
 * sequences pap-decode reports (doc/formats.md, "call_paths"), one line
 * per file, the names separated by spaces.  It shares no code with pap.
 *
 * Usage: calls-check [-c] [-l LIBNMFILE] NMFILE ORACLEFILE...
 *
 * With -c, prints instead the calling context of every entry, one line
 * each: the names on the stack from the bottom, ">" before a frame
 * entered from outside (not the bottom one); `sort | uniq -c` makes the
 * calling-context tree's counts of pap-decode's "call_contexts".
 *
 * NMFILE is `nm -n -S` of the test program (static functions included);
 * LIBNMFILE that of a library it loads, placed by the oracle's L lines
 * (its lib_anchor's address).
 * The rules, from the program's point of view:
 *   - an entry whose call site lies in the function on top of the stack
 *     is a call: its function's name;
 *   - any other entry comes from outside: ">name", except the thread's
 *     first entry, written plain;
 *   - a return of a frame entered from outside lists nothing; any other
 *     return lists the function returned to (the new top);
 *   - a longjmp resume (R) drops the frames above the function resumed
 *     and lists it;
 *   - a fork (F, in the child) ends what came before: the child's
 *     sequence starts there, with the function that called fork, and
 *     its stack is the parent's;
 *   - N ends a sequence and starts another with an empty stack (a
 *     signal handler's own, cygoracle.c).
 * An event that does not fit the stack (a return of another function, a
 * resume of a function not on it) is an error naming the file and line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sym {
	uint64_t start, size;
	char *name;
};

static struct sym *syms;
static size_t nsyms;
static size_t nmain;	/* the program's are [0, nmain), the library's after */
static uint64_t base, libbase;	/* runtime minus nm addresses */
static int contexts;	/* -c */

static int by_start(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void read_nm(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], name[4000], type;
	unsigned long long a, s;
	static size_t cap;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %llx %c %3999s", &a, &s, &type,
			   name) != 4)
			continue;
		if (type != 't' && type != 'T' && type != 'W' && type != 'w')
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 256;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				abort();
		}
		syms[nsyms].start = a;
		syms[nsyms].size = s;
		syms[nsyms].name = strdup(name);
		nsyms++;
	}
	fclose(f);
	qsort(syms + nmain, nsyms - nmain, sizeof(*syms), by_start);
}

/* The function of syms[lo0, hi0) containing the nm address @a, or -1. */
static long find_in(uint64_t a, size_t lo0, size_t hi0)
{
	size_t lo = lo0, hi = hi0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* several symbols may share a start: take any that covers @a */
	while (lo > lo0) {
		lo--;
		if (a < syms[lo].start + syms[lo].size)
			return (long)lo;
		if (lo > lo0 && syms[lo - 1].start != syms[lo].start)
			break;
	}
	return -1;
}

/* The function containing the runtime address @a, or -1. */
static long find(uint64_t a)
{
	long i = find_in(a - base, 0, nmain);

	if (i < 0 && nsyms > nmain)
		i = find_in(a - libbase, nmain, nsyms);
	return i;
}

static uint64_t rt_start(long i)
{
	return syms[i].start + ((size_t)i < nmain ? base : libbase);
}

static long find_exact(uint64_t a, const char *file, unsigned line)
{
	long i = find(a);

	if (i < 0 || rt_start(i) != a) {
		fprintf(stderr, "%s:%u: no function starts at %#" PRIx64 "\n",
			file, line, a);
		exit(1);
	}
	return i;
}

struct frame {
	long fn;
	int outside;
};

/* The sequence being read, written to stdout when it ends. */
static char *obuf;
static size_t olen;
static FILE *o;

static void seq_open(void)
{
	o = open_memstream(&obuf, &olen);
	if (!o)
		abort();
}

static void seq_close(int print)
{
	fclose(o);
	if (print)
		fwrite(obuf, 1, olen, stdout);
	free(obuf);
	obuf = NULL;
}

static void check_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256], kind;
	unsigned long long a, b;
	struct frame *st = NULL;
	size_t depth = 0, cap = 0;
	unsigned ln = 0;
	int first = 1, any = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	seq_open();
	while (fgets(line, sizeof(line), f)) {
		int k = sscanf(line, "%c %llx %llx", &kind, &a, &b);
		long fn;

		ln++;
		if (kind == 'N' && k == 1) {
			if (any && !contexts)
				fprintf(o, "\n");
			seq_close(1);
			seq_open();
			depth = 0;
			first = 1;
			any = 0;
			continue;
		}
		if (kind == 'F' && k == 1) {
			if (!depth) {
				fprintf(stderr, "%s:%u: a fork outside any "
					"function\n", path, ln);
				exit(1);
			}
			seq_close(0);
			seq_open();
			if (!contexts)
				fprintf(o, "%s", syms[st[depth - 1].fn].name);
			any = !contexts;
			first = 0;
			continue;
		}
		if (kind == 'A' && k == 2) {
			long i = -1;
			size_t j;

			for (j = 0; j < nmain; j++)
				if (!strcmp(syms[j].name, "oracle_anchor"))
					i = (long)j;
			if (i < 0) {
				fprintf(stderr, "%s: no oracle_anchor in nm\n",
					path);
				exit(1);
			}
			base = (uint64_t)a - syms[i].start;
			continue;
		}
		if (kind == 'L' && k == 2) {
			long i = -1;
			size_t j;

			for (j = nmain; j < nsyms; j++)
				if (!strcmp(syms[j].name, "lib_anchor"))
					i = (long)j;
			if (i < 0) {
				fprintf(stderr, "%s:%u: no lib_anchor in the "
					"library's nm (-l)\n", path, ln);
				exit(1);
			}
			libbase = (uint64_t)a - syms[i].start;
			continue;
		}
		if (k < 2 || (kind == 'E' && k != 3)) {
			fprintf(stderr, "%s:%u: bad line\n", path, ln);
			exit(1);
		}
		fn = find_exact((uint64_t)a, path, ln);
		if (kind == 'E') {
			/* the return address may lie just past a noreturn
			 * call at the end of the caller */
			long site = find((uint64_t)b - 1);
			int out = !depth || site != st[depth - 1].fn;

			if (depth == cap) {
				cap = cap ? 2 * cap : 64;
				st = realloc(st, cap * sizeof(*st));
				if (!st)
					abort();
			}
			st[depth].fn = fn;
			st[depth].outside = out;
			depth++;
			if (contexts) {
				size_t j;

				for (j = 0; j < depth; j++)
					fprintf(o, "%s%s%s", j ? " " : "",
					       j && st[j].outside ? ">" : "",
					       syms[st[j].fn].name);
				fprintf(o, "\n");
				continue;
			}
			fprintf(o, "%s%s%s", any ? " " : "",
			       out && !first ? ">" : "", syms[fn].name);
			any = 1;
			first = 0;
		} else if (kind == 'X') {
			if (!depth || st[depth - 1].fn != fn) {
				fprintf(stderr, "%s:%u: %s returns but is not "
					"on top\n", path, ln, syms[fn].name);
				exit(1);
			}
			depth--;
			if (!st[depth].outside && !contexts) {
				fprintf(o, " %s", syms[st[depth - 1].fn].name);
			}
		} else if (kind == 'R') {
			while (depth && st[depth - 1].fn != fn)
				depth--;
			if (!depth) {
				fprintf(stderr, "%s:%u: %s resumed but is not "
					"on the stack\n", path, ln,
					syms[fn].name);
				exit(1);
			}
			if (!contexts)
				fprintf(o, "%s%s", any ? " " : "", syms[fn].name);
			any = !contexts;
		} else {
			fprintf(stderr, "%s:%u: bad line\n", path, ln);
			exit(1);
		}
	}
	if (any && !contexts)
		fprintf(o, "\n");
	seq_close(1);
	fclose(f);
	free(st);
}

int main(int argc, char **argv)
{
	const char *lib = NULL;
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "-c")) {
		contexts = 1;
		i++;
	}
	if (argc < i + 1) {
		fputs("usage: calls-check [-c] NMFILE ORACLEFILE...\n",
		      stderr);
		return 2;
	}
	if (argc > i + 1 && !strcmp(argv[i], "-l")) {
		lib = argv[i + 1];
		i += 2;
	}
	if (argc < i + 1) {
		fputs("usage: calls-check [-c] [-l LIBNMFILE] NMFILE "
		      "ORACLEFILE...\n", stderr);
		return 2;
	}
	read_nm(argv[i]);
	nmain = nsyms;
	if (lib)
		read_nm(lib);
	for (i++; i < argc; i++)
		check_file(argv[i]);
	return 0;
}
