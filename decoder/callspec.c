/* SPDX-License-Identifier: MIT */
/*
 * callspec.c - the call sequences of interest of a spec file
 * (--calls-spec=FILE; pathspec.h "calls" lines) with their counts in a
 * profile: each sequence's count is the sum of the counts of the
 * profile's decoded call sequences equal to it, item for item, 0 when
 * none is.  A build with -fplugin-arg-pap-calls-spec records only the
 * threads that can be on one of them, so for it and for a build of
 * every function these counts are the same.  The threads that left
 * them are one CALLS record of their own (pathspec.h, PAP_CSEQ_LEFT).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "pathspec.h"
#include "textfile.h"
#include "util.h"

/* The sequences of interest and what the profile says of them. */
struct interest {
	struct pap_spec spec;
	uint64_t *count;	/* per spec.calls[] */
	uint64_t recorded;	/* all CALLS records' counts, but left */
	uint64_t left;		/* threads off every sequence of interest */
	uint64_t undecided;	/* of those, not decoded: unknown */
};

/* Reads @file's "calls" lines into @s; 0, or -1 after the errors (said,
 * FILE:LINE each). */
static int interest_read(struct pap_spec *s, const char *file)
{
	char err[512];
	char *text = pap_read_text_file(file, (size_t)1 << 30, err,
					sizeof(err));
	int r;

	pap_spec_init(s);
	if (!text) {
		fprintf(stderr, "%s: %s\n", pap_prog, err);
		return -1;
	}
	r = pap_spec_parse(s, text, file);
	free(text);
	if (r || s->nerrors) {
		pap_spec_sort_msgs(s);
		if (s->msglen)
			fputs(s->msgs, stderr);
		else
			fprintf(stderr, "%s: %s: %s\n", pap_prog, file,
				pap_strerror(r));
		return -1;
	}
	return 0;
}

/* Is decoded sequence @q of @b the spec's sequence @c? */
static int same_sequence(const struct pap_cs_built *b,
			 const struct call_seq *q,
			 const struct pap_spec_calls *c)
{
	size_t i;

	if (q->n != c->nitems)
		return 0;
	for (i = 0; i < q->n; i++) {
		uint32_t v = q->item[i], fn = v & ~CALL_SEQ_OUTSIDE;
		const char *it = c->item[i];
		int out = *it == '>';

		if (out != !!(v & CALL_SEQ_OUTSIDE) || fn >= b->prog.nfn ||
		    strcmp(b->meta[fn]->name, it + out))
			return 0;
	}
	return 1;
}

/* Counts @file's sequences in @dp's profile into @in; 0, or -1 after an
 * error (said). */
static int interest_count(struct interest *in, struct dprofile *dp,
			  const struct ropts *o, const char *file)
{
	struct call_runs runs;
	uint64_t decided = 0;
	size_t i, j;

	memset(in, 0, sizeof(*in));
	if (interest_read(&in->spec, file))
		return -1;
	in->count = calloc(in->spec.ncalls + 1, sizeof(*in->count));
	if (!in->count)
		return -1;
	for (i = 0; dp->prof && i < dp->prof->nrecs; i++) {
		const struct pap_prof_rec *r = &dp->prof->recs[i];

		if (r->kind != PAP_REC_CALLS)
			continue;
		if (pap_cseq_left(r->value, r->nbps))
			in->left = pap_sat_add(in->left, r->count);
		else
			in->recorded = pap_sat_add(in->recorded, r->count);
	}
	if (!in->recorded)
		return 0;
	if (calls_runs_load(dp, o, &runs)) {
		calls_runs_free(&runs);
		fprintf(stderr, "%s: error: out of memory\n", pap_prog);
		return -1;
	}
	for (i = 0; i < runs.n; i++) {
		const struct call_run *r = &runs.run[i];
		struct call_seq q;

		if (call_sequence(r->b, r->ev, r->nev, &q))
			continue;
		decided = pap_sat_add(decided, r->count);
		for (j = 0; j < in->spec.ncalls; j++)
			if (same_sequence(r->b, &q, &in->spec.calls[j]))
				in->count[j] = pap_sat_add(in->count[j],
							   r->count);
		call_seq_free(&q);
	}
	calls_runs_free(&runs);
	in->undecided = in->recorded - decided;
	return 0;
}

