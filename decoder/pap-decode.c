/* SPDX-License-Identifier: MIT */
/*
 * pap-decode - turn a pap profile and its metadata back into exact paths.
 *
 * Each record of the profile names its function as ASMNAME:CHECKSUM and,
 * usually, the metadata file that describes it.  The function's plan is
 * rebuilt from the metadata with the same core library the plugin used, and
 * every recorded path is decoded into its blocks and source lines.  A
 * record whose checksum no metadata has is refused, naming the function.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "decode.h"
#include "meta.h"
#include "profile.h"
#include "textfile.h"

#define MAX_FILE ((size_t)1 << 32)

static const char *prog = "pap-decode";

struct decoder {
	struct pap_meta meta;
	char **loaded;		/* metadata files read */
	size_t nloaded;
	const char **dirs;	/* where else to look */
	size_t ndirs;
	int scanned;
	int errors;
	char **failed;		/* function keys already reported */
	size_t nfailed;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... PROFILE\n"
"Decode a pap profile into the exact paths each function took, with their\n"
"counts and source lines.\n"
"\n"
"      --format=FMT   text (default); json; paths (one line per distinct\n"
"                     path: FUNCTION COUNT COMPLETE BLOCK...); or blocks\n"
"                     (each block's executions: FUNCTION BLOCK COUNT)\n"
"      --meta=DIR     also look for metadata (.papm files) in DIR; may be\n"
"                     repeated.  By default pap-decode reads the metadata\n"
"                     file each record names, then looks in PROFILE's\n"
"                     directory and the current directory.\n"
"  -h, --help         show this help and exit\n"
"  -V, --version      show the version and exit\n"
"\n"
"Exit status: 0 if every record was decoded, 1 otherwise.\n", prog);
}

/* Reads metadata file @path once; errors are reported and counted. */
static void load_meta(struct decoder *d, const char *path)
{
	char err[512], *text, **n;
	size_t i;

	for (i = 0; i < d->nloaded; i++)
		if (!strcmp(d->loaded[i], path))
			return;
	n = realloc(d->loaded, (d->nloaded + 1) * sizeof(*n));
	if (!n)
		return;
	d->loaded = n;
	d->loaded[d->nloaded++] = strdup(path);
	text = pap_read_text_file(path, MAX_FILE, err, sizeof(err));
	if (!text) {
		if (errno != ENOENT) {
			fprintf(stderr, "%s\n", err);
			d->errors++;
		}
		return;
	}
	if (pap_meta_parse(&d->meta, text, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		d->errors++;
	}
	free(text);
}

/* Reads every .papm file in the search directories, once. */
static void scan_dirs(struct decoder *d)
{
	size_t i;

	if (d->scanned)
		return;
	d->scanned = 1;
	for (i = 0; i < d->ndirs; i++) {
		DIR *dir = opendir(d->dirs[i]);
		struct dirent *de;

		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);
			char path[4096];

			if (len < 6 || strcmp(de->d_name + len - 5, ".papm"))
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", d->dirs[i],
				     de->d_name) < (int)sizeof(path))
				load_meta(d, path);
		}
		closedir(dir);
	}
}

/* Splits "ASM:SUM[:META]" in place. */
static int split_key(char *key, char **name, uint64_t *sum, char **meta)
{
	char *c1 = strchr(key, ':'), *c2, *end;

	if (!c1)
		return -1;
	*c1 = 0;
	*name = key;
	c2 = strchr(c1 + 1, ':');
	if (c2)
		*c2 = 0;
	*sum = strtoull(c1 + 1, &end, 16);
	if (*end)
		return -1;
	*meta = c2 ? c2 + 1 : NULL;
	return 0;
}

/* Remembers that @key could not be resolved, so it is reported once. */
static void remember_failed(struct decoder *d, const char *key)
{
	char **n = realloc(d->failed, (d->nfailed + 1) * sizeof(*n));

	if (!n)
		return;
	d->failed = n;
	d->failed[d->nfailed] = strdup(key);
	if (d->failed[d->nfailed])
		d->nfailed++;
}

/* The metadata of @key's function, or NULL after an error message (one
 * per function, however many records it has). */
static struct pap_meta_fn *resolve(struct decoder *d, const char *key)
{
	char buf[4608], *name, *meta;
	uint64_t sum;
	struct pap_meta_fn *fn;
	size_t i;

