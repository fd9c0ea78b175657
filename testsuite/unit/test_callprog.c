/* SPDX-License-Identifier: MIT */
/*
 * test_callprog.c - a call sequence's program from its units' metadata:
 * names resolve in the caller's unit first, then in exactly one other;
 * each function's id is that of the key its probes pass; what cannot be
 * resolved is refused with the function, the site and the name; and a
 * run encoded on the built program decodes back to itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "callprog.h"
#include "fnkey.h"

/* one block, one return: every site is in b1 */
static const char graph[] = "blocks b1\nentry b1\nreturn b1\n";

/* A function section of @name with @calls lines (ending in newlines),
 * appended to @buf; its checksum into *@sum. */
static void fn_text(char *buf, size_t size, const char *name,
		    const char *calls, uint64_t *sum)
{
	char calltext[512];

	snprintf(calltext, sizeof(calltext), "%s", calls);
	*sum = pap_meta_calls_checksum(pap_meta_checksum(PAP_MODE_NONE, graph,
							 strlen(graph)),
				       calltext, strlen(calltext));
	snprintf(buf + strlen(buf), size - strlen(buf),
		 "function %s\nfile u.c\nmode none\n%slines b1 1\n%s"
		 "checksum %016llx\nend\n", name, graph, calltext,
		 (unsigned long long)*sum);
}

/* A unit of @n functions (name, calls lines) read into @m. */
static void unit(struct pap_meta *m, const char *file, size_t n,
		 const char *const fns[][2])
{
	char body[4096] = "", text[8192], err[256];
	uint64_t sums[8];
	size_t i;

	for (i = 0; i < n; i++)
		fn_text(body, sizeof(body), fns[i][0], fns[i][1], &sums[i]);
	snprintf(text, sizeof(text), "pap-meta 3\nunit %016llx\n%s",
		 (unsigned long long)pap_meta_unit_sum(sums, n), body);
	if (pap_meta_parse(m, text, file, err, sizeof(err)))
		fail_msg("%s", err);
}

static const char *const unit_a[][2] = {
	{ "main", "calls ic\nsite 1 b1 direct - 3 f\n"
		  "site 2 b1 direct o 4 puts\n"
		  "site 3 b1 indirect o 5 - cmp h\n"
		  "site 4 b1 direct - 6 h\n" },
	{ "h", "calls sc\n" },
};
static const char *const unit_b[][2] = {
	{ "f", "calls sc\nsite 1 b1 direct - 9 h\n" },
	{ "h", "calls sc\n" },
	{ "cmp", "calls sc\n" },
};

struct two {
	struct pap_meta a, b;
	struct pap_cs_unit u[3];
};

static void two_units(struct two *t)
{
	pap_meta_init(&t->a);
	pap_meta_init(&t->b);
	unit(&t->a, "a.papm", 2, unit_a);
	unit(&t->b, "b.papm", 3, unit_b);
	t->u[0].metakey = "obj/a.papm";
	t->u[0].fns = t->a.fns;
	t->u[0].nfns = t->a.nfns;
	t->u[1].metakey = "obj/b.papm";
	t->u[1].fns = t->b.fns;
	t->u[1].nfns = t->b.nfns;
}

static uint32_t index_of(const struct pap_cs_built *b, const char *name,
			 uint32_t unit)
{
	uint32_t i;

	for (i = 0; i < b->prog.nfn; i++)
		if (!strcmp(b->meta[i]->name, name) && b->unit[i] == unit)
			return i;
	fail_msg("no %s in unit %u", name, unit);
	return 0;
}

/* test_resolution: callees and cluster members resolve in the caller's
 * unit first (the two static h), then in the one other unit that has
 * the name; an uninstrumented callee resolves to none; ids are those
 * of the keys as pap_fnkey_format writes them. */
