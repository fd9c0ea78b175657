/* SPDX-License-Identifier: MIT */
/*
 * pathspec_calls.c - the "calls" lines of path spec files (pathspec.h):
 * call sequences of interest, read, merged, hashed and written.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pathspec.h"
#include "util.h"

/* Words quoted in messages are cut to this many bytes. */
#define SHOWN 40
#define SHOW(n) (int)((n) > SHOWN ? SHOWN : (n))

static void calls_one_free(struct pap_spec_calls *c)
{
	size_t i;

	for (i = 0; i < c->nitems; i++)
		free(c->item[i]);
	free(c->item);
}

void pap_spec_calls_free(struct pap_spec *s)
{
	size_t i;

	for (i = 0; i < s->ncalls; i++)
		calls_one_free(&s->calls[i]);
	free(s->calls);
	s->calls = NULL;
	s->ncalls = s->capcalls = 0;
}

int pap_spec_calls_error(struct pap_spec *s, const struct pap_spec_calls *c,
			 const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return pap_spec_error_at(s, c->file, c->line, "%s", buf);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A character of an assembler name as the sequences print it. */
static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_' || c == '.' || c == '$';
}

/* Appends @v to @c's items; PAP_ENOMEM (then @v is freed). */
static int push_item(struct pap_spec_calls *c, size_t *cap, char *v)
{
	if (!v || (c->nitems == *cap &&
		   pap_grow(&c->item, cap, sizeof(*c->item), 16))) {
		free(v);
		return PAP_ENOMEM;
	}
	c->item[c->nitems++] = v;
	return PAP_OK;
}

static char *dup_n(const char *w, size_t n)
{
	char *c = malloc(n + 1);

	if (c) {
		memcpy(c, w, n);
		c[n] = 0;
	}
	return c;
}

/*
 * The items of [@p, @end) into @c, "( ... )^N" expanded; an error names
 * the first malformed item.
 */
static int calls_items(struct pap_spec *s, struct pap_spec_calls *c,
		       const char *p, const char *end)
{
	size_t cap = 0, *open = NULL, nopen = 0, capopen = 0;
	int r = PAP_OK;

#define ERR(...) pap_spec_error_at(s, c->file, c->line, __VA_ARGS__)
	for (;;) {
		const char *w;

		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		w = p;
		if (*w == '(') {
			p++;
			if (nopen == capopen &&
			    pap_grow(&open, &capopen, sizeof(*open), 8)) {
				r = PAP_ENOMEM;
				break;
			}
			open[nopen++] = c->nitems;
			continue;
		}
		if (*w == ')') {
			uint64_t reps = 0;
			size_t start, len, k, j;

			p++;
			if (p == end || *p != '^' || p + 1 == end ||
			    !is_digit(p[1])) {
				r = ERR("bad repeat '%.*s': a group ends with "
					"')^N', N its number of times",
					SHOW((size_t)(p - w) + (p < end)), w);
				break;
			}
			for (++p; p < end && is_digit(*p); p++) {
				if (reps > (UINT64_MAX - 9) / 10) {
					reps = UINT64_MAX;
					continue;
				}
				reps = reps * 10 + (uint64_t)(*p - '0');
			}
			if (p < end && !is_space(*p) && *p != '(' &&
			    *p != ')') {
				r = ERR("bad repeat '%.*s': a group ends with "
					"')^N', N its number of times",
					SHOW((size_t)(p - w) + 1), w);
				break;
			}
			if (!nopen) {
				r = ERR("'%.*s' closes no '('",
					SHOW((size_t)(p - w)), w);
				break;
			}
			start = open[--nopen];
			len = c->nitems - start;
			if (!reps || !len) {
				r = ERR("bad repeat '%.*s': %s",
					SHOW((size_t)(p - w)), w, !len ?
					"nothing to repeat in its '( )'" :
					"a group is taken at least once");
				break;
			}
			if (reps - 1 > (PAP_SPEC_MAX_LEN - c->nitems) / len) {
				r = ERR("a sequence of more than %u calls once "
					"its repeats are expanded",
					PAP_SPEC_MAX_LEN);
				break;
			}
			for (k = 1; !r && k < reps; k++)
				for (j = 0; !r && j < len; j++)
					r = push_item(c, &cap, strdup(
						c->item[start + j]));
			if (r)
				break;
			continue;
		}
		if (*p == '>')
			p++;
		while (p < end && is_name_char(*p))
			p++;
		if (p == w + (*w == '>') ||
		    (p < end && !is_space(*p) && *p != '(' && *p != ')')) {
			while (p < end && !is_space(*p))
				p++;
			r = ERR("bad function name '%.*s' in a call sequence "
				"(NAME or >NAME)", SHOW((size_t)(p - w)), w);
			break;
		}
		if (c->nitems == PAP_SPEC_MAX_LEN) {
			r = ERR("a sequence of more than %u calls",
				PAP_SPEC_MAX_LEN);
			break;
		}
		if ((r = push_item(c, &cap, dup_n(w, (size_t)(p - w)))))
			break;
	}
	if (!r && nopen)
		r = ERR("'(' not closed by ')^N'");
	if (!r && !c->nitems)
		r = ERR("a call sequence of no functions");
	if (!r && c->item[0][0] == '>')
		r = ERR("a call sequence starts at a thread's first entry, "
			"written plain: '%s', not '%s'", c->item[0] + 1,
			c->item[0]);
#undef ERR
	free(open);
	return r;
}