	if (strlen(key) >= sizeof(buf))
		return NULL;
	for (i = 0; i < d->nfailed; i++)
		if (!strcmp(d->failed[i], key))
			return NULL;
	strcpy(buf, key);
	if (split_key(buf, &name, &sum, &meta)) {
		fprintf(stderr, "%s: error: bad function key '%s'\n", prog,
			key);
		return NULL;
	}
	if (meta)
		load_meta(d, meta);
	fn = pap_meta_find(&d->meta, name, sum, meta);
	if (!fn) {
		scan_dirs(d);
		fn = pap_meta_find(&d->meta, name, sum, meta);
	}
	if (fn)
		return fn;
	remember_failed(d, key);
	for (i = 0; i < d->meta.nfns; i++)
		if (!strcmp(d->meta.fns[i]->name, name))
			break;
	if (i < d->meta.nfns)
		fprintf(stderr, "%s: error: function %s: the profile's checksum "
			"%016llx does not match the metadata's %016llx (%s was "
			"recompiled since the run?)\n", prog, name,
			(unsigned long long)sum,
			(unsigned long long)d->meta.fns[i]->checksum,
			d->meta.fns[i]->file);
	else
		fprintf(stderr, "%s: error: function %s: no metadata found "
			"(use --meta DIR)\n", prog, name);
	return NULL;
}

/* A decoded path as block ids (GCC's numbers) in execution order. */
struct dpath {
	uint32_t *blocks;
	size_t n;
	uint64_t count;
	int complete;
	int resumed;	/* it starts where a longjmp came back (setjmp) */
};

struct dfunc {
	struct pap_meta_fn *fn;
	struct dpath *paths;
	size_t npaths, cap;
	uint64_t total;
};

static uint32_t block_number(const struct pap_meta_fn *fn, uint32_t b)
{
	return (uint32_t)strtoul(fn->graph.names[b] + 1, NULL, 10);
}

/* Record @r of @fn decoded into @out's blocks; 0 or an error code. */
static int decode_rec(struct pap_meta_fn *fn, const struct pap_prof_rec *r,
		      struct dpath *out)
{
	const struct pap_plan *plan = pap_meta_plan(fn);
	const struct pap_cfg *cfg;
	struct pap_path p;
	size_t i;
	int err;

	if (!plan)
		return PAP_EINVAL;
	cfg = plan->cfg;
	pap_path_init(&p);
	if (r->kind == PAP_REC_BL)
		err = plan->mode == PAP_MODE_EPP ?
			pap_decode_bl(plan, r->value, &p) : PAP_ECORRUPT;
	else
		err = plan->mode == PAP_MODE_EPP ? PAP_ECORRUPT :
			pap_decode_path(plan, r->bps, r->nbps, r->value, &p);
	if (err) {
		pap_path_free(&p);
		return err;
	}
	out->blocks = malloc((p.len + 1) * sizeof(uint32_t));
	out->n = 0;
	if (!out->blocks) {
		pap_path_free(&p);
		return PAP_ENOMEM;
	}
	/* an acyclic path between two folds may hold one block, no edge */
	if (!p.len && r->kind == PAP_REC_BL && p.start_fold != PAP_NONE &&
	    cfg->edges[p.start_fold].dst < cfg->nblocks)
		out->blocks[out->n++] = block_number(fn,
			cfg->edges[p.start_fold].dst);
	for (i = 0; i < p.len; i++) {
		uint32_t dst = cfg->edges[p.edges[i]].dst;

		if (i == 0 && cfg->edges[p.edges[0]].src != cfg->entry)
			out->blocks[out->n++] = block_number(fn,
				cfg->edges[p.edges[0]].src);
		if (dst < cfg->nblocks)
			out->blocks[out->n++] = block_number(fn, dst);
	}
	out->count = r->count;
	out->complete = r->complete;
	out->resumed = p.len && pap_cfg_is_resume(cfg, p.edges[0]);
	pap_path_free(&p);
	return PAP_OK;
}

