/* SPDX-License-Identifier: MIT */
/*
 * pispauto.c - the automaton over the call sequences of interest
 * (pispauto.h): built from every reading of the sequences, encoded,
 * decoded, stepped.
 */
#include <stdlib.h>
#include <string.h>

#include "papdefs.h"
#include "pispauto.h"
#include "util.h"

/* The trie while it is built: a node's edges in a linked list. */
struct bnode {
	uint32_t edge;		/* its first edge, or UINT32_MAX */
};

struct bedge {
	uint32_t letter, child, next;
};

/* A frame of a reading's stack: persistent, shared by the readings. */
struct bframe {
	uint32_t letter, up;	/* up: the frame below, or UINT32_MAX */
};

/* A reading to go on with: item i next, stack top, trie node. */
struct bwork {
	size_t seq, i;
	uint32_t top, node;
};

struct builder {
	struct bnode *node;
	size_t nnode, capnode;
	struct bedge *edge;
	size_t nedge, capedge;
	struct bframe *frame;
	size_t nframe, capframe;
	struct bwork *work;
	size_t nwork, capwork;
	size_t steps;
	int over;		/* a bound was passed: open */
};

#define NONE UINT32_MAX

/* The child of @v on @letter, made if new; NONE past the bound or
 * out of memory (b->over set, or PAP_ENOMEM in *@r). */
static uint32_t child_of(struct builder *b, uint32_t v, uint32_t letter,
			 int *r)
{
	uint32_t e;

	for (e = b->node[v].edge; e != NONE; e = b->edge[e].next)
		if (b->edge[e].letter == letter)
			return b->edge[e].child;
	if (b->nnode >= PAP_PISP_MAX_NODES) {
		b->over = 1;
		return NONE;
	}
	if ((b->nnode == b->capnode &&
	     pap_grow(&b->node, &b->capnode, sizeof(*b->node), 64)) ||
	    (b->nedge == b->capedge &&
	     pap_grow(&b->edge, &b->capedge, sizeof(*b->edge), 64))) {
		*r = PAP_ENOMEM;
		return NONE;
	}
	b->node[b->nnode].edge = NONE;
	b->edge[b->nedge].letter = letter;
	b->edge[b->nedge].child = (uint32_t)b->nnode;
	b->edge[b->nedge].next = b->node[v].edge;
	b->node[v].edge = (uint32_t)b->nedge++;
	return (uint32_t)b->nnode++;
}

static int push_frame(struct builder *b, uint32_t letter, uint32_t up,
		      uint32_t *top)
{
	if (b->nframe == b->capframe &&
	    pap_grow(&b->frame, &b->capframe, sizeof(*b->frame), 64))
		return PAP_ENOMEM;
	b->frame[b->nframe].letter = letter;
	b->frame[b->nframe].up = up;
	*top = (uint32_t)b->nframe++;
	return PAP_OK;
}

static int push_work(struct builder *b, size_t seq, size_t i, uint32_t top,
		     uint32_t node)
{
	if (b->nwork == b->capwork &&
	    pap_grow(&b->work, &b->capwork, sizeof(*b->work), 64))
		return PAP_ENOMEM;
	b->work[b->nwork].seq = seq;
	b->work[b->nwork].i = i;
	b->work[b->nwork].top = top;
	b->work[b->nwork].node = node;
	b->nwork++;
	return PAP_OK;
}

/*
 * Every reading of every sequence into the trie, depth first: an item
 * is an entry (its letter goes into the trie, a frame is pushed), and,
 * unless it is the first or written '>', also a return or resume to the
 * topmost frame of its function, when one is on the stack (the stack is
 * cut there; nothing goes into the trie).
 */
