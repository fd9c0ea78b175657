/* SPDX-License-Identifier: MIT */
/*
 * callsrt-check.c - checks a profile of callsrt.c's runs:
 *
 *   callsrt-check PROFILE RUNS [exit]
 *
 * It must hold, each counted RUNS times and nothing lost: one UNIT
 * record per unit of callsrt.c, one PROG record naming both by their
 * ids under the PROGSUM computed here, and two CALLS records under it,
 * one per thread.  Each CALLS record, unpacked, decodes with
 * pap_cseq_decode() over the program built here from callsrt.c's CFGs
 * to exactly the events written below from callsrt.c's source, and
 * equals what the reference encoder pap_cseq_exec() makes of them,
 * packed.  The main thread's record is cut short (FRAMES of main and
 * deep) with "exit", complete without.  Exit 0, or 1 naming the first
 * difference.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "callgraph.h"
#include "callseq.h"
#include "cfgmodel.h"
#include "fnkey.h"
#include "profdata.h"

#include "callsrt.h"

enum { F_MAIN, F_WORK, F_WORKER, F_LEAF, F_TWICE, F_DEEP, NFN };

static const char *const keys[NFN] = {
	CR_KEY_MAIN, CR_KEY_WORK, CR_KEY_WORKER, CR_KEY_LEAF, CR_KEY_TWICE,
	CR_KEY_DEEP,
};

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("callsrt-check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* One function's CFG as callsrt.c's comments draw it. */
struct cfn {
	uint32_t nblocks;
	uint32_t nedges;
	uint32_t edges[8][2];
	int ret;		/* the block that returns, or -1 */
	uint32_t nsites;
	struct pap_site sites[5];
	uint32_t callee[5];	/* direct callees (PAP_NONE: none) */
};

#define NONE PAP_NONE
static const struct cfn cfns[NFN] = {
	[F_MAIN] = { 3, 3, { { 0, 1 }, { 0, 2 }, { 1, 2 } }, 2, 5,
		     { { 0, PAP_SITE_DIRECT, 0 },
		       { 0, PAP_SITE_DIRECT, PAP_SITE_MAYBE_OUT },
		       { 0, PAP_SITE_DIRECT, PAP_SITE_MAYBE_OUT },
		       { 0, PAP_SITE_DIRECT, 0 }, { 1, PAP_SITE_DIRECT, 0 } },
		     { F_WORK, NONE, NONE, F_WORK, F_DEEP } },
	[F_WORK] = { 7, 8, { { 0, 1 }, { 1, 2 }, { 1, 6 }, { 2, 3 }, { 2, 4 },
			     { 3, 5 }, { 4, 5 }, { 5, 1 } }, 6, 2,
		     { { 3, PAP_SITE_DIRECT, 0 }, { 4, PAP_SITE_INDIRECT, 0 } },
		     { F_LEAF, NONE } },
	[F_WORKER] = { 1, 0, { { 0, 0 } }, 0, 1, { { 0, PAP_SITE_DIRECT, 0 } },
		       { F_WORK } },
	[F_LEAF] = { 1, 0, { { 0, 0 } }, 0, 0, { { 0, 0, 0 } }, { NONE } },
	[F_TWICE] = { 1, 0, { { 0, 0 } }, 0, 0, { { 0, 0, 0 } }, { NONE } },
	[F_DEEP] = { 1, 0, { { 0, 0 } }, -1, 1,
		     { { 0, PAP_SITE_NORETURN, 0 } }, { NONE } },
};

static struct pap_callgraph graphs[NFN];
static struct pap_cs_fn fns[NFN];
static const struct pap_cs_prog prog = { NFN, fns };
static const uint32_t zero[5];
static const uint32_t *const noclusters[5];

static void build_prog(void)
{
	unsigned f, e;

	for (f = 0; f < NFN; f++) {
		const struct cfn *c = &cfns[f];
		struct pap_cfg *cfg = pap_cfg_new(c->nblocks);

		if (!cfg)
			fail("out of memory");
		for (e = 0; e < c->nedges; e++)
			if (pap_cfg_add_edge(cfg, c->edges[e][0],
					     c->edges[e][1],
					     PAP_EDGE_NORMAL) < 0)
				fail("function %u: bad edge %u", f, e);
		if (pap_cfg_set_entry(cfg, 0) ||
		    (c->ret >= 0 && pap_cfg_mark_return(cfg,
							 (uint32_t)c->ret)) ||
		    pap_cfg_finish(cfg) ||
		    pap_callsites_build(cfg, c->sites, c->nsites, &graphs[f]))
			fail("function %u: the graph cannot be built", f);
		pap_cfg_free(cfg);
		fns[f].g = &graphs[f];
		fns[f].callee = c->callee;
		fns[f].ncluster = zero;
		fns[f].cluster = noclusters;
		fns[f].id = pap_fnid(keys[f]);
	}
}

/* The events expected, as callsrt.c makes them. */
struct evs {
	struct pap_cev *v;
	size_t n, cap;
};

