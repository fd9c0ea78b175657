/* SPDX-License-Identifier: MIT */
/*
 * cfgtext.h - a small text format for control-flow graphs (doc/cfg-format.md)
 * used by pap-plan and the tests to write graphs by hand.
 */
#ifndef PAP_CORE_CFGTEXT_H
#define PAP_CORE_CFGTEXT_H

#include <stdio.h>

#include "cfgmodel.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pap_cfgtext {
	struct pap_cfg *cfg;	/* finished */
	char **names;		/* per user block */
	uint32_t nblocks;
};

/* Does @line (@len bytes, no newline) start with a graph directive? */
int pap_cfgtext_is_graph_line(const char *line, size_t len);
/*
 * Parses @text (named @file in messages).  On error returns a negative
 * pap_err and writes one "file:line: error: ..." line into @err.
 */
int pap_cfgtext_parse(const char *text, const char *file,
		      struct pap_cfgtext *out, char *err, size_t errlen);
void pap_cfgtext_free(struct pap_cfgtext *t);
/* Block id of @name, or PAP_NONE. */
uint32_t pap_cfgtext_block(const struct pap_cfgtext *t, const char *name);
/* Name of node @v, "ENTRY"/"EXIT" for the virtual ones. */
const char *pap_cfgtext_name(const struct pap_cfgtext *t, uint32_t v);

/*
 * Turns a walk given as block names (entry block first, a returning block
 * last) into the edge sequence from the ENTRY edge to the EXIT edge.  With
 * parallel edges the first live one is taken.
 */
int pap_cfgtext_walk(const struct pap_cfgtext *t, const char *text,
		     const char *file, uint32_t **edges, size_t *len,
		     char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_CFGTEXT_H */
