/* SPDX-License-Identifier: MIT */
/*
 * test_callrender.c - the decoder's rendering of call sequences
 * (decoder/callrender.c): runs of hand-written programs are encoded by
 * pap_cseq_exec, decoded by pap_cseq_decode, and rendered; the sequences
 * and trees expected are written here from the programs' source.  The
 * call k-grams (callkgram.c) are checked against windows counted here
 * by brute force, and the packed form (callpack.c) against forms
 * written from the sequences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "decoder.h"

const char *pap_prog = "test_callrender";

/* callkgram.c's printers walk with report-text.c's kipf_walk, which
 * this test does not link: they are not called here. */
void kipf_walk(const struct pap_forest *ipf, uint32_t v, uint64_t parent,
	       uint64_t root, double min_share, const struct kipf_visit *kv)
{
	(void)ipf;
	(void)v;
	(void)parent;
	(void)root;
	(void)min_share;
	(void)kv;
	fail_msg("kipf_walk is not part of this test");
}

/* one block, one return: every site is in b1, in order */
static const char graph1[] = "blocks b1\nentry b1\nreturn b1\n";
/* if (...) b2; b3: the sites in b2 may be skipped */
static const char graph_if[] = "blocks b1 b2 b3\nentry b1\nedge b1 b2\n"
			       "edge b1 b3\nedge b2 b3\nreturn b3\n";
/* b1; do b2 while (...); b3: the sites in b2 repeat */
static const char graph_loop[] = "blocks b1 b2 b3\nentry b1\nedge b1 b2\n"
				 "edge b2 b2\nedge b2 b3\nreturn b3\n";

static void fn_text(char *buf, size_t size, const char *name,
		    const char *calls, uint64_t *sum)
{
	const char *graph = !strcmp(name, "main") ||
			    !strcmp(name, "twice") ? graph_loop :
			    strstr(calls, " b2 ") ? graph_if : graph1;

	*sum = pap_meta_calls_checksum(pap_meta_checksum(PAP_MODE_NONE, graph,
							 strlen(graph)),
				       calls, strlen(calls));
	snprintf(buf + strlen(buf), size - strlen(buf),
		 "function %s\nfile u.c\nmode none\n%slines b1 1\n%s"
		 "checksum %016llx\nend\n", name, graph, calls,
		 (unsigned long long)*sum);
}

static void unit(struct pap_meta *m, size_t n, const char *const fns[][2])
{
	char body[8192] = "", text[16384], err[256];
	uint64_t sums[16];
	size_t i;

	for (i = 0; i < n; i++)
		fn_text(body, sizeof(body), fns[i][0], fns[i][1], &sums[i]);
	snprintf(text, sizeof(text), "pap-meta 3\nunit %016llx\n%s",
		 (unsigned long long)pap_meta_unit_sum(sums, n), body);
	if (pap_meta_parse(m, text, "u.papm", err, sizeof(err)))
		fail_msg("%s", err);
}

/*
 * The program, as C:
 *
 *   int main(void) {            void f(int n) {       int cmp(a, b) {
 *     f(1);          // 3         if (n) f(n - 1); //10  return key(a) -
 *     qsort(.., cmp);// 4       }                            key(b); // 20
 *     g();           // 5                             }
 *     do puts(..);   // 6       void g(void) {
 *     while (...);                return h();      // 30 (a tail call)
 *   }                           }
 *
 *   void catcher(void) {                   void t1(void) {
 *     if (setjmp(jb)) ...;      // 40        longjmp(jb, 1);   // 45
 *     t1();                     // 41      }
 *   }
 *
 *   void twice(void) {
 *     do { key(..);             // 50
 *          puts(..); }          // 51
 *     while (...);
 *   }
 */
