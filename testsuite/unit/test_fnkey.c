/* SPDX-License-Identifier: MIT */
/*
 * test_fnkey.c - the function key "ASMNAME:CHECKSUM[:METAFILE]": what
 * the plugin writes, the profile reader and the decoder split back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fnkey.h"

/* test_fnkey_round_trip: a key made with a metadata file splits back
 * into its three parts. */
static void test_fnkey_round_trip(void **state)
{
	char buf[PAP_FNKEY_MAX];
	struct pap_fnkey k;
	int n;

	(void)state;
	n = pap_fnkey_format(buf, sizeof(buf), "main", 0x0123456789abcdefull,
			     "obj/a.papm");
	assert_string_equal(buf, "main:0123456789abcdef:obj/a.papm");
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(pap_fnkey_split(buf, (size_t)n, &k), 0);
	assert_int_equal(k.name_len, 4);
	assert_memory_equal(k.name, "main", 4);
	assert_true(k.checksum == 0x0123456789abcdefull);
	assert_non_null(k.meta);
	assert_int_equal(k.meta_len, strlen("obj/a.papm"));
	assert_memory_equal(k.meta, "obj/a.papm", k.meta_len);
}

/* test_fnkey_no_meta: a metadata path with white space, or none, or
 * one that does not fit, leaves the key at ASMNAME:CHECKSUM. */
static void test_fnkey_no_meta(void **state)
{
	char buf[PAP_FNKEY_MAX], small[32];
	struct pap_fnkey k;

	(void)state;
	pap_fnkey_format(buf, sizeof(buf), "f", 1, "my dir/a.papm");
	assert_string_equal(buf, "f:0000000000000001");
	pap_fnkey_format(buf, sizeof(buf), "f", 2, NULL);
	assert_string_equal(buf, "f:0000000000000002");
	assert_int_equal(pap_fnkey_split(buf, strlen(buf), &k), 0);
	assert_null(k.meta);
	pap_fnkey_format(small, sizeof(small), "f", 3, "a/very/long/path.papm");
	assert_string_equal(small, "f:0000000000000003");
	assert_int_equal(pap_fnkey_format(small, 8, "f", 3, NULL), -1);
}

/* test_fnkey_rejects: no name, a short, long or uppercase checksum,
 * and no colon are not keys. */
static void test_fnkey_rejects(void **state)
{
	static const char *const bad[] = {
		":0123456789abcdef", "f:0123456789abcde", "f:0123456789abcdef0",
		"f:0123456789ABCDEF", "f", "f:", "f:0123456789abcdeg:m",
	};
	struct pap_fnkey k;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!pap_fnkey_split(bad[i], strlen(bad[i]), &k))
			fail_msg("'%s' was taken for a key", bad[i]);
	/* only the first n bytes count */
	assert_int_equal(pap_fnkey_split("f:0123456789abcdef:x", 18, &k), 0);
	assert_null(k.meta);
	assert_int_equal(pap_fnkey_split("f:0123456789abcdef:", 19, &k), 0);
	assert_non_null(k.meta);
	assert_int_equal(k.meta_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnkey_round_trip),
		cmocka_unit_test(test_fnkey_no_meta),
		cmocka_unit_test(test_fnkey_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