static int readings(struct builder *b, const struct pap_pisp_item *const *seq,
		    const size_t *len, size_t nseq)
{
	size_t s;
	int r = PAP_OK;

	for (s = 0; s < nseq && !r; s++)
		if (len[s])
			r = push_work(b, s, 0, NONE, 0);
	while (!r && b->nwork && !b->over) {
		struct bwork w = b->work[--b->nwork];
		const struct pap_pisp_item *it;
		uint32_t c, top, f;

		if (w.i == len[w.seq])
			continue;
		if (++b->steps > PAP_PISP_MAX_STEPS) {
			b->over = 1;
			break;
		}
		it = &seq[w.seq][w.i];
		if (w.i && !it->outside) {
			for (f = w.top; f != NONE && b->frame[f].letter !=
			     it->letter; f = b->frame[f].up)
				;
			if (f != NONE &&
			    (r = push_work(b, w.seq, w.i + 1, f, w.node)))
				break;
		}
		c = child_of(b, w.node, it->letter, &r);
		if (c == NONE)
			break;
		if ((r = push_frame(b, it->letter, w.top, &top)) ||
		    (r = push_work(b, w.seq, w.i + 1, top, c)))
			break;
	}
	return r;
}

static int cmp_u32pair(const void *x, const void *y)
{
	const uint32_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* The built trie as pap_pisp_auto's arrays, each node's edges sorted. */
static int flatten(struct pap_pisp_auto *a, const struct builder *b)
{
	uint32_t v, e, k = 0, *pair;

	a->nnodes = (uint32_t)b->nnode;
	a->first = malloc((b->nnode + 1) * sizeof(*a->first));
	a->letter = malloc((b->nedge + 1) * sizeof(*a->letter));
	a->child = malloc((b->nedge + 1) * sizeof(*a->child));
	pair = malloc((b->nedge + 1) * 2 * sizeof(*pair));
	if (!a->first || !a->letter || !a->child || !pair) {
		free(pair);
		return PAP_ENOMEM;
	}
	for (v = 0; v < b->nnode; v++) {
		uint32_t n = 0, j;

		a->first[v] = k;
		for (e = b->node[v].edge; e != NONE; e = b->edge[e].next) {
			pair[2 * n] = b->edge[e].letter;
			pair[2 * n + 1] = b->edge[e].child;
			n++;
		}
		qsort(pair, n, 2 * sizeof(*pair), cmp_u32pair);
		for (j = 0; j < n; j++, k++) {
			a->letter[k] = pair[2 * j];
			a->child[k] = pair[2 * j + 1];
		}
	}
	a->first[b->nnode] = k;
	free(pair);
	return PAP_OK;
}

int pap_pisp_auto_build(struct pap_pisp_auto *a, uint32_t nletters,
			const struct pap_pisp_item *const *seq,
			const size_t *len, size_t nseq, uint64_t hash)
{
	struct builder b;
	int r;

	memset(a, 0, sizeof(*a));
	memset(&b, 0, sizeof(b));
	a->nletters = nletters;
	a->hash = hash;
	if (pap_grow(&b.node, &b.capnode, sizeof(*b.node), 64))
		return PAP_ENOMEM;
	b.node[0].edge = NONE;
	b.nnode = 1;
	r = readings(&b, seq, len, nseq);
	if (!r && b.over) {
		/* the root alone, open */
		b.nnode = 1;
		b.nedge = 0;
		b.node[0].edge = NONE;
		a->open = 1;
	}
	if (!r)
		r = flatten(a, &b);
	free(b.node);
	free(b.edge);
	free(b.frame);
	free(b.work);
	if (r)
		pap_pisp_auto_free(a);
	return r;
}

void pap_pisp_auto_free(struct pap_pisp_auto *a)
{
	free(a->first);
	free(a->letter);
	free(a->child);
	memset(a, 0, sizeof(*a));
}

uint32_t pap_pisp_next(const struct pap_pisp_auto *a, uint32_t state,
		       uint32_t letter)
{
	uint32_t lo, hi;

	if (a->open)
		return 0;
	if (state >= a->nnodes)
		return PAP_PISP_DEAD;
	lo = a->first[state];
	hi = a->first[state + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a->letter[mid] < letter)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->first[state + 1] && a->letter[lo] == letter)
		return a->child[lo];
	return PAP_PISP_DEAD;
}

