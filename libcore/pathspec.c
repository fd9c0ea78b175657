/* SPDX-License-Identifier: MIT */
/*
 * pathspec.c - reading, merging and writing path spec files (pathspec.h).
 * Checking a path against a function's graph is in pathspec_check.c.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cfgmodel.h"
#include "diag.h"
#include "pathspec.h"
#include "util.h"

void pap_spec_init(struct pap_spec *s)
{
	memset(s, 0, sizeof(*s));
}

static void spec_path_free(struct pap_spec_path *p)
{
	free(p->name);
	free(p->qual);
	free(p->blocks);
	free(p->lines);
	free(p->index);
	free(p->fn_file);
	free(p->given);
	free(p->given_lines);
}

void pap_spec_free(struct pap_spec *s)
{
	size_t i;

	for (i = 0; i < s->npaths; i++)
		spec_path_free(&s->paths[i]);
	free(s->paths);
	for (i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->msgs);
	free(s->places);
	pap_spec_calls_free(s);
	pap_spec_init(s);
}

/* The index in s->files of @file, one of them (by address); the last
 * one if not. */
static size_t spec_file_index(const struct pap_spec *s, const char *file)
{
	size_t i = s->nfiles;

	while (i > 1 && s->files[i - 1] != file)
		i--;
	return i ? i - 1 : 0;
}

/* Appends one "FILE:LINE: error: ..." line to s->msgs and counts it;
 * out of memory, the message is lost but still counted. */
static int spec_vmsg(struct pap_spec *s, const char *file, unsigned line,
		     const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n;

	pap_diag(0, buf, sizeof(buf) - 1, file, line, "%s", "");
	n = strlen(buf);
	vsnprintf(buf + n, sizeof(buf) - 1 - n, fmt, ap);
	n = strlen(buf);
	buf[n++] = '\n';
	s->nerrors++;
	if (s->msglen + n + 1 > s->msgcap) {
		size_t cap = s->msgcap ? s->msgcap : 256;
		char *m;

		while (cap < s->msglen + n + 1)
			cap *= 2;
		m = realloc(s->msgs, cap);
		if (!m)
			return PAP_ECORRUPT;
		s->msgs = m;
		s->msgcap = cap;
	}
	if (s->nplaces == s->capplaces &&
	    pap_grow(&s->places, &s->capplaces, sizeof(*s->places), 16))
		return PAP_ECORRUPT;
	s->places[s->nplaces].file = spec_file_index(s, file);
	s->places[s->nplaces].line = line;
	s->places[s->nplaces].off = s->msglen;
	s->places[s->nplaces++].len = n;
	memcpy(s->msgs + s->msglen, buf, n);
	s->msglen += n;
	s->msgs[s->msglen] = 0;
	return PAP_ECORRUPT;
}

