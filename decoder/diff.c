/* SPDX-License-Identifier: MIT */
/*
 * diff.c - pap-decode diff: the paths that appear, disappear, and whose
 * share of their function changes most between two profiles, and the
 * paths of interest of selectively built functions whose counts change.
 *
 * The work follows the stored form.  A function of one build (one
 * metadata entry) in both profiles has its paths matched by their
 * records: packing is canonical (bpack.h), so equal records of one
 * function are one path and different records different paths.  Changes
 * are ranked by their shares, which counts alone give, and only the
 * paths a section may show are decoded: its first --top and those tied
 * with the last of them, ties being ordered by the paths' keys.  A name
 * that stands for different builds in the two profiles (another
 * checksum, or two functions of one name) has its paths decoded and
 * matched by their keys, its blocks' numbers.  Memory holds the two
 * profiles, per section the changes it may show (pruned to its --top and
 * their ties as it fills), and one function's matching at a time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "util.h"

/* Bytes of a path's key kept for comparing; longer keys are cut there
 * and made whole again only to tell two apart that agree that far. */
#define DIFF_KEY_KEPT 96

/* A path and its key: "FUNCTION[!] B1 B2 ...", at most DIFF_KEY_KEPT
 * bytes of it, NULL until made. */
struct dentry {
	char *key;
	int cut;		/* the whole key is longer */
	struct dfunc *f;
	struct dpath *p;
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
	/* a key cut after @max bytes needs room for one number past them */
	len = strlen(df->fn->name) + 12 * p->n + 4;
	if (max && len > max + 16)
		len = max + 16;
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

/* strcmp() of the whole keys of @x and @y (both made). */
static int key_cmp(const struct dentry *x, const struct dentry *y)
{
	char *a, *b;
	int c = strcmp(x->key, y->key), cut;

	if (c || (!x->cut && !y->cut))
		return c;
	if (x->cut != y->cut)		/* one is a prefix of the other */
		return x->cut ? 1 : -1;
	a = diff_key(x->f, x->p, 0, &cut);
	b = diff_key(y->f, y->p, 0, &cut);
	c = a && b ? strcmp(a, b) : 0;
	free(a);
	free(b);
	return c;
}

static int dentry_cmp(const void *a, const void *b)
{
	return key_cmp(a, b);
}

/* The sections of a diff. */
enum { APPEARS, DISAPPEARS, CHANGES, NSECTIONS };

/*
 * A change a section may show: the path (the new profile's, but for one
 * that disappears) as its function and record, decoded and keyed only
 * when it may be shown; its shares of its function before and after.
 */
struct change {
	struct dentry e;	/* e.p NULL until decoded */
	const struct pap_prof_rec *rec;
	const char *file;	/* the profile it is of */
	double a, b, mag;	/* shares old and new; |b - a| */
	int owned;		/* e.p was decoded here */
	int failed;		/* it cannot be decoded: left out */
};

struct section {
	struct change *v;
	size_t n, cap;
	size_t prune_at;	/* n at which prune() is next called */
};

struct diffrun {
	struct decoder *d;
	const struct ropts *o;
	struct section sec[NSECTIONS];
	int oom;
};

/* One side of a path in both profiles: what a change is made of. */
struct side {
	struct dfunc *f;
	const struct pap_prof_rec *rec;
	struct dpath *p;	/* when decoded already, with its key */
	char *key;
	int cut;
	uint64_t count;
	double share;
	const char *file;
};

static void change_free(struct change *c);

/* Greatest change first, nothing else. */
static int mag_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;

	if (a->mag != b->mag)
		return a->mag > b->mag ? -1 : 1;
	return 0;
}

/* The most changes a section keeps past its --top before it is pruned. */
#define DIFF_PRUNE_MIN 1024

/*
 * Lets go of the changes of @t that cannot be shown with @limit: those
 * smaller than its @limit-th greatest, keeping all that equal it.  So a
 * section holds its --top and their ties, and memory does not grow with
 * the paths of the profiles.
 */
static void prune(struct section *t, size_t limit)
{
	size_t end, i;

	if (t->n < t->prune_at)
		return;
	if (limit < t->n) {
		qsort(t->v, t->n, sizeof(*t->v), mag_cmp);
		for (end = limit; end < t->n &&
		     t->v[end].mag == t->v[limit - 1].mag; end++)
			;
		for (i = end; i < t->n; i++)
			change_free(&t->v[i]);
		t->n = end;
	}
	t->prune_at = t->n > DIFF_PRUNE_MIN / 2 ? 2 * t->n : DIFF_PRUNE_MIN;
}

