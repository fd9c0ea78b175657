/* SPDX-License-Identifier: MIT */
/*
 * diff.c - pap-decode diff: the paths that appear, disappear, and whose
 * share of their function changes most between two profiles, and the
 * paths of interest of selectively built functions whose counts change.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

/* Bytes of a path's key kept for comparing; longer keys are cut there
 * and made whole again only to tell two apart that agree that far. */
#define DIFF_KEY_KEPT 96

struct dentry {
	char *key;		/* "FUNCTION B1 B2 ...", at most DIFF_KEY_KEPT */
	int cut;		/* the whole key is longer */
	struct dfunc *f;
	size_t path;
	double share;
};

/* diff_key() of a long path: its blocks as its form prints them. */
static char *long_key(struct dfunc *df, struct dpath *p, size_t max,
		      int *cut)
{
	char *key = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&key, &len);

	if (!m)
		return NULL;
	fprintf(m, "%s%s", df->fn->name, p->complete ? "" : "!");
	put_form_numbers(m, df, p);
	if (fclose(m))
		return NULL;
	*cut = max && len > max;
	if (*cut)
		key[max] = 0;
	return key;
}

/* The key of path @p of @df, cut after @max bytes (0: whole), or NULL;
 * *cut says whether it was. */
static char *diff_key(struct dfunc *df, struct dpath *p, size_t max, int *cut)
{
	size_t len, at, k;
	char *key;

	if (path_long(p))
		return long_key(df, p, max, cut);
	if (path_open(df, p))
		return NULL;
	len = strlen(df->fn->name) + 12 * p->n + 4;
	key = malloc(len);
	if (key) {
		at = (size_t)snprintf(key, len, "%s%s", df->fn->name,
				      p->complete ? "" : "!");
		for (k = 0; k < p->n && (!max || at <= max); k++)
			at += (size_t)snprintf(key + at, len - at, " %u",
				block_number(df->fn, p->blocks[k]));
		*cut = max && (at > max || k < p->n);
		if (*cut)
			key[max] = 0;
	}
	path_close(p);
	return key;
}

/* strcmp() of the whole keys of @x and @y. */
static int key_cmp(const struct dentry *x, const struct dentry *y)
{
	char *a, *b;
	int c = strcmp(x->key, y->key), cut;

	if (c || (!x->cut && !y->cut))
		return c;
	if (x->cut != y->cut)		/* one is a prefix of the other */
		return x->cut ? 1 : -1;
	a = diff_key(x->f, &x->f->paths[x->path], 0, &cut);
	b = diff_key(y->f, &y->f->paths[y->path], 0, &cut);
	c = a && b ? strcmp(a, b) : 0;
	free(a);
	free(b);
	return c;
}

static int dentry_cmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/* Every path of @dp keyed by function name and GCC block numbers. */
static struct dentry *diff_entries(struct dprofile *dp, size_t *n)
{
	struct dentry *v;
	size_t f, i, m = 0, total = 0;

	for (f = 0; f < dp->nfs; f++)
		total += dp->fs[f].npaths;
	v = calloc(total + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (f = 0; f < dp->nfs; f++) {
		struct dfunc *df = &dp->fs[f];

		for (i = 0; i < df->npaths; i++) {
			struct dpath *p = &df->paths[i];

			v[m].key = diff_key(df, p, DIFF_KEY_KEPT, &v[m].cut);
			if (!v[m].key)
				continue;
			v[m].f = df;
			v[m].path = i;
			v[m].share = df->total ? (double)p->count / df->total :
						 0.0;
			m++;
		}
	}
	qsort(v, m, sizeof(*v), dentry_cmp);
	*n = m;
	return v;
}

struct change {
	const struct dentry *a, *b;	/* either may be NULL */
	double delta;
};

static int change_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	double da = a->delta < 0 ? -a->delta : a->delta;
	double db = b->delta < 0 ? -b->delta : b->delta;

	if (da != db)
		return da > db ? -1 : 1;
	return key_cmp(a->a ? a->a : a->b, b->a ? b->a : b->b);
}

static void diff_line(const struct dentry *e, const char *what, double a,
		      double b)
{
	struct dpath *p = &e->f->paths[e->path];

	if (path_open(e->f, p))
		return;
	printf("  %-11s %6.1f%% -> %5.1f%%  %s %llu x %zu blocks:", what,
	       100 * a, 100 * b, e->f->fn->name, (unsigned long long)p->count,
	       p->n);
	put_block_numbers(stdout, e->f, p, 24);
	putchar('\n');
	path_close(p);
}

/* A path of interest in a diff: its function, spec line and count. */
struct sel_change {
	const char *fn, *where;
	uint64_t a, b;
};

static int sel_change_cmp(const void *x, const void *y)
{
	const struct sel_change *p = x, *q = y;
	uint64_t dp = p->a > p->b ? p->a - p->b : p->b - p->a;
	uint64_t dq = q->a > q->b ? q->a - q->b : q->b - q->a;
	int c;

	if (dp != dq)
		return dp > dq ? -1 : 1;
	c = strcmp(p->fn, q->fn);
	return c ? c : strcmp(p->where, q->where);
}

/* Adds the paths of interest of @rep to @ch (of *@n): their counts as
 * @side ('a' old, 'b' new), matched by function and spec line. */
static void sel_changes_add(const struct sel_report *rep, int side,
			    struct sel_change *ch, size_t *n)
{
	size_t i, j;
	uint32_t k;

