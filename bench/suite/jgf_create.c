/* SPDX-License-Identifier: MIT */
/* jgf_create - JGF section 1 Create: objects of several sizes made,
 * initialised, linked and freed (malloc/free stand for new and GC). */
#include <string.h>
#include "bench.h"

struct obj {
	struct obj *next;
	int kind;
	int64_t field[7];
};

static __attribute__((noinline)) struct obj *obj_new(int kind, int64_t v)
{
	size_t size = sizeof(struct obj) + (size_t)(kind & 3) * 16;
	struct obj *o = malloc(size);
	int i;

	if (!o)
		abort();
	memset(o, 0, size);
	o->kind = kind;
	for (i = 0; i < 7; i++)
		o->field[i] = v + i;
	return o;
}

static __attribute__((noinline)) int64_t create_round(int n, int64_t seed)
{
	struct obj *head = NULL, *o;
	int64_t sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		o = obj_new(i, seed + i);
		o->next = head;
		head = o;
		if ((i & 15) == 15) {
			while (head) {
				o = head->next;
				sum += head->field[head->kind % 7];
				free(head);
				head = o;
			}
		}
	}
	while (head) {
		o = head->next;
		sum += head->field[1];
		free(head);
		head = o;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 500), k;
	uint64_t sum = 0;

	for (k = 0; k < n; k++)
		sum = bench_mix(sum, (uint64_t)create_round(100000, k));
	bench_print("jgf_create", sum);
	return 0;
}