/* @s's path as the change @a -> @b in section @sec; takes @s's key. */
static void add_change(struct diffrun *r, int sec, struct side *s, double a,
		       double b)
{
	struct section *t = &r->sec[sec];
	struct change *c;
	double delta = b - a;

	if (t->n == t->cap && pap_grow(&t->v, &t->cap, sizeof(*t->v), 64)) {
		free(s->key);
		r->oom = 1;
		return;
	}
	c = &t->v[t->n++];
	memset(c, 0, sizeof(*c));
	c->e.key = s->key;
	c->e.cut = s->cut;
	c->e.f = s->f;
	c->e.p = s->p;
	c->rec = s->rec;
	c->file = s->file;
	c->a = a;
	c->b = b;
	c->mag = delta < 0 ? -delta : delta;
	if (r->o->top)
		prune(t, r->o->top);
}

/*
 * The change of a path that is in the old profile as @a and in the new
 * one as @b (either NULL) kept if --min-count and --min-share let its
 * section show it: a path that appears or disappears by its count and
 * share, one that changes by either share.  The keys are taken.
 */
static void consider(struct diffrun *r, struct side *a, struct side *b)
{
	const struct ropts *o = r->o;

	if (!a) {
		if (b->count >= o->min_count && b->share >= o->min_share)
			add_change(r, APPEARS, b, 0, b->share);
		else
			free(b->key);
		return;
	}
	if (!b) {
		if (a->count >= o->min_count && a->share >= o->min_share)
			add_change(r, DISAPPEARS, a, a->share, 0);
		else
			free(a->key);
		return;
	}
	free(a->key);
	if (b->share - a->share != 0 &&
	    (a->share >= o->min_share || b->share >= o->min_share))
		add_change(r, CHANGES, b, a->share, b->share);
	else
		free(b->key);
}

/* @rec of @f (of profile @file) as a side, not decoded. */
static void rec_side(struct side *s, struct dfunc *f,
		     const struct pap_prof_rec *rec, const char *file)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->rec = rec;
	s->count = rec->count;
	s->share = f->total ? (double)rec->count / f->total : 0.0;
	s->file = file;
}

/* A hash of @r's content, whatever the string naming its function. */
static uint64_t rec_hash(const struct pap_prof_rec *r)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	h = (h ^ r->kind ^ ((uint64_t)r->complete << 8) ^
	     ((uint64_t)r->nbps << 16)) * 0x100000001b3ull;
	h = (h ^ r->value) * 0x9e3779b97f4a7c15ull;
	for (i = 0; i < r->nbps; i++) {
		h = (h ^ r->bps[i].site) * 0x100000001b3ull;
		h = (h ^ r->bps[i].r) * 0x9e3779b97f4a7c15ull;
	}
	return h ^ (h >> 29);
}

/* Do @x and @y, records of one function, stand for one path? */
static int rec_same(const struct pap_prof_rec *x,
		    const struct pap_prof_rec *y)
{
	uint32_t i;

	if (x->kind != y->kind || x->complete != y->complete ||
	    x->value != y->value || x->nbps != y->nbps)
		return 0;
	for (i = 0; i < x->nbps; i++)
		if (x->bps[i].site != y->bps[i].site ||
		    x->bps[i].r != y->bps[i].r)
			return 0;
	return 1;
}

/*
 * The changes of a function of one build in the old profile @da as @fa
 * and in the new one @db as @fb (either may be NULL), its paths matched
 * by their records: nothing decoded, time and memory in proportion to
 * its records.  0; 1 with nothing done when two records of one side are
 * one path (to be matched by keys); -1 when memory ran out.
 */
static int match_records(struct diffrun *r, struct dprofile *da,
			 struct dfunc *fa, struct dprofile *db,
			 struct dfunc *fb)
{
	size_t nslots = 16, i, h, *slot = NULL, *match = NULL;
	unsigned char *used = NULL;
	struct side a, b;
	int rc = -1;