static void test_resolution(void **state)
{
	struct pap_cs_built b;
	struct two t;
	char err[256], key[64];
	uint32_t main_i, h_a, h_b, f_i, cmp_i;

	(void)state;
	two_units(&t);
	assert_int_equal(pap_cs_prog_build(t.u, 2, &b, err, sizeof(err)), 0);
	assert_int_equal(b.prog.nfn, 5);
	main_i = index_of(&b, "main", 0);
	h_a = index_of(&b, "h", 0);
	h_b = index_of(&b, "h", 1);
	f_i = index_of(&b, "f", 1);
	cmp_i = index_of(&b, "cmp", 1);
	assert_int_equal(b.fn[main_i].callee[0], f_i);
	assert_int_equal(b.fn[main_i].callee[1], PAP_NONE);
	assert_int_equal(b.fn[main_i].callee[2], PAP_NONE);
	assert_int_equal(b.fn[main_i].ncluster[2], 2);
	assert_int_equal(b.fn[main_i].cluster[2][0], cmp_i);
	assert_int_equal(b.fn[main_i].cluster[2][1], h_a);
	assert_int_equal(b.fn[main_i].callee[3], h_a);
	assert_int_equal(b.fn[f_i].callee[0], h_b);
	snprintf(key, sizeof(key), "f:%016llx:obj/b.papm",
		 (unsigned long long)t.b.fns[0]->checksum);
	assert_string_equal(b.key[f_i], key);
	assert_true(b.fn[f_i].id == pap_fnid(key));
	assert_int_equal(b.fn[main_i].g->nsites, 4);
	pap_cs_built_free(&b);
	pap_meta_free(&t.a);
	pap_meta_free(&t.b);
}

/* test_refused: a unit without h calling h while two others define it,
 * and a direct callee without the 'o' flag that no unit defines, are
 * refused with the function, site and name. */
static void test_refused(void **state)
{
	static const char *const unit_c[][2] = {
		{ "g", "calls sc\nsite 1 b1 direct - 2 h\n" },
	};
	static const char *const unit_d[][2] = {
		{ "k", "calls sc\nsite 1 b1 direct - 2 nowhere\n" },
	};
	struct pap_meta c, d;
	struct pap_cs_built b;
	struct two t;
	char err[256];

	(void)state;
	two_units(&t);
	pap_meta_init(&c);
	unit(&c, "c.papm", 1, unit_c);
	t.u[2].metakey = NULL;
	t.u[2].fns = c.fns;
	t.u[2].nfns = c.nfns;
	assert_int_equal(pap_cs_prog_build(t.u, 3, &b, err, sizeof(err)),
			 PAP_ECORRUPT);
	assert_non_null(strstr(err, "c.papm: error: function g, call site 1: "
				    "callee h is defined in several units"));
	assert_null(b.fn);

	pap_meta_init(&d);
	unit(&d, "d.papm", 1, unit_d);
	t.u[2].fns = d.fns;
	t.u[2].nfns = d.nfns;
	assert_int_equal(pap_cs_prog_build(t.u, 3, &b, err, sizeof(err)),
			 PAP_ECORRUPT);
	assert_non_null(strstr(err, "function k, call site 1: callee nowhere "
				    "is not in the program"));
	pap_meta_free(&c);
	pap_meta_free(&d);
	pap_meta_free(&t.a);
	pap_meta_free(&t.b);
}

/* test_tail_out: a tail site's callee that no unit defines is an
 * uninstrumented tail callee (a TAIL_OUT mark ends its chain), allowed
 * without the 'o' flag, which a tail site cannot have. */
