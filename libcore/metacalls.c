/* SPDX-License-Identifier: MIT */
/*
 * metacalls.c - a function's call sites in its metadata (meta.h: the
 * "calls" and "site" lines), written for the plugin and read for the
 * decoder, and the sums that stamp them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metacalls.h"
#include "papdefs.h"

static const char *const site_kinds[PAP_SITE_NKINDS] = {
	[PAP_SITE_DIRECT] = "direct",
	[PAP_SITE_INDIRECT] = "indirect",
	[PAP_SITE_NORETURN] = "noreturn",
	[PAP_SITE_RETURNS_TWICE] = "setjmp",
	[PAP_SITE_TAIL] = "tail",
	[PAP_SITE_SELFTAIL] = "selftail",
};

const char *pap_site_kind_name(unsigned kind)
{
	return kind < PAP_SITE_NKINDS ? site_kinds[kind] : "?";
}

unsigned pap_site_kind_parse(const char *s)
{
	unsigned k;

	for (k = 0; k < PAP_SITE_NKINDS; k++)
		if (!strcmp(s, site_kinds[k]))
			return k;
	return PAP_NONE;
}

static uint64_t fnv_bytes(uint64_t h, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

uint64_t pap_meta_calls_checksum(uint64_t base, const char *text, size_t len)
{
	return fnv_bytes(base, text, len);
}

uint64_t pap_meta_unit_sum(const uint64_t *checksums, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char hex[18];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(hex, sizeof(hex), "%016llx\n",
			 (unsigned long long)checksums[i]);
		h = fnv_bytes(h, hex, 17);
	}
	return h;
}

/* A site's flags as letters, "-" for none, into @buf (4 bytes). */
static const char *site_flags(unsigned flags, char *buf)
{
	char *p = buf;

	if (flags & PAP_SITE_MAYBE_OUT)
		*p++ = 'o';
	if (flags & PAP_SITE_MAYBE_TAIL)
		*p++ = 't';
	if (flags & PAP_SITE_EH)
		*p++ = 'e';
	if (p == buf)
		*p++ = '-';
	*p = 0;
	return buf;
}

/* snprintf into what is left of @buf after @len bytes. */
#define CALLS_PUT(...) \
	do { \
		int w_ = snprintf(len < size ? buf + len : NULL, \
				  len < size ? size - len : 0, __VA_ARGS__); \
		if (w_ < 0) \
			return w_; \
		len += (size_t)w_; \
	} while (0)

int pap_meta_format_calls(char *buf, size_t size, const char *strategy,
			  const struct pap_meta_site_out *sites, uint32_t n)
{
	size_t len = 0;
	char fl[4];
	uint32_t k, i;

	CALLS_PUT("calls %s\n", strategy);
	for (k = 0; k < n; k++) {
		const struct pap_meta_site_out *s = &sites[k];

		CALLS_PUT("site %u %s %s %s %u %s", k + 1, s->block,
			  pap_site_kind_name(s->kind),
			  site_flags(s->flags, fl), s->line,
			  s->callee ? s->callee : "-");
		for (i = 0; i < s->ncluster; i++)
			CALLS_PUT(" %s", s->cluster[i]);
		CALLS_PUT("\n");
	}
	return len > (size_t)0x7fffffff ? -1 : (int)len;
}

void meta_calls_free(struct pap_meta_calls *c)
{
	uint32_t k, i;

	if (!c)
		return;
	for (k = 0; k < c->nsites; k++) {
		free(c->callee[k]);
		for (i = 0; c->cluster[k] && i < c->ncluster[k]; i++)
			free(c->cluster[k][i]);
		free(c->cluster[k]);
	}
	free(c->strategy);
	free(c->sites);
	free(c->line);
	free(c->callee);
	free(c->ncluster);
	free(c->cluster);
	if (c->graph)
		pap_callgraph_free(c->graph);
	free(c->graph);
	free(c);
}

int meta_calls_begin(struct pap_meta_fn *f, const char *strategy)
{
	if (f->calls || (strcmp(strategy, "sc") && strcmp(strategy, "ic") &&
			 strcmp(strategy, "ac")))
		return PAP_ECORRUPT;
	f->calls = calloc(1, sizeof(*f->calls));
	if (!f->calls)
		return PAP_ENOMEM;
	f->calls->strategy = strdup(strategy);
	return f->calls->strategy ? PAP_OK : PAP_ENOMEM;
}

/* The site's flags from their letters; -1 when they are not flags. */
static int parse_flags(const char *s)
{
	int fl = 0;

	if (!strcmp(s, "-"))
		return 0;
	for (; *s; s++) {
		int bit = *s == 'o' ? PAP_SITE_MAYBE_OUT :
			  *s == 't' ? PAP_SITE_MAYBE_TAIL :
			  *s == 'e' ? PAP_SITE_EH : 0;

		if (!bit || (fl & bit))
			return -1;
		fl |= bit;
	}
	return fl;
}