	if (fa && fb) {
		while (nslots < 2 * fb->nrecs)
			nslots *= 2;
		slot = calloc(nslots, sizeof(*slot));
		match = calloc(fa->nrecs + 1, sizeof(*match));
		used = calloc(fb->nrecs + 1, 1);
		if (!slot || !match || !used)
			goto out;
		rc = 1;
		for (i = 0; i < fb->nrecs; i++) {
			const struct pap_prof_rec *x =
				&db->prof->recs[fb->recs[i]];

			for (h = rec_hash(x) & (nslots - 1); slot[h];
			     h = (h + 1) & (nslots - 1))
				if (rec_same(&db->prof->recs[fb->recs[slot[h] -
								      1]], x))
					goto out;
			slot[h] = i + 1;
		}
		for (i = 0; i < fa->nrecs; i++) {
			const struct pap_prof_rec *x =
				&da->prof->recs[fa->recs[i]];

			for (h = rec_hash(x) & (nslots - 1); slot[h];
			     h = (h + 1) & (nslots - 1)) {
				size_t k = slot[h] - 1;

				if (!rec_same(&db->prof->recs[fb->recs[k]], x))
					continue;
				if (used[k])
					goto out;
				used[k] = 1;
				match[i] = k + 1;
				break;
			}
		}
	}
	for (i = 0; fa && i < fa->nrecs; i++) {
		rec_side(&a, fa, &da->prof->recs[fa->recs[i]], da->file);
		if (match && match[i]) {
			rec_side(&b, fb, &db->prof->recs[fb->recs[match[i] -
								   1]],
				 db->file);
			consider(r, &a, &b);
		} else {
			consider(r, &a, NULL);
		}
	}
	for (i = 0; fb && i < fb->nrecs; i++) {
		if (used && used[i])
			continue;
		rec_side(&b, fb, &db->prof->recs[fb->recs[i]], db->file);
		consider(r, NULL, &b);
	}
	rc = 0;
out:
	free(slot);
	free(match);
	free(used);
	return rc;
}

/* Every path of @fs (@nfs functions of @dp, decoded here) keyed by
 * function name and GCC block numbers, sorted by key. */
static struct dentry *key_entries(struct dprofile *dp, struct dfunc *fs,
				  size_t nfs, size_t *n)
{
	struct dentry *v;
	size_t f, i, m = 0, total = 0;

	for (f = 0; f < nfs; f++) {
		func_decode(dp, &fs[f]);
		total += fs[f].npaths;
	}
	v = calloc(total + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (f = 0; f < nfs; f++) {
		struct dfunc *df = &fs[f];

		for (i = 0; i < df->npaths; i++) {
			struct dpath *p = &df->paths[i];

			v[m].key = diff_key(df, p, DIFF_KEY_KEPT, &v[m].cut);
			if (!v[m].key)
				continue;
			v[m].f = df;
			v[m].p = p;
			v[m].share = df->total ? (double)p->count / df->total :
						 0.0;
			m++;
		}
		func_release(df);
	}
	qsort(v, m, sizeof(*v), dentry_cmp);
	*n = m;
	return v;
}

/* @e as a side of profile @file, its key taken. */
static void entry_side(struct side *s, struct dentry *e, const char *file)
{
	memset(s, 0, sizeof(*s));
	s->f = e->f;
	s->rec = e->p->rec;
	s->p = e->p;
	s->key = e->key;
	s->cut = e->cut;
	s->count = e->p->count;
	s->share = e->share;
	s->file = file;
	e->key = NULL;
}

/*
 * The changes of the functions of one name that are not one build in
 * both profiles (@fa of @da, @nfa of them; @fb of @db): every path
 * decoded and matched by its key, as the name and blocks print.
 */
static void match_keys(struct diffrun *r, struct dprofile *da,
		       struct dfunc *fa, size_t nfa, struct dprofile *db,
		       struct dfunc *fb, size_t nfb)
{
	struct dentry *ea, *eb;
	size_t na = 0, nb = 0, i = 0, j = 0;
	struct side a, b;

	ea = key_entries(da, fa, nfa, &na);
	eb = key_entries(db, fb, nfb, &nb);
	if (!ea || !eb) {
		for (i = 0; ea && i < na; i++)
			free(ea[i].key);
		for (j = 0; eb && j < nb; j++)
			free(eb[j].key);
		r->oom = 1;
		na = nb = i = j = 0;
	}
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 :
			key_cmp(&ea[i], &eb[j]);

		if (c <= 0)
			entry_side(&a, &ea[i++], da->file);
		if (c >= 0)
			entry_side(&b, &eb[j++], db->file);
		consider(r, c <= 0 ? &a : NULL, c >= 0 ? &b : NULL);
	}
	free(ea);
	free(eb);
}

/*
 * Decodes @c's path, and makes its key when @keyed; 0, or -1 when it
 * cannot be (said once, counted as an error) and it is to be left out.
 */