static void interest_free(struct interest *in)
{
	free(in->count);
	pap_spec_free(&in->spec);
}

/* The counts of --calls-spec's sequences into @in: 0, or 1 when there
 * is no such option or the counting failed (an error counted). */
static int interest_load(struct interest *in, struct dprofile *dp,
			 const struct ropts *o)
{
	if (!o->calls_spec)
		return 1;
	if (interest_count(in, dp, o, o->calls_spec)) {
		dp->d->errors++;
		interest_free(in);
		return 1;
	}
	return 0;
}

void print_calls_interest_json(FILE *out, struct dprofile *dp,
			       const struct ropts *o)
{
	struct interest in;
	size_t i, j;

	if (interest_load(&in, dp, o))
		return;
	fputs(",\n\"calls_of_interest\": [", out);
	for (i = 0; i < in.spec.ncalls; i++) {
		const struct pap_spec_calls *c = &in.spec.calls[i];

		fprintf(out, "%s\n  {\"count\": %" PRIu64 ", \"line\": %u, "
			"\"sequence\": [", i ? "," : "", in.count[i], c->line);
		for (j = 0; j < c->nitems; j++) {
			fputs(j ? ", " : "", out);
			json_string(out, c->item[j]);
		}
		fputs("]}", out);
	}
	fprintf(out, "\n], \"calls_recorded\": %" PRIu64 ", "
		"\"calls_undecided\": %" PRIu64 ", \"calls_left\": %" PRIu64,
		in.recorded, in.undecided, in.left);
	interest_free(&in);
}

void print_calls_interest_text(FILE *out, struct dprofile *dp,
			       const struct ropts *o)
{
	struct interest in;
	size_t i, j;

	if (interest_load(&in, dp, o))
		return;
	fprintf(out, "\ncall sequences of interest (%s): %zu, of %" PRIu64
		" recorded\n", o->calls_spec, in.spec.ncalls, in.recorded);
	for (i = 0; i < in.spec.ncalls; i++) {
		const struct pap_spec_calls *c = &in.spec.calls[i];

		fprintf(out, "  count %" PRIu64 ", line %u:", in.count[i],
			c->line);
		for (j = 0; j < c->nitems; j++)
			fprintf(out, " %s", c->item[j]);
		fputc('\n', out);
	}
	if (in.undecided)
		fprintf(out, "  (%" PRIu64 " recorded sequences not decoded: "
			"the counts may miss them)\n", in.undecided);
	if (in.left)
		fprintf(out, "  %" PRIu64 " %s left them (not recorded)\n",
			in.left, in.left == 1 ? "thread" : "threads");
	interest_free(&in);
}

int calls_in_profile(const struct dprofile *dp)
{
	size_t i;

	for (i = 0; dp->prof && i < dp->prof->nrecs; i++)
		if (dp->prof->recs[i].kind == PAP_REC_CALLS)
			return 1;
	return 0;
}

int write_spec_calls(FILE *f, struct dprofile *dp, const struct ropts *o)
{
	struct call_runs runs;
	size_t i, j, shown = 0;
	int err = 0;

	if (!calls_in_profile(dp))
		return 0;
	if (calls_runs_load(dp, o, &runs)) {
		calls_runs_free(&runs);
		fprintf(stderr, "%s: error: out of memory\n", pap_prog);
		return -1;
	}
	for (i = 0; i < runs.n && (!o->top || shown < o->top); i++) {
		const struct call_run *r = &runs.run[i];
		struct call_seq q;

		if (call_sequence(r->b, r->ev, r->nev, &q)) {
			err = -1;
			continue;
		}
		if (q.n && q.n <= PAP_SPEC_MAX_LEN) {
			pap_spec_put_calls_head(f, r->count);
			for (j = 0; j < q.n; j++) {
				uint32_t v = q.item[j];

				fprintf(f, " %s%s", v & CALL_SEQ_OUTSIDE ?
					">" : "", r->b->meta[v &
					~CALL_SEQ_OUTSIDE]->name);
			}
			fputc('\n', f);
			shown++;
		}
		call_seq_free(&q);
	}
	calls_runs_free(&runs);
	return err;
}
