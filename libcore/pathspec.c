/* SPDX-License-Identifier: MIT */
/*
 * pathspec.c - reading and writing path spec files (pathspec.h).
 */
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
	free(p->blocks);
}

void pap_spec_free(struct pap_spec *s)
{
	size_t i;

	for (i = 0; i < s->npaths; i++)
		spec_path_free(&s->paths[i]);
	free(s->paths);
	pap_spec_init(s);
}

/* A line being read: [p, end), its number, its file. */
struct spec_lexer {
	const char *p, *end, *file;
	unsigned line;
	char *err;
	size_t errlen;
};

#define spec_error(lx, ...) \
	pap_diag(PAP_ECORRUPT, (lx)->err, (lx)->errlen, (lx)->file, \
		 (lx)->line, __VA_ARGS__)

/* The next space-separated word of the line; 0 at its end. */
static int spec_word(struct spec_lexer *lx, const char **w, size_t *n)
{
	while (lx->p < lx->end && *lx->p == ' ')
		lx->p++;
	*w = lx->p;
	while (lx->p < lx->end && *lx->p != ' ')
		lx->p++;
	*n = (size_t)(lx->p - *w);
	return *n != 0;
}

/* The next word as a number of @base, at most @max; PAP_OK or an error
 * naming @what. */
static int spec_number(struct spec_lexer *lx, int base, uint64_t max,
		       const char *what, uint64_t *v)
{
	const char *w;
	size_t n, i;

	if (!spec_word(lx, &w, &n))
		return spec_error(lx, "missing %s", what);
	if (base == 16 && n != 16)
		return spec_error(lx, "%s must be 16 hex digits", what);
	*v = 0;
	for (i = 0; i < n; i++) {
		char c = w[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			return spec_error(lx, "%s '%.*s' is not a number", what,
					  (int)(n > 40 ? 40 : n), w);
		if (*v > (max - d) / (uint64_t)base)
			return spec_error(lx, "%s '%.*s' is too large", what,
					  (int)(n > 40 ? 40 : n), w);
		*v = *v * (uint64_t)base + d;
	}
	return PAP_OK;
}

/* A "path" line's fields after its kind, into @p (owned by the caller
 * on success and on failure). */
static int spec_path(struct spec_lexer *lx, struct pap_spec_path *p)
{
	const char *w;
	size_t n, cap = 0;
	uint64_t b;
	int r;

	if (!spec_word(lx, &w, &n))
		return spec_error(lx, "missing function name");
	p->name = malloc(n + 1);
	if (!p->name)
		return PAP_ENOMEM;
	memcpy(p->name, w, n);
	p->name[n] = 0;
	if ((r = spec_number(lx, 16, UINT64_MAX, "checksum", &p->checksum)) ||
	    (r = spec_number(lx, 10, UINT64_MAX, "count", &p->count)))
		return r;
	for (;;) {
		while (lx->p < lx->end && *lx->p == ' ')
			lx->p++;
		if (lx->p == lx->end)
			break;
		if ((r = spec_number(lx, 10, UINT32_MAX, "block", &b)))
			return r;
		if (p->nblocks == cap &&
		    pap_grow(&p->blocks, &cap, sizeof(*p->blocks), 64))
			return PAP_ENOMEM;
		p->blocks[p->nblocks++] = (uint32_t)b;
	}
	if (!p->nblocks)
		return spec_error(lx, "a path of no blocks");
	return PAP_OK;
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

/* The version line: PAP_OK with *@minor, or an error. */
static int spec_header(struct spec_lexer *lx, unsigned *minor)
{
	size_t m = strlen(PAP_SPEC_MAGIC), n = (size_t)(lx->end - lx->p);
	const char *v = lx->p + m;
	unsigned long major, mn = 0;
	char *e;

	if (n < m || strncmp(lx->p, PAP_SPEC_MAGIC, m) ||
	    !(*v >= '0' && *v <= '9'))
		return spec_error(lx, "not a pap path spec file");
	major = strtoul(v, &e, 10);
	if (*e == '.' && e[1] >= '0' && e[1] <= '9')
		mn = strtoul(e + 1, &e, 10);
	if (e != lx->end || major != PAP_SPEC_VERSION || mn > 0xffff)
		return spec_error(lx, "path spec version %.*s not supported "
				  "(this pap reads version %d)",
				  (int)(lx->end - v), v, PAP_SPEC_VERSION);
	*minor = (unsigned)mn;
	return PAP_OK;
}

int pap_spec_parse(struct pap_spec *s, const char *text, const char *file,
		   char *err, size_t errlen)
{
	struct spec_lexer lx = { text, NULL, file, 0, err, errlen };
	size_t first = s->npaths;
	unsigned minor = 0;
	int r = PAP_OK;

	while (!r && *lx.p) {
		const char *w;
		size_t n;

		lx.line++;
		lx.end = strchr(lx.p, '\n');
		if (!lx.end)
			lx.end = lx.p + strlen(lx.p);
		if (lx.line == 1) {
			r = spec_header(&lx, &minor);
		} else if (lx.p < lx.end && *lx.p != '#' &&
			   spec_word(&lx, &w, &n)) {
			if (n == 4 && !memcmp(w, "path", 4)) {
				struct pap_spec_path p;

				memset(&p, 0, sizeof(p));
				p.line = lx.line;
				r = spec_path(&lx, &p);
				if (!r)
					r = spec_append(s, &p);
				if (r)
					spec_path_free(&p);
			} else if (!minor) {
				r = spec_error(&lx, "unknown line '%.*s'",
					       (int)(n > 40 ? 40 : n), w);
			}
		}
		lx.p = *lx.end ? lx.end + 1 : lx.end;
	}
	if (!r && !lx.line) {
		lx.line = 1;
		r = spec_error(&lx, "empty file, not a pap path spec file");
	}
	if (r) {
		while (s->npaths > first)
			spec_path_free(&s->paths[--s->npaths]);
		if (r == PAP_ENOMEM)
			pap_diag(r, err, errlen, file, lx.line,
				 "out of memory");
	}
	return r;
}

int pap_spec_put_header(FILE *f)
{
	return fprintf(f, "%s%d\n", PAP_SPEC_MAGIC, PAP_SPEC_VERSION) < 0 ?
	       -1 : 0;
}

int pap_spec_put_path_head(FILE *f, const char *name, uint64_t checksum,
			   uint64_t count)
{
	return fprintf(f, "path %s %016llx %llu", name,
		       (unsigned long long)checksum,
		       (unsigned long long)count) < 0 ? -1 : 0;
}
