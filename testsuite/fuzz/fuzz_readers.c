/* SPDX-License-Identifier: MIT */
/*
 * fuzz_readers.c - libFuzzer harness over what pap-decode reads from
 * untrusted files: the profile parser, the metadata parser, plan
 * building from parsed graphs, and decoding of parsed records against
 * parsed metadata.  Built and run by `make soak-decode`; any crash,
 * leak or sanitizer report is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpack.h"
#include "cfgtext.h"
#include "decode.h"
#include "meta.h"
#include "profdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memo per function, kept across records as pap-decode keeps it. */
static struct pap_meta_fn *memo_fn;
static struct pap_memo *memo;

/* Record @r decoded with and without the memo: the same, or abort. */
static void check_memo(const struct pap_plan *plan, struct pap_meta_fn *fn,
		       const struct pap_prof_rec *r, struct pap_path *p)
{
	struct pap_bpack_buf unpacked = { 0 };
	const struct pap_breakpoint *bps;
	struct pap_path q;
	size_t n;
	int e1, e2;

	if (fn != memo_fn) {
		pap_memo_free(memo);
		memo = pap_memo_new(64);
		memo_fn = fn;
	}
	/* repeats undone first, as pap-decode does, within a bound */
	if (pap_bunpack_into(&unpacked, r->bps, r->nbps, 1u << 20, &bps, &n)) {
		pap_bpack_buf_free(&unpacked);
		return;
	}
	e1 = pap_decode_path(plan, bps, n, r->value, p);
	pap_path_init(&q);
	e2 = memo ? pap_decode_path_memo(plan, memo, bps, n, r->value, &q) : e1;
	if (e1 != e2 || (memo && !e1 && (p->len != q.len ||
	    memcmp(p->edges, q.edges, p->len * sizeof(*p->edges)))))
		abort();
	pap_path_free(&q);
	pap_bpack_buf_free(&unpacked);
}

/*
 * The profile @text[0..@len) (text, or binary: version 4) read back as a
 * file, a piece at a time, must give what parsing it whole gave: @prof,
 * or the error @err.
 */
static void check_file_reader(const char *text, size_t len, int parsed,
			      const struct pap_profile *prof, const char *err)
{
	char path[] = "/tmp/pap-fuzz-XXXXXX", err2[256];
	struct pap_profile again;
	size_t i;
	int fd = mkstemp(path), rc;

	if (fd < 0)
		return;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		unlink(path);
		return;
	}
	close(fd);
	pap_profile_init(&again);
	rc = pap_profile_read_file(&again, path, (size_t)1 << 20, err2,
				   sizeof(err2), NULL);
	unlink(path);
	/* the messages name different files: compare what follows */
	if (!rc != parsed || (rc && strcmp(strchr(err, ':'),
					   strchr(err2, ':'))) ||
	    (!rc && (again.nrecs != prof->nrecs || again.lost != prof->lost)))
		abort();
	for (i = 0; !rc && i < prof->nrecs; i++)
		if (again.recs[i].hash != prof->recs[i].hash ||
		    again.recs[i].count != prof->recs[i].count)
			abort();
	pap_profile_free(&again);
}

/*
 * Input: a profile (text, or binary: version 4), then optionally
 * "\n=\n" and metadata text.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *meta = NULL, err[256];
	struct pap_profile prof;
	struct pap_meta m;
	size_t i, plen = size;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	for (i = 0; i + 3 <= size; i++)
		if (!memcmp(text + i, "\n=\n", 3)) {
			text[i] = 0;
			plen = i;
			meta = text + i + 3;
			break;
		}
	pap_profile_init(&prof);
	pap_meta_init(&m);
	check_file_reader(text, plen,
			  !pap_profile_parse_mem(&prof, text, plen, "fuzz.prof",
						 err, sizeof(err)),
			  &prof, err);
	if (meta && !pap_meta_parse(&m, meta, "fuzz.papm", err, sizeof(err))) {
		for (i = 0; i < prof.nrecs; i++) {
			const struct pap_prof_rec *r = &prof.recs[i];
			char *colon = strchr(r->fn, ':');
			struct pap_meta_fn *fn;
			const struct pap_plan *plan;
			struct pap_path p;

			if (!colon)
				continue;
			*colon = 0;
			fn = pap_meta_find(&m, r->fn, strtoull(colon + 1, NULL,
							       16), NULL);
			*colon = ':';
			plan = fn ? pap_meta_plan(fn) : NULL;
			if (!plan)
				continue;
			pap_path_init(&p);
			if (r->kind == PAP_REC_BL && plan->mode == PAP_MODE_EPP)
				pap_decode_bl(plan, r->value, &p);
			else if (plan->mode != PAP_MODE_EPP)
				check_memo(plan, fn, r, &p);
			pap_path_free(&p);
		}
	}
	if (meta) {
		/* the graph and planning layer, which checksums shield in
		 * metadata: the same text as a bare graph, in every mode */
		struct pap_cfgtext g;

		if (!pap_cfgtext_parse(meta, "fuzz.cfg", &g, err,
				       sizeof(err))) {
			enum pap_mode mode;

			for (mode = PAP_MODE_EPP; mode <= PAP_MODE_PAP_EPP;
			     mode++) {
				struct pap_plan *plan;

				if (!pap_plan_build(g.cfg, mode, NULL, &plan))
					pap_plan_free(plan);
			}
			pap_cfgtext_free(&g);
		}
	}
	pap_memo_free(memo);	/* its plans go with the metadata */
	memo = NULL;
	memo_fn = NULL;
	pap_meta_free(&m);
	pap_profile_free(&prof);
	free(text);
	return 0;
}
