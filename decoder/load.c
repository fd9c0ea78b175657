/* SPDX-License-Identifier: MIT */
/*
 * load.c - reading a profile and its metadata, and decoding every record
 * into blocks and edges.  Every input is untrusted: a record that cannot
 * be attributed or decoded is reported once per function, never guessed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "decoder.h"
#include "fnkey.h"
#include "textfile.h"
#include "util.h"

/*
 * The key resolve_fn() last resolved to a function, and that function:
 * a function's records come together, and reports that read every
 * record (print_selective()) ask for one key many times over.  A key
 * once resolved stays resolved to the same function (metadata is only
 * added to); forgotten when its decoder is let go.
 */
static struct {
	const struct decoder *d;
	char key[PAP_FNKEY_MAX];
	struct pap_meta_fn *fn;
} resolved;

void decoder_init(struct decoder *d)
{
	if (resolved.d == d)
		memset(&resolved, 0, sizeof(resolved));
	memset(d, 0, sizeof(*d));
	pap_meta_init(&d->meta);
}

void decoder_free(struct decoder *d)
{
	size_t i;

	if (resolved.d == d)
		memset(&resolved, 0, sizeof(resolved));
	for (i = 0; i < d->nloaded; i++)
		free(d->loaded[i]);
	free(d->loaded);
	for (i = 0; i < d->nfailed; i++)
		free(d->failed[i]);
	free(d->failed);
	free(d->failed_stale);
	free(d->dirs);
	pap_meta_free(&d->meta);
}

void decoder_add_dir(struct decoder *d, const char *dir)
{
	if (d->ndirs == d->capdirs &&
	    pap_grow(&d->dirs, &d->capdirs, sizeof(*d->dirs), 8))
		return;
	d->dirs[d->ndirs++] = dir;
}

int meta_read_once(struct pap_meta *m, char ***loaded, size_t *nloaded,
		   const char *path, char *err, size_t errlen)
{
	char *text, **n;
	size_t i;
	int r = 0;

	for (i = 0; i < *nloaded; i++)
		if (!strcmp((*loaded)[i], path))
			return 0;
	n = realloc(*loaded, (*nloaded + 1) * sizeof(*n));
	if (!n)
		return 0;
	*loaded = n;
	n[*nloaded] = strdup(path);
	if (!n[*nloaded])
		return 0;
	(*nloaded)++;
	text = pap_read_text_file(path, PAP_MAX_FILE, err, errlen);
	if (!text)
		return -1;
	if (pap_meta_parse(m, text, path, err, errlen))
		r = -2;
	free(text);
	return r;
}

/* Reads metadata file @path once; errors but a missing file are
 * reported and counted. */
