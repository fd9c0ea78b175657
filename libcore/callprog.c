/* SPDX-License-Identifier: MIT */
/*
 * callprog.c - a call sequence's program from its units' metadata
 * (callprog.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callprog.h"
#include "fnkey.h"
#include "papdefs.h"

/* "FILE: error: MESSAGE" (no FILE: "error: MESSAGE") into @err; @code. */
__attribute__((format(printf, 5, 6)))
static int cp_error(int code, char *err, size_t errlen, const char *file,
		    const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s%serror: ", file ? file : "",
			 file ? ": " : "");

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}

static int id_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* A function by name, for resolution: sorted by name, then unit. */
struct named {
	const char *name;
	uint32_t unit, fn;
};

static int named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->unit > y->unit) - (x->unit < y->unit);
}

/*
 * The function called @name from unit @unit: its index, PAP_NONE when no
 * unit defines it, or PAP_ECORRUPT's marker (UINT32_MAX - 1) when only
 * several other units do.
 */
#define AMBIGUOUS (PAP_NONE - 1)
static uint32_t resolve(const struct named *idx, size_t n, const char *name,
			uint32_t unit)
{
	size_t lo = 0, hi = n, i, other = 0;
	uint32_t found = PAP_NONE;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(idx[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < n && !strcmp(idx[i].name, name); i++) {
		if (idx[i].unit == unit)
			return idx[i].fn;
		found = idx[i].fn;
		other++;
	}
	return other > 1 ? AMBIGUOUS : found;
}

void pap_cs_built_free(struct pap_cs_built *b)
{
	uint32_t i;

	if (b->key)
		for (i = 0; i < b->prog.nfn; i++)
			free(b->key[i]);
	free(b->key);
	free(b->meta);
	free(b->unit);
	free(b->fn);
	free(b->callee);
	free(b->ncluster);
	free(b->members);
	free(b->cluster);
	memset(b, 0, sizeof(*b));
}

/* Counts the functions with calls, their sites and cluster members. */
static void count(const struct pap_cs_unit *units, size_t n, size_t *nfn,
		  size_t *nsites, size_t *nmembers)
{
	size_t u, j;
	uint32_t k;

	*nfn = *nsites = *nmembers = 0;
	for (u = 0; u < n; u++)
		for (j = 0; j < units[u].nfns; j++) {
			const struct pap_meta_calls *c = units[u].fns[j]->calls;

			if (!c)
				continue;
			(*nfn)++;
			*nsites += c->nsites;
			for (k = 0; k < c->nsites; k++)
				*nmembers += c->ncluster[k];
		}
}

/* Resolves site names of function @i into @b; PAP_OK or an error. */
static int resolve_fn(struct pap_cs_built *b, const struct named *idx,
		      size_t nidx, uint32_t i, uint32_t *site_at,
		      uint32_t *member_at, char *err, size_t errlen)
{
	const struct pap_meta_fn *m = b->meta[i];
	const struct pap_meta_calls *c = m->calls;
	struct pap_cs_fn *f = &b->fn[i];
	uint32_t k, j, at = *site_at;

	f->callee = b->callee + at;
	f->ncluster = b->ncluster + at;
	f->cluster = b->cluster + at;
	for (k = 0; k < c->nsites; k++) {
		uint32_t to = PAP_NONE;

		if (c->callee[k]) {
			to = resolve(idx, nidx, c->callee[k], b->unit[i]);
			if (to == AMBIGUOUS)
				return cp_error(PAP_ECORRUPT, err, errlen,
						m->meta, "function %s, call "
						"site %u: callee %s is defined "
						"in several units", m->name,
						k + 1, c->callee[k]);
			if (to == PAP_NONE &&
			    !(c->sites[k].flags & PAP_SITE_MAYBE_OUT) &&
			    c->sites[k].kind != PAP_SITE_INDIRECT &&
			    c->sites[k].kind != PAP_SITE_NORETURN &&
			    c->sites[k].kind != PAP_SITE_TAIL)
				return cp_error(PAP_ECORRUPT, err, errlen,
						m->meta, "function %s, call "
						"site %u: callee %s is not in "
						"the program", m->name, k + 1,
						c->callee[k]);
		}
		b->callee[at + k] = to;
		b->ncluster[at + k] = c->ncluster[k];
		b->cluster[at + k] = b->members + *member_at;
		for (j = 0; j < c->ncluster[k]; j++) {
			uint32_t g = resolve(idx, nidx, c->cluster[k][j],
					     b->unit[i]);

			if (g == AMBIGUOUS || g == PAP_NONE)
				return cp_error(PAP_ECORRUPT, err, errlen,
						m->meta, "function %s, call "
						"site %u: cluster member %s is "
						"%s", m->name, k + 1,
						c->cluster[k][j], g == PAP_NONE ?
						"not in the program" :
						"defined in several units");
			b->members[(*member_at)++] = g;
		}
	}
	*site_at = at + c->nsites;
	return PAP_OK;
}

int pap_cs_prog_build(const struct pap_cs_unit *units, size_t n,
		      struct pap_cs_built *out, char *err, size_t errlen)
{
	size_t nfn, nsites, nmembers, u, j;
	struct named *idx = NULL;
	uint64_t *ids = NULL;
	uint32_t i = 0, site_at = 0, member_at = 0, a;
	char key[PAP_FNKEY_MAX];
	int r = PAP_ENOMEM;

	memset(out, 0, sizeof(*out));
	count(units, n, &nfn, &nsites, &nmembers);
	if (nfn >= PAP_NONE - 1)
		return PAP_ELIMIT;
	out->meta = calloc(nfn + 1, sizeof(*out->meta));
	out->key = calloc(nfn + 1, sizeof(*out->key));
	out->unit = calloc(nfn + 1, sizeof(*out->unit));
	out->fn = calloc(nfn + 1, sizeof(*out->fn));
	out->callee = calloc(nsites + 1, sizeof(*out->callee));
	out->ncluster = calloc(nsites + 1, sizeof(*out->ncluster));
	out->cluster = calloc(nsites + 1, sizeof(*out->cluster));
	out->members = calloc(nmembers + 1, sizeof(*out->members));
	idx = calloc(nfn + 1, sizeof(*idx));
	if (!out->meta || !out->key || !out->unit || !out->fn ||
	    !out->callee || !out->ncluster || !out->cluster ||
	    !out->members || !idx)
		goto fail;
	out->prog.fn = out->fn;
	for (u = 0; u < n; u++)
		for (j = 0; j < units[u].nfns; j++) {
			struct pap_meta_fn *m = units[u].fns[j];

			if (!m->calls)
				continue;
			out->meta[i] = m;
			out->unit[i] = (uint32_t)u;
			if (pap_fnkey_format(key, sizeof(key), m->name,
					     m->checksum,
					     units[u].metakey) < 0 ||
			    !(out->key[i] = strdup(key)))
				goto fail;
			out->fn[i].id = pap_fnid(key);
			out->fn[i].g = pap_meta_callgraph(m);
			out->prog.nfn = ++i;
			if (!out->fn[i - 1].g) {
				r = cp_error(PAP_ECORRUPT, err, errlen,
					     m->meta, "function %s: its call "
					     "sites make no call-site graph",
					     m->name);
				goto fail;
			}
			idx[i - 1].name = m->name;
			idx[i - 1].unit = (uint32_t)u;
			idx[i - 1].fn = i - 1;
		}
	qsort(idx, nfn, sizeof(*idx), named_cmp);
	for (a = 0; a < nfn; a++) {
		r = resolve_fn(out, idx, nfn, a, &site_at, &member_at, err,
			       errlen);
		if (r)
			goto fail;
	}
	/* two functions of one id: refused, as the decoder would */
	ids = malloc((nfn + 1) * sizeof(*ids));
	if (!ids) {
		r = PAP_ENOMEM;
		goto fail;
	}
	for (a = 0; a < nfn; a++)
		ids[a] = out->fn[a].id;
	qsort(ids, nfn, sizeof(*ids), id_cmp);
	for (a = 1; a < nfn; a++)
		if (ids[a] == ids[a - 1]) {
			r = cp_error(PAP_EINVAL, err, errlen, NULL, "two "
				     "functions of the program have the id "
				     "%016llx", (unsigned long long)ids[a]);
			goto fail;
		}
	free(ids);
	free(idx);
	return PAP_OK;
fail:
	if (r == PAP_ENOMEM)
		cp_error(PAP_ENOMEM, err, errlen, NULL, "out of memory");
	free(ids);
	free(idx);
	pap_cs_built_free(out);
	return r;
}
