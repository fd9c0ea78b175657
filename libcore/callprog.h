/* SPDX-License-Identifier: MIT */
/*
 * callprog.h - the program a call sequence ran in, as the decoder of
 * callseq.h needs it, built from the metadata of its units: every
 * function with calls, its call-site graph, its direct callees and its
 * indirect sites' clusters resolved by assembler name, and its id.
 *
 * Names resolve first in the caller's own unit (a static function, or
 * the unit's definition of an extern one), then among the other units,
 * where exactly one must define the name.  A name that no unit defines
 * with calls is an uninstrumented callee, which only a site flagged
 * PAP_SITE_MAYBE_OUT may have; one that several other units define is
 * refused, never guessed (interposition, or statics of one name called
 * from a unit that has none).
 */
#ifndef PAP_CORE_CALLPROG_H
#define PAP_CORE_CALLPROG_H

#include <stddef.h>

#include "callseq.h"
#include "meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One unit of the program. */
struct pap_cs_unit {
	const char *metakey;	/* METAFILE as the unit's keys name it;
				 * NULL when they name none */
	struct pap_meta_fn *const *fns;	/* its functions, in file order;
					 * those without calls are skipped */
	size_t nfns;
};

struct pap_cs_built {
	struct pap_cs_prog prog;	/* what pap_cseq_decode() takes */
	struct pap_meta_fn **meta;	/* [i]: function i's metadata */
	char **key;			/* [i]: its key text, as its probes
					 * passed it */
	uint32_t *unit;			/* [i]: its unit's index */
	/* storage of prog */
	struct pap_cs_fn *fn;
	uint32_t *callee, *ncluster, *members;
	const uint32_t **cluster;
};

/*
 * Builds @out from the @n @units.  PAP_ECORRUPT with @err saying which
 * function, site and name when a call-site graph cannot be built or a
 * name cannot be resolved as above; PAP_EINVAL when two functions have
 * one id; PAP_ENOMEM.  On error @out holds nothing.
 */
int pap_cs_prog_build(const struct pap_cs_unit *units, size_t n,
		      struct pap_cs_built *out, char *err, size_t errlen);
void pap_cs_built_free(struct pap_cs_built *b);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_CALLPROG_H */
