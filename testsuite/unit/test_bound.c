/* SPDX-License-Identifier: MIT */
/*
 * test_bound.c - seed 000 §1.3: on a DAG, PAP needs at most 2*EPP + 2
 * probes.  A probe here is an executable edge carrying operations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "testlib.h"

/* test_bound_pap_vs_epp: 3000 random DAGs, the bound holds on each, and
 * pap-epp never needs more probe sites than pap. */
static void test_bound_pap_vs_epp(void **state)
{
	struct tl_rng g = { 1234 };
	unsigned long long sum_pap = 0, sum_epp = 0, sum_mix = 0;
	int i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		struct tl_cfg_params p;
		struct pap_cfg *cfg;
		struct pap_plan *pap, *epp, *mix;

		tl_random_params(&g, &p);
		p.forward_only = 1;
		cfg = tl_random_cfg(&g, &p);
		assert_non_null(cfg);
		assert_int_equal(cfg->nback, 0);
		assert_int_equal(pap_plan_build(cfg, PAP_MODE_PAP, NULL, &pap), 0);
		assert_int_equal(pap_plan_build(cfg, PAP_MODE_EPP, NULL, &epp), 0);
		assert_int_equal(pap_plan_build(cfg, PAP_MODE_PAP_EPP, NULL,
						&mix), 0);
		if (pap->nprobe_sites > 2 * epp->nprobe_sites + 2)
			fail_msg("DAG %d: pap %u probes > 2 * epp %u + 2", i,
				 pap->nprobe_sites, epp->nprobe_sites);
		assert_true(mix->nprobe_sites <= pap->nprobe_sites);
		sum_pap += pap->nprobe_sites;
		sum_epp += epp->nprobe_sites;
		sum_mix += mix->nprobe_sites;
		pap_plan_free(pap);
		pap_plan_free(epp);
		pap_plan_free(mix);
		pap_cfg_free(cfg);
	}
	print_message("# probe sites over 3000 DAGs: pap %llu, epp %llu, "
		      "pap-epp %llu\n", sum_pap, sum_epp, sum_mix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_pap_vs_epp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
