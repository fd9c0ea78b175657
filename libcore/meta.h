/* SPDX-License-Identifier: MIT */
/*
 * meta.h - the plugin's per-unit metadata (NAME.papm): written by the
 * plugin, read by the decoder.
 *
 * Format (text, version 2; doc/formats.md): "pap-meta 2", the compile
 * directory ("directory DIR", optional), then for each instrumented
 * function
 *   function ASMNAME / file PATH / mode MODE
 *   the graph in pap's text format (blocks, entry, edge, return lines)
 *   lines BLOCK LINE...      (each block's distinct lines, statement order)
 *   elines EDGE LINE...      (version 2: lines of empty blocks GCC keeps on
 *                            the EDGE-th edge line's way; optional)
 *   select STRATEGY MAXPATHS (selective profiling, optional: the
 *                            strategy of selective.h and its path limit)
 *   spath N BLOCK... FILE:LINE   (with select: each path of interest, as
 *                            N GCC block numbers, and where its spec
 *                            says it)
 *   calls STRATEGY           (version 3, -fplugin-arg-pap-calls: the
 *                            function's call sites, clusters sc|ic|ac)
 *   site K BLOCK KIND FLAGS LINE CALLEE [CLUSTER...]
 *                            (with calls: one per site, K = 1..n;
 *                            KIND direct|indirect|noreturn|setjmp|tail;
 *                            FLAGS '-' or letters o, t, e for
 *                            PAP_SITE_MAYBE_OUT, _MAYBE_TAIL, _EH; LINE
 *                            the call's source line or 0; CALLEE the
 *                            callee's assembler name or '-'; an indirect
 *                            site's cluster in digit order)
 *   checksum HEX             (pap_meta_checksum(): the plan's stamp;
 *                            with select, pap_meta_sel_checksum() of it;
 *                            with calls, pap_meta_calls_checksum() of
 *                            that)
 *   end
 * Version 3 is version 2 with calls: after the directory line it has
 * "unit HEX", pap_meta_unit_sum() of its calls functions' checksums.
 * Version 1 had no directory line and a checksum of the graph lines only;
 * it is still read.
 */
#ifndef PAP_CORE_META_H
#define PAP_CORE_META_H

#include "callgraph.h"
#include "cfgtext.h"
#include "plan.h"
#include "selective.h"
#include "util.h"	/* pap_fnv1a: the graph checksum */