static const char *const prog_fns[][2] = {
	{ "main", "calls sc\nsite 1 b1 direct - 3 f\n"
		  "site 2 b1 direct o 4 qsort\n"
		  "site 3 b1 direct t 5 g\n"
		  "site 4 b2 direct o 6 puts\n" },
	{ "f", "calls sc\nsite 1 b2 direct - 10 f\n" },
	{ "cmp", "calls sc\nsite 1 b1 direct - 20 key\n" },
	{ "key", "calls sc\n" },
	{ "g", "calls sc\nsite 1 b1 tail - 30 h\n" },
	{ "h", "calls sc\n" },
	{ "catcher", "calls sc\nsite 1 b1 setjmp o 40 _setjmp\n"
		     "site 2 b1 direct - 41 t1\n" },
	{ "t1", "calls sc\nsite 1 b1 direct o 45 longjmp\n" },
	{ "twice", "calls sc\nsite 1 b2 direct - 50 key\n"
		   "site 2 b2 direct o 51 puts\n" },
};
enum { MAIN, F, CMP, KEY, G, H, CATCHER, T1, TWICE, NFNS };

struct fixture {
	struct pap_meta m;
	struct pap_cs_unit u;
	struct pap_cs_built b;
	uint32_t ix[NFNS];	/* the program's index of each enum above */
};

static void setup(struct fixture *t)
{
	char err[256];
	uint32_t i, j;

	pap_meta_init(&t->m);
	unit(&t->m, sizeof(prog_fns) / sizeof(prog_fns[0]), prog_fns);
	t->u.metakey = "u.papm";
	t->u.fns = t->m.fns;
	t->u.nfns = t->m.nfns;
	if (pap_cs_prog_build(&t->u, 1, &t->b, err, sizeof(err)))
		fail_msg("%s", err);
	for (i = 0; i < NFNS; i++) {
		for (j = 0; j < t->b.prog.nfn; j++)
			if (!strcmp(t->b.meta[j]->name, prog_fns[i][0]))
				break;
		assert_true(j < t->b.prog.nfn);
		t->ix[i] = j;
	}
}

static void teardown(struct fixture *t)
{
	pap_cs_built_free(&t->b);
	pap_meta_free(&t->m);
}

/* Events with the enum's functions, made the program's indices. */
static void map_events(const struct fixture *t, struct pap_cev *ev,
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ev[i].fn = t->ix[ev[i].fn];
}

/* Encodes @ev, decodes it back (checking it is the same run), and
 * returns the decoded events. */
static struct pap_cev *round_trip(struct fixture *t, struct pap_cev *ev,
				  size_t n, uint64_t limit)
{
	struct pap_cs_rec rec;
	struct pap_cev *out = NULL;
	const char *why = NULL;
	size_t at = 0, m = 0, i;

	map_events(t, ev, n);
	if (pap_cseq_exec(&t->b.prog, ev, n, limit, &rec, &why, &at))
		fail_msg("exec: %s at %zu", why, at);
	if (pap_cseq_decode(&t->b.prog, &rec, limit, 10000, &out, &m, &why,
			    &at))
		fail_msg("decode: %s at %zu", why, at);
	assert_int_equal(m, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(out[i].kind, ev[i].kind);
		assert_int_equal(out[i].fn, ev[i].fn);
	}
	pap_cs_rec_free(&rec);
	return out;
}

/* The sequence of @ev as text ("a >b c"), into @buf. */
static void seq_of(struct fixture *t, const struct pap_cev *ev, size_t n,
		   char *buf, size_t size)
{
	struct call_seq q;
	FILE *f = fmemopen(buf, size, "w");

	assert_non_null(f);
	assert_int_equal(call_sequence(&t->b, ev, n, &q), 0);
	call_seq_text(f, &t->b, &q, q.n);
	fclose(f);
	call_seq_free(&q);
}

static void tree_of(struct fixture *t, const struct pap_cev *ev, size_t n,
		    char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	assert_non_null(f);
	assert_int_equal(call_tree_print(f, &t->b, ev, n, 0), 0);
	fclose(f);
}

