/* SPDX-License-Identifier: MIT */
/*
 * decoder.h - what pap-decode's parts share: the decoded profile (every
 * function's distinct paths, as core block indices and edges), the report
 * options, and the writers of each report.
 */
#ifndef PAP_DECODER_H
#define PAP_DECODER_H

#include <regex.h>
#include <stdint.h>
#include <stdio.h>

#include "bpack.h"
#include "callprog.h"
#include "diag.h"
#include "kipf.h"
#include "meta.h"
#include "pathform.h"
#include "profdata.h"

#define PAP_MAX_FILE ((size_t)1 << 32)
/* Source lines past this are taken for corrupt metadata and ignored. */
#define PAP_MAX_LINE (1u << 24)

/* The source lines of block @b: [0] is their number (none if absent). */
static inline const uint32_t *blines(const struct pap_meta_fn *fn,
				     uint32_t b)
{
	static const uint32_t none[1];

	return fn->lines[b] ? fn->lines[b] : none;
}

extern const char *pap_prog;

/* Where metadata comes from, and what could not be resolved. */
struct decoder {
	struct pap_meta meta;
	char **loaded;		/* metadata files read */
	size_t nloaded;
	const char **dirs;	/* where else to look */
	size_t ndirs, capdirs;
	int scanned;
	int errors;
	char **failed;		/* function keys already reported */
	size_t nfailed;
	/* --drop-stale: records whose checksum is not their metadata's are
	 * left out, counted, rather than errors */
	int drop_stale;
	unsigned char *failed_stale;	/* per failed key: left out so */
	size_t nstale_fns;
	uint64_t nstale_recs;
};

/* A set of 64-bit values (coverage.c). */
struct idset {
	uint64_t *slot;		/* open addressing, the value plus one */
	size_t nslots, n;
};
/* Adds @v to @s; 0, or -1 when memory is short. */
int idset_add(struct idset *s, uint64_t v);

/* The acyclic pieces of a PAP+EPP record as decoding tells them
 * (struct pap_piece_visit), to note its Ball-Larus ids per digit. */
struct bl_digits {
	struct bl_digit {
		uint32_t end, start;
		uint64_t d;
		size_t at, len;
	} *p;
	size_t n, cap;
	int err;		/* one could not be kept */
};
/* A pap_piece_visit callback adding to the struct bl_digits @ctx. */
void bl_digit_visit(void *ctx, uint32_t end, uint64_t d, uint32_t start,
		    size_t at, size_t len);

/* Blocks of a path kept for ordering paths without decoding them again. */
#define DPATH_HEAD 20

/*
 * One distinct decoded path.  Its blocks and edges are decoded from its
 * record when a report needs them (path_open()) and let go after
 * (path_close()), so memory holds the profile and the paths in use, not
 * every block of every path.
 */
struct dpath {
	const struct pap_prof_rec *rec;	/* what it decodes from */
	uint32_t *blocks;	/* core block indices, execution order */
	size_t n;		/* always known */
	uint32_t *edges;	/* core edge ids, ENTRY edge first */
	size_t nedges;		/* always known */
	uint32_t *head;		/* its first DPATH_HEAD blocks, while
				 * paths are ordered; else NULL */
	uint64_t count;
	uint64_t bl_id;		/* its Ball-Larus id */
	uint32_t opens;		/* path_open()s not yet closed */
	/* flags, small: a function's paths may be millions */
	uint8_t complete;
	uint8_t resumed;	/* it starts where a longjmp came back */
	uint8_t bl_only;	/* an EPP record: one acyclic piece only */
};

struct dfunc {
	struct pap_meta_fn *fn;
	struct dpath *paths;	/* sorted by count, hottest first */
	size_t npaths, cap;
	uint64_t total;		/* activations (EPP: acyclic paths) */
	struct pap_plan *bl;	/* EPP numbering for Ball-Larus ids */
	int bl_err;
	struct pap_memo *memo;	/* pieces decoded so far */
	struct pap_bpack_buf unpacked;	/* a record's, repeats undone */
	struct pap_pieces pieces;	/* distinct pieces of its paths' forms */
	int keep_pieces;	/* a form in use: path_form() may not empty them */
	uint64_t pieces_gen;	/* bumped when pieces are emptied */
	struct piece_memo *pmemo;	/* what printing each piece made */
	char *numtext;		/* " N" per block, BLOCK_TEXT apart */
	size_t *recs;		/* profile records not yet decoded */
	size_t nrecs, caprecs;
	int decoded;		/* paths and total are the decoded ones */
	/* the distinct Ball-Larus ids of its paths, gathered while they
	 * were decoded: bl_noted 1 when blset holds them all, -1 when
	 * they could not be had, 0 when not gathered */
	struct idset blset;
	int bl_noted;
	struct bl_spans *spans;	/* stretches whose ids blset holds */
	/* blset noted per PAP+EPP piece (path_note_bl_digits()): 1 yes,
	 * -1 no, 0 not known yet */
	int bl_digits;
	struct bl_digits digits;	/* the last record's pieces */
	struct seg_sums *segs;	/* segments summed up (record_sum()) */
};

struct seq_printer;
struct piece_memo;
/* Lets go of @m (analysis.c). */
void piece_memo_free(struct piece_memo *m);
struct bl_spans;
/* Lets go of @s (coverage.c). */
void bl_spans_free(struct bl_spans *s);
struct seg_sums;
/* Lets go of @s (segsum.c). */
void seg_sums_free(struct seg_sums *s);