static int by_place(const void *a, const void *b)
{
	const struct pap_spec_place *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

int pap_spec_sort_msgs(struct pap_spec *s)
{
	char *m;
	size_t i, at = 0;

	if (!s->nplaces)
		return PAP_OK;
	m = malloc(s->msgcap);
	if (!m)
		return PAP_ENOMEM;
	qsort(s->places, s->nplaces, sizeof(*s->places), by_place);
	for (i = 0; i < s->nplaces; i++) {
		memcpy(m + at, s->msgs + s->places[i].off, s->places[i].len);
		s->places[i].off = at;
		at += s->places[i].len;
	}
	m[at] = 0;
	free(s->msgs);
	s->msgs = m;
	return PAP_OK;
}

int pap_spec_error(struct pap_spec *s, const struct pap_spec_path *p,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spec_vmsg(s, p->file, p->line, fmt, ap);
	va_end(ap);
	return PAP_ECORRUPT;
}

int pap_spec_error_at(struct pap_spec *s, const char *file, unsigned line,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spec_vmsg(s, file, line, fmt, ap);
	va_end(ap);
	return PAP_ECORRUPT;
}

/* A line being read: [p, end) (a comment already cut off), its number,
 * its file, the spec its messages go to. */
struct spec_lexer {
	const char *p, *end, *file;
	unsigned line;
	struct pap_spec *s;
};

static int spec_error(struct spec_lexer *lx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int spec_error(struct spec_lexer *lx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spec_vmsg(lx->s, lx->file, lx->line, fmt, ap);
	va_end(ap);
	return PAP_ECORRUPT;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Words quoted in messages are cut to this many bytes. */
#define SHOWN 40
#define SHOW(n) (int)((n) > SHOWN ? SHOWN : (n))

/* The next word of the line; 0 at its end. */
static int spec_word(struct spec_lexer *lx, const char **w, size_t *n)
{
	while (lx->p < lx->end && is_space(*lx->p))
		lx->p++;
	*w = lx->p;
	while (lx->p < lx->end && !is_space(*lx->p))
		lx->p++;
	*n = (size_t)(lx->p - *w);
	return *n != 0;
}

/* Word @w (@n bytes) as a number of @base (10, or 16 with at most 16
 * digits when not @exact16, exactly 16 when it is), at most @max; PAP_OK
 * or an error naming @what. */
static int spec_value(struct spec_lexer *lx, const char *w, size_t n,
		      int base, int exact16, uint64_t max, const char *what,
		      uint64_t *v)
{
	size_t i;

	if (base == 16 && (exact16 ? n != 16 : n > 16 || !n))
		return spec_error(lx, "%s must be %s hex digits", what,
				  exact16 ? "16" : "1 to 16");
	if (!n)
		return spec_error(lx, "missing %s", what);
	*v = 0;
	for (i = 0; i < n; i++) {
		char c = w[i];
		unsigned d;

		if (is_digit(c))
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return spec_error(lx, "%s '%.*s' is not a number", what,
					  SHOW(n), w);
		if (*v > (max - d) / (uint64_t)base)
			return spec_error(lx, "%s '%.*s' is too large", what,
					  SHOW(n), w);
		*v = *v * (uint64_t)base + d;
	}
	return PAP_OK;
}

/* The next word as a number; see spec_value(). */
static int spec_number(struct spec_lexer *lx, int base, uint64_t max,
		       const char *what, uint64_t *v)
{
	const char *w;
	size_t n;

	if (!spec_word(lx, &w, &n))
		return spec_error(lx, "missing %s", what);
	return spec_value(lx, w, n, base, 1, max, what, v);
}

/* The @n bytes at @w as a string; NULL out of memory. */
static char *spec_strndup(const char *w, size_t n)
{
	char *c = malloc(n + 1);

	if (c) {
		memcpy(c, w, n);
		c[n] = 0;
	}
	return c;
}

/* Appends @v to @a (@n of @cap); PAP_ENOMEM. */
static int push_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
	if (*n == *cap && pap_grow(a, cap, sizeof(**a), 64))
		return PAP_ENOMEM;
	(*a)[(*n)++] = v;
	return PAP_OK;
}

/* A version 1 path line's fields after "path", into @p. */
static int spec_path_v1(struct spec_lexer *lx, struct pap_spec_path *p)
{
	const char *w;
	size_t n, cap = 0;
	uint64_t b;
	int r;

	if (!spec_word(lx, &w, &n))
		return spec_error(lx, "missing function name");
	p->name = spec_strndup(w, n);
	if (!p->name)
		return PAP_ENOMEM;
	p->has_checksum = 1;
	if ((r = spec_number(lx, 16, UINT64_MAX, "checksum", &p->checksum)) ||
	    (r = spec_number(lx, 10, UINT64_MAX, "count", &p->count)))
		return r;
	while (spec_word(lx, &w, &n)) {
		if ((r = spec_value(lx, w, n, 10, 0, UINT32_MAX, "block", &b)))
			return r;
		if (p->nblocks == PAP_SPEC_MAX_LEN)
			return spec_error(lx, "a path of more than %u blocks",
					  PAP_SPEC_MAX_LEN);
		if ((r = push_u32(&p->blocks, &p->nblocks, &cap, (uint32_t)b)))
			return r;
	}
	if (!p->nblocks)
		return spec_error(lx, "a path of no blocks");
	return PAP_OK;
}

/* A block's "[LINE,...]" at lx->p into @p's given lines; its offset + 1
 * there in *@id. */
static int spec_given(struct spec_lexer *lx, struct pap_spec_path *p,
		      uint32_t block, size_t *cap, uint32_t *id)
{
	const char *b = lx->p;
	size_t at = p->ngiven_lines;
	int r;

	if ((r = push_u32(&p->given_lines, &p->ngiven_lines, cap, 0)))
		return r;
	do {
		const char *d = ++lx->p;
		uint64_t l;

		while (lx->p < lx->end && is_digit(*lx->p))
			lx->p++;
		if (lx->p == d || lx->p == lx->end ||
		    (*lx->p != ',' && *lx->p != ']'))
			return spec_error(lx, "bad source lines '%.*s' after "
					  "block %u (want [LINE,...])",
					  SHOW((size_t)(lx->end - b)), b,
					  block);
		if ((r = spec_value(lx, d, (size_t)(lx->p - d), 10, 0,
				    UINT32_MAX, "source line", &l)) ||
		    (r = push_u32(&p->given_lines, &p->ngiven_lines, cap,
				  (uint32_t)l)))
			return r;
		p->given_lines[at]++;
	} while (*lx->p == ',');
	lx->p++;
	if (p->ngiven_lines > UINT32_MAX)
		return spec_error(lx, "too many source lines in brackets");
	*id = (uint32_t)at + 1;
	return PAP_OK;
}

/*
 * A sequence of @what ("block" or "line") items up to the line's end,
 * each "( ... )^N" expanded, into @out/@n: numbers, and with @bp (a
 * "path") a block's "[LINE,...]" after its number, kept in bp->given and
 * bp->given_lines.  Every malformed item is an error naming it.
 */
static int spec_seq(struct spec_lexer *lx, const char *what,
		    struct pap_spec_path *bp, uint32_t **out, size_t *n)
{
	size_t cap = 0, *open = NULL, nopen = 0, capopen = 0;
	size_t ng = 0, gcap = 0, lcap = 0, nbr = 0;
	int r = PAP_OK;

	*n = 0;
	for (;;) {
		const char *w;
		uint64_t v, reps, len, k;
		uint32_t id = 0;
		size_t start;

		while (lx->p < lx->end && is_space(*lx->p))
			lx->p++;
		if (lx->p == lx->end)
			break;
		w = lx->p;
		if (is_digit(*w)) {
			while (lx->p < lx->end && is_digit(*lx->p))
				lx->p++;
			r = spec_value(lx, w, (size_t)(lx->p - w), 10, 0,
				       UINT32_MAX, what, &v);
			if (r)
				break;
			if (lx->p < lx->end && *lx->p == '[') {
				if (!bp) {
					r = spec_error(lx, "unexpected '[' "
						       "after %s %llu", what,
						       (unsigned long long)v);
					break;
				}
				if ((r = spec_given(lx, bp, (uint32_t)v, &lcap,
						    &id)))
					break;
				nbr++;
			}
			if (lx->p < lx->end && !is_space(*lx->p) &&
			    *lx->p != ')' && *lx->p != '(') {
				r = spec_error(lx, "unexpected '%c' after %s "
					       "%llu", *lx->p, what,
					       (unsigned long long)v);
				break;
			}
			if (*n == PAP_SPEC_MAX_LEN) {
				r = spec_error(lx, "a path of more than %u %ss",
					       PAP_SPEC_MAX_LEN, what);
				break;
			}
			if ((r = push_u32(out, n, &cap, (uint32_t)v)) ||
			    (bp && (r = push_u32(&bp->given, &ng, &gcap, id))))
				break;
			continue;
		}
		if (*w == '(') {
			lx->p++;
			if (nopen == capopen &&
			    pap_grow(&open, &capopen, sizeof(*open), 8)) {
				r = PAP_ENOMEM;
				break;
			}
			open[nopen++] = *n;
			continue;
		}
		if (*w == ')') {
			const char *c = ++lx->p;

			if (lx->p < lx->end && *lx->p == '^')
				c = ++lx->p;
			while (lx->p < lx->end && is_digit(*lx->p))
				lx->p++;
			if (c == w + 1 || c == lx->p ||
			    (lx->p < lx->end && !is_space(*lx->p) &&
			     *lx->p != ')' && *lx->p != '(')) {
				r = spec_error(lx, "bad repeat '%.*s': a group "
					       "ends with ')^N', N its number "
					       "of times", SHOW((size_t)
					       (lx->p - w) + (lx->p < lx->end)),
					       w);
				break;
			}
			if ((r = spec_value(lx, c, (size_t)(lx->p - c), 10, 0,
					    UINT64_MAX, "repeat count",
					    &reps)))
				break;
			if (!nopen) {
				r = spec_error(lx, "'%.*s' closes no '('",
					       SHOW((size_t)(lx->p - w)), w);
				break;
			}
			start = open[--nopen];
			len = *n - start;
			if (!reps || !len) {
				r = spec_error(lx, "bad repeat '%.*s': %s",
					       SHOW((size_t)(lx->p - w)), w,
					       !len ? "nothing to repeat in "
					       "its '( )'" : "a group is taken "
					       "at least once");
				break;
			}
			if (reps - 1 > (PAP_SPEC_MAX_LEN - *n) / len) {
				r = spec_error(lx, "a path of more than %u %ss "
					       "once its repeats are expanded",
					       PAP_SPEC_MAX_LEN, what);
				break;
			}
			for (k = 1; !r && k < reps; k++) {
				size_t j;

				for (j = 0; !r && j < len; j++) {
					r = push_u32(out, n, &cap,
						     (*out)[start + j]);
					if (!r && bp)
						r = push_u32(&bp->given, &ng,
							     &gcap, bp->given
							     [start + j]);
				}
			}
			if (r)
				break;
			continue;
		}
		if (*w == '.' && lx->end - w >= 3 && !strncmp(w, "...", 3)) {
			r = spec_error(lx, "'...' stands for %ss a report left "
				       "out: give the whole path (pap-decode "
				       "--write-spec writes it)", what);
			break;
		}
		r = spec_error(lx, "unexpected '%c' among the %ss", *w, what);
		break;
	}
	if (!r && nopen)
		r = spec_error(lx, "'(' not closed by ')^N'");
	if (!r && !*n)
		r = spec_error(lx, "a path of no %ss", what);
	if (bp && !nbr) {
		free(bp->given);
		bp->given = NULL;
	}
	free(open);
	return r;
}

/* "[FILE:]NAME" into @p. */
static int spec_name(struct spec_lexer *lx, struct pap_spec_path *p)
{
	const char *w, *colon;
	size_t n;

	if (!spec_word(lx, &w, &n) || is_digit(*w) || *w == '(' ||
	    strchr("=#", *w))
		return spec_error(lx, "missing function name");
	for (colon = w + n; colon > w && colon[-1] != ':'; colon--)
		;
	colon = colon > w ? colon - 1 : NULL;
	if (colon) {
		if (colon == w || colon == w + n - 1)
			return spec_error(lx, "bad function '%.*s': want "
					  "FILE:NAME or NAME", SHOW(n), w);
		p->qual = spec_strndup(w, (size_t)(colon - w));
		if (!p->qual)
			return PAP_ENOMEM;
		n -= (size_t)(colon + 1 - w);
		w = colon + 1;
	}
	p->name = spec_strndup(w, n);
	return p->name ? PAP_OK : PAP_ENOMEM;
}

/* The "key=value" fields after the name, up to the first item. */
static int spec_fields(struct spec_lexer *lx, struct pap_spec_path *p)
{
	int have_count = 0;

	for (;;) {
		const char *w, *eq, *save = lx->p;
		size_t n;
		int r;

		if (!spec_word(lx, &w, &n))
			return PAP_OK;
		eq = memchr(w, '=', n);
		if (!eq) {
			lx->p = save;
			return PAP_OK;
		}
		if (eq - w == 8 && !memcmp(w, "checksum", 8)) {
			if (p->has_checksum)
				return spec_error(lx, "checksum given twice");
			p->has_checksum = 1;
			r = spec_value(lx, eq + 1, n - 9, 16, 0, UINT64_MAX,
				       "checksum", &p->checksum);
		} else if (eq - w == 5 && !memcmp(w, "count", 5)) {
			if (have_count++)
				return spec_error(lx, "count given twice");
			r = spec_value(lx, eq + 1, n - 6, 10, 0, UINT64_MAX,
				       "count", &p->count);
		} else {
			r = spec_error(lx, "unknown field '%.*s' (checksum= "
				       "and count= are known)",
				       SHOW((size_t)(eq + 1 - w)), w);
		}
		if (r)
			return r;
	}
}

/* A version 2 "path" or "lines" line's fields after its kind. */
static int spec_path_v2(struct spec_lexer *lx, struct pap_spec_path *p)
{
	int r;

	if ((r = spec_name(lx, p)) || (r = spec_fields(lx, p)))
		return r;
	if (p->kind == PAP_SPEC_LINES)
		return spec_seq(lx, "line", NULL, &p->lines, &p->nlines);
	return spec_seq(lx, "block", p, &p->blocks, &p->nblocks);
}

/* The version line: PAP_OK with *@major and *@minor, or an error. */
static int spec_header(struct spec_lexer *lx, unsigned *major,
		       unsigned *minor)
{
	size_t m = strlen(PAP_SPEC_MAGIC), n = (size_t)(lx->end - lx->p);
	const char *v = lx->p + m;
	unsigned long mj, mn = 0;
	char *e;

	if (n < m || strncmp(lx->p, PAP_SPEC_MAGIC, m) || !is_digit(*v))
		return spec_error(lx, "not a pap path spec file");
	mj = strtoul(v, &e, 10);
	if (*e == '.' && is_digit(e[1]))
		mn = strtoul(e + 1, &e, 10);
	while (e < lx->end && is_space(*e))
		e++;
	if (e != lx->end || mj < 1 || mj > PAP_SPEC_VERSION || mn > 0xffff)
		return spec_error(lx, "path spec version %.*s not supported "
				  "(this pap reads versions 1 to %d)",
				  SHOW((size_t)(lx->end - v)), v,
				  PAP_SPEC_VERSION);
	*major = (unsigned)mj;
	*minor = (unsigned)mn;
	return PAP_OK;
}

/* ---- merging ---- */

/* Is @p resolved (checked against a function)? */
static int resolved(const struct pap_spec_path *p)
{
	return p->index != NULL;
}

static uint64_t hash_more(uint64_t h, const void *v, size_t n)
{
	const unsigned char *c = v;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* A path's key: resolved, its function (name, source file) and blocks;
 * else its kind, name, qualifier, checksum and blocks or lines as
 * written. */
static uint64_t spec_hash(const struct pap_spec_path *p)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int r = resolved(p);
	const char *f = r ? p->fn_file : p->qual ? p->qual : "";

	h = hash_more(h, &r, sizeof(r));
	if (!r && p->has_checksum)
		h = hash_more(h, &p->checksum, sizeof(p->checksum));
	h = hash_more(h, p->name, strlen(p->name) + 1);
	h = hash_more(h, f, strlen(f) + 1);
	if (r || p->kind == PAP_SPEC_BLOCKS)
		return hash_more(h, p->blocks, p->nblocks * sizeof(*p->blocks));
	h = hash_more(h, "l", 1);
	return hash_more(h, p->lines, p->nlines * sizeof(*p->lines));
}

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int spec_same(const struct pap_spec_path *a,
		     const struct pap_spec_path *b)
{
	if (resolved(a) != resolved(b) || strcmp(a->name, b->name))
		return 0;
	if (resolved(a))
		return str_eq(a->fn_file, b->fn_file) &&
		       a->nblocks == b->nblocks &&
		       !memcmp(a->blocks, b->blocks,
			       a->nblocks * sizeof(*a->blocks));
	if (a->kind != b->kind || !str_eq(a->qual, b->qual) ||
	    a->has_checksum != b->has_checksum ||
	    (a->has_checksum && a->checksum != b->checksum))
		return 0;
	if (a->kind == PAP_SPEC_LINES)
		return a->nlines == b->nlines &&
		       !memcmp(a->lines, b->lines,
			       a->nlines * sizeof(*a->lines));
	return a->nblocks == b->nblocks &&
	       !memcmp(a->blocks, b->blocks, a->nblocks * sizeof(*a->blocks));
}

/*
 * Merges every path of @s into the first one the same as it (spec_same),
 * in order: the later one's count is added to the first's and the later
 * one dropped.  PAP_OK, or PAP_ENOMEM with @s unchanged.
 */
static int spec_dedupe(struct pap_spec *s)
{
	size_t nslots = 16, i, kept = 0;
	size_t *slots;

	while (nslots < 2 * s->npaths)
		nslots *= 2;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return PAP_ENOMEM;
	for (i = 0; i < s->npaths; i++) {
		struct pap_spec_path *p = &s->paths[i];
		size_t h = (size_t)spec_hash(p) & (nslots - 1);

		while (slots[h] && !spec_same(&s->paths[slots[h] - 1], p))
			h = (h + 1) & (nslots - 1);
		if (slots[h]) {
			struct pap_spec_path *q = &s->paths[slots[h] - 1];

			q->count = pap_sat_add(q->count, p->count);
			spec_path_free(p);
			continue;
		}
		s->paths[kept] = *p;
		slots[h] = ++kept;
	}
	s->npaths = kept;
	free(slots);
	return PAP_OK;
}

int pap_spec_merge(struct pap_spec *s)
{
	return spec_dedupe(s);
}

/* ---- reading ---- */

/* Keeps a copy of file name @file in @s; NULL out of memory. */
static const char *spec_file(struct pap_spec *s, const char *file)
{
	char **f = realloc(s->files, (s->nfiles + 1) * sizeof(*f));

	if (!f)
		return NULL;
	s->files = f;
	f[s->nfiles] = strdup(file);
	return f[s->nfiles] ? f[s->nfiles++] : NULL;
}

/* Appends @p to @s; PAP_ENOMEM leaves @s as it was. */
static int spec_append(struct pap_spec *s, const struct pap_spec_path *p)
{
	if (s->npaths == s->cap &&
	    pap_grow(&s->paths, &s->cap, sizeof(*s->paths), 16))
		return PAP_ENOMEM;
	s->paths[s->npaths++] = *p;
	return PAP_OK;
}

int pap_spec_parse(struct pap_spec *s, const char *text, const char *file)
{
	struct spec_lexer lx = { text, NULL, NULL, 0, s };
	unsigned major = 0, minor = 0, errors = s->nerrors;
	int r = PAP_OK;

	lx.file = spec_file(s, file);
	if (!lx.file)
		return PAP_ENOMEM;
	while (r != PAP_ENOMEM && *lx.p) {
		const char *w, *next, *hash;
		size_t n;

		lx.line++;
		lx.end = strchr(lx.p, '\n');
		if (!lx.end)
			lx.end = lx.p + strlen(lx.p);
		next = *lx.end ? lx.end + 1 : lx.end;
		hash = memchr(lx.p, '#', (size_t)(lx.end - lx.p));
		if (hash && lx.line > 1)
			lx.end = hash;
		if (lx.line == 1) {
			r = spec_header(&lx, &major, &minor);
			if (r)
				break;	/* not a spec: say nothing more */
		} else if (spec_word(&lx, &w, &n)) {
			int lines = n == 5 && !memcmp(w, "lines", 5);

			if ((n == 4 && !memcmp(w, "path", 4)) ||
			    (lines && major > 1)) {
				struct pap_spec_path p;

				memset(&p, 0, sizeof(p));
				p.kind = lines ? PAP_SPEC_LINES :
					 PAP_SPEC_BLOCKS;
				p.file = lx.file;
				p.line = lx.line;
				r = major == 1 ? spec_path_v1(&lx, &p) :
				    spec_path_v2(&lx, &p);
				if (!r)
					r = spec_append(s, &p);
				if (r)
					spec_path_free(&p);
			} else if (n == 5 && !memcmp(w, "calls", 5) &&
				   major == 2 &&
				   minor < PAP_SPEC_MINOR_CALLS) {
				r = spec_error(&lx, "a 'calls' line needs "
					       "'pap-spec 2.%d' in the first "
					       "line (a 2.0 reader refuses it)",
					       PAP_SPEC_MINOR_CALLS);
			} else if (n == 5 && !memcmp(w, "calls", 5) &&
				   major > 1) {
				r = pap_spec_parse_calls(s, lx.p, lx.end,
							 lx.file, lx.line);
			} else if (!minor) {
				r = spec_error(&lx, "unknown line '%.*s' (a "
					       "line is 'path', 'lines', "
					       "'calls' or a # comment)",
					       SHOW(n), w);
			}
		}
		lx.p = next;
	}
	if (!lx.line) {
		lx.line = 1;
		spec_error(&lx, "empty file, not a pap path spec file");
	}
	if (r == PAP_ENOMEM)
		spec_error(&lx, "out of memory");
	if (r == PAP_ENOMEM)
		return r;
	r = spec_dedupe(s);
	return r ? r : s->nerrors != errors ? PAP_ECORRUPT : PAP_OK;
}

int pap_spec_names(const struct pap_spec_path *p, const char *name,
		   const char *file)
{
	size_t nf, nq;

	if (strcmp(p->name, name))
		return 0;
	if (!p->qual || !file)
		return 1;
	nf = strlen(file);
	nq = strlen(p->qual);
	return nq <= nf && !strcmp(file + nf - nq, p->qual) &&
	       (nq == nf || file[nf - nq - 1] == '/');
}

/* ---- writing ---- */

int pap_spec_put_header(FILE *f)
{
	return fprintf(f, "%s%d\n", PAP_SPEC_MAGIC, PAP_SPEC_VERSION) < 0 ?
	       -1 : 0;
}

int pap_spec_put_path_head(FILE *f, const char *qual, const char *name,
			   uint64_t checksum, uint64_t count)
{
	return fprintf(f, "path %s%s%s checksum=%016llx count=%llu",
		       qual ? qual : "", qual ? ":" : "", name,
		       (unsigned long long)checksum,
		       (unsigned long long)count) < 0 ? -1 : 0;
}