#define CALL(fn, k)		{ PAP_CEV_CALL, 0, fn, k, 0 }
#define RET(fn, k, c)		{ PAP_CEV_RETURN, c, fn, k, 0 }
#define ENTER(fn)		{ PAP_CEV_ENTER, 0, fn, 0, 0 }
#define OUT(fn)			{ PAP_CEV_OUT_ENTER, 0, fn, 0, 0 }
#define EXIT(fn)		{ PAP_CEV_EXIT, 0, fn, 0, 0 }
#define TAIL(fn, k)		{ PAP_CEV_TAIL, 0, fn, k, 0 }

/* main's run: recursion, qsort calling cmp twice, a tail call, puts
 * three times. */
static struct pap_cev main_run[] = {
	OUT(MAIN),
	CALL(MAIN, 1), ENTER(F),
		CALL(F, 1), ENTER(F), EXIT(F), RET(F, 1, 0),
	EXIT(F), RET(MAIN, 1, 0),
	CALL(MAIN, 2),
		OUT(CMP), CALL(CMP, 1), ENTER(KEY), EXIT(KEY), RET(CMP, 1, 0),
		EXIT(CMP),
		OUT(CMP), CALL(CMP, 1), ENTER(KEY), EXIT(KEY), RET(CMP, 1, 0),
		EXIT(CMP),
	RET(MAIN, 2, 1),
	CALL(MAIN, 3), ENTER(G), TAIL(G, 1), ENTER(H), EXIT(H),
	RET(MAIN, 3, 2),
	CALL(MAIN, 4), RET(MAIN, 4, 1),
	EXIT(MAIN),
};

static void test_sequence(void **state)
{
	struct fixture t;
	struct pap_cev ev[sizeof(main_run) / sizeof(main_run[0])], *out;
	size_t n = sizeof(ev) / sizeof(ev[0]);
	uint64_t limits[] = { UINT64_MAX, 4096 };
	char buf[1024];
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		setup(&t);
		memcpy(ev, main_run, sizeof(ev));
		out = round_trip(&t, ev, n, limits[i]);
		seq_of(&t, out, n, buf, sizeof(buf));
		/* f recursing returns to f then main; cmp's returns from
		 * key name cmp, their own to qsort nothing; h, entered by
		 * g's tail call, returns to g, g to main */
		assert_string_equal(buf, "main f f f main >cmp key cmp >cmp "
				    "key cmp g h g main");
		free(out);
		teardown(&t);
	}
}

static void test_tree(void **state)
{
	static const struct pap_cev extra[] = {
		CALL(MAIN, 4), RET(MAIN, 4, 1),
		CALL(MAIN, 4), RET(MAIN, 4, 1),
	};
	struct fixture t;
	size_t n0 = sizeof(main_run) / sizeof(main_run[0]);
	struct pap_cev ev[sizeof(main_run) / sizeof(main_run[0]) + 4], *out;
	size_t n = n0 + 4;
	char buf[2048];

	(void)state;
	setup(&t);
	/* puts three times: the last two before main's exit */
	memcpy(ev, main_run, (n0 - 1) * sizeof(ev[0]));
	memcpy(ev + n0 - 1, extra, sizeof(extra));
	ev[n - 1] = main_run[n0 - 1];
	out = round_trip(&t, ev, n, UINT64_MAX);
	tree_of(&t, out, n, buf, sizeof(buf));
	assert_string_equal(buf,
			    "main\n"
			    "  main:3 -> f\n"
			    "    f:10 -> f\n"
			    "  main:4 -> qsort [outside]\n"
			    "    >cmp  x 2\n"
			    "      cmp:20 -> key\n"
			    "  main:5 -> g\n"
			    "    g:30 -> h (tail)\n"
			    "  main:6 -> puts [outside]  x 3\n");
	free(out);
	teardown(&t);
}

/* catcher calls t1, whose longjmp resumes catcher at its setjmp; it
 * calls t1 again, whose longjmp this time returns (as far as the
 * program's numbering knows: a site flagged 'o'). */
