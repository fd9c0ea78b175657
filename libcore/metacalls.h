/* SPDX-License-Identifier: MIT */
/*
 * metacalls.h - the metadata reader's half of a function's call sites
 * (internal to libcore/meta.c; the format is in meta.h).
 */
#ifndef PAP_CORE_METACALLS_H
#define PAP_CORE_METACALLS_H

#include "callseq.h"
#include "meta.h"

/* A "calls STRATEGY" line: @f has calls from now on.  PAP_ECORRUPT for a
 * second one or an unknown strategy. */
int meta_calls_begin(struct pap_meta_fn *f, const char *strategy);
/* A "site ..." line (@len bytes) of @f, whose graph is parsed: the next
 * site, checked for its number, block, kind, flags and names. */
int meta_calls_site(struct pap_meta_fn *f, const char *line, size_t len);
void meta_calls_free(struct pap_meta_calls *c);

#endif /* PAP_CORE_METACALLS_H */