/* At most this many edges of decoded pieces are remembered per function. */
#define DECODE_MEMO_EDGES ((size_t)1 << 24)

/*
 * A record @r of @f that a report will not show, checked and measured
 * into @out (count, lengths, flags; no blocks or head) from its segments,
 * each distinct one decoded once, its Ball-Larus ids noted when @note:
 * what decode_rec() gives for it, without expanding it.  @scratch is
 * reused between calls.  0, the error code decoding it gives, or 1 when
 * it is not a record this applies to (decode it).
 */
int record_sum(struct dfunc *f, const struct pap_prof_rec *r,
	       struct dpath *out, int note, struct pap_path *scratch);
/* Did a record_sum() of @f that failed note ids (of segments decoded for
 * it)?  Then f->blset may hold ids no decoded path has. */
int record_sum_tainted(const struct dfunc *f);

/*
 * Paths of more blocks than this are never expanded into arrays: every
 * report computes from their packed form (path_form()), and those that
 * print a path's blocks print that form, loops as (...)^N.
 */
#define DPATH_MAX_OPEN 10000000
static inline int path_long(const struct dpath *p)
{
	return p->n > DPATH_MAX_OPEN;
}

/*
 * The blocks the edges @e (decode of record @r of @f) run through, as
 * path_open() gives them, into @blocks (room for e->len + 2); their
 * number.
 */
size_t path_edge_blocks(const struct dfunc *f, const struct pap_prof_rec *r,
			const struct pap_path *e, uint32_t *blocks);
/*
 * Record @r of @f decoded into @out as func_decode() decodes each path
 * (its summary, its blocks left for path_open()), alone: what a report
 * that shows a few records of a function decodes.  0 or an error code.
 */
int path_of_record(struct dfunc *f, const struct pap_prof_rec *r,
		   struct dpath *out);
/*
 * Makes @p's blocks and edges available until the matching path_close();
 * 0, or -1 after a message (out of memory, or a long path), and then
 * nothing to close.
 */
int path_open(struct dfunc *f, struct dpath *p);
void path_close(struct dpath *p);

/*
 * The packed form of @p (not an EPP record) into @form, its pieces in
 * f->pieces: memory and time grow with the record's packed breakpoints
 * and the distinct pieces, not with the path's length.  The pieces of
 * earlier forms are let go when they hold many edges, unless
 * f->keep_pieces says a form is still in use.  0 or an error code.
 */
int path_form(struct dfunc *f, const struct dpath *p, struct pap_rseq *form);
/*
 * Adds @mult times each block's and each edge's executions in @p to
 * @block (per node) and @edge (per edge; either may be NULL), from its
 * form or, for an EPP record, its blocks; 0 or -1 after a message.
 */
int path_counts(struct dfunc *f, struct dpath *p, uint64_t mult,
		uint64_t *block, uint64_t *edge);
/*
 * Prints path @p (not an EPP record) from its form through @sp: a
 * repeat of d pieces as a group of them, the blocks inside a piece by
 * @piece.
 */
typedef void (*piece_printer)(const struct seq_printer *sp, struct dfunc *f,
			      const uint32_t *blocks, size_t n);
int print_form(const struct seq_printer *sp, struct dfunc *f,
	       const struct dpath *p, piece_printer piece);
/* print_form() of a form already built (its pieces still in f->pieces). */
int print_form_of(const struct seq_printer *sp, struct dfunc *f,
		  const struct pap_rseq *form, piece_printer piece);
/* Prints each block of a piece; loops inside it compressed. */
void piece_blocks(const struct seq_printer *sp, struct dfunc *f,
		  const uint32_t *blocks, size_t n);
/* Prints the source lines of a piece; loops inside it compressed. */
void piece_lines(const struct seq_printer *sp, struct dfunc *f,
		 const uint32_t *blocks, size_t n);
/* Writes long path @p's blocks as " N" and its loops as " ( ... )^N". */
void put_form_numbers(FILE *out, struct dfunc *f, const struct dpath *p);
/* The same of open path @p, from its blocks. */
void put_packed_numbers(FILE *out, struct dfunc *f, const struct dpath *p);
/*
 * The same of @p (open, or long) in bounded space: whole when it has at
 * most @max_marks marks (0: whatever its size), else as print_bounded()
 * cuts it, " ..." for each run left out.  Returns 1 when cut, -1 when
 * the form could not be built (" ..." written), else 0.
 */
int put_numbers_bounded(FILE *out, struct dfunc *f, const struct dpath *p,
			uint64_t max_marks);

/* The JSON report's format version (doc/formats.md). */
#define JSON_FORMAT_VERSION 3
/* Paths of at most this many blocks get a "blocks" array in JSON. */
#define JSON_BLOCKS_MAX 1000
/* A path's "blocks_packed" of more marks is cut (doc/formats.md). */
#define JSON_PACKED_MAX_MARKS 10000