static void test_longjmp(void **state)
{
	struct pap_cev ev[] = {
		OUT(CATCHER), CALL(CATCHER, 1), RET(CATCHER, 1, 1),
		CALL(CATCHER, 2), ENTER(T1), CALL(T1, 1),
		{ PAP_CEV_LONGJMP, 0, CATCHER, 0, 1 },
		CALL(CATCHER, 2), ENTER(T1), CALL(T1, 1), RET(T1, 1, 1),
		EXIT(T1), RET(CATCHER, 2, 0), EXIT(CATCHER),
	};
	size_t n = sizeof(ev) / sizeof(ev[0]);
	struct pap_cev *out;
	struct fixture t;
	char buf[1024];

	(void)state;
	setup(&t);
	ev[6].site = pap_cg_src(1, 1);
	out = round_trip(&t, ev, n, UINT64_MAX);
	seq_of(&t, out, n, buf, sizeof(buf));
	assert_string_equal(buf, "catcher t1 catcher t1 catcher");
	tree_of(&t, out, n, buf, sizeof(buf));
	assert_string_equal(buf,
			    "catcher\n"
			    "  catcher:40 -> _setjmp [outside]\n"
			    "  catcher:41 -> t1\n"
			    "    t1:45 -> longjmp [outside]\n"
			    "  <- longjmp back to catcher\n"
			    "  catcher:41 -> t1\n"
			    "    t1:45 -> longjmp [outside]\n");
	free(out);
	teardown(&t);
}

/* twice's loop calls key and puts three times: the pair is printed
 * once under "x 3:". */
static void test_tree_groups(void **state)
{
	struct pap_cev ev[] = {
		OUT(TWICE),
		CALL(TWICE, 1), ENTER(KEY), EXIT(KEY), RET(TWICE, 1, 0),
		CALL(TWICE, 2), RET(TWICE, 2, 1),
		CALL(TWICE, 1), ENTER(KEY), EXIT(KEY), RET(TWICE, 1, 0),
		CALL(TWICE, 2), RET(TWICE, 2, 1),
		CALL(TWICE, 1), ENTER(KEY), EXIT(KEY), RET(TWICE, 1, 0),
		CALL(TWICE, 2), RET(TWICE, 2, 1),
		EXIT(TWICE),
	};
	size_t n = sizeof(ev) / sizeof(ev[0]);
	struct pap_cev *out;
	struct fixture t;
	char buf[1024];

	(void)state;
	setup(&t);
	out = round_trip(&t, ev, n, UINT64_MAX);
	tree_of(&t, out, n, buf, sizeof(buf));
	assert_string_equal(buf,
			    "twice\n"
			    "  x 3:\n"
			    "    twice:50 -> key\n"
			    "    twice:51 -> puts [outside]\n");
	free(out);
	teardown(&t);
}

/* The node of @ipf reached from the roots by the labels @w[0..@n), or
 * 0. */
static uint32_t kg_find(const struct pap_forest *ipf, const uint32_t *w,
			size_t n)
{
	uint32_t v = 0, c;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!i) {
			for (c = 1; c < ipf->n; c++)
				if (!ipf->nodes[c].parent &&
				    ipf->nodes[c].label == w[0])
					break;
			c = c < ipf->n ? c : 0;
		} else {
			for (c = ipf->nodes[v].child; c &&
			     ipf->nodes[c].label != w[i];
			     c = ipf->nodes[c].sibling)
				;
		}
		if (!c)
			return 0;
		v = c;
	}
	return v;
}

/* The k-grams of main's run (count 3) and of twice's (count 2), k = 3:
 * every window of 1 to 3 names of each sequence, counted by brute force
 * here, is a node with that count, and there is no other node (no
 * window across the two runs). */
