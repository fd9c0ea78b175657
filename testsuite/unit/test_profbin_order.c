/* SPDX-License-Identifier: MIT */
/*
 * test_profbin_order.c - the order in which a binary profile holds each
 * function's records, checked against the order as the format states it
 * (doc: a function's records by group, then by their breakpoints' ids,
 * ids before repeats and repeats by their value, a shorter path before
 * the longer one it begins, then by value; ids ranked by the bit length
 * of their uses, more first, then by site and value), recomputed here
 * from what was read back.  The reader keeps records in file order.
 * Also the writer's radix sort against a stable comparison sort.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bpack.h"
#include "profdata.h"
#include "radix.h"

static uint64_t seed = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* A breakpoint of a function: its uses there, and its rank. */
struct ent {
	struct pap_breakpoint bp;
	uint64_t uses;
	uint64_t id;
};

/* The rank of breakpoints by uses, then site and value. */
static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	unsigned cx = x->uses ? 64 - (unsigned)__builtin_clzll(x->uses) : 0;
	unsigned cy = y->uses ? 64 - (unsigned)__builtin_clzll(y->uses) : 0;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (x->bp.site != y->bp.site)
		return x->bp.site < y->bp.site ? -1 : 1;
	if (x->bp.r != y->bp.r)
		return x->bp.r < y->bp.r ? -1 : 1;
	return 0;
}

static struct ent *ents;
static size_t nents;

static uint64_t id_of(const struct pap_breakpoint *bp)
{
	size_t i;

	for (i = 0; i < nents; i++)
		if (ents[i].bp.site == bp->site && ents[i].bp.r == bp->r)
			return ents[i].id;
	fail_msg("breakpoint not in the dictionary");
	return 0;
}

static int group(const struct pap_prof_rec *r)
{
	return r->kind == PAP_REC_BL ? 2 : r->complete ? 0 : 1;
}

/* <0, 0, >0: the written order of @x and @y, records of one function. */
static int rec_cmp(const struct pap_prof_rec *x, const struct pap_prof_rec *y)
{
	uint32_t i;

	if (group(x) != group(y))
		return group(x) - group(y);
	for (i = 0; i < x->nbps && i < y->nbps; i++) {
		const struct pap_breakpoint *a = &x->bps[i], *b = &y->bps[i];
		int ra = pap_bp_is_repeat(a), rb = pap_bp_is_repeat(b);

		if (ra != rb)
			return ra - rb;
		if (ra && a->r != b->r)
			return a->r < b->r ? -1 : 1;
		if (!ra && id_of(a) != id_of(b))
			return id_of(a) < id_of(b) ? -1 : 1;
	}
	if (x->nbps != y->nbps)
		return x->nbps < y->nbps ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return 0;
}

/* Checks that the records @p->recs[from..to), one function's, are in
 * the written order. */
static void check_function(const struct pap_profile *p, size_t from,
			   size_t to)
{
	size_t i, k;
	uint32_t j;

	nents = 0;
	for (i = from; i < to; i++)
		for (j = 0; j < p->recs[i].nbps; j++) {
			const struct pap_breakpoint *bp = &p->recs[i].bps[j];

			if (pap_bp_is_repeat(bp))
				continue;
			for (k = 0; k < nents; k++)
				if (ents[k].bp.site == bp->site &&
				    ents[k].bp.r == bp->r)
					break;
			if (k == nents) {
				ents[k].bp = *bp;
				ents[k].uses = 0;
				nents++;
			}
			ents[k].uses++;
		}
	qsort(ents, nents, sizeof(*ents), ent_cmp);
	for (k = 0; k < nents; k++)
		ents[k].id = k;
	for (i = from + 1; i < to; i++)
		if (rec_cmp(&p->recs[i - 1], &p->recs[i]) >= 0)
			fail_msg("records %zu and %zu of %s are out of order",
				 i - 1 - from, i - from, p->recs[i].fn);
}

/*
 * Records of two large functions and eight small ones (sorted another
 * way): paths of up to 14 breakpoints from a pool
 * whose values take every byte, repeats among them, cut and complete
 * paths and Ball-Larus ids, values small and large; written, read back
 * and checked in the order read.  Enough distinct breakpoints that a
 * path's first few do not tell many records apart.
 */