static void load_meta(struct decoder *d, const char *path)
{
	char err[512];
	int r = meta_read_once(&d->meta, &d->loaded, &d->nloaded, path, err,
			       sizeof(err));

	if (r == -2 || (r == -1 && errno != ENOENT)) {
		fprintf(stderr, "%s\n", err);
		d->errors++;
	}
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

void decoder_load_meta(struct decoder *d, const char *path)
{
	load_meta(d, path);
}

void decoder_scan(struct decoder *d)
{
	scan_dirs(d);
}

/* Splits @key into @buf (PAP_FNKEY_MAX bytes): its name and metadata
 * file as strings there (*@meta NULL: none), and its checksum. */
static int split_key(const char *key, char *buf, char **name, uint64_t *sum,
		     char **meta)
{
	struct pap_fnkey k;
	size_t n = strlen(key);

	if (n >= PAP_FNKEY_MAX || pap_fnkey_split(key, n, &k))
		return -1;
	memcpy(buf, key, n + 1);
	buf[k.name_len] = 0;
	*name = buf;
	*sum = k.checksum;
	*meta = k.meta ? buf + (k.meta - key) : NULL;
	return 0;
}

/* Remembers that @key could not be resolved, so it is reported once;
 * @stale: it is a stale build's, left out (--drop-stale). */
static void remember_failed(struct decoder *d, const char *key, int stale)
{
	char **n = realloc(d->failed, (d->nfailed + 1) * sizeof(*n));
	unsigned char *s;

	if (!n)
		return;
	d->failed = n;
	s = realloc(d->failed_stale, d->nfailed + 1);
	if (!s)
		return;
	d->failed_stale = s;
	d->failed[d->nfailed] = strdup(key);
	d->failed_stale[d->nfailed] = (unsigned char)stale;
	if (d->failed[d->nfailed])
		d->nfailed++;
}

int key_is_stale(const struct decoder *d, const char *key)
{
	size_t i;

	for (i = 0; i < d->nfailed; i++)
		if (!strcmp(d->failed[i], key))
			return d->failed_stale[i];
	return 0;
}

struct pap_meta_fn *resolve_fn(struct decoder *d, const char *key)
{
	char buf[PAP_FNKEY_MAX], *name, *meta;
	uint64_t sum;
	struct pap_meta_fn *fn;
	size_t i;

	if (strlen(key) >= sizeof(buf))
		return NULL;
	if (resolved.d == d && !strcmp(resolved.key, key))
		return resolved.fn;
	/* a program's or unit's key (pap/records.h) names no function */
	if (key[0] == '%')
		return NULL;
	for (i = 0; i < d->nfailed; i++)
		if (!strcmp(d->failed[i], key))
			return NULL;
	if (split_key(key, buf, &name, &sum, &meta)) {
		fprintf(stderr, "%s: error: bad function key '%s'\n", pap_prog,
			key);
		remember_failed(d, key, 0);
		return NULL;
	}
	if (meta)
		load_meta(d, meta);
	fn = pap_meta_find(&d->meta, name, sum, meta);
	if (!fn) {
		scan_dirs(d);
		fn = pap_meta_find(&d->meta, name, sum, meta);
	}
	if (fn) {
		resolved.d = d;
		memcpy(resolved.key, key, strlen(key) + 1);
		resolved.fn = fn;
		return fn;
	}
	for (i = 0; i < d->meta.nfns; i++)
		if (!strcmp(d->meta.fns[i]->name, name))
			break;
	remember_failed(d, key, i < d->meta.nfns && d->drop_stale);
	if (i < d->meta.nfns && d->drop_stale)
		d->nstale_fns++;	/* an older build's: left out */
	else if (i < d->meta.nfns)
		fprintf(stderr, "%s: error: function %s: the profile's checksum "
			"%016llx does not match the metadata's %016llx (%s was "
			"recompiled since the run? --drop-stale leaves such "
			"records out)\n", pap_prog, name,
			(unsigned long long)sum,
			(unsigned long long)d->meta.fns[i]->checksum,
			d->meta.fns[i]->file);
	else
		fprintf(stderr, "%s: error: function %s: no metadata found "
			"(use --meta DIR)\n", pap_prog, name);
	return NULL;
}

uint32_t block_number(const struct pap_meta_fn *fn, uint32_t b)
{
	return (uint32_t)strtoul(fn->graph.names[b] + 1, NULL, 10);
}

/* Pieces of paths' forms are let go past this many edges: with the
 * memo's, what a function's decoding holds stays within the report's
 * memory targets (doc/benchmarks.md). */
#define DECODE_PIECES_EDGES ((size_t)1 << 23)

/* The most breakpoints a record may stand for once its repeats are
 * undone (16 bytes each): a bound on what a corrupt profile can make the
 * decoder allocate. */
#define DECODE_MAX_BPS ((uint64_t)1 << 28)
/* A function's unpacking room kept from one record to the next. */
#define DECODE_KEEP_BPS ((size_t)1 << 16)

/*
 * Record @r of @f decoded into @edges (emptied first); 0 or an error code.
 * Pieces are remembered in @f's memo, so a piece seen before costs a copy.
 */
static int decode_edges_visit(struct dfunc *f, const struct pap_prof_rec *r,
			      struct pap_path *edges,
			      const struct pap_piece_visit *v)
{
	const struct pap_plan *plan = pap_meta_plan(f->fn);
	const struct pap_breakpoint *bps;
	size_t nbps;
	int err;

	edges->len = 0;
	edges->start_fold = edges->end_fold = PAP_NONE;
	if (!plan)
		return PAP_EINVAL;
	if (r->kind == PAP_REC_BL)
		return plan->mode == PAP_MODE_EPP ?
			pap_decode_bl(plan, r->value, edges) : PAP_ECORRUPT;
	if (plan->mode == PAP_MODE_EPP)
		return PAP_ECORRUPT;
	err = pap_bunpack_into(&f->unpacked, r->bps, r->nbps, DECODE_MAX_BPS,
			       &bps, &nbps);
	if (err)
		return err;
	if (!f->memo)
		f->memo = pap_memo_new(DECODE_MEMO_EDGES);
	err = pap_decode_path_visit(plan, f->memo, bps, nbps, r->value, edges,
				    v);
	if (f->unpacked.cap > DECODE_KEEP_BPS)
		pap_bpack_buf_free(&f->unpacked);	/* not kept for the next */
	return err;
}

static int decode_edges(struct dfunc *f, const struct pap_prof_rec *r,
			struct pap_path *edges)
{
	return decode_edges_visit(f, r, edges, NULL);
}

/*
 * The blocks the edges @e of record @r run through, into @blocks if not
 * NULL (room for e->len + 1), else only counted; returns their number.
 */
static size_t edge_blocks(const struct pap_cfg *cfg,
			  const struct pap_prof_rec *r,
			  const struct pap_path *e, uint32_t *blocks,
			  uint32_t *head)
{
	size_t i, n = 0;

#define PUT_BLOCK(b) do {					\
		if (blocks)					\
			blocks[n] = (b);			\
		if (n < DPATH_HEAD)				\
			head[n] = (b);				\
		n++;						\
	} while (0)
	/* an acyclic path between two folds may hold one block, no edge */
	if (!e->len && r->kind == PAP_REC_BL && e->start_fold != PAP_NONE &&
	    cfg->edges[e->start_fold].dst < cfg->nblocks)
		PUT_BLOCK(cfg->edges[e->start_fold].dst);
	if (e->len && cfg->edges[e->edges[0]].src != cfg->entry &&
	    cfg->edges[e->edges[0]].src < cfg->nblocks)
		PUT_BLOCK(cfg->edges[e->edges[0]].src);
	if (blocks || n + e->len <= DPATH_HEAD) {
		for (i = 0; i < e->len; i++)
			if (cfg->edges[e->edges[i]].dst < cfg->nblocks)
				PUT_BLOCK(cfg->edges[e->edges[i]].dst);
		return n;
	}
	/* counting only: the head, then the rest without storing */
	for (i = 0; i < e->len && n < DPATH_HEAD; i++)
		if (cfg->edges[e->edges[i]].dst < cfg->nblocks)
			PUT_BLOCK(cfg->edges[e->edges[i]].dst);
	for (; i < e->len; i++)
		n += cfg->edges[e->edges[i]].dst < cfg->nblocks;
	return n;
#undef PUT_BLOCK
}

int path_form(struct dfunc *f, const struct dpath *p, struct pap_rseq *form)
{
	const struct pap_plan *plan = pap_meta_plan(f->fn);
	const struct pap_prof_rec *r = p->rec;

	if (!plan)
		return PAP_EINVAL;
	if (r->kind == PAP_REC_BL || plan->mode == PAP_MODE_EPP)
		return PAP_ECORRUPT;
	if (!f->memo)
		f->memo = pap_memo_new(DECODE_MEMO_EDGES);
	/* pieces are kept for the next paths, up to a bound: the memo makes
	 * decoding them again a copy */
	if (!f->keep_pieces && f->pieces.npool > DECODE_PIECES_EDGES) {
		pap_pieces_free(&f->pieces);
		f->pieces_gen++;
	}
	return pap_pathform_build(plan, f->memo, &f->pieces, r->bps, r->nbps,
				  r->value, form);
}