struct dprofile {
	struct dfunc *fs;	/* sorted by name */
	size_t nfs;
	uint64_t total;
	/* a count or total reached 2^64-1 and was held there (said once) */
	int saturated;
	struct decoder *d;	/* what decodes a function later */
	/* func_decode() orders the first @rank paths of a function
	 * exactly (0: all), the others by count alone */
	size_t rank;
	int note_bl;		/* func_decode() gathers blset */
	/* if set, func_decode() calls them with each path as it decodes
	 * it, in the records' order: on_whole with the @edges of a path
	 * decoded whole (path_repeats() 0), on_form with the @form of one
	 * with repeats (its pieces in f->pieces) and its items' weights
	 * @w (pap_rseq_weights()) */
	void (*on_whole)(void *ctx, struct dfunc *f, const struct dpath *p,
			 const struct pap_path *edges);
	void (*on_form)(void *ctx, struct dfunc *f, const struct dpath *p,
			const struct pap_rseq *form, const uint64_t *w);
	void *on_path_ctx;
	const struct pap_profile *prof;
	const char *file;
};

/*
 * Decodes @f's records (once; the next calls return at once) into its
 * paths, hottest first, and its total, correcting dp->total; records that
 * cannot be decoded are reported and counted in the decoder's errors.
 * Paths of equal count are ordered by their blocks among the first
 * dp->rank (all when 0); past those only counts are ordered, so the
 * paths a report shows are decoded and compared, not every path.
 * 0, or -1 when memory ran out.
 */
int func_decode(struct dprofile *dp, struct dfunc *f);

/*
 * Lets go of what @f keeps to decode its paths faster (pieces decoded
 * before, unpacking room, block texts): a report done with the function
 * holds its paths only.  Decoding them again rebuilds it.
 */
void func_release(struct dfunc *f);
/*
 * Lets go of @f's paths past its first @keep, npaths becoming @keep: a
 * report done with the function that needs at most those again.
 */
void func_trim(struct dfunc *f, size_t keep);

/* Paths per function in the text and JSON reports without --top. */
#define REPORT_TOP 10

/* What to show. */
struct ropts {
	size_t top;		/* paths per function; 0: all */
	uint64_t min_count;
	int have_regex;
	regex_t fn_regex;
	uint32_t k;		/* k-IPF depth; 0: none */
	double min_share;	/* k-IPF pruning, fraction of the root */
	int source;		/* show source text */
	int lazy;		/* decode_profile() leaves decoding to
				 * func_decode() */
	int sort;		/* text: order of functions (enum fn_order) */
	int all_blocks;		/* json: "blocks" for every path */
	int want_cov;		/* acyclic coverage is reported */
	size_t rank;		/* not lazy: paths ordered exactly (0: all) */
	uint64_t max_sequence;	/* call sequences: events shown at most */
	const char *calls_spec;	/* --calls-spec: sequences of interest */
};

/* --max-sequence's default */
#define CALLS_MAX_SEQUENCE 1000000u

enum fn_order { ORDER_ACTIVATIONS, ORDER_PATHS, ORDER_NAME };

void decoder_init(struct decoder *d);
void decoder_free(struct decoder *d);
void decoder_add_dir(struct decoder *d, const char *dir);
/*
 * Reads metadata file @path into @m unless @loaded (of *@nloaded), the
 * files read so far, names it, and adds it there.  0 when read now or
 * before (or out of memory to note it); -1 when it cannot be read
 * (errno says why), -2 when it cannot be parsed, "PATH...: error: ..."
 * in @err.
 */
int meta_read_once(struct pap_meta *m, char ***loaded, size_t *nloaded,
		   const char *path, char *err, size_t errlen);

/*
 * Reads profile file @path into @prof; on error prints
 * "FILE:LINE: error: ..." and returns -1.
 */
int load_profile(const char *path, struct pap_profile *prof);

/*
 * Sorts the records of @prof (read from @file) whose function passes
 * @o's filter by function, and decodes them unless o->lazy (then
 * func_decode() does, one function at a time); records that cannot be
 * resolved or decoded are reported once per function and counted in
 * d->errors.  Until a function is decoded, its total is what its records
 * say.
 */
int decode_profile(struct decoder *d, const struct pap_profile *prof,
		   const char *file, const struct ropts *o,
		   struct dprofile *out);
void dprofile_free(struct dprofile *dp);
/*
 * Reads profile file @path into @prof (initialised here) and decodes it
 * into @dp, adding its directory (copied into @dirbuf) to the metadata
 * search path; -1 if the file cannot be read.
 */
int decode_file(struct decoder *d, const struct ropts *o, const char *path,
		char *dirbuf, size_t dirlen, struct pap_profile *prof,
		struct dprofile *dp);

/* The metadata of function key @key, or NULL after one message. */
struct pap_meta_fn *resolve_fn(struct decoder *d, const char *key);
/* Was @key, which resolve_fn() refused, left out as a stale build's
 * (--drop-stale) rather than an error? */
int key_is_stale(const struct decoder *d, const char *key);

/* GCC's number of core block @b. */
uint32_t block_number(const struct pap_meta_fn *fn, uint32_t b);
/* Writes up to @max (0: all) of @p's blocks (open) as " N" (GCC's
 * numbers), then " ..." if some were left out. */
void put_block_numbers(FILE *f, struct dfunc *df, const struct dpath *p,
		       size_t max);
/* Does path @i of @f pass --top and --min-count? */
int path_shown(const struct ropts *o, const struct dfunc *f, size_t i);

/*
 * The Ball-Larus ids of path @p of @f in order into *ids (caller frees);
 * 0, or a pap_err when the function's numbering cannot be built.
 */
int path_bl_ids(struct dfunc *f, struct dpath *p, uint64_t **ids,
		size_t *nids);
