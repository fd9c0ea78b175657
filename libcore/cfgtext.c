/* SPDX-License-Identifier: MIT */
/*
 * cfgtext.c - parser for the text graph format.
 */
#include <stdlib.h>
#include <string.h>

#include "cfgtext.h"
#include "diag.h"

#define CFGTEXT_MAX_BLOCKS 1000000u
#define CFGTEXT_MAX_WORD 255

struct lexer {
	const char *p, *file;
	unsigned line;
	char *err;
	size_t errlen;
};

#define lex_error(lx, ...) \
	pap_diag(PAP_EINVAL, (lx)->err, (lx)->errlen, (lx)->file, (lx)->line, \
		 __VA_ARGS__)

/* Next word on the current line into @w; 0 at end of line. */
static int lex_word(struct lexer *lx, char *w)
{
	size_t n = 0;

	while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r')
		lx->p++;
	if (*lx->p == '#')
		while (*lx->p && *lx->p != '\n')
			lx->p++;
	while (*lx->p && !strchr(" \t\r\n#", *lx->p)) {
		if (n == CFGTEXT_MAX_WORD)
			return -1;
		w[n++] = *lx->p++;
	}
	w[n] = 0;
	return n > 0;
}

/* Skips to the start of the next line; 0 at end of text. */
static int lex_next_line(struct lexer *lx)
{
	while (*lx->p && *lx->p != '\n')
		lx->p++;
	if (!*lx->p)
		return 0;
	lx->p++;
	lx->line++;
	return 1;
}

uint32_t pap_cfgtext_block(const struct pap_cfgtext *t, const char *name)
{
	uint32_t i;

	for (i = 0; i < t->nblocks; i++)
		if (!strcmp(t->names[i], name))
			return i;
	return PAP_NONE;
}

const char *pap_cfgtext_name(const struct pap_cfgtext *t, uint32_t v)
{
	if (v < t->nblocks)
		return t->names[v];
	return v == t->nblocks ? "ENTRY" : "EXIT";
}

void pap_cfgtext_free(struct pap_cfgtext *t)
{
	uint32_t i;

	for (i = 0; i < t->nblocks; i++)
		free(t->names[i]);
	free(t->names);
	pap_cfg_free(t->cfg);
	memset(t, 0, sizeof(*t));
}

/* First pass: collect block names from "blocks" lines. */
static int parse_blocks(struct lexer *lx, struct pap_cfgtext *t)
{
	char w[CFGTEXT_MAX_WORD + 1];
	uint32_t cap = 0;
	int r;

	do {
		if (lex_word(lx, w) <= 0 || strcmp(w, "blocks"))
			continue;
		while ((r = lex_word(lx, w)) > 0) {
			if (pap_cfgtext_block(t, w) != PAP_NONE)
				return lex_error(lx, "block '%s' declared twice",
						 w);
			if (!strcmp(w, "ENTRY") || !strcmp(w, "EXIT"))
				return lex_error(lx, "'%s' is reserved", w);
			if (t->nblocks == CFGTEXT_MAX_BLOCKS)
				return lex_error(lx, "too many blocks");
			if (t->nblocks == cap) {
				char **n;

				cap = cap ? cap * 2 : 16;
				n = realloc(t->names, cap * sizeof(char *));
				if (!n)
					return PAP_ENOMEM;
				t->names = n;
			}
			t->names[t->nblocks] = strdup(w);
			if (!t->names[t->nblocks])
				return PAP_ENOMEM;
			t->nblocks++;
		}
		if (r < 0)
			return lex_error(lx, "name too long");
	} while (lex_next_line(lx));
	return PAP_OK;
}

static int want_block(struct lexer *lx, const struct pap_cfgtext *t,
		      uint32_t *b)
{
	char w[CFGTEXT_MAX_WORD + 1];
	int r = lex_word(lx, w);

	if (r <= 0)
		return lex_error(lx, "expected a block name");
	*b = pap_cfgtext_block(t, w);
	if (*b == PAP_NONE)
		return lex_error(lx, "unknown block '%s'", w);
	return PAP_OK;
}

/* The directive naming a block role, or NULL. */
static int (*cfgtext_role(const char *w))(struct pap_cfg *, uint32_t)
{
	if (!strcmp(w, "return"))
		return pap_cfg_mark_return;
	if (!strcmp(w, "resume"))
		return pap_cfg_mark_resume;
	if (!strcmp(w, "cut"))
		return pap_cfg_mark_cut;
	return NULL;
}

int pap_cfgtext_is_graph_line(const char *line, size_t len)
{
	static const char *const directives[] = {
		"blocks", "entry", "edge", "return", "resume", "cut",
	};
	size_t i, n;

	for (i = 0; i < sizeof(directives) / sizeof(directives[0]); i++) {
		n = strlen(directives[i]);
		if (len > n && !strncmp(line, directives[i], n) &&
		    (line[n] == ' ' || line[n] == '\t'))
			return 1;
	}
	return 0;
}

int pap_cfgtext_parse(const char *text, const char *file,
		      struct pap_cfgtext *t, char *err, size_t errlen)
{
	struct lexer lx = { text, file, 1, err, errlen };
	char w[CFGTEXT_MAX_WORD + 1];
	int r, have_entry = 0;
	int (*role)(struct pap_cfg *, uint32_t);