static void test_profbin_order(void **state)
{
	struct pap_breakpoint pool[600], bps[14];
	char fn[64];
	struct pap_profile in, out;
	char *buf = NULL, err[256] = "";
	size_t len = 0, i, start;
	FILE *f;
	int k;

	(void)state;
	for (i = 0; i < 600; i++) {
		pool[i].site = (uint32_t)(rnd() % 5);
		pool[i].r = i % 3 ? rnd() : rnd() % 300;
	}
	pap_profile_init(&in);
	pap_profile_init(&out);
	for (k = 0; k < 10; k++)
		for (i = 0; i < (k < 2 ? 6000u : 3u * k); i++) {
			uint32_t n = (uint32_t)(rnd() % 15), j;
			/* a narrow pool for some: long shared prefixes */
			size_t width = i % 4 ? 600 : 3;
			uint64_t value = i % 3 ? rnd() % 1000 : rnd();
			int bl = rnd() % 7 == 0;

			for (j = 0; j < n; j++) {
				if (j && rnd() % 5 == 0) {
					bps[j].site = PAP_BP_REPEAT;
					bps[j].r = (1 + rnd() % j) << 32 |
						   (1 + rnd() % 3);
				} else {
					bps[j] = pool[rnd() % width];
				}
			}
			snprintf(fn, sizeof(fn), "order:%016x", k + 1);
			assert_int_equal(pap_profile_add(&in, fn,
					 bl ? PAP_REC_BL : PAP_REC_PATH,
					 bl || rnd() % 2, value, bps,
					 bl ? 0 : n, 1 + rnd() % 3), 0);
		}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pap_profile_write(&in, f), 0);
	assert_int_equal(fclose(f), 0);
	if (pap_profile_parse_mem(&out, buf, len, "order.prof", err,
				  sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(out.nrecs, in.nrecs);
	ents = calloc(600, sizeof(*ents));
	assert_non_null(ents);
	for (start = 0, i = 1; i <= out.nrecs; i++)
		if (i == out.nrecs || strcmp(out.recs[i].fn,
					     out.recs[start].fn)) {
			check_function(&out, start, i);
			start = i;
		}
	free(ents);
	free(buf);
	pap_profile_free(&in);
	pap_profile_free(&out);
}

/* The byte offset in @err, a reader's "FILE: error: byte N: ..." */
static unsigned long long err_byte(const char *err)
{
	const char *b = strstr(err, "byte ");

	assert_non_null(b);
	return strtoull(b + 5, NULL, 10);
}

/*
 * The reader adds records a batch at a time: what it reads back is what
 * was written (records of many breakpoints, more than a batch holds,
 * among them), and a limit on distinct records (max_recs) stops it at
 * the first record past the limit, whose offset it gives: one further
 * into the file for each record more the limit lets in.
 */
static void test_profbin_limit(void **state)
{
	struct pap_breakpoint *bps = calloc(1500, sizeof(*bps));
	struct pap_profile in, out;
	char *buf = NULL, *t1 = NULL, *t2 = NULL, err[256] = "", fn[64];
	size_t len = 0, l1 = 0, l2 = 0, i, total;
	unsigned long long last = 0;
	FILE *f;
	int k;

	(void)state;
	assert_non_null(bps);
	pap_profile_init(&in);
	for (k = 0; k < 3; k++)
		for (i = 0; i < 70; i++) {
			uint32_t n = i % 23 == 5 ? 1100 + (uint32_t)i :
						   (uint32_t)(rnd() % 9), j;

			for (j = 0; j < n; j++) {
				bps[j].site = (uint32_t)(rnd() % 7);
				bps[j].r = rnd();
			}
			snprintf(fn, sizeof(fn), "limit:%016x", k + 1);
			assert_int_equal(pap_profile_add(&in, fn, PAP_REC_PATH,
					 1, rnd() % 1000, bps, n,
					 1 + rnd() % 5), 0);
		}
	total = in.nrecs;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pap_profile_write(&in, f), 0);
	assert_int_equal(fclose(f), 0);
	pap_profile_init(&out);
	out.max_recs = total;
	if (pap_profile_parse_mem(&out, buf, len, "limit.prof", err,
				  sizeof(err)))
		fail_msg("%s", err);
	f = open_memstream(&t1, &l1);
	assert_int_equal(pap_profile_write_text(&in, f), 0);
	assert_int_equal(fclose(f), 0);
	f = open_memstream(&t2, &l2);
	assert_int_equal(pap_profile_write_text(&out, f), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(l1, l2);
	assert_memory_equal(t1, t2, l1);
	pap_profile_free(&out);
	for (i = total - 40; i < total; i++) {
		pap_profile_init(&out);
		out.max_recs = i;
		err[0] = 0;
		assert_int_not_equal(pap_profile_parse_mem(&out, buf, len,
							   "limit.prof", err,
							   sizeof(err)), 0);
		assert_non_null(strstr(err, "distinct records"));
		assert_true(err_byte(err) > last);
		last = err_byte(err);
		pap_profile_free(&out);
	}
	free(t1);
	free(t2);
	free(buf);
	free(bps);
	pap_profile_free(&in);
}

/* An element of the radix sort's test: its keys, and where it was. */
struct relem {
	uint64_t hi, lo, at;
};

static int relem_cmp(const void *a, const void *b)
{
	const struct relem *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * pap_radix_sort() against qsort() with the original position as the
 * last key (a stable order): arrays of 0 to 3,000 elements whose high
 * keys tie in runs shorter and longer than PAP_RADIX_MIN, whose low keys
 * tie too, and whose keys differ in few or in all bytes.
 */
static void test_radix_sort(void **state)
{
	struct relem *a, *b, *tmp;
	size_t n, i, round;

	(void)state;
	a = malloc(3000 * sizeof(*a));
	b = malloc(3000 * sizeof(*b));
	tmp = malloc(3000 * sizeof(*tmp));
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(tmp);
	for (round = 0; round < 400; round++) {
		/* how many distinct high and low keys, and how wide */
		uint64_t nhi = 1 + rnd() % (round % 4 == 0 ? 3 : 200);
		uint64_t nlo = 1 + rnd() % (round % 3 == 0 ? 2 : 1000);
		unsigned wide = round % 5 == 0;

		n = round < 30 ? round : rnd() % 3000;
		for (i = 0; i < n; i++) {
			a[i].hi = rnd() % nhi;
			a[i].lo = rnd() % nlo;
			if (wide) {
				a[i].hi *= 0x9e3779b97f4a7c15ull;
				a[i].lo = ~a[i].lo * 0xbf58476d1ce4e5b9ull;
			}
			a[i].at = i;
		}
		memcpy(b, a, n * sizeof(*a));
		qsort(b, n, sizeof(*b), relem_cmp);
		pap_radix_sort(a, tmp, n, sizeof(*a), offsetof(struct relem, hi),
			       offsetof(struct relem, lo));
		for (i = 0; i < n; i++) {
			assert_int_equal(a[i].hi, b[i].hi);
			assert_int_equal(a[i].lo, b[i].lo);
			assert_int_equal(a[i].at, b[i].at);
		}
	}
	free(a);
	free(b);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profbin_order),
		cmocka_unit_test(test_profbin_limit),
		cmocka_unit_test(test_radix_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