/* The EPP numbering of @f's Ball-Larus ids, built once; NULL if none. */
const struct pap_plan *func_bl_plan(struct dfunc *f);
/*
 * Adds the Ball-Larus ids of path @p of @f to f->blset, from @edges (its
 * edges, @nedges of them) when @p has no repeats, else from its form;
 * sets f->bl_noted to -1 when they cannot be had.
 */
void path_note_bl(struct dfunc *f, struct dpath *p, const uint32_t *edges,
		  size_t nedges);
/* path_note_bl() of a path with repeats whose form is @form, built
 * already (its pieces in f->pieces). */
void path_note_bl_form(struct dfunc *f, struct dpath *p,
		       const struct pap_rseq *form);
/* Does path_note_bl_form() note @f's ids from the form's pieces (a PAP
 * or PAP+EPP plan with an EPP numbering), each piece read from a state
 * of the numbering seen before costing a lookup? */
int path_bl_by_pieces(struct dfunc *f);
/* Can a record without repeats of @f be decoded with its pieces told
 * (bl_digit_visit()) and its ids noted by path_note_bl_digits()? */
int path_bl_by_digits(struct dfunc *f);
/* path_note_bl() of @p, @edges decoded with its pieces told into @v:
 * the same ids, a piece noted once per end and digit. */
void path_note_bl_digits(struct dfunc *f, struct dpath *p,
			 const uint32_t *edges, size_t nedges,
			 const struct bl_digits *v);
/*
 * The Ball-Larus numbering read over one PAP+EPP segment of @f alone:
 * its edges @e (@n, execution order) after fold edge @start (PAP_NONE:
 * from the entry), up to the exit when @final, else up to and with the
 * fold edge it ends at.  The numbering's ids are sums of edge values, so
 * a segment entered mid-path (its start is a fold edge of the PAP+EPP
 * plan but not of the numbering) is read from a running id of 0: the first id that ends in
 * it is @out->head plus the running id it is entered with, or, if none
 * ends, @out->head is what it adds to that id.  Every other id that ends
 * in it is noted in f->blset; @out->out is the running id it leaves.
 * 0, or an error code as noting a whole path through it would give.
 */
struct seg_bl {
	uint64_t head, out;
	uint8_t emits;		/* an id ends in it */
	uint8_t abs_start;	/* entered at the entry or after a fold edge
				 * of the numbering: all its ids noted */
};
int path_bl_segment(struct dfunc *f, uint32_t start, int final,
		    const uint32_t *e, size_t n, struct seg_bl *out);
/* Notes Ball-Larus id @id of @f in f->blset; 0 or PAP_ENOMEM. */
int path_note_bl_id(struct dfunc *f, uint64_t id);
/* path_note_bl() from @p's @edges, repeats or not. */
void path_note_bl_edges(struct dfunc *f, struct dpath *p,
			const uint32_t *edges, size_t nedges);
/* Does @p gain from its form: a record with repeats? */
int path_repeats(const struct dpath *p);
/* The distinct Ball-Larus ids of path @p of @f, computed from its form
 * (any length), into *ids (caller frees; some may repeat). */
int path_bl_idset(struct dfunc *f, struct dpath *p, uint64_t **ids,
		  size_t *nids);
/* The same from @p's form @form when not NULL (its pieces in f->pieces),
 * rather than building it again. */
int path_bl_idset_of(struct dfunc *f, struct dpath *p,
		     const struct pap_rseq *form, uint64_t **ids,
		     size_t *nids);
/* Writes the Ball-Larus ids of path @p from its form as " ID", a repeat
 * of distance d and length L as " ( d ids )^(L / d)" then the first
 * L % d of them; 0 or a pap_err. */
int put_bl_stream_form(FILE *out, struct dfunc *f, struct dpath *p);
/* The k-IPF of @f's paths; 0 or a pap_err. */
int func_kipf(struct dfunc *f, uint32_t k, struct pap_forest *ipf);
/* The lines of Ball-Larus path @id of @f, deduplicated in order, into
 * *lines (caller frees). */
size_t bl_lines(struct dfunc *f, uint64_t id, uint32_t **lines);

/* Where @fn's source file is read from, into @buf (sources.c). */
const char *source_path(const struct pap_meta_fn *fn, char *buf,
			size_t size);
/*
 * Source text of line @line of @fn's source file, NULL if not found;
 * cached.  The file is its path under the metadata's compile directory,
 * remapped by source_prefix_add(); a file not found is named once on
 * standard error.
 */
const char *source_line(const struct pap_meta_fn *fn, uint32_t line);
/* Adds --source-prefix "OLD=NEW": paths under OLD are read under NEW;
 * the first that matches applies.  -1 if @spec has no "OLD=". */
int source_prefix_add(const char *spec);
/* Lets go of the cached sources and the prefix maps. */
void source_cache_free(void);

/* Visits the k-IPF @ipf depth first, hottest first, skipping nodes under
 * @min_share of their root; @v = 0 starts at the roots.  enter() gets the
 * parent's and the root's counts and whether it is the first child shown. */
struct kipf_visit {
	void (*enter)(void *ctx, const struct pap_forest *ipf, uint32_t v,
		      uint64_t parent, uint64_t root, int first);
	void (*leave)(void *ctx, int last_child_shown);
	void (*end)(void *ctx);		/* after a list of siblings; may be NULL */
	void *ctx;
};
void kipf_walk(const struct pap_forest *ipf, uint32_t v, uint64_t parent,
	       uint64_t root, double min_share, const struct kipf_visit *kv);