static int change_open(struct diffrun *r, struct change *c, int keyed)
{
	int err;

	if (c->failed)
		return -1;
	if (!c->e.p) {
		c->e.p = calloc(1, sizeof(*c->e.p));
		if (!c->e.p) {
			r->oom = c->failed = 1;
			return -1;
		}
		c->owned = 1;
		err = path_of_record(c->e.f, c->rec, c->e.p);
		if (err) {
			fprintf(stderr, "%s: error: %s: function %s: a record "
				"cannot be decoded: %s\n", pap_prog, c->file,
				c->e.f->fn->name, pap_strerror(err));
			r->d->errors++;
			c->failed = 1;
			return -1;
		}
		c->e.share = c->b ? c->b : c->a;
	}
	if (keyed && !c->e.key) {
		c->e.key = diff_key(c->e.f, c->e.p, DIFF_KEY_KEPT, &c->e.cut);
		if (!c->e.key) {
			c->failed = 1;
			return -1;
		}
	}
	return 0;
}

static void change_free(struct change *c)
{
	free(c->e.key);
	if (c->owned && c->e.p) {
		free(c->e.p->blocks);
		free(c->e.p->edges);
		free(c->e.p);
	}
}

/* Does @name hold a byte that may sort before what follows a name in a
 * key (" " or "!")?  Then names alone do not order keys. */
static int odd_name(const char *name)
{
	for (; *name; name++)
		if ((unsigned char)*name <= '!')
			return 1;
	return 0;
}

/* By function name, then complete paths first: the paths whose keys the
 * names alone leave undecided end up next to each other. */
static int class_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	int c = strcmp(a->e.f->fn->name, b->e.f->fn->name);

	return c ? c : (int)b->rec->complete - (int)a->rec->complete;
}

/*
 * strcmp() of the keys of @x and @y as far as what starts them tells,
 * their function's name then "!" for a path cut short: what follows is
 * " N..." or nothing, so a start that is a proper prefix of the other's
 * (of bytes above "!") sorts first.  0 when undecided.
 */
static int start_cmp(const struct change *x, const struct change *y)
{
	const char *a = x->e.f->fn->name, *b = y->e.f->fn->name;
	size_t la = strlen(a), lb = strlen(b), i;
	int ca, cb;

	for (i = 0;; i++) {
		ca = i < la ? (unsigned char)a[i] :
		     i == la && !x->rec->complete ? '!' : -1;
		cb = i < lb ? (unsigned char)b[i] :
		     i == lb && !y->rec->complete ? '!' : -1;
		if (ca < 0 || cb < 0 || ca != cb)
			break;
	}
	if (ca >= 0 && cb >= 0)
		return ca < cb ? -1 : 1;
	if (ca < 0 && cb < 0)
		return 0;
	if ((ca < 0 ? cb : ca) <= ' ')
		return 0;	/* an odd name: keys are made */
	return ca < 0 ? -1 : 1;
}

/* Equal changes by their keys, strcmp() of their whole keys. */
static int tie_cmp(const void *x, const void *y)
{
	const struct change *a = x, *b = y;
	int c = start_cmp(a, b);

	if (c || !a->e.key || !b->e.key)
		return c;
	return key_cmp(&a->e, &b->e);
}

/*
 * Orders @v[0..@n), changes of one size, by their keys, making those
 * that the names leave undecided; 0, or -1 when one could not be made
 * (marked failed).
 */
static int order_ties(struct diffrun *r, struct change *v, size_t n)
{
	size_t i, j, k;
	int failed = 0;

	qsort(v, n, sizeof(*v), class_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !class_cmp(&v[i], &v[j]); j++)
			;
		for (k = i; k < j; k++)
			if (j - i > 1 || odd_name(v[k].e.f->fn->name))
				failed |= change_open(r, &v[k], 1);
	}
	if (failed)
		return -1;
	qsort(v, n, sizeof(*v), tie_cmp);
	return 0;
}

/*
 * Orders section @s greatest change first, equal changes by key, as far
 * as its first @limit and those tied with the last of them, and decodes
 * those first @limit; returns how many it shows.  Changes that cannot
 * be decoded are left out.
 */
