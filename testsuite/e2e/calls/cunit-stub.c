/*
 * Until the runtime registers units itself: a weak __pap_cunit, which a
 * runtime defining it replaces at link time, keeping the units' tables
 * and naming an indirect call's callee by address for the runtime
 * (rt_calls_set_key_of, when the runtime has it).
 */
#include <stddef.h>
#include <stdint.h>

struct cunit_fn {
	uintptr_t addr;
	const char *key;
};

struct cunit {
	const char *key;
	uint32_t nfns;
	const struct cunit_fn *fns;
};

void rt_calls_set_key_of(const char *(*key_of)(uintptr_t addr))
	__attribute__((weak));

static const struct cunit *units[64];
static unsigned nunits;

static const char *key_of(uintptr_t addr)
{
	unsigned u, i;

	for (u = 0; u < nunits; u++)
		for (i = 0; i < units[u]->nfns; i++)
			if (units[u]->fns[i].addr == addr)
				return units[u]->fns[i].key;
	return NULL;
}

__attribute__((weak)) void __pap_cunit(const struct cunit *unit)
{
	if (nunits < sizeof(units) / sizeof(units[0]))
		units[nunits++] = unit;
	if (rt_calls_set_key_of)
		rt_calls_set_key_of(key_of);
}