static const uint32_t *block_lines(const struct pap_meta_fn *fn, uint32_t id)
{
	char name[16];
	uint32_t b;

	snprintf(name, sizeof(name), "b%u", id);
	b = pap_cfgtext_block(&fn->graph, name);
	return b == PAP_NONE ? NULL : fn->lines[b];
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json(struct dfunc *fs, size_t nfs)
{
	size_t f, i, k;
	uint32_t l;

	printf("{\"functions\": [");
	for (f = 0; f < nfs; f++) {
		printf("%s\n  {\"name\": ", f ? "," : "");
		json_string(fs[f].fn->name);
		printf(", \"file\": ");
		json_string(fs[f].fn->file);
		printf(", \"activations\": %llu, \"paths\": [",
		       (unsigned long long)fs[f].total);
		for (i = 0; i < fs[f].npaths; i++) {
			const struct dpath *p = &fs[f].paths[i];

			printf("%s\n    {\"count\": %llu, \"complete\": %s, "
			       "\"resumed\": %s, \"blocks\": [", i ? "," : "",
			       (unsigned long long)p->count,
			       p->complete ? "true" : "false",
			       p->resumed ? "true" : "false");
			for (k = 0; k < p->n; k++) {
				const uint32_t *lines =
					block_lines(fs[f].fn, p->blocks[k]);

				printf("%s{\"id\": %u, \"lines\": [", k ? ", " : "",
				       p->blocks[k]);
				for (l = 0; lines && l < lines[0]; l++)
					printf("%s%u", l ? ", " : "",
					       lines[l + 1]);
				printf("]}");
			}
			printf("]}");
		}
		printf("]}");
	}
	printf("\n]}\n");
}

/* One line per distinct path, for scripts: FUNCTION COUNT COMPLETE BLOCK... */
static void print_paths(struct dfunc *fs, size_t nfs)
{
	size_t f, i, k;

	for (f = 0; f < nfs; f++) {
		for (i = 0; i < fs[f].npaths; i++) {
			const struct dpath *p = &fs[f].paths[i];

			printf("%s %llu %d", fs[f].fn->name,
			       (unsigned long long)p->count, p->complete);
			for (k = 0; k < p->n; k++)
				printf(" %u", p->blocks[k]);
			printf("\n");
		}
	}
}

/* Each block's executions, summed over the paths through it. */
static void print_block_counts(struct dfunc *fs, size_t nfs)
{
	size_t f, i, k;
	uint32_t b;

	for (f = 0; f < nfs; f++) {
		const struct pap_meta_fn *fn = fs[f].fn;
		uint64_t *count = calloc(fn->graph.nblocks, sizeof(uint64_t));

		if (!count)
			continue;
		for (i = 0; i < fs[f].npaths; i++)
			for (k = 0; k < fs[f].paths[i].n; k++) {
				char name[16];

				snprintf(name, sizeof(name), "b%u",
					 fs[f].paths[i].blocks[k]);
				b = pap_cfgtext_block(&fn->graph, name);
				if (b != PAP_NONE)
					count[b] += fs[f].paths[i].count;
			}
		for (b = 0; b < fn->graph.nblocks; b++)
			if (count[b])
				printf("%s %u %llu\n", fn->name,
				       block_number(fn, b),
				       (unsigned long long)count[b]);
		free(count);
	}
}

/* Longest run at @i of a block sequence repeated at least twice:
 * returns the period (0 if none) and its repetitions in *reps. */
static size_t find_repeat(const uint32_t *b, size_t n, size_t i, size_t *reps)
{
	size_t best = 0, best_cover = 0, p;

	*reps = 0;
	for (p = 1; p <= 64 && i + 2 * p <= n; p++) {
		size_t r = 1;

		while (i + (r + 1) * p <= n &&
		       !memcmp(b + i, b + i + r * p, p * sizeof(*b)))
			r++;
		if (r >= 2 && r * p > best_cover) {
			best = p;
			best_cover = r * p;
			*reps = r;
		}
	}
	return best;
}

static void print_blocks(const struct pap_meta_fn *fn, const uint32_t *b,
			 size_t n)
{
	size_t i = 0, k, reps;

	while (i < n) {
		size_t p = find_repeat(b, n, i, &reps);

		if (p) {
			printf(" (");
			print_blocks(fn, b + i, p);
			printf(" )^%zu", reps);
			i += p * reps;
			continue;
		}
		{
			const uint32_t *lines = block_lines(fn, b[i]);

			printf(" %u", b[i]);
			if (lines && lines[0]) {
				printf("[");
				for (k = 0; k < lines[0]; k++)
					printf("%s%u", k ? "," : "",
					       lines[k + 1]);
				printf("]");
			}
		}
		i++;
	}
}

static void print_text(struct dfunc *fs, size_t nfs)
{
	size_t f, i;

	for (f = 0; f < nfs; f++) {
		printf("%s%s (%s): %llu activations, %zu distinct paths\n",
		       f ? "\n" : "", fs[f].fn->name, fs[f].fn->file,
		       (unsigned long long)fs[f].total, fs[f].npaths);
		for (i = 0; i < fs[f].npaths; i++) {
			const struct dpath *p = &fs[f].paths[i];

			printf("  %8llu %5.1f%% %6zu blocks%s%s:",
			       (unsigned long long)p->count,
			       fs[f].total ? 100.0 * p->count / fs[f].total : 0,
			       p->n, p->resumed ? " (resumed by longjmp)" : "",
			       p->complete ? "" : " (cut short)");
			print_blocks(fs[f].fn, p->blocks, p->n);
			printf("\n");
		}
	}
	printf("%sblocks are shown as ID[source lines]; (...)^N repeats N "
	       "times\n", nfs ? "\n" : "");
}

static int by_count(const void *a, const void *b)
{
	const struct dpath *x = a, *y = b;
	size_t i;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	for (i = 0; i < x->n && i < y->n; i++)
		if (x->blocks[i] != y->blocks[i])
			return x->blocks[i] < y->blocks[i] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static int by_name(const void *a, const void *b)
{
	const struct dfunc *x = a, *y = b;

	return strcmp(x->fn->name, y->fn->name);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "meta", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct decoder d;
	struct pap_profile prof;
	struct dfunc *fs = NULL;
	size_t nfs = 0, i, j;
	char err[512], *text, *slash, profdir[4096];
	int c, json = 0;

	memset(&d, 0, sizeof(d));
	pap_meta_init(&d.meta);
	d.dirs = calloc((size_t)argc + 2, sizeof(char *));
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json")) {
				json = 1;
			} else if (!strcmp(optarg, "paths")) {
				json = 2;
			} else if (!strcmp(optarg, "blocks")) {
				json = 3;
			} else if (strcmp(optarg, "text")) {
				fprintf(stderr, "%s: error: unknown format '%s' "
					"(use text, json, paths or blocks)\n", prog,
					optarg);
				return 1;
			}
			break;
		case 'M':
			d.dirs[d.ndirs++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pap-decode (pap) %s\n", PAP_VERSION_STRING);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s: error: expected one PROFILE\n", prog);
		usage(stderr);
		return 1;
	}
	snprintf(profdir, sizeof(profdir), "%s", argv[optind]);
	slash = strrchr(profdir, '/');
	if (slash) {
		*slash = 0;
		d.dirs[d.ndirs++] = profdir;
	}
	d.dirs[d.ndirs++] = ".";
	text = pap_read_text_file(argv[optind], MAX_FILE, err, sizeof(err));
	pap_profile_init(&prof);
	if (!text || pap_profile_parse(&prof, text, argv[optind], err,
				       sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		free(text);
		return 1;
	}
	free(text);
	fs = calloc(prof.nrecs + 1, sizeof(*fs));
	for (i = 0; fs && i < prof.nrecs; i++) {
		const struct pap_prof_rec *r = &prof.recs[i];
		struct pap_meta_fn *fn = resolve(&d, r->fn);
		struct dfunc *df = NULL;
		struct dpath p;
		int e;

		if (!fn) {
			d.errors++;
			continue;
		}
		for (j = 0; j < nfs; j++)
			if (fs[j].fn == fn)
				df = &fs[j];
		if (!df) {
			df = &fs[nfs++];
			df->fn = fn;
		}
		e = decode_rec(fn, r, &p);
		if (e) {
			fprintf(stderr, "%s: error: %s: function %s: a record "
				"cannot be decoded: %s\n", prog, argv[optind],
				fn->name, pap_strerror(e));
			d.errors++;
			continue;
		}
		if (df->npaths == df->cap) {
			df->cap = df->cap ? df->cap * 2 : 16;
			df->paths = realloc(df->paths,
					    df->cap * sizeof(*df->paths));
			if (!df->paths) {
				fprintf(stderr, "%s: error: out of memory\n",
					prog);
				return 1;
			}
		}
		df->paths[df->npaths++] = p;
		df->total += p.count;
	}
	qsort(fs, nfs, sizeof(*fs), by_name);
	for (i = 0; i < nfs; i++)
		qsort(fs[i].paths, fs[i].npaths, sizeof(*fs[i].paths),
		      by_count);
	if (json == 1)
		print_json(fs, nfs);
	else if (json == 2)
		print_paths(fs, nfs);
	else if (json == 3)
		print_block_counts(fs, nfs);
	else
		print_text(fs, nfs);
	for (i = 0; i < nfs; i++) {
		for (j = 0; j < fs[i].npaths; j++)
			free(fs[i].paths[j].blocks);
		free(fs[i].paths);
	}
	free(fs);
	for (i = 0; i < d.nloaded; i++)
		free(d.loaded[i]);
	free(d.loaded);
	for (i = 0; i < d.nfailed; i++)
		free(d.failed[i]);
	free(d.failed);
	free(d.dirs);
	pap_meta_free(&d.meta);
	pap_profile_free(&prof);
	return d.errors ? 1 : 0;
}