static void ev(struct evs *e, uint8_t kind, uint32_t fn, uint32_t site,
	       uint8_t cls)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			fail("out of memory");
	}
	memset(&e->v[e->n], 0, sizeof(e->v[e->n]));
	e->v[e->n].kind = kind;
	e->v[e->n].fn = fn;
	e->v[e->n].site = site;
	e->v[e->n].cls = cls;
	e->n++;
}

/* A call at @f's site @k of work(@n), from its entry to its return. */
static void work(struct evs *e, uint32_t f, uint32_t k, int n)
{
	int i;

	ev(e, PAP_CEV_CALL, f, k, 0);
	ev(e, PAP_CEV_ENTER, F_WORK, 0, 0);
	for (i = 0; i < n; i++) {
		uint32_t site = i % CR_EVERY ? 1 : 2;
		uint32_t g = site == 1 ? F_LEAF : F_TWICE;

		ev(e, PAP_CEV_CALL, F_WORK, site, 0);
		ev(e, PAP_CEV_ENTER, g, 0, 0);
		ev(e, PAP_CEV_EXIT, g, 0, 0);
		ev(e, PAP_CEV_RETURN, F_WORK, site, 0);
	}
	ev(e, PAP_CEV_EXIT, F_WORK, 0, 0);
	ev(e, PAP_CEV_RETURN, f, k, 0);
}

static void expect_main(struct evs *e, int exit_mode)
{
	ev(e, PAP_CEV_OUT_ENTER, F_MAIN, 0, 0);
	work(e, F_MAIN, 1, CR_N1);
	ev(e, PAP_CEV_CALL, F_MAIN, 2, 0);	/* pthread_create */
	ev(e, PAP_CEV_RETURN, F_MAIN, 2, 1);
	ev(e, PAP_CEV_CALL, F_MAIN, 3, 0);	/* pthread_join */
	ev(e, PAP_CEV_RETURN, F_MAIN, 3, 1);
	work(e, F_MAIN, 4, CR_N2);
	if (exit_mode) {
		ev(e, PAP_CEV_CALL, F_MAIN, 5, 0);
		ev(e, PAP_CEV_ENTER, F_DEEP, 0, 0);
		ev(e, PAP_CEV_CALL, F_DEEP, 1, 0);	/* exit */
	} else {
		ev(e, PAP_CEV_EXIT, F_MAIN, 0, 0);
	}
}

static void expect_worker(struct evs *e)
{
	ev(e, PAP_CEV_OUT_ENTER, F_WORKER, 0, 0);
	work(e, F_WORKER, 1, CR_N3);
	ev(e, PAP_CEV_EXIT, F_WORKER, 0, 0);
}

/* PROGSUM of the two units, computed here: FNV-1a 64 over their
 * pap_fnid()s, ascending, 8 bytes each, little-endian. */
static uint64_t progsum(uint64_t a, uint64_t b)
{
	uint64_t ids[2] = { a < b ? a : b, a < b ? b : a }, h;
	unsigned i, k;

	h = 14695981039346656037ull;
	for (i = 0; i < 2; i++)
		for (k = 0; k < 8; k++) {
			h ^= (ids[i] >> (8 * k)) & 0xff;
			h *= 1099511628211ull;
		}
	return h;
}

/* Does record @r decode to @want and equal its encoding? */
static int matches(const struct pap_prof_rec *r, const struct evs *want,
		   const char *who)
{
	struct pap_bpack_buf ub = { 0 }, pb = { 0 };
	const struct pap_breakpoint *plain, *packed;
	struct pap_cs_rec rec, ref;
	struct pap_cev *got = NULL;
	const char *why = "";
	size_t n, ngot = 0, at = 0, i, np;
	int err;

	if (pap_bunpack_into(&ub, r->bps, r->nbps, UINT32_MAX, &plain, &n))
		fail("%s: the record's breakpoints do not unpack", who);
	rec.value = r->value;
	rec.bps = (struct pap_breakpoint *)plain;
	rec.nbps = n;
	err = pap_cseq_decode(&prog, &rec, UINT64_MAX, 1u << 24, &got, &ngot,
			      &why, &at);
	if (err) {
		fprintf(stderr, "callsrt-check: %s? it does not decode: %s "
			"(breakpoint %zu)\n", who, why, at);
		pap_bpack_buf_free(&ub);
		return 0;
	}
	for (i = 0; i < ngot && i < want->n; i++)
		if (got[i].kind != want->v[i].kind ||
		    got[i].fn != want->v[i].fn ||
		    got[i].site != want->v[i].site ||
		    (got[i].kind == PAP_CEV_RETURN &&
		     got[i].cls != want->v[i].cls))
			break;
	free(got);
	if (i < want->n || ngot != want->n) {
		pap_bpack_buf_free(&ub);
		return 0;
	}
	/* and the runtime recorded exactly what the encoder does */
	if (pap_cseq_exec(&prog, want->v, want->n, UINT64_MAX, &ref, &why,
			  &at))
		fail("%s: the expected events are no run: %s at %zu", who,
		     why, at);
	np = ref.nbps;
	packed = np ? pap_bpack_into(&pb, ref.bps, &np) : ref.bps;
	/* field by field: the structure's padding is nobody's content */
	for (i = 0; i < np && i < r->nbps; i++)
		if (packed[i].site != r->bps[i].site ||
		    packed[i].r != r->bps[i].r)
			break;
	if (ref.value != r->value || np != r->nbps || i < np)
		fail("%s: decodes right but differs from the encoder's record "
		     "(value %llu, %zu packed breakpoints; recorded %llu, %u)",
		     who, (unsigned long long)ref.value, np,
		     (unsigned long long)r->value, r->nbps);
	printf("%s: %zu events, %zu breakpoints (%u packed), final cr "
	       "%llu\n", who, want->n, n, r->nbps,
	       (unsigned long long)r->value);
	pap_cs_rec_free(&ref);
	pap_bpack_buf_free(&pb);
	pap_bpack_buf_free(&ub);
	return 1;
}