/* Records without repeats of at most this many breakpoints have their
 * Ball-Larus ids noted per piece (path_note_bl_digits()); a longer one
 * would hold a list of its every piece, and is noted from its edges. */
#define NOTE_DIGITS_BPS 64

/* Paths with repeats of at most this many edges have their Ball-Larus
 * ids noted from their edges rather than from their form. */
#define NOTE_EXPAND_EDGES ((size_t)1 << 14)

/* The blocks of piece @sym of @f: the user blocks its edges enter. */
static size_t piece_nblocks(struct dfunc *f, uint64_t sym)
{
	return f->pieces.p[sym].nblocks;
}

/*
 * A PAP or PAP+EPP record's summary from its form: its length in blocks
 * and edges as sums over the pieces times their multiplicities, its
 * first blocks from its first pieces; with @note, its Ball-Larus ids
 * noted (path_note_bl()) from the same form; the form given to @dp's
 * on_form if any.
 */
static int summarize_form(struct dfunc *f, struct dpath *out,
			  uint32_t *head, int note, struct pap_path *scratch,
			  const struct dprofile *dp)
{
	const struct pap_cfg *cfg = pap_meta_plan(f->fn)->cfg;
	struct pap_rseq form;
	uint64_t *w = NULL, i;
	size_t k, n = 0;
	int err;

	pap_rseq_init(&form);
	err = path_form(f, out, &form);
	if (!err && !(w = malloc((form.n + 1) * sizeof(*w))))
		err = PAP_ENOMEM;
	if (!err)
		err = pap_rseq_weights(&form, w);
	for (k = 0; !err && k < form.n; k++) {
		uint32_t len;

		if (form.it[k].dist)
			continue;
		pap_piece_edges(&f->pieces, form.it[k].sym, &len);
		out->n += w[k] * piece_nblocks(f, form.it[k].sym);
		out->nedges += w[k] * len;
	}
	for (i = 0; !err && i < form.len && n < DPATH_HEAD; i++) {
		uint32_t len, j;
		const uint32_t *e = pap_piece_edges(&f->pieces,
						    pap_rseq_get(&form, i),
						    &len);

		if (i == 0 && len)
			out->resumed = pap_cfg_is_resume(cfg, e[0]);
		for (j = 0; j < len && n < DPATH_HEAD; j++)
			if (cfg->edges[e[j]].dst < cfg->nblocks)
				head[n++] = cfg->edges[e[j]].dst;
	}
	if (!err && dp && dp->on_form)
		dp->on_form(dp->on_path_ctx, f, out, &form, w);
	/* a short path's ids are cheaper had from its edges, stretches
	 * seen before costing a compare (path_note_bl_edges()), unless
	 * they are had from the form's pieces (path_bl_by_pieces()) */
	if (!err && note && out->nedges <= NOTE_EXPAND_EDGES &&
	    !path_bl_by_pieces(f) &&
	    decode_edges(f, out->rec, scratch) == PAP_OK)
		path_note_bl_edges(f, out, scratch->edges, scratch->len);
	else if (!err && note)
		path_note_bl_form(f, out, &form);
	free(w);
	pap_rseq_free(&form);
	return err;
}

/*
 * Record @r of @f decoded into @out's summary (lengths, flags) and its
 * first blocks into @head (DPATH_HEAD of room), its blocks and edges left
 * for path_open(); @scratch is reused between calls.  With @note, a
 * record with repeats has its Ball-Larus ids noted from the form its
 * summary is taken from (those of others are for the caller to note,
 * from @scratch).  0 or an error code.
 */
static int decode_rec(struct dfunc *f, const struct pap_prof_rec *r,
		      struct dpath *out, struct pap_path *scratch,
		      uint32_t *head, int note, const struct dprofile *dp)
{
	const struct pap_plan *plan = pap_meta_plan(f->fn);
	const struct pap_cfg *cfg;
	int err;

	memset(out, 0, sizeof(*out));
	out->rec = r;
	out->count = r->count;
	out->complete = r->complete;
	out->bl_only = r->kind == PAP_REC_BL;
	out->bl_id = r->value;
	/* a record without repeats is no longer unpacked than packed:
	 * decoding it whole is the cheaper way to its summary */
	if (plan && !out->bl_only && plan->mode != PAP_MODE_EPP &&
	    pap_bpack_has_repeat(r->bps, r->nbps))
		return summarize_form(f, out, head, note, scratch, dp);
	if (note && !out->bl_only && r->nbps <= NOTE_DIGITS_BPS &&
	    path_bl_by_digits(f)) {
		/* its pieces told, for path_note_bl_digits() */
		struct pap_piece_visit v = { bl_digit_visit, &f->digits };

		f->digits.n = 0;
		f->digits.err = 0;
		err = decode_edges_visit(f, r, scratch, &v);
	} else {
		err = decode_edges(f, r, scratch);
	}
	if (err)
		return err;
	cfg = pap_meta_plan(f->fn)->cfg;
	out->n = edge_blocks(cfg, r, scratch, NULL, head);
	out->nedges = scratch->len;
	out->resumed = scratch->len &&
		       pap_cfg_is_resume(cfg, scratch->edges[0]);
	return PAP_OK;
}

size_t path_edge_blocks(const struct dfunc *f, const struct pap_prof_rec *r,
			const struct pap_path *e, uint32_t *blocks)
{
	uint32_t head[DPATH_HEAD];

	return edge_blocks(pap_meta_plan(f->fn)->cfg, r, e, blocks, head);
}

int path_of_record(struct dfunc *f, const struct pap_prof_rec *r,
		   struct dpath *out)
{
	struct pap_path scratch;
	uint32_t head[DPATH_HEAD];
	int err;