#ifdef __cplusplus
extern "C" {
#endif

/* The first line of a metadata file, and what comes before its version. */
#define PAP_META_HEADER "pap-meta 2\n"
#define PAP_META_HEADER_V1 "pap-meta 1\n"
#define PAP_META_HEADER_V3 "pap-meta 3\n"
#define PAP_META_MAGIC "pap-meta "

/*
 * The stamp that pairs a function's records with its metadata: FNV-1a 64
 * of "plan FORMAT mode MODE\n" (FORMAT is PAP_PLAN_FORMAT) followed by the
 * @len bytes of @graph text.  It covers everything the decoder needs to
 * rebuild the plan the probes ran (the graph, the mode in effect and the
 * planner's numbering), so a profile is never decoded under another plan.
 */
uint64_t pap_meta_checksum(enum pap_mode mode, const char *graph,
			   size_t len);

/*
 * A selective function's checksum: @base (pap_meta_checksum() of the
 * numbered mode and the graph) continued, FNV-1a 64, over the 8 bytes of
 * @stamp (pap_sel_stamp()), least significant first.  Records are thus
 * never decoded under another selection, nor a full plan's under one.
 */
uint64_t pap_meta_sel_checksum(uint64_t base, uint64_t stamp);

/*
 * One function's entry of a metadata file, as the reader above reads it:
 * function @name from source @file, planned in @mode, with its @graph
 * and @lines text (each line ending in a newline) and their @checksum.
 * Into @buf as snprintf writes: the entry's length, however much of it
 * fits in @size bytes.
 */
int pap_meta_format_fn(char *buf, size_t size, const char *name,
		       const char *file, enum pap_mode mode,
		       const char *graph, const char *lines,
		       uint64_t checksum);

/*
 * A function's checksum with calls: @base (its checksum without them)
 * continued, FNV-1a 64, over the @len bytes of its "calls" and "site"
 * lines as written, so that its key changes with its call sites.
 */
uint64_t pap_meta_calls_checksum(uint64_t base, const char *text,
				 size_t len);

/*
 * A unit's sum ("unit" line, and the UNITSUM of its "%unit:" key): FNV-1a
 * 64 over the checksums of its functions with calls, in file order, each
 * as 16 lowercase hex digits and a newline.
 */
uint64_t pap_meta_unit_sum(const uint64_t *checksums, size_t n);

/* A call site as the plugin writes it. */
struct pap_meta_site_out {
	const char *block;		/* the block's name in the graph text */
	uint8_t kind;			/* enum pap_site_kind */
	uint8_t flags;			/* PAP_SITE_* */
	uint32_t line;			/* source line of the call, 0: unknown */
	const char *callee;		/* assembler name; NULL: none */
	uint32_t ncluster;
	const char *const *cluster;	/* an indirect site's, in digit order */
};

/*
 * The "calls" and "site" lines of a function with @n sites (clusters
 * @strategy) into @buf as snprintf writes: their length, however much of
 * it fits in @size bytes.  Names hold no space or newline.
 */
int pap_meta_format_calls(char *buf, size_t size, const char *strategy,
			  const struct pap_meta_site_out *sites, uint32_t n);

/* Names of the site kinds in metadata; PAP_NONE for an unknown one. */
const char *pap_site_kind_name(unsigned kind);
unsigned pap_site_kind_parse(const char *s);

/* A function's call sites as read. */
struct pap_meta_calls {
	char *strategy;		/* sc, ic or ac */
	uint32_t nsites;
	struct pap_site *sites;	/* [k - 1], blocks in the CFG model's numbers:
				 * ready for pap_callsites_build() */
	uint32_t *line;		/* [k - 1]: source line, 0: unknown */
	char **callee;		/* [k - 1]: assembler name, NULL: none */
	uint32_t *ncluster;	/* [k - 1] */
	char ***cluster;	/* [k - 1][i]: assembler names */
	struct pap_callgraph *graph;	/* made on first use */
	int graph_failed;
};

struct pap_meta_fn {
	char *name;		/* assembler name */
	char *file;		/* source file */
	char *meta;		/* the metadata file it was read from */
	char *dir;		/* the compile directory; NULL if unknown */
	enum pap_mode mode;
	uint64_t checksum;
	struct pap_cfgtext graph;
	uint32_t **lines;	/* per block: lines[b][0] = count, then lines */
	uint32_t **elines;	/* per edge id below nelines: the same of the
				 * empty blocks on its way; NULL: none */
	uint32_t nelines;
	struct pap_plan *plan;	/* made on first use */
	/* selective profiling (a select line), else NULL and 0: the plan
	 * of the selection, built when read, and where each path of
	 * interest comes from ("FILE:LINE") and its number in the plan */
	struct pap_sel_plan *sel;
	char **sel_where;	/* per spath line, in order */
	uint32_t *sel_num;	/* per spath line: its path's number */
	uint32_t nsel;
	struct pap_meta_calls *calls;	/* with calls, else NULL */
	uint64_t unit;		/* its file's unit sum (version 3), else 0 */
};

struct pap_meta {
	struct pap_meta_fn **fns;	/* each allocated once: stable */
	size_t nfns, cap;
};

void pap_meta_init(struct pap_meta *m);
void pap_meta_free(struct pap_meta *m);

/*
 * Adds the functions in metadata text @text (named @file) to @m, checking
 * each graph against its checksum.  On error nothing is added and @err
 * says "FILE:LINE: error: ...".
 */
int pap_meta_parse(struct pap_meta *m, const char *text, const char *file,
		   char *err, size_t errlen);
/*
 * The function with this assembler name and checksum, or NULL; the one
 * read from metadata file @meta if there are several (static functions of
 * the same name and shape in different files) and @meta is not NULL.
 */
struct pap_meta_fn *pap_meta_find(struct pap_meta *m, const char *name,
				  uint64_t checksum, const char *meta);
/* The function's plan, built on first use; NULL if it cannot be built
 * (also for a function of mode none: calls alone). */
const struct pap_plan *pap_meta_plan(struct pap_meta_fn *fn);
/* The function's call-site graph, built on first use; NULL without calls
 * or if it cannot be built. */
const struct pap_callgraph *pap_meta_callgraph(struct pap_meta_fn *fn);


#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_META_H */
