/* SPDX-License-Identifier: MIT */
/*
 * tools.c - whole-profile tools: merge, coverage, and path spec
 * files.  Merging adds counts of equal records (pap_profile_merge), so it
 * is associative and commutative, and the writer sorts records, so equal
 * sums are equal files.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pap/version.h>

#include "decoder.h"
#include "fnkey.h"
#include "pathspec.h"
#include "target.h"
#include "textfile.h"
#include "util.h"

/* One function seen while merging: name and metadata file, checksum, and
 * the profile that first had it. */
struct seen_fn {
	char *id;		/* "ASMNAME:METAFILE" */
	uint64_t sum;
	const char *file;
};

struct seen {
	struct seen_fn *v;
	size_t n, cap, last;
};

/* The function of @key without its checksum, "ASM:[META]", into @id;
 * its checksum into *@sum; -1 if the key is malformed. */
static int key_id(const char *key, char *id, size_t idlen, uint64_t *sum)
{
	struct pap_fnkey k;

	if (pap_fnkey_split(key, strlen(key), &k))
		return -1;
	*sum = k.checksum;
	if (snprintf(id, idlen, "%.*s:%.*s", (int)k.name_len, k.name,
		     (int)k.meta_len, k.meta ? k.meta : "") >= (int)idlen)
		return -1;
	return 0;
}

/* Checks @p's records against the functions seen so far: one function
 * (same name and metadata file) must have one checksum. */
static int check_sums(struct seen *s, const struct pap_profile *p,
		      const char *file)
{
	char id[PAP_FNKEY_MAX];
	size_t i, j;
	uint64_t sum;

	for (i = 0; i < p->nrecs; i++) {
		/* a program's key names a build by its sum: two sums are two
		 * programs, merged side by side */
		if (pap_rec_key_prefix(p->recs[i].kind))
			continue;
		if (key_id(p->recs[i].fn, id, sizeof(id), &sum)) {
			fprintf(stderr, "%s: error: %s: bad function key '%s'\n",
				pap_prog, file, p->recs[i].fn);
			return -1;
		}
		j = s->last;
		if (j >= s->n || strcmp(s->v[j].id, id))
			for (j = 0; j < s->n; j++)
				if (!strcmp(s->v[j].id, id))
					break;
		if (j < s->n) {
			s->last = j;
			if (s->v[j].sum == sum)
				continue;
			*strchr(id, ':') = 0;
			fprintf(stderr, "%s: error: %s: function %s has checksum "
				"%016llx but %016llx in %s: the profiles come "
				"from different builds; not merged\n", pap_prog,
				file, id, (unsigned long long)sum,
				(unsigned long long)s->v[j].sum, s->v[j].file);
			return -1;
		}
		if (s->n == s->cap &&
		    pap_grow(&s->v, &s->cap, sizeof(*s->v), 64))
			return -1;
		s->v[s->n].id = strdup(id);
		if (!s->v[s->n].id)
			return -1;
		s->v[s->n].sum = sum;
		s->v[s->n].file = file;
		s->last = s->n++;
	}
	return 0;
}

/* Writes @p to @out ("-": standard output) through a temporary file,
 * as binary or, with @text, as text. */