static void test_kgrams(void **state)
{
	struct pap_cev twice_run[] = {
		OUT(TWICE),
		CALL(TWICE, 1), ENTER(KEY), EXIT(KEY), RET(TWICE, 1, 0),
		CALL(TWICE, 2), RET(TWICE, 2, 1),
		CALL(TWICE, 1), ENTER(KEY), EXIT(KEY), RET(TWICE, 1, 0),
		CALL(TWICE, 2), RET(TWICE, 2, 1),
		EXIT(TWICE),
	};
	struct pap_cev ev[sizeof(main_run) / sizeof(main_run[0])];
	size_t n0 = sizeof(ev) / sizeof(ev[0]);
	size_t n1 = sizeof(twice_run) / sizeof(twice_run[0]);
	struct call_run runs[2];
	struct pap_forest ipf;
	struct call_seq q[2];
	uint32_t key_cmp[2], mt[2];
	size_t r, i, j, d, distinct = 0;
	struct fixture t;
	uint64_t want;

	(void)state;
	setup(&t);
	memcpy(ev, main_run, sizeof(ev));
	map_events(&t, ev, n0);
	map_events(&t, twice_run, n1);
	runs[0] = (struct call_run){ &t.b, ev, n0, 3, NULL };
	runs[1] = (struct call_run){ &t.b, twice_run, n1, 2, NULL };
	pap_forest_init(&ipf);
	assert_int_equal(call_kgrams(runs, 2, &t.b, 3, &ipf), 0);
	for (r = 0; r < 2; r++)
		assert_int_equal(call_sequence(&t.b, runs[r].ev, runs[r].nev,
					       &q[r]), 0);
	/* each window, at its first occurrence over both runs */
	for (r = 0; r < 2; r++)
		for (i = 0; i < q[r].n; i++)
			for (d = 1; d <= 3 && i + d <= q[r].n; d++) {
				const uint32_t *w = q[r].item + i;
				size_t r2, i2, seen = 0;
				uint32_t v;

				want = 0;
				for (r2 = 0; r2 < 2; r2++)
					for (i2 = 0; i2 + d <= q[r2].n; i2++)
						if (!memcmp(q[r2].item + i2, w,
							    d * sizeof(*w))) {
							want += runs[r2].count;
							seen |= r2 < r ||
								(r2 == r &&
								 i2 < i);
						}
				v = kg_find(&ipf, w, d);
				assert_true(v != 0);
				assert_int_equal(ipf.nodes[v].count, want);
				distinct += !seen;
			}
	assert_int_equal(ipf.n - 1, distinct);
	/* by hand: key then cmp twice in main's run, 3 times; main is
	 * entered once and returned to twice a run; no "main twice" */
	key_cmp[0] = t.ix[KEY];
	key_cmp[1] = t.ix[CMP];
	assert_int_equal(ipf.nodes[kg_find(&ipf, key_cmp, 2)].count, 6);
	assert_int_equal(ipf.nodes[kg_find(&ipf, &t.ix[MAIN], 1)].count, 9);
	mt[0] = t.ix[MAIN];
	mt[1] = t.ix[TWICE];
	assert_int_equal(kg_find(&ipf, mt, 2), 0);
	for (r = 0; r < 2; r++)
		call_seq_free(&q[r]);
	pap_forest_free(&ipf);
	/* k = 1: the names with their counts, roots only */
	pap_forest_init(&ipf);
	assert_int_equal(call_kgrams(runs, 2, &t.b, 1, &ipf), 0);
	for (j = 1; j < ipf.n; j++)
		assert_int_equal(ipf.nodes[j].depth, 1);
	assert_int_equal(ipf.nodes[kg_find(&ipf, &t.ix[TWICE], 1)].count, 6);
	pap_forest_free(&ipf);
	teardown(&t);
}