static void test_tail_out(void **state)
{
	static const char *const unit_t[][2] = {
		{ "len", "calls sc\nsite 1 b1 tail - 2 strlen\n" },
	};
	struct pap_meta m;
	struct pap_cs_built b;
	struct pap_cs_unit u = { 0 };
	char err[256];

	(void)state;
	pap_meta_init(&m);
	unit(&m, "t.papm", 1, unit_t);
	u.metakey = "obj/t.papm";
	u.fns = m.fns;
	u.nfns = m.nfns;
	assert_int_equal(pap_cs_prog_build(&u, 1, &b, err, sizeof(err)), 0);
	assert_int_equal(b.prog.nfn, 1);
	assert_int_equal(b.fn[0].g->sites[0].kind, PAP_SITE_TAIL);
	assert_int_equal(b.fn[0].callee[0], PAP_NONE);
	pap_cs_built_free(&b);
	pap_meta_free(&m);
}

/* test_round_trip: main enters from outside, calls f (which calls its
 * h), calls puts (not entered), calls through the pointer cmp, calls
 * its own h, returns; encoded on the built program and decoded back. */
static void test_round_trip(void **state)
{
	struct pap_cs_built b;
	struct pap_cs_rec rec;
	struct pap_cev *out = NULL;
	struct two t;
	const char *why = NULL;
	char err[256];
	size_t at = 0, n = 0, i;
	uint32_t m, f, hb, ha, cmp;

	(void)state;
	two_units(&t);
	assert_int_equal(pap_cs_prog_build(t.u, 2, &b, err, sizeof(err)), 0);
	m = index_of(&b, "main", 0);
	f = index_of(&b, "f", 1);
	hb = index_of(&b, "h", 1);
	ha = index_of(&b, "h", 0);
	cmp = index_of(&b, "cmp", 1);
	{
		const struct pap_cev ev[] = {
			{ PAP_CEV_OUT_ENTER, 0, m, 0, 0 },
			{ PAP_CEV_CALL, 0, m, 1, 0 },
			{ PAP_CEV_ENTER, 0, f, 0, 0 },
			{ PAP_CEV_CALL, 0, f, 1, 0 },
			{ PAP_CEV_ENTER, 0, hb, 0, 0 },
			{ PAP_CEV_EXIT, 0, hb, 0, 0 },
			{ PAP_CEV_RETURN, 0, f, 1, 0 },
			{ PAP_CEV_EXIT, 0, f, 0, 0 },
			{ PAP_CEV_RETURN, 0, m, 1, 0 },
			{ PAP_CEV_CALL, 0, m, 2, 0 },
			{ PAP_CEV_RETURN, 1, m, 2, 0 },
			{ PAP_CEV_CALL, 0, m, 3, 0 },
			{ PAP_CEV_ENTER, 0, cmp, 0, 0 },
			{ PAP_CEV_EXIT, 0, cmp, 0, 0 },
			{ PAP_CEV_RETURN, 0, m, 3, 0 },
			{ PAP_CEV_CALL, 0, m, 4, 0 },
			{ PAP_CEV_ENTER, 0, ha, 0, 0 },
			{ PAP_CEV_EXIT, 0, ha, 0, 0 },
			{ PAP_CEV_RETURN, 0, m, 4, 0 },
			{ PAP_CEV_EXIT, 0, m, 0, 0 },
		};
		size_t nev = sizeof(ev) / sizeof(ev[0]);

		if (pap_cseq_exec(&b.prog, ev, nev, UINT64_MAX, &rec, &why,
				  &at))
			fail_msg("exec: %s at %zu", why, at);
		if (pap_cseq_decode(&b.prog, &rec, UINT64_MAX, 1000, &out, &n,
				    &why, &at))
			fail_msg("decode: %s at %zu", why, at);
		assert_int_equal(n, nev);
		for (i = 0; i < n; i++) {
			assert_int_equal(out[i].kind, ev[i].kind);
			assert_int_equal(out[i].fn, ev[i].fn);
			assert_int_equal(out[i].site, ev[i].site);
			assert_int_equal(out[i].cls, ev[i].cls);
		}
	}
	free(out);
	pap_cs_rec_free(&rec);
	pap_cs_built_free(&b);
	pap_meta_free(&t.a);
	pap_meta_free(&t.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_tail_out),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