static int write_profile(const struct pap_profile *p, const char *out,
			 int text)
{
	int (*write)(const struct pap_profile *, FILE *) =
		text ? pap_profile_write_text : pap_profile_write;
	char tmp[PATH_MAX + 32];
	FILE *f;
	int off;

	if (!strcmp(out, "-")) {
		if (write(p, stdout) || fflush(stdout)) {
			fprintf(stderr, "%s: error: standard output: %s\n",
				pap_prog, strerror(errno));
			return -1;
		}
		return 0;
	}
	f = pap_target_begin(out, pap_prog, tmp, sizeof(tmp), &off);
	if (!f)
		return off ? 0 : -1;
	if (write(p, f)) {
		fprintf(stderr, "%s: error: %s: cannot write: %s\n", pap_prog,
			out, strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	return pap_target_commit(f, tmp, out, pap_prog);
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "text", no_argument, NULL, 't' },
		{ "drop-stale", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct pap_profile total;
	struct seen s = { NULL, 0, 0, 0 };
	struct sel_check *sel;
	const char *out = "-";
	uint64_t nstale = 0;
	size_t nfns = 0;
	int c, i, rc = 0, text = 0, drop_stale = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:thV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 't':
			text = 1;
			break;
		case 'S':
			drop_stale = 1;
			break;
		case 'h':
			printf("Usage: %s merge [-o OUT] [--text] [--drop-stale] "
			       "PROFILE...\n"
			       "Adds the profiles' counts into one profile, "
			       "written to OUT (default: standard\noutput) in "
			       "the binary format (version 6), or with --text "
			       "as text.  Records\nof one function with "
			       "different checksums are refused; with "
			       "--drop-stale, those\nof the older build (an "
			       "earlier PROFILE, or an earlier segment of one)"
			       " are left\nout, with a note.\n", pap_prog);
			return 0;
		case 'V':
			printf("pap-decode (pap) %s\n", PAP_VERSION_STRING);
			return 0;
		default:	/* getopt said what */
			return pap_usage_error(pap_prog);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: error: merge: no profile given\n",
			pap_prog);
		return pap_usage_error(pap_prog);
	}
	pap_profile_init(&total);
	sel = sel_check_new();
	if (!sel)
		rc = 1;
	for (i = optind; i < argc && !rc; i++) {
		struct pap_profile one;

		pap_profile_init(&one);
		/* with --drop-stale, a later profile is a newer build */
		total.gen = (uint32_t)(i - optind + 1);
		if (load_profile(argv[i], &one) ||
		    sel_check_add(sel, &one, argv[i]) ||
		    (!drop_stale && check_sums(&s, &one, argv[i]))) {
			rc = 1;
		} else if (pap_profile_merge(&total, &one)) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			rc = 1;
		}
		pap_profile_free(&one);
	}
	for (i = 0; !rc && i < (int)total.nrecs; i++)
		if (total.recs[i].count == UINT64_MAX) {
			fprintf(stderr, "%s: warning: merge: counts reached "
				"2^64-1 and were held there (saturated)\n",
				pap_prog);
			break;
		}
	if (!rc && drop_stale) {
		if (pap_profile_drop_stale(&total, &nstale, &nfns)) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			rc = 1;
		} else if (nstale) {
			fprintf(stderr, "%s: note: %llu %s of %zu %s from an "
				"older build left out\n", pap_prog,
				(unsigned long long)nstale,
				pap_plural(nstale, "record", "records"), nfns,
				pap_plural(nfns, "function", "functions"));
		}
		/* what is left must be one build: a tie is not decided */
		if (!rc && check_sums(&s, &total, "the merged profiles"))
			rc = 1;
	}
	if (!rc && write_profile(&total, out, text))
		rc = 1;
	for (i = 0; i < (int)s.n; i++)
		free(s.v[i].id);
	free(s.v);
	sel_check_free(sel);
	pap_profile_free(&total);
	return rc;
}

/* One PROFILE operand of @cmd after its options (--help, --version). */
static const char *one_profile(int argc, char **argv, const char *cmd,
			       const char *help)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("Usage: %s %s PROFILE\n%s", pap_prog, cmd, help);
			exit(0);
		case 'V':
			printf("pap-decode (pap) %s\n", PAP_VERSION_STRING);
			exit(0);
		default:	/* getopt said what */
			exit(pap_usage_error(pap_prog));
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s: error: %s: expected one PROFILE\n",
			pap_prog, cmd);
		exit(pap_usage_error(pap_prog));
	}
	return argv[optind];
}

int cmd_print(int argc, char **argv)
{
	struct pap_profile p;
	const char *path = one_profile(argc, argv, "print",
		"Writes the profile, of any version, to standard output as "
		"text\n(version 6), records in their fixed order, then a "
		"line counting them.\n");
	int rc = 1;

	if (!path)
		return 1;
	pap_profile_init(&p);
	if (!load_profile(path, &p) && !write_profile(&p, "-", 1))
		rc = 0;
	pap_profile_free(&p);
	return rc;
}

int cmd_compact(int argc, char **argv)
{
	const char *path = one_profile(argc, argv, "compact",
		"Rewrites the profile as one segment (version 6), under its "
		"lock, as merging\ndoes once its appended segments outweigh "
		"the first: equal profiles give\nequal files.\n");

	if (!path)
		return 1;
	return pap_profile_compact_file(path, pap_prog) ? 1 : 0;
}

/* ---- coverage ---- */

/* The spec coverage of @dp's selectively built functions, if any:
 * their paths of interest taken at least once; 0 or 1 after an error. */
static int sel_coverage(struct dprofile *dp, const struct ropts *o,
			FILE *out)
{
	struct sel_report rep;
	uint32_t taken = 0, all = 0, t;
	char share[32];
	size_t i;
	int rc = sel_report_build(dp->d, dp->prof, o, &rep) ? 1 : 0;

	if (rep.nfs)
		fprintf(out, "\n%-32s %12s %12s %8s\n", "selective function",
			"of interest", "taken", "covered");
	for (i = 0; i < rep.nfs; i++) {
		const struct sel_func *f = &rep.fs[i];

		t = sel_paths_taken(f);
		fmt_share(share, sizeof(share), t, f->fn->nsel);
		fprintf(out, "%-32s %12u %12u %8s\n", f->fn->name,
			f->fn->nsel, t, share);
		taken += t;
		all += f->fn->nsel;
	}
	if (rep.nfs) {
		fmt_share(share, sizeof(share), taken, all);
		fprintf(out, "%-32s %12u %12u %8s\n", "total", all, taken,
			share);
	}
	sel_report_free(&rep);
	return rc;
}