/* The packed JSON of the items @it[0..@n) (enum values), into @buf. */
/* Appends block @k (one call of main's at its level) to @ev. */
static size_t put_block(struct pap_cev *ev, size_t n, unsigned k)
{
	static const struct pap_cev blocks[][8] = {
		{ CALL(MAIN, 1), ENTER(F), EXIT(F), RET(MAIN, 1, 0) },
		{ CALL(MAIN, 1), ENTER(F), CALL(F, 1), ENTER(F), EXIT(F),
		  RET(F, 1, 0), EXIT(F), RET(MAIN, 1, 0) },
		{ CALL(MAIN, 4), RET(MAIN, 4, 1) },
		{ CALL(MAIN, 2), OUT(CMP), CALL(CMP, 1), ENTER(KEY),
		  EXIT(KEY), RET(CMP, 1, 0), EXIT(CMP), RET(MAIN, 2, 1) },
		{ CALL(MAIN, 3), ENTER(G), TAIL(G, 1), ENTER(H), EXIT(H),
		  RET(MAIN, 3, 2) },
	};
	static const size_t len[] = { 4, 8, 2, 8, 6 };

	memcpy(ev + n, blocks[k], len[k] * sizeof(*ev));
	return n + len[k];
}

/*
 * test_kgrams_packed: the k-grams of a sequence given packed (X B^c Y,
 * B kept once) are those of its expansion, window for window: random
 * blocks of main's calls make X, B and Y, k from 1 to 6.
 */
static void test_kgrams_packed(void **state)
{
	struct fixture t;
	unsigned long seed = 1, round;

	(void)state;
	setup(&t);
	for (round = 0; round < 400; round++) {
		struct pap_cev *ev = malloc(256 * sizeof(*ev)), *full;
		struct pap_cev_rep rep;
		struct pap_cseq_packed pk;
		struct pap_forest a, b;
		struct call_run run;
		size_t n = 0, x, bl, nfull = 0, i, j;
		unsigned nb;
		uint64_t c;
		uint32_t k, v, path[8];

		assert_non_null(ev);
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		ev[n++] = (struct pap_cev)OUT(MAIN);
		for (nb = (seed >> 33) % 4; nb; nb--)
			n = put_block(ev, n, (unsigned)(seed >> (40 + nb)) % 5);
		x = n;
		for (nb = 1 + (seed >> 20) % 3; nb; nb--)
			n = put_block(ev, n, (unsigned)(seed >> (10 + nb)) % 5);
		bl = n - x;
		for (nb = (seed >> 50) % 4; nb; nb--)
			n = put_block(ev, n, (unsigned)(seed >> (53 + nb)) % 5);
		ev[n++] = (struct pap_cev)EXIT(MAIN);
		map_events(&t, ev, n);
		c = 2 + (seed >> 5) % 12;
		k = 1 + (uint32_t)(round % 6);
		full = malloc((n + c * bl) * sizeof(*full));
		assert_non_null(full);
		memcpy(full, ev, x * sizeof(*ev));
		nfull = x;
		for (i = 0; i < c; i++, nfull += bl)
			memcpy(full + nfull, ev + x, bl * sizeof(*ev));
		memcpy(full + nfull, ev + x + bl, (n - x - bl) * sizeof(*ev));
		nfull += n - x - bl;
		rep = (struct pap_cev_rep){ x, bl, c };
		pk = (struct pap_cseq_packed){ ev, n, &rep, 1, nfull };
		pap_forest_init(&a);
		pap_forest_init(&b);
		run = (struct call_run){ &t.b, full, nfull, 3, NULL };
		assert_int_equal(call_kgrams(&run, 1, &t.b, k, &a), 0);
		run = (struct call_run){ &t.b, NULL, 0, 3, &pk };
		assert_int_equal(call_kgrams(&run, 1, &t.b, k, &b), 0);
		assert_int_equal(a.n, b.n);
		for (i = 1; i < a.n; i++) {
			for (j = 0, v = (uint32_t)i; v && j < 8;
			     v = a.nodes[v].parent)
				path[j++] = (uint32_t)a.nodes[v].label;
			for (v = 0; v < j / 2; v++) {
				uint32_t tmp = path[v];

				path[v] = path[j - 1 - v];
				path[j - 1 - v] = tmp;
			}
			v = kg_find(&b, path, j);
			if (!v || b.nodes[v].count != a.nodes[i].count)
				fail_msg("round %lu k %u c %llu: a window of "
					 "%zu names counted %llu, packed %llu",
					 round, k, (unsigned long long)c, j,
					 (unsigned long long)a.nodes[i].count,
					 v ? (unsigned long long)
					 b.nodes[v].count : 0ull);
		}
		pap_forest_free(&a);
		pap_forest_free(&b);
		free(full);
		free(ev);
	}
	teardown(&t);
}