	pap_path_init(&scratch);
	err = decode_rec(f, r, out, &scratch, head, 0, NULL);
	pap_path_free(&scratch);
	out->head = NULL;
	return err;
}

int path_open(struct dfunc *f, struct dpath *p)
{
	struct pap_path e;
	uint32_t head[DPATH_HEAD];
	int err;

	if (p->opens) {
		p->opens++;
		return 0;
	}
	if (path_long(p)) {
		fprintf(stderr, "%s: error: function %s: a path of %zu %s "
			"is not expanded\n", pap_prog, f->fn->name, p->n,
			pap_plural(p->n, "block", "blocks"));
		return -1;
	}
	pap_path_init(&e);
	err = decode_edges(f, p->rec, &e);
	if (!err) {
		p->blocks = malloc((e.len + 2) * sizeof(uint32_t));
		err = p->blocks ? PAP_OK : PAP_ENOMEM;
	}
	/* it decoded when the profile was read: only memory can fail */
	if (err) {
		fprintf(stderr, "%s: error: function %s: a path cannot be "
			"decoded again: %s\n", pap_prog, f->fn->name,
			pap_strerror(err));
		pap_path_free(&e);
		return -1;
	}
	edge_blocks(pap_meta_plan(f->fn)->cfg, p->rec, &e, p->blocks, head);
	p->edges = e.edges;
	p->opens = 1;
	return 0;
}

void path_close(struct dpath *p)
{
	if (!p->opens || --p->opens)
		return;
	free(p->blocks);
	free(p->edges);
	p->blocks = p->edges = NULL;
}

static void reading(size_t done, size_t size)
{
	progress("reading the profile (bytes)", done, size);
}

int load_profile(const char *path, struct pap_profile *prof)
{
	char err[512];
	int rc = pap_profile_read_file(prof, path, PAP_MAX_FILE, err,
				       sizeof(err), reading);

	progress_done();
	if (rc || *err)
		fprintf(stderr, "%s\n", err);	/* an error, or a warning */
	return rc ? -1 : 0;
}

/* A walk through a path's blocks from its form, one piece at a time. */
struct cursor {
	struct dfunc *f;
	struct pap_rseq form;
	struct pap_rseq_cursor at;	/* reading form; set up on first use */
	uint64_t pos;
	const uint32_t *e;
	uint32_t len, i;
};

/* The next block into *@b: 1, or 0 at the end. */
static int cursor_next(struct cursor *c, uint32_t *b)
{
	const struct pap_cfg *cfg = pap_meta_plan(c->f->fn)->cfg;

	for (;;) {
		while (c->i < c->len) {
			uint32_t d = cfg->edges[c->e[c->i++]].dst;

			if (d < cfg->nblocks) {
				*b = d;
				return 1;
			}
		}
		if (c->pos >= c->form.len)
			return 0;
		if (c->at.s != &c->form)
			pap_rseq_cursor_init(&c->at, &c->form);
		c->e = pap_piece_edges(&c->f->pieces,
				       pap_rseq_cursor_sym(&c->at, c->pos++),
				       &c->len);
		c->i = 0;
	}
}

static void cursor_free(struct cursor *c)
{
	if (c->at.s == &c->form)
		pap_rseq_cursor_free(&c->at);
	pap_rseq_free(&c->form);
}

/* Room for " 4294967295" and its length. */
#define BLOCK_TEXT 12

void put_block_numbers(FILE *f, struct dfunc *df, const struct dpath *p,
		       size_t max)
{
	uint32_t nb = df->fn->graph.nblocks, b;
	size_t k, at = 0, end = max && max < p->n ? max : p->n;
	char buf[1 << 14];

	if (path_long(p)) {
		struct cursor c = { df, { 0 }, { 0 }, 0, NULL, 0, 0 };

		if (path_form(df, p, &c.form))
			return;
		for (k = 0; k < end && cursor_next(&c, &b); k++)
			fprintf(f, " %u", block_number(df->fn, b));
		cursor_free(&c);
		if (k < p->n)
			fputs(" ...", f);
		return;
	}
	if (!df->numtext) {
		df->numtext = malloc((size_t)nb * BLOCK_TEXT + 1);
		for (b = 0; df->numtext && b < nb; b++)
			df->numtext[b * BLOCK_TEXT + BLOCK_TEXT - 1] = (char)
				snprintf(df->numtext + b * BLOCK_TEXT,
					 BLOCK_TEXT, " %u",
					 block_number(df->fn, b));
	}
	for (k = 0; k < end; k++) {
		const char *t;

		if (!df->numtext) {
			fprintf(f, " %u", block_number(df->fn, p->blocks[k]));
			continue;
		}
		if (at > sizeof(buf) - BLOCK_TEXT) {
			fwrite(buf, 1, at, f);
			at = 0;
		}
		t = df->numtext + (size_t)p->blocks[k] * BLOCK_TEXT;
		memcpy(buf + at, t, BLOCK_TEXT);
		at += (size_t)t[BLOCK_TEXT - 1];
	}
	fwrite(buf, 1, at, f);
	if (k < p->n)
		fputs(" ...", f);
}

int path_shown(const struct ropts *o, const struct dfunc *f, size_t i)
{
	const struct dpath *p = &f->paths[i];

	return (!o->top || i < o->top) && p->count >= o->min_count &&
	       (double)p->count >= o->min_share * (double)f->total;
}

/* Hottest first, then by blocks, then the shorter: needs both open. */
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

/*
 * by_count() as far as the first DPATH_HEAD blocks tell: 0 for two paths
 * longer than that which agree on them, or for two equal paths.
 */
static int by_count_head(const void *a, const void *b)
{
	const struct dpath *x = a, *y = b;
	size_t i, n = x->n < y->n ? x->n : y->n;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	for (i = 0; i < n && i < DPATH_HEAD; i++)
		if (x->head[i] != y->head[i])
			return x->head[i] < y->head[i] ? -1 : 1;
	if (n > DPATH_HEAD)
		return 0;
	return x->n < y->n ? -1 : x->n > y->n;
}