/* What a k-IPF visitor writes to: the stream and the function. */
struct kipf_out {
	FILE *f;
	struct dfunc *df;
};
/* Writes the source lines of Ball-Larus path @id, each after @sep. */
void put_bl_lines(const struct kipf_out *ko, uint64_t id, const char *sep);
/* Builds @df's k-IPF and walks it with @kv; 0, or a pap_err and nothing
 * walked. */
int kipf_report(struct dfunc *df, uint32_t k, double min_share,
		const struct kipf_visit *kv);

/* The indices of dp->fs in the order @sort (enum fn_order), hottest
 * first by default (caller frees); NULL when memory is short. */
size_t *function_order(const struct dprofile *dp, int sort);

/* Reports (report-*.c). */
void print_text(FILE *out, struct dprofile *dp, const struct ropts *o);
void print_json(FILE *out, struct dprofile *dp, const struct ropts *o);
void print_paths(FILE *out, struct dprofile *dp, const struct ropts *o);
void print_block_counts(FILE *out, struct dprofile *dp);
/* The Ball-Larus id stream of each path --top, --min-count and
 * --min-share show, hottest first, one line a path. */
void print_bl_stream(FILE *out, struct dprofile *dp, const struct ropts *o);
void print_kipf_text(FILE *out, struct dfunc *f, const struct ropts *o);
void print_kipf_json(FILE *out, struct dfunc *f, const struct ropts *o);
void print_dot(FILE *out, struct dfunc *f, const struct ropts *o);
/* The graph of @f with its flow counted already: @block per node, @edge
 * per edge, @hot per edge the rank (1 to FLOW_HOT_PATHS) of the hottest
 * path through it, 0 for none. */
void print_dot_flow(FILE *out, struct dfunc *f, const uint64_t *block,
		    const uint64_t *edge, const uint8_t *hot);
/* Graphs of more edges (not dead) than this are drawn with their edges'
 * counts beside them (xlabel), not as labels laid out with the graph
 * (report-dot.c); dot_counts_beside() says whether @cfg's is one. */
#define DOT_LABEL_EDGES 150
int dot_counts_beside(const struct pap_cfg *cfg);
/* The edges of @cfg a picture draws (those not dead). */
uint32_t dot_edges(const struct pap_cfg *cfg);

/* The hottest paths the graph marks. */
#define FLOW_HOT_PATHS 3
/* What one pass over a function's paths counts (funcflow.c): what
 * flow_counts() and line_counts() give, the latter for the lines lo to
 * hi of its blocks only (line l at [l - lo]), and print_dot_flow()'s
 * @hot. */
struct func_flow {
	uint64_t *block, *edge;
	uint8_t *hot;
	uint32_t lo, hi;
	uint64_t *count;
	uint32_t *paths;
	/* while counting: per line and per block the last path counted
	 * there, the paths counted so far; a path's block and edge counts
	 * from its form, per piece its summed weight, the pieces listed */
	uint32_t *last, *mark;
	uint32_t id;
	uint64_t *bc, *ec, *weight;
	uint32_t *syms;
	uint8_t *listed;
	size_t nweight;
	/* 1: the paths were counted as func_decode() decoded them
	 * (func_flow_whole(), func_flow_form()); -1: that failed */
	int whole;
};
/* Sets @fl up to count @f's paths: 0, or -1 when memory is short (then
 * nothing to free). */
int func_flow_start(struct dfunc *f, struct func_flow *fl);
/* dprofile's on_whole for @ctx a func_flow started on @f: counts @p,
 * decoded whole into @edges, if func_flow() would count it from its
 * blocks; fl->whole set to 1 before func_decode() says that it did. */
void func_flow_whole(void *ctx, struct dfunc *f, const struct dpath *p,
		     const struct pap_path *edges);
/* dprofile's on_form, as func_flow_whole() for the paths with repeats
 * (counted from @form, @w). */
void func_flow_form(void *ctx, struct dfunc *f, const struct dpath *p,
		    const struct pap_rseq *form, const uint64_t *w);
/* Counts @f's paths into @fl (started, or else zero), each path decoded
 * once (not again if counted as decoded); 0, or -1 when memory is short
 * (then nothing to free). */
int func_flow(struct dfunc *f, struct func_flow *fl);
void func_flow_free(struct func_flow *fl);
void print_annotated(FILE *out, struct dprofile *dp, struct pap_meta *meta);
void print_lcov(FILE *out, struct dprofile *dp, struct pap_meta *meta);
void print_gcov_json(FILE *out, struct dprofile *dp, struct pap_meta *meta,
		     const char *profile);
void print_gcov_text(FILE *out, struct dprofile *dp, struct pap_meta *meta,
		     const char *profile);
int write_html(const char *dir, struct dprofile *dp, const struct ropts *o);
/* The paths an HTML page shows at most: those to order exactly. */
size_t html_shown_paths(const struct ropts *o);

#define LINE_CODE	0x1	/* some block carries the line */
#define LINE_UNRUN	0x2	/* one of them never ran */

/* One function of a source file's coverage (linecov.c). */
struct linecov_fn {
	struct pap_meta_fn *fn;
	struct dfunc *df;	/* NULL: it never ran */
	uint64_t calls;		/* times it was entered */
	uint32_t first, last;	/* the range of its lines */
	uint32_t nblocks, blocks_run;
};