static int pack_of(struct fixture *t, const uint32_t *it, size_t n,
		   size_t budget, char *buf, size_t size)
{
	struct call_seq q = { calloc(n, sizeof(uint32_t)), n, n };
	FILE *f = fmemopen(buf, size, "w");
	size_t i;
	int cut = -1;

	assert_non_null(f);
	assert_non_null(q.item);
	for (i = 0; i < n; i++)
		q.item[i] = t->ix[it[i]];
	assert_int_equal(call_pack_json(f, &t->b, &q, budget, &cut), 0);
	fclose(f);
	free(q.item);
	return cut;
}

static void test_pack(void **state)
{
	uint32_t it[2001];
	char buf[4096];
	struct fixture t;
	size_t i;

	(void)state;
	setup(&t);
	/* main f, 1000 times, then cmp: one repeat of one piece */
	for (i = 0; i < 2000; i++)
		it[i] = i % 2 ? F : MAIN;
	it[2000] = CMP;
	assert_int_equal(pack_of(&t, it, 2001, 10000, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "{\"pieces\": [[\"main\", \"f\"], "
			    "[\"cmp\"]], \"form\": \" ( 0 )^1000 1\"}");
	/* (g h h h key) 5 times: the period covering most wins over h's */
	for (i = 0; i < 25; i++)
		it[i] = i % 5 == 0 ? G : i % 5 == 4 ? KEY : H;
	assert_int_equal(pack_of(&t, it, 25, 10000, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "{\"pieces\": [[\"g\", \"h\", \"h\", \"h\", "
			    "\"key\"]], \"form\": \" ( 0 )^5\"}");
	/* nested: (main (f)^3 key key)^40 twice: f^3 inside a period of
	 * 6 names, found on the first pass already as one piece */
	for (i = 0; i < 240; i++)
		it[i] = i % 6 == 0 ? MAIN : i % 6 < 4 ? F : KEY;
	it[240] = TWICE;
	assert_int_equal(pack_of(&t, it, 241, 10000, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "{\"pieces\": [[\"main\", \"f\", \"f\", "
			    "\"f\", \"key\", \"key\"], [\"twice\"]], "
			    "\"form\": \" ( 0 )^40 1\"}");
	/* no repeat: one piece; over the budget: cut */
	for (i = 0; i < 9; i++)
		it[i] = (uint32_t)i;
	assert_int_equal(pack_of(&t, it, 9, 9, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "{\"pieces\": [[\"main\", \"f\", \"cmp\", "
			    "\"key\", \"g\", \"h\", \"catcher\", \"t1\", "
			    "\"twice\"]], \"form\": \" 0\"}");
	assert_int_equal(pack_of(&t, it, 9, 8, buf, sizeof(buf)), 1);
	teardown(&t);
}

/* f recurses 200,000 deep: the run is encoded and
 * decoded, and its sequence, tree, contexts (text and JSON) and k-grams
 * are made with the stack the test has (8 MB or less: no printer may
 * recurse per level). */
#define DEEP 200000u

static size_t count_lines(FILE *f, const char *needle)
{
	char line[512];
	size_t n = 0;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	return n;
}

static void test_deep(void **state)
{
	size_t n = 4 * (size_t)DEEP + 2, i, m = 0, at = 0, nseq;
	struct pap_cev *ev = calloc(n, sizeof(*ev)), *out = NULL;
	struct decoder d;
	struct call_run run;
	struct call_seq q;
	struct pap_cs_rec rec;
	struct pap_forest ipf;
	struct ropts o;
	struct fixture t;
	struct rlimit rl;
	const char *why = NULL;
	FILE *f;

	(void)state;
	/* at most 8 MB of stack from here on, whatever the shell gave */
	if (!getrlimit(RLIMIT_STACK, &rl) && (rl.rlim_cur == RLIM_INFINITY ||
					       rl.rlim_cur > (8u << 20))) {
		rl.rlim_cur = 8u << 20;
		setrlimit(RLIMIT_STACK, &rl);
	}
	assert_non_null(ev);
	setup(&t);
	ev[m++] = (struct pap_cev)OUT(F);
	for (i = 0; i < DEEP; i++) {
		ev[m++] = (struct pap_cev)CALL(F, 1);
		ev[m++] = (struct pap_cev)ENTER(F);
	}
	for (i = 0; i < DEEP; i++) {
		ev[m++] = (struct pap_cev)EXIT(F);
		ev[m++] = (struct pap_cev)RET(F, 1, 0);
	}
	ev[m++] = (struct pap_cev)EXIT(F);
	assert_int_equal(m, n);
	map_events(&t, ev, n);
	if (pap_cseq_exec(&t.b.prog, ev, n, UINT64_MAX, &rec, &why, &at))
		fail_msg("exec: %s at %zu", why, at);
	if (pap_cseq_decode(&t.b.prog, &rec, UINT64_MAX, n, &out, &m, &why,
			    &at))
		fail_msg("decode: %s at %zu", why, at);
	assert_int_equal(m, n);
	pap_cs_rec_free(&rec);
	/* the sequence: f, f entered DEEP times, returned to DEEP times */
	assert_int_equal(call_sequence(&t.b, out, n, &q), 0);
	nseq = q.n;
	call_seq_free(&q);
	assert_int_equal(nseq, 2 * (size_t)DEEP + 1);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(call_tree_print(f, &t.b, out, n, 0), 0);
	assert_int_equal(count_lines(f, "f:10 -> f"), DEEP);
	fclose(f);
	memset(&d, 0, sizeof(d));
	memset(&o, 0, sizeof(o));
	run = (struct call_run){ &t.b, out, n, 1, NULL };
	f = tmpfile();
	assert_non_null(f);
	call_contexts_text(f, &run, 1, &o, &d, "deep");
	assert_int_equal(count_lines(f, "  (f:10)"), DEEP);
	assert_int_equal(count_lines(f, "[depth 200001] f  (f:10)"), 1);
	fclose(f);
	f = tmpfile();
	assert_non_null(f);
	call_contexts_json(f, &run, 1, &d, "deep");
	/* 100,000 contexts written, the chain only near the root */
	assert_int_equal(count_lines(f, "{\"id\": "), 100000);
	assert_int_equal(count_lines(f, "\"context\": ["), 64);
	assert_int_equal(count_lines(f, "\"call_contexts_left_out\": 100001"),
			 1);
	fclose(f);
	pap_forest_init(&ipf);
	assert_int_equal(call_kgrams(&run, 1, &t.b, 2, &ipf), 0);
	assert_int_equal(ipf.n - 1, 2);		/* f; f f */
	assert_int_equal(ipf.nodes[kg_find(&ipf, &t.ix[F], 1)].count,
			 2 * (uint64_t)DEEP + 1);
	pap_forest_free(&ipf);
	assert_int_equal(d.errors, 0);
	free(out);
	free(ev);
	teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_longjmp),
		cmocka_unit_test(test_tree_groups),
		cmocka_unit_test(test_kgrams),
		cmocka_unit_test(test_kgrams_packed),
		cmocka_unit_test(test_pack),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
