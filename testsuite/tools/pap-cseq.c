/* SPDX-License-Identifier: MIT */
/*
 * pap-cseq - a test tool: decodes one thread's call-sequence record, as
 * testsuite/e2e/calls/take.c wrote it at exit from the runtime
 * (rt_calls_take()), in the program its units' metadata describe, and
 * prints the sequence of function names (doc/algorithms.md's rules, as
 * the -finstrument-functions oracle sees them):
 *
 *   the thread's first entry       NAME
 *   an entry by an instrumented call  NAME
 *   an entry from outside          >NAME
 *   a return to an instrumented caller  the caller's NAME
 *   a return to outside            nothing
 *   a longjmp back into a frame    that frame's NAME
 *
 * A chain of tail calls (f tail-calls g, g h) prints as the source has
 * it: each function entered by name, and at the chain's end each returns
 * to the one before it (h returns to g, g to f, f to its caller).
 *
 * Usage: pap-cseq RECORD META.papm...  (each metadata file by the path
 * its keys name).  RECORD: "value HEX", "lost N", "n N", then N lines
 * "SITE R" (hex), the packed breakpoints.  Exit status 1 with a message
 * when the record does not decode.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "callprog.h"
#include "callseq.h"
#include "meta.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap * 2 + 8192;
			s = realloc(s, cap);
			if (!s)
				exit(2);
		}
		n = fread(s + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	s[len] = 0;
	return s;
}

/* Is @g the direct callee of @f's site @k? */
static int tail_callee(const struct pap_cs_built *b, uint32_t f, uint32_t k,
		       uint32_t g)
{
	const struct pap_cs_fn *fn = &b->prog.fn[f];

	return k >= 1 && k <= fn->g->nsites && fn->callee[k - 1] == g;
}

int main(int argc, char **argv)
{
	struct pap_meta *metas;
	struct pap_cs_unit *units;
	struct pap_cs_built b;
	struct pap_cs_rec rec;
	struct pap_breakpoint *packed;
	struct pap_cev *ev;
	size_t nunits = (size_t)(argc - 2), i, n, nev, at, npacked;
	uint64_t len;
	const char *why;
	uint32_t *stack, *waiting, depth = 0;
	unsigned char *outside, *tailed;
	unsigned lost;
	char err[512];
	FILE *rf;
	int first = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: pap-cseq RECORD META.papm...\n");
		return 2;
	}
	metas = calloc(nunits, sizeof(*metas));
	units = calloc(nunits, sizeof(*units));
	for (i = 0; i < nunits; i++) {
		char *text = slurp(argv[i + 2]);

		if (!text) {
			fprintf(stderr, "pap-cseq: %s: cannot read\n",
				argv[i + 2]);
			return 1;
		}
		pap_meta_init(&metas[i]);
		if (pap_meta_parse(&metas[i], text, argv[i + 2], err,
				   sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		free(text);
		units[i].metakey = argv[i + 2];
		units[i].fns = metas[i].fns;
		units[i].nfns = metas[i].nfns;
	}
	if (pap_cs_prog_build(units, nunits, &b, err, sizeof(err))) {
		fprintf(stderr, "pap-cseq: %s\n", err);
		return 1;
	}
	rf = fopen(argv[1], "r");
	if (!rf || fscanf(rf, "value %" SCNx64 " lost %u n %zu", &rec.value,
			  &lost, &npacked) != 3) {
		fprintf(stderr, "pap-cseq: %s: not a record\n", argv[1]);
		return 1;
	}
	if (lost) {
		fprintf(stderr, "pap-cseq: the record is incomplete\n");
		return 1;
	}
	packed = calloc(npacked + 1, sizeof(*packed));
	for (i = 0; i < npacked; i++)
		if (fscanf(rf, "%" SCNx32 " %" SCNx64, &packed[i].site,
			   &packed[i].r) != 2) {
			fprintf(stderr, "pap-cseq: %s: short record\n",
				argv[1]);
			return 1;
		}
	fclose(rf);
	len = npacked ? pap_bpack_length(packed, npacked, 100000000) : 0;
	if (npacked && !len) {
		fprintf(stderr, "pap-cseq: bad packing\n");
		return 1;
	}
	rec.nbps = (size_t)len;
	rec.bps = calloc(rec.nbps + 1, sizeof(*rec.bps));
	if (npacked)
		pap_bunpack(packed, npacked, rec.bps);
	if (pap_cseq_decode(&b.prog, &rec, UINT64_MAX, 100000000, &ev, &nev,
			    &why, &at)) {
		fprintf(stderr, "pap-cseq: does not decode: %s (breakpoint "
			"%zu)\n", why, at);
		return 1;
	}
	stack = calloc(nev + 1, sizeof(*stack));
	outside = calloc(nev + 1, 1);
	tailed = calloc(nev + 1, 1);
	waiting = calloc(nev + 1, sizeof(*waiting));
	for (n = 0; n < nev; n++) {
		const struct pap_cev *e = &ev[n];
		const char *name = b.meta[e->fn]->name;
		int tail_in;

		switch (e->kind) {
		case PAP_CEV_ENTER:
		case PAP_CEV_OUT_ENTER:
			/* entered by the tail call of the frame on top (an
			 * outside frame's tail callee decodes as an entry
			 * from outside: its site's direct callee) */
			tail_in = depth && waiting[depth - 1] &&
				  (e->kind == PAP_CEV_ENTER ||
				   (outside[depth - 1] &&
				    tail_callee(&b, stack[depth - 1],
						waiting[depth - 1], e->fn)));
			printf("%s%s%s", first ? "" : " ",
			       e->kind == PAP_CEV_OUT_ENTER && !first &&
			       !tail_in ? ">" : "", name);
			first = 0;
			if (tail_in)
				waiting[depth - 1] = 0;
			outside[depth] = e->kind == PAP_CEV_OUT_ENTER &&
					 !tail_in;
			tailed[depth] = (unsigned char)tail_in;
			waiting[depth] = 0;
			stack[depth++] = e->fn;
			break;
		case PAP_CEV_TAIL:
			if (depth)
				waiting[depth - 1] = e->site;
			break;
		case PAP_CEV_RETURN:
			/* a chain that ended in uninstrumented code: its
			 * last tail caller returns */
			if (!depth || !waiting[depth - 1] ||
			    stack[depth - 1] == e->fn)
				break;
			/* fall through */
		case PAP_CEV_EXIT:
			/* a chain of tail calls returns through each of its
			 * functions, as the source has it */
			do {
				if (depth)
					depth--;
				if (!outside[depth] && depth)
					printf(" %s",
					       b.meta[stack[depth - 1]]->name);
			} while (depth && tailed[depth]);
			break;
		case PAP_CEV_LONGJMP:
			/* e->arg frames of the run lie above the one
			 * resumed, each with the tail callers it left
			 * waiting */
			for (i = 0; depth && i < e->arg; i++) {
				while (depth && tailed[depth - 1])
					depth--;
				if (depth)
					depth--;
			}
			if (depth)
				waiting[depth - 1] = 0;
			printf(" %s", name);
			break;
		default:
			break;
		}
	}
	printf("\n");
	free(stack);
	free(outside);
	free(tailed);
	free(waiting);
	free(ev);
	free(rec.bps);
	free(packed);
	pap_cs_built_free(&b);
	for (i = 0; i < nunits; i++)
		pap_meta_free(&metas[i]);
	free(metas);
	free(units);
	return 0;
}