/* One way out of a block with two or more (a branch). */
struct linecov_branch {
	uint32_t line;		/* the block's last line */
	const struct pap_meta_fn *fn;	/* its function */
	uint32_t block, index;	/* the block; the way's rank among its */
	uint64_t count;		/* times taken */
	int ran;		/* the block ran */
	int abnormal;		/* an exception or longjmp edge */
};

/*
 * One source file's coverage as gcov sees it: per line its count (as
 * gcov counts, libcore/gcovline.h), distinct paths through it and whether
 * code carries it; its functions by first line, those that never ran
 * included (from the metadata files of those that did), and branches.
 */
struct linecov {
	const char *file;
	const struct pap_meta_fn *src;	/* its first function (sources) */
	uint64_t *count;
	uint32_t *paths;
	uint8_t *known;		/* LINE_* */
	const struct pap_meta_fn **fn_of;	/* the first function on it */
	uint32_t nlines;
	struct linecov_fn *fns;
	size_t nfns, capfns;
	struct linecov_branch *br;
	size_t nbr, capbr;
};

/* The coverage of each source file of @dp (functions that never ran
 * from @meta, which may be NULL) into *@out; 0, or -1 out of memory. */
int linecov_build(struct dprofile *dp, struct pap_meta *meta,
		  struct linecov **out, size_t *nout);
void linecov_free(struct linecov *lcs, size_t n);

/* Per-line execution counts and distinct paths of @f: arrays indexed by
 * line, *nlines long (caller frees). */
void line_counts(struct dfunc *f, uint64_t **count, uint32_t **paths,
		 uint32_t *nlines);
/* Each block's and each edge's executions over @f's paths (caller
 * frees). */
void flow_counts(struct dfunc *f, uint64_t **block, uint64_t **edge);

/* The source lines path @p runs through, consecutive repeats merged,
 * into *out (caller frees); returns their number. */
size_t path_lines(const struct pap_meta_fn *fn, const struct dpath *p,
		  uint32_t **out);

/* Writes @s as a JSON string. */
void json_string(FILE *out, const char *s);
/* @prefix (plain text) then @s as one JSON string. */
void json_prefixed_string(FILE *out, const char *prefix, const char *s);

/* selective.c: is @key a selective function's early-end companion
 * ("ASMNAME%early:...")? */
int sel_early_key(const char *key);

/* What the records of one selectively built function say. */
struct sel_func {
	struct pap_meta_fn *fn;	/* fn->sel its plan, fn->sel_where[k] the
				 * spec FILE:LINE of its k-th path */
	uint64_t *count;	/* by plan path number (fn->sel_num[k]) */
	uint64_t other;		/* completed, not of interest */
	uint64_t cut;		/* cut short, not of interest */
	uint64_t early[4];	/* ended early, by technique (1..3) */
	uint64_t activations;
};
/* The selective functions of a profile, in the profile's order, then
 * those of the metadata read that never ran (all counts 0). */
struct sel_report {
	struct sel_func *fs;
	size_t nfs;
};
/*
 * Tallies @prof's records of selective functions (those @o's --function
 * keeps, when @o is not NULL) into @rep; 0, or -1 after a message (a
 * record that matches no path, out of memory) with what could be
 * tallied in @rep.  sel_report_free() frees it either way.
 */
int sel_report_build(struct decoder *d, const struct pap_profile *prof,
		     const struct ropts *o, struct sel_report *rep);
void sel_report_free(struct sel_report *rep);
/* The count of @f's k-th path of interest in its spec's order. */
uint64_t sel_path_count(const struct sel_func *f, uint32_t k);
/* How many of @f's paths of interest were taken at least once. */
uint32_t sel_paths_taken(const struct sel_func *f);
/* The report of the selective functions of @prof, text or JSON (the
 * object of --format=selective-json); 0 or -1 after a message. */
int print_selective(FILE *out, struct decoder *d,
		    const struct pap_profile *prof, const struct ropts *o,
		    int json);
/* @rep's functions as the JSON array of the "selective" member. */
void print_selective_json(FILE *out, const struct sel_report *rep);
/*
 * What merge checks: that the profiles added (@file, whose name must
 * outlive the check) are all of selective builds or all of full ones.
 * sel_check_add() returns 0, or -1 after an error naming both kinds.
 */
struct sel_check;
struct sel_check *sel_check_new(void);
int sel_check_add(struct sel_check *c, const struct pap_profile *p,
		  const char *file);
void sel_check_free(struct sel_check *c);

/*
 * Prints sequence @v with repeats compressed as "( ... )^N": @item prints
 * one element; @open and @close mark a repeated group.
 */
struct seq_printer {
	void (*item)(void *ctx, uint32_t v);
	void (*open)(void *ctx);
	void (*close)(void *ctx, size_t reps);
	void *ctx;
};
void print_compressed(const struct seq_printer *sp, const uint32_t *v,
		      size_t n);

/*
 * A path shown in bounded space (bounded.c, doc/reports.md): a sequence
 * of at most PRINT_MAX_MARKS marks (items, "(" and ")^N") is printed
 * whole; a longer one as its first PRINT_HEAD_PARTS top-level parts (an
 * item or a group), the group covering the most elements, and its last
 * PRINT_TAIL_PARTS parts, each cut after PRINT_PART_MARKS marks, @gap
 * printing "..." once for each run left out.
 */