	for (i = 0; i < rep->nfs; i++) {
		const struct sel_func *f = &rep->fs[i];

		for (k = 0; k < f->fn->nsel; k++) {
			const char *w = f->fn->sel_where[k];

			for (j = 0; j < *n; j++)
				if (!strcmp(ch[j].fn, f->fn->name) &&
				    !strcmp(ch[j].where, w))
					break;
			if (j == *n) {
				ch[j].fn = f->fn->name;
				ch[j].where = w;
				ch[j].a = ch[j].b = 0;
				(*n)++;
			}
			if (side == 'a')
				ch[j].a = sel_path_count(f, k);
			else
				ch[j].b = sel_path_count(f, k);
		}
	}
}

/*
 * The diff of the selectively built functions of @pa and @pb, if any:
 * the paths of interest (by function and spec FILE:LINE) whose counts
 * differ most, at most @o's top.  0, or -1 after an error (said).
 */
static int sel_diff(struct decoder *d, const struct ropts *o,
		    const struct pap_profile *pa, const struct pap_profile *pb)
{
	struct sel_report ra, rb;
	struct sel_change *ch = NULL;
	size_t n = 0, all = 0, i, shown, limit = o->top ? o->top : SIZE_MAX;
	int rc = 0;

	if (sel_report_build(d, pa, o, &ra) | sel_report_build(d, pb, o, &rb))
		rc = -1;
	for (i = 0; i < ra.nfs; i++)
		all += ra.fs[i].fn->nsel;
	for (i = 0; i < rb.nfs; i++)
		all += rb.fs[i].fn->nsel;
	if (all) {
		ch = calloc(all, sizeof(*ch));
		if (!ch) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			rc = -1;
			goto out;
		}
		sel_changes_add(&ra, 'a', ch, &n);
		sel_changes_add(&rb, 'b', ch, &n);
		qsort(ch, n, sizeof(*ch), sel_change_cmp);
		printf("paths of interest whose count changes most:\n");
		for (i = shown = 0; i < n && shown < limit; i++) {
			if (ch[i].a == ch[i].b)
				continue;
			printf("  %s %s: %llu -> %llu\n", ch[i].fn, ch[i].where,
			       (unsigned long long)ch[i].a,
			       (unsigned long long)ch[i].b);
			shown++;
		}
	}
out:
	free(ch);
	sel_report_free(&ra);
	sel_report_free(&rb);
	return rc;
}

int cmd_diff(struct decoder *d, const struct ropts *o, const char *old,
	     const char *new)
{
	struct pap_profile pa, pb;
	struct dprofile da, db;
	struct dentry *ea = NULL, *eb = NULL;
	struct change *ch = NULL;
	size_t na = 0, nb = 0, i = 0, j = 0, nch = 0, shown, limit;
	char dira[4096], dirb[4096];
	int rc = 1;

	if (decode_file(d, o, old, dira, sizeof(dira), &pa, &da) ||
	    decode_file(d, o, new, dirb, sizeof(dirb), &pb, &db))
		goto out;
	ea = diff_entries(&da, &na);
	eb = diff_entries(&db, &nb);
	ch = calloc(na + nb + 1, sizeof(*ch));
	if (!ea || !eb || !ch)
		goto out;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 :
			key_cmp(&ea[i], &eb[j]);
		struct change *x = &ch[nch++];

		x->a = c <= 0 ? &ea[i++] : NULL;
		x->b = c >= 0 ? &eb[j++] : NULL;
		x->delta = (x->b ? x->b->share : 0) - (x->a ? x->a->share : 0);
	}
	qsort(ch, nch, sizeof(*ch), change_cmp);
	limit = o->top ? o->top : SIZE_MAX;
	printf("paths that appear in %s:\n", new);
	for (i = shown = 0; i < nch && shown < limit; i++)
		if (!ch[i].a && ch[i].b->f->paths[ch[i].b->path].count >=
				       o->min_count &&
		    ch[i].b->share >= o->min_share) {
			diff_line(ch[i].b, "appears", 0, ch[i].b->share);
			shown++;
		}
	printf("paths that disappear from %s:\n", old);
	for (i = shown = 0; i < nch && shown < limit; i++)
		if (!ch[i].b && ch[i].a->f->paths[ch[i].a->path].count >=
				       o->min_count &&
		    ch[i].a->share >= o->min_share) {
			diff_line(ch[i].a, "disappears", ch[i].a->share, 0);
			shown++;
		}
	printf("paths whose share of their function changes most:\n");
	for (i = shown = 0; i < nch && shown < limit; i++)
		if (ch[i].a && ch[i].b && ch[i].delta != 0 &&
		    (ch[i].a->share >= o->min_share ||
		     ch[i].b->share >= o->min_share)) {
			diff_line(ch[i].b, ch[i].delta > 0 ? "grows" :
				  "shrinks", ch[i].a->share, ch[i].b->share);
			shown++;
		}
	rc = sel_diff(d, o, &pa, &pb) || d->errors ? 1 : 0;
out:
	for (i = 0; ea && i < na; i++)
		free(ea[i].key);
	for (i = 0; eb && i < nb; i++)
		free(eb[i].key);
	free(ea);
	free(eb);
	free(ch);
	dprofile_free(&da);
	dprofile_free(&db);
	pap_profile_free(&pa);
	pap_profile_free(&pb);
	return rc;
}