static size_t section_order(struct diffrun *r, struct section *s,
			    size_t limit)
{
	size_t show, end, i, j, k;
	int failed;

	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), mag_cmp);
	for (;;) {
		show = limit < s->n ? limit : s->n;
		end = show;
		while (show && end < s->n &&
		       s->v[end].mag == s->v[show - 1].mag)
			end++;
		failed = 0;
		for (i = 0; i < end; i = j) {
			for (j = i + 1; j < end && s->v[j].mag == s->v[i].mag;
			     j++)
				;
			if (j - i > 1 && order_ties(r, s->v + i, j - i))
				failed = 1;
		}
		for (i = 0; i < show; i++)
			if (change_open(r, &s->v[i], 0))
				failed = 1;
		if (!failed)
			return show;
		for (i = k = 0; i < s->n; i++)
			if (s->v[i].failed)
				change_free(&s->v[i]);
			else
				s->v[k++] = s->v[i];
		s->n = k;
	}
}

static void diff_line(const struct change *c, const char *what)
{
	struct dfunc *f = c->e.f;
	struct dpath *p = c->e.p;

	if (path_open(f, p))
		return;
	printf("  %-11s %6.1f%% -> %5.1f%%  %s %llu x %zu blocks:", what,
	       100 * c->a, 100 * c->b, f->fn->name,
	       (unsigned long long)p->count, p->n);
	put_block_numbers(stdout, f, p, 24);
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
	struct diffrun r;
	struct ropts lazy = *o;
	struct pap_profile pa, pb;
	struct dprofile da, db;
	size_t i = 0, j = 0, i2, j2, n, s, limit = o->top ? o->top : SIZE_MAX;
	char dira[4096], dirb[4096];
	int rc = 1, m;

	/* nothing decoded before it is known to be shown */
	lazy.lazy = 1;
	memset(&r, 0, sizeof(r));
	r.d = d;
	r.o = o;
	memset(&da, 0, sizeof(da));
	memset(&db, 0, sizeof(db));
	pap_profile_init(&pb);
	if (decode_file(d, &lazy, old, dira, sizeof(dira), &pa, &da) ||
	    decode_file(d, &lazy, new, dirb, sizeof(dirb), &pb, &db))
		goto out;
	/* functions by name, both sorted so */
	while (i < da.nfs || j < db.nfs) {
		const char *name = j == db.nfs ? da.fs[i].fn->name :
				   i == da.nfs ? db.fs[j].fn->name :
				   strcmp(da.fs[i].fn->name,
					  db.fs[j].fn->name) <= 0 ?
				   da.fs[i].fn->name : db.fs[j].fn->name;

		for (i2 = i; i2 < da.nfs && !strcmp(da.fs[i2].fn->name, name);
		     i2++)
			;
		for (j2 = j; j2 < db.nfs && !strcmp(db.fs[j2].fn->name, name);
		     j2++)
			;
		m = 1;
		if (i2 - i <= 1 && j2 - j <= 1 &&
		    (i2 == i || j2 == j || da.fs[i].fn == db.fs[j].fn))
			m = match_records(&r, &da, i2 > i ? &da.fs[i] : NULL,
					  &db, j2 > j ? &db.fs[j] : NULL);
		if (m > 0)
			match_keys(&r, &da, &da.fs[i], i2 - i, &db, &db.fs[j],
				   j2 - j);
		if (m < 0 || r.oom)
			goto oom;
		i = i2;
		j = j2;
	}
	for (s = 0; s < NSECTIONS; s++) {
		struct section *t = &r.sec[s];

		n = section_order(&r, t, limit);
		if (r.oom)
			goto oom;
		if (s == APPEARS)
			printf("paths that appear in %s:\n", new);
		else if (s == DISAPPEARS)
			printf("paths that disappear from %s:\n", old);
		else
			printf("paths whose share of their function changes "
			       "most:\n");
		for (i = 0; i < n; i++)
			diff_line(&t->v[i], s == APPEARS ? "appears" :
				  s == DISAPPEARS ? "disappears" :
				  t->v[i].b > t->v[i].a ? "grows" : "shrinks");
	}
	rc = sel_diff(d, o, &pa, &pb) | calls_diff(&da, &db, o, old, new) ||
	     d->errors ? 1 : 0;
	goto out;
oom:
	fprintf(stderr, "%s: error: out of memory\n", pap_prog);
out:
	for (s = 0; s < NSECTIONS; s++) {
		for (i = 0; i < r.sec[s].n; i++)
			change_free(&r.sec[s].v[i]);
		free(r.sec[s].v);
	}
	dprofile_free(&da);
	dprofile_free(&db);
	pap_profile_free(&pa);
	pap_profile_free(&pb);
	return rc;
}