#define PRINT_MAX_MARKS 100
#define PRINT_HEAD_PARTS 8
#define PRINT_TAIL_PARTS 4
#define PRINT_PART_MARKS 24
/* Prints the whole sequence through @sp; nonzero if it cannot. */
typedef int (*seq_emitter)(const struct seq_printer *sp, void *arg);
/*
 * Calls @emit twice, to measure the sequence and to print it bounded
 * through @sp; 0 when printed whole, 1 when parts were left out, -1 when
 * @emit failed.
 */
int print_bounded(const struct seq_printer *sp, void (*gap)(void *ctx),
		  seq_emitter emit, void *arg);
/* print_bounded() with @max_marks in place of PRINT_MAX_MARKS. */
int print_bounded_max(const struct seq_printer *sp, void (*gap)(void *ctx),
		      seq_emitter emit, void *arg, uint64_t max_marks);
/* What emit_seq() prints: a path's blocks or its source lines. */
struct path_emit {
	struct dfunc *f;
	const struct dpath *p;
	const uint32_t *v;	/* an open path's blocks or lines */
	size_t n;
	piece_printer piece;	/* a long path's, from its form */
	const struct pap_rseq *form;	/* that form, when built already */
};
/* The emitter of a struct path_emit: the sequence with its loops
 * compressed, from @v or, for a long path, from its form. */
int emit_seq(const struct seq_printer *sp, void *arg);

/* Coverage (coverage.c). */
/* Distinct Ball-Larus ids over @f's paths; -1 if they cannot be had. */
int64_t func_bl_taken(struct dfunc *f);
/* A function's acyclic paths: taken, and feasible (its graph's count). */
struct bl_coverage {
	uint64_t taken, feasible;
};
/* @f's coverage of its acyclic paths; -1 when it has no numbering. */
int func_coverage(struct dfunc *f, struct bl_coverage *c);
/* Counts at least this are written in scientific notation. */
#define COUNT_EXACT 10000000ull
/* @v exactly below COUNT_EXACT, else as 1.23e+13. */
void fmt_count(char *buf, size_t len, uint64_t v);
/* @part of @whole in percent: one decimal, two significant digits under
 * 0.1% (so 3 of 10^13 is not 0.0%), "-" for an empty whole. */
void fmt_share(char *buf, size_t len, double part, double whole);