static struct dfunc *sort_func;

/*
 * by_count() for paths of one function (sort_func), at least one of
 * them long: their blocks compared from their forms as far as they
 * agree.  Time grows with the blocks they share before differing.
 */
static int by_form(const void *a, const void *b)
{
	const struct dpath *x = a, *y = b;
	struct cursor cx = { sort_func, { 0 }, { 0 }, 0, NULL, 0, 0 }, cy = cx;
	uint32_t bx, by;
	int rc = 0, nx, ny;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (path_form(sort_func, x, &cx.form))
		goto out;
	sort_func->keep_pieces = 1;	/* x's pieces stay while y's come */
	rc = path_form(sort_func, y, &cy.form);
	sort_func->keep_pieces = 0;
	if (rc) {
		rc = 0;
		goto out;
	}
	for (;;) {
		nx = cursor_next(&cx, &bx);
		ny = cursor_next(&cy, &by);
		if (!nx || !ny) {
			rc = nx - ny;
			break;
		}
		if (bx != by) {
			rc = bx < by ? -1 : 1;
			break;
		}
	}
out:
	cursor_free(&cx);
	cursor_free(&cy);
	return rc;
}

/* The most blocks sort_run() expands at once to order paths. */
#define SORT_OPEN_BLOCKS ((size_t)1 << 24)

/*
 * path_open() for by_count(): @p's blocks only, in an array of their
 * size, the edges let go at once; path_close() closes it.  0 or -1.
 */
static int open_blocks(struct dfunc *f, struct dpath *p)
{
	struct pap_path e;
	uint32_t head[DPATH_HEAD];

	pap_path_init(&e);
	if (decode_edges(f, p->rec, &e) != PAP_OK ||
	    !(p->blocks = malloc((e.len + 2) * sizeof(uint32_t)))) {
		pap_path_free(&e);
		return -1;
	}
	edge_blocks(pap_meta_plan(f->fn)->cfg, p->rec, &e, p->blocks, head);
	pap_path_free(&e);
	p->edges = NULL;
	p->opens = 1;
	return 0;
}

/* A path's count and place, what ordering by count alone reads. */
struct count_key {
	uint64_t count;
	size_t at;
};