int main(int argc, char **argv)
{
	struct pap_profile p;
	char err[512], calls_key[64], prog_key[64];
	uint64_t runs, ua = pap_fnid(CR_UNIT_A), ub = pap_fnid(CR_UNIT_B), sum;
	int exit_mode, seen_main = 0, seen_worker = 0, units = 0, progs = 0;
	struct evs wm = { 0 }, ww = { 0 };
	size_t i;

	if (argc < 3)
		fail("usage: callsrt-check PROFILE RUNS [exit]");
	runs = strtoull(argv[2], NULL, 10);
	exit_mode = argc > 3 && !strcmp(argv[3], "exit");
	build_prog();
	expect_main(&wm, exit_mode);
	expect_worker(&ww);
	/* the premise of callsrt.c's registering B first */
	if (ua >= ub)
		fail("unit B's id is not above unit A's");
	sum = progsum(ua, ub);
	snprintf(calls_key, sizeof(calls_key), "%%calls:%016llx",
		 (unsigned long long)sum);
	snprintf(prog_key, sizeof(prog_key), "%%prog:%016llx",
		 (unsigned long long)sum);
	pap_profile_init(&p);
	if (pap_profile_read_file(&p, argv[1], 1u << 30, err, sizeof(err),
				  NULL))
		fail("%s", err);
	if (p.lost)
		fail("%llu records lost", (unsigned long long)p.lost);
	for (i = 0; i < p.nrecs; i++) {
		const struct pap_prof_rec *r = &p.recs[i];

		if (r->count != runs)
			fail("%s (kind %u) counted %llu times, not %llu", r->fn,
			     r->kind, (unsigned long long)r->count,
			     (unsigned long long)runs);
		switch (r->kind) {
		case PAP_REC_UNIT:
			if ((strcmp(r->fn, CR_UNIT_A) &&
			     strcmp(r->fn, CR_UNIT_B)) || r->value || r->nbps)
				fail("a unit record %s, value %llu", r->fn,
				     (unsigned long long)r->value);
			units++;
			break;
		case PAP_REC_PROG:
			if (strcmp(r->fn, prog_key) || r->value != 2 ||
			    r->nbps != 2 || !r->complete ||
			    r->bps[0].site != 0 || r->bps[1].site != 1 ||
			    r->bps[0].r != (ua < ub ? ua : ub) ||
			    r->bps[1].r != (ua < ub ? ub : ua))
				fail("the program record %s is not %s naming "
				     "units %016llx and %016llx", r->fn,
				     prog_key, (unsigned long long)ua,
				     (unsigned long long)ub);
			progs++;
			break;
		case PAP_REC_CALLS:
			if (strcmp(r->fn, calls_key))
				fail("a call sequence under %s, not %s", r->fn,
				     calls_key);
			if (!seen_main && matches(r, &wm, "main's thread")) {
				if (r->complete == exit_mode)
					fail("main's thread: complete %u",
					     r->complete);
				seen_main = 1;
			} else if (!seen_worker &&
				   matches(r, &ww, "worker's thread")) {
				if (!r->complete)
					fail("worker's thread: cut short");
				seen_worker = 1;
			} else {
				fail("a call sequence that is neither "
				     "thread's (%u breakpoints, final %llu)",
				     r->nbps, (unsigned long long)r->value);
			}
			break;
		default:
			fail("a record of kind %u, %s", r->kind, r->fn);
		}
	}
	if (units != 2 || progs != 1 || !seen_main || !seen_worker)
		fail("%d units, %d programs, main's %s, worker's %s", units,
		     progs, seen_main ? "seen" : "missing",
		     seen_worker ? "seen" : "missing");
	printf("callsrt-check: %s: 2 units, the program %016llx, 2 threads' "
	       "sequences, each counted %llu\n", argv[1],
	       (unsigned long long)sum, (unsigned long long)runs);
	for (i = 0; i < NFN; i++)
		pap_callgraph_free(&graphs[i]);
	free(wm.v);
	free(ww.v);
	pap_profile_free(&p);
	return 0;
}