int cmd_coverage(struct dprofile *dp, const struct ropts *o, FILE *out)
{
	uint64_t taken = 0, feasible = 0;
	double mean = 0;
	size_t f, n = 0;
	int rc = 0;
	char of[32], share[32];

	fprintf(out, "%-32s %12s %12s %12s %8s\n", "function", "whole paths",
		"acyclic", "of", "covered");
	for (f = 0; f < dp->nfs; f++) {
		struct dfunc *df = &dp->fs[f];
		struct bl_coverage c;
		size_t npaths;
		int err;

		/* decoded now if not yet (o->lazy), and let go after: memory
		 * holds one function's paths */
		if (func_decode(dp, df))
			rc = 1;
		err = func_coverage(df, &c);
		npaths = df->npaths;
		if (o->lazy) {
			func_release(df);
			func_trim(df, 0);
		}
		if (err) {
			fprintf(stderr, "%s: error: function %s: no Ball-Larus "
				"numbering\n", pap_prog, df->fn->name);
			rc = 1;
			continue;
		}
		fmt_count(of, sizeof(of), c.feasible);
		fmt_share(share, sizeof(share), (double)c.taken,
			  (double)c.feasible);
		fprintf(out, "%-32s %12zu %12llu %12s %8s\n", df->fn->name,
			npaths, (unsigned long long)c.taken, of, share);
		taken += c.taken;
		feasible = feasible + c.feasible < feasible ? UINT64_MAX :
			   feasible + c.feasible;
		mean += c.feasible ? (double)c.taken / (double)c.feasible : 0;
		n++;
	}
	/* each function weighs the same: one with 10^13 acyclic paths
	 * does not hide what the others cover (doc/reports.md) */
	fmt_count(of, sizeof(of), feasible);
	fmt_share(share, sizeof(share), mean, (double)n);
	fprintf(out, "%-32s %12s %12llu %12s %8s\n", "total (mean share)", "",
		(unsigned long long)taken, of, n ? share : "-");
	if (dp->prof)
		rc |= sel_coverage(dp, o, out);
	return rc;
}

/* ---- path spec files ---- */

/* Does another function of @dp have @df's name (static functions of
 * one name in different files)? */
static int name_shared(const struct dprofile *dp, const struct dfunc *df)
{
	size_t n;

	for (n = 0; n < dp->nfs; n++)
		if (&dp->fs[n] != df &&
		    !strcmp(dp->fs[n].fn->name, df->fn->name))
			return 1;
	return 0;
}

int write_spec(const char *file, struct dprofile *dp, const struct ropts *o)
{
	char tmp[PATH_MAX + 32];
	FILE *f;
	size_t i, n;
	int off;

	f = pap_target_begin(file, pap_prog, tmp, sizeof(tmp), &off);
	if (!f)
		return off ? 0 : -1;
	/* call sequences are "calls" lines, of version 2.1 */
	if (calls_in_profile(dp))
		fprintf(f, "%s%d.%d\n", PAP_SPEC_MAGIC, PAP_SPEC_VERSION,
			PAP_SPEC_MINOR_CALLS);
	else
		pap_spec_put_header(f);
	for (n = 0; n < dp->nfs; n++) {
		struct dfunc *df = &dp->fs[n];
		int shared = name_shared(dp, df);

		for (i = 0; i < df->npaths; i++) {
			struct dpath *p = &df->paths[i];

			if (!path_shown(o, df, i))
				continue;
			if (path_long(p)) {
				fprintf(stderr, "%s: warning: function %s: a "
					"path of %zu %s is left out of %s\n",
					pap_prog, df->fn->name, p->n,
					pap_plural(p->n, "block", "blocks"),
					file);
				continue;
			}
			if (path_open(df, p))
				continue;
			/* loops as the text report prints them */
			pap_spec_put_path_head(f, shared ? df->fn->file : NULL,
					       df->fn->name, df->fn->checksum,
					       p->count);
			put_packed_numbers(f, df, p);
			fputc('\n', f);
			path_close(p);
		}
	}
	if (write_spec_calls(f, dp, o))
		fprintf(stderr, "%s: warning: a call sequence is left out of "
			"%s\n", pap_prog, file);
	return pap_target_commit(f, tmp, file, pap_prog);
}