/* Hottest first, then in their first order: a stable sort by count. */
static int by_count_key(const void *a, const void *b)
{
	const struct count_key *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * @f's paths ordered by count alone, equal counts in their order: the
 * keys are sorted, not the paths, which are then moved in place along
 * the permutation's cycles, each once.  0, or -1 when memory is short.
 */
static int sort_by_count(struct dfunc *f)
{
	struct count_key *k = malloc((f->npaths + 1) * sizeof(*k));
	size_t i, j, from;

	if (!k)
		return -1;
	for (i = 0; i < f->npaths; i++)
		k[i] = (struct count_key){ f->paths[i].count, i };
	qsort(k, f->npaths, sizeof(*k), by_count_key);
	/* place i takes the path at k[i].at; a place filled points to
	 * itself */
	for (i = 0; i < f->npaths; i++) {
		struct dpath held;

		if (k[i].at == i)
			continue;
		held = f->paths[i];
		for (j = i;; j = from) {
			from = k[j].at;
			k[j].at = j;
			if (from == i) {
				f->paths[j] = held;
				break;
			}
			f->paths[j] = f->paths[from];
		}
	}
	free(k);
	return 0;
}

/*
 * Puts the @m first of paths [@i, @j) of @f by by_form() (a stable
 * sort's first @m: of equal paths the earlier) at @i in that order, the
 * others after them in their order; @m < @j - @i.  Each path is compared
 * with the m-th best kept so far, and only a better one is placed among
 * the kept by binary search: about j - i comparisons, where sorting all
 * took (j - i) log(j - i).  0, or -1 when memory is short.
 */
static int select_first(struct dfunc *f, size_t i, size_t j, size_t m)
{
	size_t n = j - i, *sel, nsel = 0, t, k, lo, hi, out;
	struct dpath *tmp;
	unsigned char *taken;

	sel = malloc((m + 1) * sizeof(*sel));
	tmp = malloc(n * sizeof(*tmp));
	taken = calloc(n, 1);
	if (!sel || !tmp || !taken) {
		free(sel);
		free(tmp);
		free(taken);
		return -1;
	}
	sort_func = f;
	for (t = 0; t < n; t++) {
		/* ties go to the earlier path: only a strictly better one
		 * enters, after the kept ones it equals */
		if (nsel == m &&
		    by_form(&f->paths[i + t], &f->paths[i + sel[m - 1]]) >= 0)
			continue;
		lo = 0;
		hi = nsel;
		while (lo < hi) {
			k = lo + (hi - lo) / 2;
			if (by_form(&f->paths[i + t], &f->paths[i + sel[k]]) < 0)
				hi = k;
			else
				lo = k + 1;
		}
		if (nsel < m)
			nsel++;
		memmove(sel + lo + 1, sel + lo, (nsel - 1 - lo) * sizeof(*sel));
		sel[lo] = t;
	}
	memcpy(tmp, f->paths + i, n * sizeof(*tmp));
	for (k = 0; k < nsel; k++) {
		f->paths[i + k] = tmp[sel[k]];
		taken[sel[k]] = 1;
	}
	for (t = 0, out = i + nsel; t < n; t++)
		if (!taken[t])
			f->paths[out++] = tmp[t];
	free(sel);
	free(tmp);
	free(taken);
	return 0;
}

/*
 * Sorts paths [@i, @j) of @f, of one count, by by_count(): by their
 * first blocks, then each run they leave undecided by all its blocks,
 * opening only the paths of that run.  Paths without their first blocks
 * (head) get them decoded again, for the time of the sort.  Both sorts
 * are stable (glibc's merge sort), as the one sort by_count() was, so
 * equal paths keep the profile's order.  When @upto is not 0, only the
 * paths that end at a place before @upto are ordered so: runs starting
 * at @upto or later keep their order, and of a run of long paths that
 * crosses @upto only its first ones are chosen (select_first()).
 */
static int sort_run(struct dfunc *f, size_t i, size_t j, size_t upto)
{
	uint32_t *heads = NULL;
	struct pap_path scratch;
	size_t k, start = i, end = j, blocks;
	int failed = 0, bl;

	for (k = i; k < j && f->paths[k].head; k++)
		;
	if (k < j) {
		heads = malloc((j - i) * DPATH_HEAD * sizeof(*heads));
		if (!heads)
			return -1;
		pap_path_init(&scratch);
		for (k = i; k < j && !failed; k++) {
			struct dpath p;

			if (f->paths[k].head)
				continue;
			f->paths[k].head = heads + (k - i) * DPATH_HEAD;
			failed = decode_rec(f, f->paths[k].rec, &p, &scratch,
					    f->paths[k].head, 0, NULL) != PAP_OK;
		}
		pap_path_free(&scratch);
	}
	if (!failed)
		qsort(f->paths + i, j - i, sizeof(*f->paths), by_count_head);
	while (!failed && i < end && (!upto || i < upto)) {
		for (j = i + 1; j < end &&
		     !by_count_head(&f->paths[i], &f->paths[j]); j++)
			;
		for (k = i, blocks = 0, bl = 0; j - i > 1 && k < j &&
		     !path_long(&f->paths[k]); k++) {
			blocks += f->paths[k].n;
			bl |= f->paths[k].bl_only;	/* has no form */
		}
		if (k < j || (blocks > SORT_OPEN_BLOCKS && !bl)) {
			/* a long path among them, or too many blocks to
			 * hold at once: compared block by block from the
			 * forms, never expanded */
			sort_func = f;
			if (upto && j > upto)
				failed = select_first(f, i, j, upto - i) != 0;
			else
				qsort(f->paths + i, j - i, sizeof(*f->paths),
				      by_form);
			i = j;
			continue;
		}
		if (j - i > 1 && f->paths[i].n > DPATH_HEAD) {
			for (k = i; k < j; k++)
				if (open_blocks(f, &f->paths[k]))
					break;
			if (k == j)
				qsort(f->paths + i, j - i, sizeof(*f->paths),
				      by_count);
			failed = k < j;
			while (k-- > i)
				path_close(&f->paths[k]);
		}
		i = j;
	}
	for (k = start; heads && k < end; k++)
		if (f->paths[k].head >= heads &&
		    f->paths[k].head < heads + (end - start) * DPATH_HEAD)
			f->paths[k].head = NULL;
	free(heads);
	return failed ? -1 : 0;
}

/* The @k largest of the counts offered (struct topk). */
struct topk {
	uint64_t *h;		/* a min-heap of at most k */
	size_t n, k;
};

static void topk_offer(struct topk *t, uint64_t v)
{
	size_t i, c;

	if (t->n < t->k) {
		for (i = t->n++; i && t->h[(i - 1) / 2] > v; i = (i - 1) / 2)
			t->h[i] = t->h[(i - 1) / 2];
		t->h[i] = v;
		return;
	}
	if (v <= t->h[0])
		return;
	for (i = 0; (c = 2 * i + 1) < t->n; i = c) {
		if (c + 1 < t->n && t->h[c + 1] < t->h[c])
			c++;
		if (t->h[c] >= v)
			break;
		t->h[i] = t->h[c];
	}
	t->h[i] = v;
}

/* Past the first @upto paths, this many at least keep count order: the
 * HTML report's flows mark the hottest paths by rank. */
#define SORT_FRONT_MIN FLOW_HOT_PATHS

/*
 * Moves the paths of @f at least as hot as its @front-th hottest to the
 * front, ordered by count (equal counts in their order), the others
 * after them in their order: for reports that read only the first of
 * a function's many paths, a pass instead of a sort of them all.  0, or
 * -1 when memory is short.
 */
static int sort_front(struct dfunc *f, size_t front)
{
	struct topk t = { malloc(front * sizeof(uint64_t)), 0, front };
	struct count_key *k = NULL;
	struct dpath *held = NULL;
	size_t i, m = 0, w;
	uint64_t least;

	if (!t.h)
		return -1;
	for (i = 0; i < f->npaths; i++)
		topk_offer(&t, f->paths[i].count);
	least = t.h[0];
	free(t.h);
	for (i = 0; i < f->npaths; i++)
		m += f->paths[i].count >= least;
	k = malloc(m * sizeof(*k));
	held = malloc(m * sizeof(*held));
	if (!k || !held) {
		free(k);
		free(held);
		return -1;
	}
	for (i = 0, w = 0; i < f->npaths; i++)
		if (f->paths[i].count >= least) {
			k[w] = (struct count_key){ f->paths[i].count, w };
			held[w++] = f->paths[i];
		}
	for (i = w = f->npaths; i-- > 0;)
		if (f->paths[i].count < least)
			f->paths[--w] = f->paths[i];
	qsort(k, m, sizeof(*k), by_count_key);
	for (i = 0; i < m; i++)
		f->paths[i] = held[k[i].at];
	free(k);
	free(held);
	return 0;
}

/*
 * Sorts @f's paths by by_count(), hottest first: by count, then each run
 * of one count by sort_run().  With @upto (0: none), runs that start at
 * @upto or later keep the profile's order, and the paths past the
 * SORT_FRONT_MIN-th (or @upto-th if more) hottest are left in the
 * profile's order after them: the first @upto paths are by_count()'s
 * first @upto, and paths past them are decoded no more.
 */
static int sort_paths(struct dfunc *f, size_t upto)
{
	size_t i = 0, j, front = upto > SORT_FRONT_MIN ? upto : SORT_FRONT_MIN;

	if (upto && f->npaths > front ? sort_front(f, front) :
	    sort_by_count(f))
		return -1;
	while (i < f->npaths && (!upto || i < upto)) {
		for (j = i + 1; j < f->npaths &&
		     f->paths[j].count == f->paths[i].count; j++)
			;
		if (j - i > 1 && sort_run(f, i, j, upto))
			return -1;
		i = j;
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct dfunc *x = a, *y = b;

	return strcmp(x->fn->name, y->fn->name);
}

static struct dfunc *func_of(struct dprofile *dp, size_t *cap,
			     struct pap_meta_fn *fn)
{
	size_t j;

	for (j = dp->nfs; j-- > 0;)
		if (dp->fs[j].fn == fn)
			return &dp->fs[j];
	if (dp->nfs == *cap && pap_grow(&dp->fs, cap, sizeof(*dp->fs), 16))
		return NULL;
	memset(&dp->fs[dp->nfs], 0, sizeof(dp->fs[0]));
	dp->fs[dp->nfs].fn = fn;
	return &dp->fs[dp->nfs++];
}

/* Adds record @i to @f's list, to be decoded by func_decode(). */
static int func_add_rec(struct dfunc *f, size_t i)
{
	if (f->nrecs == f->caprecs &&
	    pap_grow(&f->recs, &f->caprecs, sizeof(*f->recs), 16))
		return -1;
	f->recs[f->nrecs++] = i;
	return 0;
}

/*
 * The least count a path of @f may have to be among the first dp->rank
 * once sorted (0: any, when every path is ranked), and into *@n how many
 * records have at least it.  Records that fail to decode only lower the
 * real bound: paths ranked without their first blocks get them again
 * (sort_run()).
 */
static uint64_t rank_least(const struct dprofile *dp, const struct dfunc *f,
			   size_t *n)
{
	struct topk t = { NULL, 0, dp->rank };
	uint64_t least;
	size_t i;

	*n = f->nrecs;
	if (!dp->rank || f->nrecs <= dp->rank)
		return 0;
	t.h = malloc(dp->rank * sizeof(*t.h));
	if (!t.h)
		return 0;
	for (i = 0; i < f->nrecs; i++)
		topk_offer(&t, dp->prof->recs[f->recs[i]].count);
	least = t.h[0];
	free(t.h);
	for (i = 0, *n = 0; i < f->nrecs; i++)
		*n += dp->prof->recs[f->recs[i]].count >= least;
	return least;
}

int func_decode(struct dprofile *dp, struct dfunc *f)
{
	uint32_t *heads = NULL;
	struct pap_path scratch;
	size_t i, nheads, kept = 0;
	uint64_t least;
	int rc = 0, light, note;

	if (f->decoded)
		return 0;
	f->decoded = 1;
	dp->total -= f->total;
	f->total = 0;
	pap_path_init(&scratch);
	/* the first blocks of each path that may be ordered among its
	 * count's: all, or those as hot as the dp->rank-th */
	least = rank_least(dp, f, &nheads);
	if (nheads)
		heads = malloc(nheads * DPATH_HEAD * sizeof(*heads));
	light = least && !dp->on_whole && !dp->on_form;
	note = dp->note_bl;
	for (i = 0; i < f->nrecs; i++) {
		const struct pap_prof_rec *r = &dp->prof->recs[f->recs[i]];
		uint32_t head[DPATH_HEAD], *h = NULL;
		struct dpath p;
		int e, summed;

		if (heads && r->count >= least && kept < nheads)
			h = heads + kept * DPATH_HEAD;
		progress("decoding", i, f->nrecs);
		/* a path that cannot be among those shown needs its count,
		 * lengths and ids, which its segments give */
		e = h || !light || r->count >= least ? 1 :
		    record_sum(f, r, &p, note, &scratch);
		summed = e <= 0;
		if (e > 0)
			e = decode_rec(f, r, &p, &scratch, h ? h : head,
				       note, dp);
		if (note && record_sum_tainted(f))
			note = 0;	/* the ids are had again below */
		p.head = h;
		kept += h && !e;
		if (e) {
			fprintf(stderr, "%s: error: %s: function %s: a record "
				"cannot be decoded: %s\n", pap_prog, dp->file,
				f->fn->name, pap_strerror(e));
			dp->d->errors++;
			continue;
		}
		if (f->npaths == f->cap &&
		    pap_grow(&f->paths, &f->cap, sizeof(*f->paths), 16)) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			rc = -1;
			break;
		}
		if (note && !summed && !path_repeats(&p))
			path_note_bl_digits(f, &p, scratch.edges,
					    scratch.len, &f->digits);
		if (dp->on_whole && !path_repeats(&p))
			dp->on_whole(dp->on_path_ctx, f, &p, &scratch);
		f->paths[f->npaths++] = p;
		if (p.count == UINT64_MAX || f->total > UINT64_MAX - p.count)
			dp->saturated = 1;
		f->total = pap_sat_add(f->total, p.count);
	}
	progress_done();
	pap_path_free(&scratch);
	if (dp->note_bl && record_sum_tainted(f)) {
		/* counted again from the paths decoded (func_bl_taken()) */
		free(f->blset.slot);
		memset(&f->blset, 0, sizeof(f->blset));
		f->bl_noted = 0;
	}
	seg_sums_free(f->segs);	/* of use while records are read only */
	f->segs = NULL;
	if (dp->total > UINT64_MAX - f->total)
		dp->saturated = 1;
	dp->total = pap_sat_add(dp->total, f->total);
	free(f->recs);
	f->recs = NULL;
	f->nrecs = f->caprecs = 0;
	if (!rc && f->npaths && sort_paths(f, dp->rank))
		rc = -1;
	for (i = 0; heads && i < f->npaths; i++)
		f->paths[i].head = NULL;
	free(heads);
	if (rc)
		dp->d->errors++;
	return rc;
}

void func_trim(struct dfunc *f, size_t keep)
{
	size_t j;
	struct dpath *n;

	if (keep >= f->npaths)
		return;
	for (j = keep; j < f->npaths; j++) {
		free(f->paths[j].blocks);
		free(f->paths[j].edges);
	}
	f->npaths = keep;
	if (!keep) {
		free(f->paths);
		f->paths = NULL;
		f->cap = 0;
		return;
	}
	n = realloc(f->paths, keep * sizeof(*n));
	if (n) {
		f->paths = n;
		f->cap = keep;
	}
}

void func_release(struct dfunc *f)
{
	pap_memo_free(f->memo);
	f->memo = NULL;
	pap_bpack_buf_free(&f->unpacked);
	pap_pieces_free(&f->pieces);
	f->pieces_gen++;
	piece_memo_free(f->pmemo);
	f->pmemo = NULL;
	bl_spans_free(f->spans);
	f->spans = NULL;
	free(f->digits.p);
	memset(&f->digits, 0, sizeof(f->digits));
	free(f->numtext);
	f->numtext = NULL;
}

int decode_profile(struct decoder *d, const struct pap_profile *prof,
		   const char *file, const struct ropts *o,
		   struct dprofile *out)
{
	struct dfunc *df = NULL;
	struct pap_meta_fn *kfn = NULL;
	const char *key = NULL;
	size_t i, cap = 0;
	int kmatch = -1;

	memset(out, 0, sizeof(*out));
	out->d = d;
	out->prof = prof;
	out->file = file;
	/* the text and JSON reports show the first --top paths; the
	 * others say how many they show */
	out->rank = !o ? 0 : o->lazy && o->top ? o->top : o->rank;
	out->note_bl = o && o->want_cov;
	for (i = 0; i < prof->nrecs; i++) {
		const struct pap_prof_rec *r = &prof->recs[i];
		struct pap_meta_fn *fn;

		progress("reading the metadata", i, prof->nrecs);
		if (sel_early_key(r->fn))
			continue;	/* print_selective()'s */
		if (pap_rec_key_prefix(r->kind))
			continue;	/* a program kind's: kept, no path */
		/* a function's records come together, their key one
		 * string of the profile's: resolved and matched once */
		if (r->fn != key) {
			key = r->fn;
			kfn = resolve_fn(d, key);
			kmatch = -1;
		}
		fn = kfn;
		if (fn && fn->sel)
			continue;
		if (!fn) {
			if (key_is_stale(d, r->fn))
				d->nstale_recs++;
			else
				d->errors++;
			continue;
		}
		if (kmatch < 0)
			kmatch = !(o && o->have_regex &&
				   regexec(&o->fn_regex, fn->name, 0, NULL,
					   0));
		if (!kmatch)
			continue;
		if (!df || df->fn != fn)
			df = func_of(out, &cap, fn);
		if (!df || func_add_rec(df, i))
			goto oom;
		/* until decoded: what was recorded */
		if (r->count == UINT64_MAX ||
		    df->total > UINT64_MAX - r->count ||
		    out->total > UINT64_MAX - r->count)
			out->saturated = 1;
		df->total = pap_sat_add(df->total, r->count);
		out->total = pap_sat_add(out->total, r->count);
	}
	progress_done();
	if (out->nfs)
		qsort(out->fs, out->nfs, sizeof(*out->fs), by_name);
	if (o && o->lazy)
		return 0;
	for (i = 0; i < out->nfs; i++)
		if (func_decode(out, &out->fs[i]))
			return -1;
	return 0;
oom:
	progress_done();
	fprintf(stderr, "%s: error: out of memory\n", pap_prog);
	d->errors++;
	return -1;
}

void dprofile_free(struct dprofile *dp)
{
	size_t i, j;

	for (i = 0; i < dp->nfs; i++) {
		for (j = 0; j < dp->fs[i].npaths; j++) {
			free(dp->fs[i].paths[j].blocks);
			free(dp->fs[i].paths[j].edges);
		}
		free(dp->fs[i].paths);
		free(dp->fs[i].recs);
		pap_plan_free(dp->fs[i].bl);
		func_release(&dp->fs[i]);
		free(dp->fs[i].blset.slot);
	}
	free(dp->fs);
	memset(dp, 0, sizeof(*dp));
}

static struct timespec progress_start;
static int progress_shown, progress_started;

static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - progress_start.tv_sec) +
	       (now.tv_nsec - progress_start.tv_nsec) / 1e9;
}

