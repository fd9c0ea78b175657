/* SPDX-License-Identifier: MIT */
/* regex - a backtracking matcher for a small regex language (literals,
 * '.', '*', '+', '?', '^', '$', character classes) in the style of
 * Pike and Kernighan's, run over generated text lines. */
#include <string.h>
#include "bench.h"

static int match_here(const char *re, const char *text);

/* Does the class at @re (after '[') contain @c?  *len gets its length. */
static int class_has(const char *re, int c, int *len)
{
	int neg = 0, hit = 0, i = 0;

	if (re[i] == '^') {
		neg = 1;
		i++;
	}
	while (re[i] && re[i] != ']') {
		if (re[i + 1] == '-' && re[i + 2] && re[i + 2] != ']') {
			if (c >= re[i] && c <= re[i + 2])
				hit = 1;
			i += 3;
		} else {
			if (c == re[i])
				hit = 1;
			i++;
		}
	}
	*len = i + 2;	/* '[' ... ']' */
	return c && hit != neg;
}

/* Does one atom at @re match @c?  *len gets the atom's length. */
static int atom(const char *re, int c, int *len)
{
	if (re[0] == '[')
		return class_has(re + 1, c, len);
	*len = 1;
	if (re[0] == '.')
		return c != 0;
	return re[0] == c;
}

static int match_star(const char *re, int alen, const char *rest,
		      const char *text, int min)
{
	const char *t = text;
	int l;

	while (*t && atom(re, *t, &l))
		t++;
	(void)alen;
	do {
		if (t - text >= min && match_here(rest, t))
			return 1;
	} while (t-- > text);
	return 0;
}

static int match_here(const char *re, const char *text)
{
	int len;

	for (;;) {
		if (re[0] == 0)
			return 1;
		if (re[0] == '$' && re[1] == 0)
			return *text == 0;
		atom(re, 'a', &len);
		if (re[len] == '*')
			return match_star(re, len, re + len + 1, text, 0);
		if (re[len] == '+')
			return match_star(re, len, re + len + 1, text, 1);
		if (re[len] == '?') {
			if (*text && atom(re, *text, &len) &&
			    match_here(re + len + 1, text + 1))
				return 1;
			re += len + 1;
			continue;
		}
		if (!*text || !atom(re, *text, &len))
			return 0;
		re += len;
		text++;
	}
}

static int match(const char *re, const char *text)
{
	if (re[0] == '^')
		return match_here(re + 1, text);
	do {
		if (match_here(re, text))
			return 1;
	} while (*text++);
	return 0;
}

static const char *patterns[] = {
	"ab*c", "^[a-f]+x?y", "q.*z$", "[^aeiou][aeiou]+[^aeiou]",
	"x[0-9]+y", "h?e?l+o", "^.*mm.*nn", "[a-c][d-f][g-i]",
};

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 300000), i;
	uint64_t s = 3, sum = 0;
	char line[64];
	size_t p;

	for (i = 0; i < n; i++) {
		int len = 20 + (int)(bench_rand(&s) % 40), k;

		for (k = 0; k < len; k++) {
			uint64_t r = bench_rand(&s);

			line[k] = r % 11 == 0 ? (char)('0' + r % 10) :
				  (char)('a' + r % 26);
		}
		line[len] = 0;
		for (p = 0; p < sizeof(patterns) / sizeof(*patterns); p++)
			sum = sum * 3 + (uint64_t)match(patterns[p], line);
	}
	bench_print("regex", sum);
	return 0;
}