/* Are @a and @b the same sequence? */
static int calls_same(const struct pap_spec_calls *a,
		      const struct pap_spec_calls *b)
{
	size_t i;

	if (a->nitems != b->nitems)
		return 0;
	for (i = 0; i < a->nitems; i++)
		if (strcmp(a->item[i], b->item[i]))
			return 0;
	return 1;
}

int pap_spec_parse_calls(struct pap_spec *s, const char *p, const char *end,
			 const char *file, unsigned line)
{
	struct pap_spec_calls c;
	int have_count = 0, r = PAP_OK;
	size_t i;

	memset(&c, 0, sizeof(c));
	c.file = file;
	c.line = line;
	/* the fields, up to the first item */
	for (;;) {
		const char *w, *q = p;
		size_t n;

		while (q < end && is_space(*q))
			q++;
		w = q;
		while (q < end && !is_space(*q))
			q++;
		n = (size_t)(q - w);
		if (!n || !memchr(w, '=', n))
			break;
		p = q;
		if (n > 6 && !memcmp(w, "count=", 6)) {
			size_t k;

			if (have_count++) {
				r = pap_spec_error_at(s, file, line,
						      "count given twice");
				break;
			}
			for (k = 6; k < n && is_digit(w[k]); k++) {
				uint64_t d = (uint64_t)(w[k] - '0');

				if (c.count > (UINT64_MAX - d) / 10)
					break;
				c.count = c.count * 10 + d;
			}
			if (k < n) {
				r = pap_spec_error_at(s, file, line,
						      "count '%.*s' is not a "
						      "number up to 2^64-1",
						      SHOW(n - 6), w + 6);
				break;
			}
		} else {
			r = pap_spec_error_at(s, file, line,
					      "unknown field '%.*s' (a calls "
					      "line knows count=)",
					      SHOW(n), w);
			break;
		}
	}
	if (!r)
		r = calls_items(s, &c, p, end);
	if (r) {
		calls_one_free(&c);
		return r;
	}
	for (i = 0; i < s->ncalls; i++)
		if (calls_same(&s->calls[i], &c)) {
			s->calls[i].count = pap_sat_add(s->calls[i].count,
							c.count);
			calls_one_free(&c);
			return PAP_OK;
		}
	if (s->ncalls == s->capcalls &&
	    pap_grow(&s->calls, &s->capcalls, sizeof(*s->calls), 8)) {
		calls_one_free(&c);
		return PAP_ENOMEM;
	}
	s->calls[s->ncalls++] = c;
	return PAP_OK;
}

int pap_spec_calls_names(const struct pap_spec *s, const char *name)
{
	size_t i, j;

	for (i = 0; i < s->ncalls; i++)
		for (j = 0; j < s->calls[i].nitems; j++) {
			const char *it = s->calls[i].item[j];

			if (!strcmp(it + (*it == '>'), name))
				return 1;
		}
	return 0;
}

uint64_t pap_spec_calls_hash(const struct pap_spec *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i, j;

	if (!s->ncalls)
		return 0;
	for (i = 0; i < s->ncalls; i++) {
		for (j = 0; j < s->calls[i].nitems; j++) {
			const unsigned char *c =
				(const unsigned char *)s->calls[i].item[j];

			for (; *c; c++)
				h = (h ^ *c) * 0x100000001b3ull;
			h = (h ^ ' ') * 0x100000001b3ull;
		}
		h = (h ^ '\n') * 0x100000001b3ull;
	}
	return h ? h : 1;
}

int pap_spec_put_calls_head(FILE *f, uint64_t count)
{
	return fprintf(f, "calls count=%llu", (unsigned long long)count) < 0 ?
	       -1 : 0;
}
