/* SPDX-License-Identifier: MIT */
/* hash - an open-addressing hash table of strings (FNV-1a, linear
 * probing, growth by doubling): inserts, lookups that hit and miss,
 * deletions by tombstone. */
#include <string.h>
#include "bench.h"

struct slot {
	char key[16];
	uint64_t val;
	int state;	/* 0 empty, 1 full, 2 deleted */
};

static struct slot *tab;
static size_t cap, used;

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static struct slot *find(const char *key, int for_insert)
{
	size_t i = fnv(key) & (cap - 1);
	struct slot *grave = NULL;

	for (;;) {
		struct slot *sl = &tab[i];

		if (sl->state == 0)
			return for_insert && grave ? grave :
			       (for_insert ? sl : NULL);
		if (sl->state == 2) {
			if (!grave)
				grave = sl;
		} else if (!strcmp(sl->key, key)) {
			return sl;
		}
		i = (i + 1) & (cap - 1);
	}
}

static void grow(void)
{
	struct slot *old = tab;
	size_t oldcap = cap, i;

	cap = cap ? cap * 2 : 1024;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		abort();
	used = 0;
	for (i = 0; i < oldcap; i++)
		if (old[i].state == 1) {
			struct slot *sl = find(old[i].key, 1);

			*sl = old[i];
			used++;
		}
	free(old);
}

static void put(const char *key, uint64_t v)
{
	struct slot *sl;

	if (2 * (used + 1) > cap)
		grow();
	sl = find(key, 1);
	if (sl->state != 1) {
		strcpy(sl->key, key);
		sl->state = 1;
		used++;
		sl->val = 0;
	}
	sl->val += v;
}

static void key_of(char *buf, uint64_t x)
{
	int i;

	for (i = 0; i < 10; i++) {
		buf[i] = (char)('a' + x % 26);
		x /= 26;
	}
	buf[10] = 0;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 9000000), i;
	uint64_t s = 99, sum = 0;
	char key[16];

	grow();
	for (i = 0; i < n; i++) {
		uint64_t x = bench_rand(&s) % 200000;
		struct slot *sl;

		key_of(key, x);
		switch (x & 3) {
		case 0:
		case 1:
			put(key, x);
			break;
		case 2:
			sl = find(key, 0);
			sum = bench_mix(sum, sl ? sl->val : 1);
			break;
		default:
			sl = find(key, 0);
			if (sl) {
				sl->state = 2;
				sum += sl->val;
			}
		}
	}
	bench_print("hash", bench_mix(sum, used));
	free(tab);
	return 0;
}
