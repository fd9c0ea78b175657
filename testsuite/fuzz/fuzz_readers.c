/* SPDX-License-Identifier: MIT */
/*
 * fuzz_readers.c - libFuzzer harness over what pap-decode reads from
 * untrusted files: the profile parser, the metadata parser, plan
 * building from parsed graphs, and decoding of parsed records against
 * parsed metadata.  Built and run by `make soak-decode`; any crash,
 * leak or sanitizer report is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfgtext.h"
#include "decode.h"
#include "meta.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input: profile text, then optionally "\n=\n" and metadata text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *meta, err[256];
	struct pap_profile prof;
	struct pap_meta m;
	size_t i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	meta = strstr(text, "\n=\n");
	if (meta) {
		*meta = 0;
		meta += 3;
	}
	pap_profile_init(&prof);
	pap_meta_init(&m);
	pap_profile_parse(&prof, text, "fuzz.prof", err, sizeof(err));
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
				pap_decode_path(plan, r->bps, r->nbps, r->value,
						&p);
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
	pap_meta_free(&m);
	pap_profile_free(&prof);
	free(text);
	return 0;
}