/* Grows the site arrays of @c to hold site @k (1-based). */
static int grow_sites(struct pap_meta_calls *c, uint32_t k)
{
	struct pap_site *s = realloc(c->sites, k * sizeof(*s));
	uint32_t *l, *nc;
	char **ce, ***cl;

	if (s)
		c->sites = s;
	l = realloc(c->line, k * sizeof(*l));
	if (l)
		c->line = l;
	ce = realloc(c->callee, k * sizeof(*ce));
	if (ce)
		c->callee = ce;
	nc = realloc(c->ncluster, k * sizeof(*nc));
	if (nc)
		c->ncluster = nc;
	cl = realloc(c->cluster, k * sizeof(*cl));
	if (cl)
		c->cluster = cl;
	return s && l && ce && nc && cl ? PAP_OK : PAP_ENOMEM;
}

/* A name token: a copy, NULL for "-" in *@out. */
static int name_token(const char *tok, char **out)
{
	*out = NULL;
	if (!strcmp(tok, "-"))
		return PAP_OK;
	*out = strdup(tok);
	return *out ? PAP_OK : PAP_ENOMEM;
}

int meta_calls_site(struct pap_meta_fn *f, const char *line, size_t len)
{
	struct pap_meta_calls *c = f->calls;
	char *buf, *tok, *save = NULL, *end;
	unsigned long k, ln;
	unsigned kind;
	uint32_t b, i = 0;
	int fl, r = PAP_ECORRUPT;
	char **cl = NULL;

	if (!c || !f->graph.cfg || c->nsites >= PAP_CS_F_SITE)
		return PAP_ECORRUPT;
	buf = strndup(line, len);
	if (!buf)
		return PAP_ENOMEM;
	tok = strtok_r(buf + 5, " ", &save);
	k = tok ? strtoul(tok, &end, 10) : 0;
	if (!tok || *end || k != c->nsites + 1)
		goto out;
	tok = strtok_r(NULL, " ", &save);
	b = tok ? pap_cfgtext_block(&f->graph, tok) : PAP_NONE;
	tok = b == PAP_NONE ? NULL : strtok_r(NULL, " ", &save);
	kind = tok ? pap_site_kind_parse(tok) : PAP_NONE;
	tok = kind == PAP_NONE ? NULL : strtok_r(NULL, " ", &save);
	fl = tok ? parse_flags(tok) : -1;
	tok = fl < 0 ? NULL : strtok_r(NULL, " ", &save);
	ln = tok ? strtoul(tok, &end, 10) : 0;
	if (!tok || *end || *tok < '0' || *tok > '9' || ln > UINT32_MAX)
		goto out;
	tok = strtok_r(NULL, " ", &save);
	if (!tok)
		goto out;
	r = grow_sites(c, (uint32_t)k);
	if (r)
		goto out;
	c->sites[k - 1].block = b;
	c->sites[k - 1].kind = (uint8_t)kind;
	c->sites[k - 1].flags = (uint8_t)fl;
	c->line[k - 1] = (uint32_t)ln;
	c->ncluster[k - 1] = 0;
	c->cluster[k - 1] = NULL;
	r = name_token(tok, &c->callee[k - 1]);
	if (r)
		goto out;
	c->nsites++;
	while ((tok = strtok_r(NULL, " ", &save))) {
		char **n = realloc(cl, (i + 1) * sizeof(*cl));

		if (!n) {
			r = PAP_ENOMEM;
			break;
		}
		cl = n;
		cl[i] = strdup(tok);
		if (!cl[i]) {
			r = PAP_ENOMEM;
			break;
		}
		i++;
	}
	c->cluster[k - 1] = cl;
	c->ncluster[k - 1] = i;
	if (!r && i && kind != PAP_SITE_INDIRECT)
		r = PAP_ECORRUPT;	/* only indirect sites have clusters */
	if (!r && kind == PAP_SITE_INDIRECT && c->callee[k - 1])
		r = PAP_ECORRUPT;	/* nor a callee */
	cl = NULL;
out:
	free(cl);
	free(buf);
	return r;
}

const struct pap_callgraph *pap_meta_callgraph(struct pap_meta_fn *fn)
{
	struct pap_meta_calls *c = fn->calls;

	if (!c || c->graph_failed)
		return NULL;
	if (!c->graph) {
		c->graph = calloc(1, sizeof(*c->graph));
		if (!c->graph || pap_callsites_build(fn->graph.cfg, c->sites,
						     c->nsites, c->graph)) {
			free(c->graph);
			c->graph = NULL;
			c->graph_failed = 1;
		}
	}
	return c->graph;
}