void progress(const char *what, size_t done, size_t total)
{
	if (done & 0x3f)
		return;
	if (!progress_started) {
		clock_gettime(CLOCK_MONOTONIC, &progress_start);
		progress_started = 1;
		return;
	}
	if (!isatty(2) || elapsed() < 2.0)
		return;
	fprintf(stderr, "\r%s: %s: %zu of %zu (%.0f%%)", pap_prog, what, done,
		total, total ? 100.0 * done / total : 0);
	progress_shown = 1;
}

void progress_done(void)
{
	if (progress_shown)
		fprintf(stderr, "\r\033[K");
	progress_shown = progress_started = 0;
}

int decode_file(struct decoder *d, const struct ropts *o, const char *path,
		char *dirbuf, size_t dirlen, struct pap_profile *prof,
		struct dprofile *dp)
{
	char *slash;

	memset(dp, 0, sizeof(*dp));
	snprintf(dirbuf, dirlen, "%s", path);
	slash = strrchr(dirbuf, '/');
	if (slash) {
		*slash = 0;
		decoder_add_dir(d, dirbuf);
	}
	decoder_add_dir(d, ".");
	pap_profile_init(prof);
	if (load_profile(path, prof))
		return -1;
	return decode_profile(d, prof, path, o, dp);
}