/* Tools (tools.c, diff.c): the subcommands. */
int cmd_merge(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_diff(struct decoder *d, const struct ropts *o, const char *old,
	     const char *new);
/* coverage: per function its whole paths and acyclic coverage; then,
 * for selectively built functions (@o's --function filter applied), how
 * many paths of interest were taken.  0, or 1 after an error. */
int cmd_coverage(struct dprofile *dp, const struct ropts *o, FILE *out);
int write_spec(const char *file, struct dprofile *dp, const struct ropts *o);
/* pap-decode check-spec (check-spec.c). */
int cmd_check_spec(int argc, char **argv);

/* Progress on stderr when it is a terminal and work takes long. */
void progress(const char *what, size_t done, size_t total);
void progress_done(void);

/*
 * Call sequences (callrender.c): a decoded run (callseq.h's events) as
 * its sequence of names, doc/formats.md "call_paths": the function
 * entered at each call, ">name" for an entry from outside (the first
 * entry plain), the function returned to at each return to instrumented
 * code, a tail chain expanded into returns, the function a longjmp
 * resumed.  Items are function indices, CALL_SEQ_OUTSIDE for ">".
 */
#define CALL_SEQ_OUTSIDE 0x80000000u
struct call_seq {
	uint32_t *item;
	size_t n, cap;
};
/* The sequence of @ev[0..@n) of program @b into @out; 0, or -1 when the
 * events do not fit a run or memory is short (then @out is empty). */
int call_sequence(const struct pap_cs_built *b, const struct pap_cev *ev,
		  size_t n, struct call_seq *out);
void call_seq_free(struct call_seq *q);
/*
 * call_sequence() of the events packed @pk stands for, packed alike: the
 * names, of which the runs *@reps (ascending, disjoint; *@nreps of them,
 * malloc'd) each stand for count copies.  Time and memory of @pk.  0 or
 * -1 as call_sequence().
 */
int call_sequence_packed(const struct pap_cs_built *b,
			 const struct pap_cseq_packed *pk, struct call_seq *out,
			 struct pap_cev_rep **reps, size_t *nreps);
/* Its first @max items as a JSON array of strings, or as names apart by
 * spaces. */
void call_seq_json(FILE *out, const struct pap_cs_built *b,
		   const struct call_seq *q, size_t max);
void call_seq_text(FILE *out, const struct pap_cs_built *b,
		   const struct call_seq *q, size_t max);
/*
 * The text report's tree of the run @ev[0..@n), @indent columns in: a
 * line per entry from outside (">name") and per call ("f:LINE -> g",
 * "[outside]" when no instrumented function was entered, "(tail)"),
 * nested under the call or entry in progress; consecutive equal subtrees
 * printed once with "x N", and a group of 2 to 8 consecutive subtrees
 * that repeats printed once under a line "x N:".  0, or -1 (nothing printed) when the events do
 * not fit a run or memory is short.
 */
int call_tree_print(FILE *out, const struct pap_cs_built *b,
		    const struct pap_cev *ev, size_t n, int indent);

/* The source line of call site @k of function @fn of @b, 0: unknown. */
uint32_t call_site_line(const struct pap_cs_built *b, uint32_t fn,
			uint32_t k);

/* A decoded call sequence and how many times it was recorded. */
struct call_run {
	const struct pap_cs_built *b;
	const struct pap_cev *ev;	/* NULL: too long to expand */
	size_t nev;
	uint64_t count;
	/* the packed events (libcore/callseq.h), NULL if none: the
	 * calling contexts come from it, whatever the length */
	const struct pap_cseq_packed *pk;
};

/*
 * Call k-grams (callkgram.c, doc/reports.md): into the empty forest @ipf,
 * the windows of 1 to @k consecutive names (call_sequence() items, the
 * labels) of each run of program @b among @runs, each counted as many
 * times as it occurred times its run's count; no window spans two runs.
 * 0, PAP_EINVAL when a run is no sequence, or PAP_ENOMEM.
 */
int call_kgrams(const struct call_run *runs, size_t n,
		const struct pap_cs_built *b, uint32_t k,
		struct pap_forest *ipf);
/* The text section (at most @max_nodes nodes, 0: all) and the JSON
 * members "call_k" and "call_kgrams" of @runs' k-grams, o->k and
 * o->min_share as the k-IPF has them. */
void call_kgrams_text(FILE *out, const struct call_run *runs, size_t n,
		      const struct ropts *o, struct decoder *d,
		      const char *file, size_t max_nodes);
void call_kgrams_json(FILE *out, const struct call_run *runs, size_t n,
		      const struct ropts *o, struct decoder *d,
		      const char *file);
/*
 * The packed form of sequence @q as a JSON object (callpack.c,
 * doc/formats.md): "pieces", the distinct runs of names, and "form",
 * their numbers with repeats as " ( ... )^N", nested; expanded, it gives
 * @q exactly unless *@cut says the form went over @budget marks and
 * names and stops there.  0, or -1 (nothing written) when memory is
 * short.
 */
int call_pack_json(FILE *out, const struct pap_cs_built *b,
		   const struct call_seq *q, size_t budget, int *cut);
/* call_pack_json() of names packed as call_sequence_packed() gives them:
 * each of @reps one repeat over its body's names, never expanded. */
int call_pack_json_packed(FILE *out, const struct pap_cs_built *b,
			  const struct call_seq *q,
			  const struct pap_cev_rep *reps, size_t nreps,
			  size_t budget, int *cut);
/* The decoded sequences of a profile, each with its count (calls.c):
 * those that could not be decoded are named on stderr and counted in
 * the decoder's errors, those over --max-sequence's bound left out. */
struct call_runs {
	struct call_run *run;
	size_t n;
	void *owner;		/* the decoded records */
};
int calls_runs_load(struct dprofile *dp, const struct ropts *o,
		    struct call_runs *out);
/* calls_runs_load() with the sequences too long to expand too (ev
 * NULL, pk set). */
int calls_runs_load_packed(struct dprofile *dp, const struct ropts *o,
			   struct call_runs *out);
void calls_runs_free(struct call_runs *r);
/* The sequences of interest of o->calls_spec with their counts in @dp's
 * profile (callspec.c); nothing without --calls-spec. */
void print_calls_interest_json(FILE *out, struct dprofile *dp,
			       const struct ropts *o);
void print_calls_interest_text(FILE *out, struct dprofile *dp,
			       const struct ropts *o);
/* Does @dp's profile hold call sequences? */
int calls_in_profile(const struct dprofile *dp);
/* --write-spec's "calls" lines: the decoded sequences, hottest first,
 * --top of them (0: all), each with its count; 0 or -1 (a sequence
 * that could not be rendered). */
int write_spec_calls(FILE *f, struct dprofile *dp, const struct ropts *o);
/*
 * pap-decode diff's sections of call sequences and calling contexts
 * (calldiff.c) of @old's profile @a against @new's @b: those that
 * appear, disappear, and change count most, --top of each; nothing
 * when neither has call sequences.  0, or -1 after an error (said).
 */
int calls_diff(struct dprofile *a, struct dprofile *b, const struct ropts *o,
	       const char *old, const char *new);

/*
 * The calling-context tree of @runs (callctx.c): JSON ",\n\"call_contexts\":
 * [...], \"call_contexts_left_out\": N", each context with its chain of
 * names, the caller's site ("f:LINE") and its calls; text: the "calling
 * contexts" section, children hottest first, --top of them at most.
 * A sequence whose contexts cannot be made is named on stderr (@file)
 * and counted in @d's errors.
 */
void call_contexts_json(FILE *out, const struct call_run *runs, size_t n,
			struct decoder *d, const char *file);
void call_contexts_text(FILE *out, const struct call_run *runs, size_t n,
			const struct ropts *o, struct decoder *d,
			const char *file);

/*
 * The call sequences of dp->prof (calls.c): each CALLS record decoded in
 * the program its PROG and UNIT records name, their metadata found as
 * functions' is.  A record that cannot be decoded is named on standard
 * error ("pap-decode: FILE: calls record N: ...") and counted in the
 * decoder's errors; the others are reported.  JSON: ",\n\"call_paths\": [...]"
 * when the profile has calls records; text: the "call sequences" section.
 */
void print_calls_json(FILE *out, struct dprofile *dp, const struct ropts *o);
void print_calls_text(FILE *out, struct dprofile *dp, const struct ropts *o);
/* Reads metadata file @path once (load.c), and every file in the search
 * directories once. */
void decoder_load_meta(struct decoder *d, const char *path);
void decoder_scan(struct decoder *d);

#endif /* PAP_DECODER_H */