/* The encoding: "PISP", then little-endian words: version 1, open,
 * nletters, nnodes, nedges, the hash (two words, low first), first[],
 * letter[], child[]. */
#define HEAD_WORDS 8u

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

unsigned char *pap_pisp_auto_encode(const struct pap_pisp_auto *a,
				    size_t *size)
{
	uint32_t nedges = a->first[a->nnodes], i;
	size_t words = HEAD_WORDS + a->nnodes + 1 + 2 * (size_t)nedges;
	unsigned char *buf = malloc(4 * words), *p;

	if (!buf)
		return NULL;
	memcpy(buf, "PISP", 4);
	put32(buf + 4, 1);
	put32(buf + 8, (uint32_t)a->open);
	put32(buf + 12, a->nletters);
	put32(buf + 16, a->nnodes);
	put32(buf + 20, nedges);
	put32(buf + 24, (uint32_t)a->hash);
	put32(buf + 28, (uint32_t)(a->hash >> 32));
	p = buf + 4 * HEAD_WORDS;
	for (i = 0; i <= a->nnodes; i++, p += 4)
		put32(p, a->first[i]);
	for (i = 0; i < nedges; i++, p += 4)
		put32(p, a->letter[i]);
	for (i = 0; i < nedges; i++, p += 4)
		put32(p, a->child[i]);
	*size = 4 * words;
	return buf;
}

uint64_t pap_pisp_auto_hash(const unsigned char *p, size_t n)
{
	if (n < 4 * HEAD_WORDS || memcmp(p, "PISP", 4) || get32(p + 4) != 1)
		return 0;
	return (uint64_t)get32(p + 24) | (uint64_t)get32(p + 28) << 32;
}

int pap_pisp_auto_decode(struct pap_pisp_auto *a, const unsigned char *p,
			 size_t n)
{
	uint32_t nnodes, nedges, i;
	const unsigned char *q;

	memset(a, 0, sizeof(*a));
	if (n < 4 * HEAD_WORDS || memcmp(p, "PISP", 4) || get32(p + 4) != 1)
		return PAP_EINVAL;
	nnodes = get32(p + 16);
	nedges = get32(p + 20);
	if (!nnodes || nnodes > PAP_PISP_MAX_NODES || nedges >= nnodes ||
	    n != 4 * (HEAD_WORDS + (size_t)nnodes + 1 + 2 * (size_t)nedges))
		return PAP_EINVAL;
	a->open = get32(p + 8) != 0;
	a->nletters = get32(p + 12);
	a->nnodes = nnodes;
	a->hash = pap_pisp_auto_hash(p, n);
	a->first = malloc((nnodes + 1) * sizeof(*a->first));
	a->letter = malloc((nedges + 1) * sizeof(*a->letter));
	a->child = malloc((nedges + 1) * sizeof(*a->child));
	if (!a->first || !a->letter || !a->child) {
		pap_pisp_auto_free(a);
		return PAP_ENOMEM;
	}
	q = p + 4 * HEAD_WORDS;
	for (i = 0; i <= nnodes; i++, q += 4)
		a->first[i] = get32(q);
	for (i = 0; i < nedges; i++, q += 4)
		a->letter[i] = get32(q);
	for (i = 0; i < nedges; i++, q += 4)
		a->child[i] = get32(q);
	/* edges in order, letters ascending in a node, children in range */
	if (a->first[0] || a->first[nnodes] != nedges)
		goto bad;
	for (i = 0; i < nnodes; i++) {
		uint32_t e;

		if (a->first[i] > a->first[i + 1])
			goto bad;
		for (e = a->first[i]; e < a->first[i + 1]; e++)
			if (a->child[e] >= nnodes || a->letter[e] >=
			    a->nletters || (e > a->first[i] &&
					    a->letter[e - 1] >= a->letter[e]))
				goto bad;
	}
	return PAP_OK;
bad:
	pap_pisp_auto_free(a);
	return PAP_EINVAL;
}
