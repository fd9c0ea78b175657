/*
 * Linked into a test program, compiled without pap: at exit, after the
 * program's own atexit handlers (registered from a priority-101
 * constructor, so it runs after those registered later), ends the main
 * thread's call sequence with the runtime's rt_calls_take() and writes
 * the record to $PAP_TAKE (pap-cseq reads it): "value HEX", "lost N",
 * "n N", then each packed breakpoint "SITE R" in hex.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct pap_breakpoint {
	uint32_t site;
	uint64_t r;
};

int rt_calls_take(uint64_t *value, const struct pap_breakpoint **bps,
		  size_t *nbps);

static void take(void)
{
	const struct pap_breakpoint *bps;
	const char *path = getenv("PAP_TAKE");
	uint64_t value;
	size_t n, i;
	int lost;
	FILE *f;

	if (!path)
		return;
	lost = rt_calls_take(&value, &bps, &n);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "value %" PRIx64 "\nlost %d\nn %zu\n", value, lost, n);
	for (i = 0; i < n; i++)
		fprintf(f, "%" PRIx32 " %" PRIx64 "\n", bps[i].site, bps[i].r);
	fclose(f);
}

__attribute__((constructor(101))) static void take_at_exit(void)
{
	atexit(take);
}