	memset(t, 0, sizeof(*t));
	r = parse_blocks(&lx, t);
	if (r)
		goto fail;
	lx.line = 1;
	lx.p = text;
	if (!t->nblocks) {
		r = lex_error(&lx, "no 'blocks' line");
		goto fail;
	}
	t->cfg = pap_cfg_new(t->nblocks);
	if (!t->cfg) {
		r = PAP_ENOMEM;
		goto fail;
	}
	do {
		uint32_t a, b;
		int64_t id;

		r = lex_word(&lx, w);
		if (r < 0) {
			r = lex_error(&lx, "word too long");
			goto fail;
		}
		if (r == 0 || !strcmp(w, "blocks"))
			continue;
		if (!strcmp(w, "entry")) {
			r = want_block(&lx, t, &a);
			if (!r)
				r = pap_cfg_set_entry(t->cfg, a);
			have_entry = 1;
		} else if ((role = cfgtext_role(w))) {
			while (!(r = want_block(&lx, t, &a))) {
				role(t->cfg, a);
				while (*lx.p == ' ' || *lx.p == '\t')
					lx.p++;
				if (!*lx.p || *lx.p == '\n' || *lx.p == '#')
					break;
			}
		} else if (!strcmp(w, "edge")) {
			enum pap_edge_kind kind = PAP_EDGE_NORMAL;

			r = want_block(&lx, t, &a);
			if (!r)
				r = want_block(&lx, t, &b);
			if (!r && lex_word(&lx, w) > 0) {
				if (strcmp(w, "abnormal")) {
					r = lex_error(&lx,
						      "unknown edge flag '%s'",
						      w);
					goto fail;
				}
				kind = PAP_EDGE_ABNORMAL;
			}
			if (!r) {
				id = pap_cfg_add_edge(t->cfg, a, b, kind);
				r = id < 0 ? (int)id : 0;
			}
		} else {
			r = lex_error(&lx, "unknown directive '%s'", w);
		}
		if (r)
			goto fail;
		if (lex_word(&lx, w) != 0) {
			r = lex_error(&lx, "unexpected '%s'", w);
			goto fail;
		}
	} while (lex_next_line(&lx));
	if (!have_entry)
		pap_cfg_set_entry(t->cfg, 0);
	r = pap_cfg_finish(t->cfg);
	if (r) {
		lex_error(&lx, "cannot finish the graph: %s", pap_strerror(r));
		goto fail;
	}
	pap_cfg_estimate_weights(t->cfg);
	return PAP_OK;
fail:
	pap_cfgtext_free(t);
	return r;
}

/* The first live edge src->dst, or PAP_NONE. */
static uint32_t find_edge(const struct pap_cfg *cfg, uint32_t src,
			  uint32_t dst)
{
	uint32_t k;

	for (k = cfg->out_off[src]; k < cfg->out_off[src + 1]; k++)
		if (cfg->edges[cfg->out_edge[k]].dst == dst &&
		    cfg->edges[cfg->out_edge[k]].kind != PAP_EDGE_FAKE)
			return cfg->out_edge[k];
	return PAP_NONE;
}

int pap_cfgtext_walk(const struct pap_cfgtext *t, const char *text,
		     const char *file, uint32_t **edges, size_t *len,
		     char *err, size_t errlen)
{
	struct lexer lx = { text, file, 1, err, errlen };
	const struct pap_cfg *cfg = t->cfg;
	char w[CFGTEXT_MAX_WORD + 1];
	uint32_t prev = cfg->entry, e;
	size_t cap = 0;
	int r;

	*edges = NULL;
	*len = 0;
	do {
		while ((r = lex_word(&lx, w)) > 0) {
			uint32_t b = pap_cfgtext_block(t, w);

			if (b == PAP_NONE) {
				r = lex_error(&lx, "unknown block '%s'", w);
				goto fail;
			}
			e = find_edge(cfg, prev, b);
			if (e == PAP_NONE) {
				r = lex_error(&lx, "no edge %s -> %s",
					      pap_cfgtext_name(t, prev), w);
				goto fail;
			}
			if (*len == cap) {
				uint32_t *n;

				cap = cap ? cap * 2 : 64;
				n = realloc(*edges, cap * sizeof(uint32_t));
				if (!n) {
					r = PAP_ENOMEM;
					goto fail;
				}
				*edges = n;
			}
			(*edges)[(*len)++] = e;
			prev = b;
		}
		if (r < 0) {
			r = lex_error(&lx, "word too long");
			goto fail;
		}
	} while (lex_next_line(&lx));
	e = find_edge(cfg, prev, cfg->exit);
	if (e == PAP_NONE || !*len) {
		r = lex_error(&lx, "the walk must end in a block that returns");
		goto fail;
	}
	{
		uint32_t *n = realloc(*edges, (*len + 1) * sizeof(uint32_t));

		if (!n) {
			r = PAP_ENOMEM;
			goto fail;
		}
		*edges = n;
		(*edges)[(*len)++] = e;
	}
	return PAP_OK;
fail:
	free(*edges);
	*edges = NULL;
	*len = 0;
	return r;
}
