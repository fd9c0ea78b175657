/* SPDX-License-Identifier: MIT */
/*
 * foldrun.h - the folds of a loop's iterations, all at once.
 *
 * A loop that folds one digit d at one site in every iteration (its first
 * iteration perhaps another digit, first) makes a periodic sequence of
 * breakpoints: after each breakpoint r restarts at restart*n + d, so the
 * folds from there to the next breakpoint, and that breakpoint's r, are
 * the same every time.  pap_fold_run() gives the m folds' value and
 * breakpoints in time independent of m: at most three stretches of folds
 * without a breakpoint (each at most 65 folds, and shifts for n = 2^b)
 * are made, and the periods between them are counted, not made.  Inline,
 * so that the runtime's fold of a loop makes its breakpoints without a
 * call for each.
 */
#ifndef PAP_CORE_FOLDRUN_H
#define PAP_CORE_FOLDRUN_H

#include <stdint.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives @count (>= 1) breakpoints in a row whose r is @r. */
typedef void pap_fold_emit_fn(void *arg, uint64_t r, uint64_t count);

/*
 * Folds @d into @r while that does not overflow, at most *@m times, and
 * takes the folds made off *@m.  Returns with *@m zero or with r*n + d
 * overflowing.  With d = 0, r stays r for ever when n is 1 or r is 0.
 * Otherwise r at least doubles from the second fold on (n >= 2), so that is
 * at most 65 folds, and for n = 2^b at most the first, from r = 0, is made
 * on its own: a fold then shifts r left by b bits and puts d in the bits it
 * freed, r*n + d overflows exactly when r has more than 64 - b bits, and j
 * folds of a nonzero r make (r << bj) + d * (2^bj - 1) / (2^b - 1).
 */
static inline uint64_t pap_fold_free(uint64_t r, uint64_t n, uint64_t d,
				     uint64_t *m)
{
	uint64_t lim, j, rep;
	unsigned b, len;

	if (!d && (n == 1 || !r)) {
		*m = 0;
		return r;
	}
	if (!*m)
		return r;
	if (n == 1 || (n & (n - 1))) {
		lim = (UINT64_MAX - d) / n;
		while (*m && r <= lim) {
			r = r * n + d;
			(*m)--;
		}
		return r;
	}
	b = (unsigned)__builtin_ctzll(n);
	if (!r) {
		r = d;
		(*m)--;
	}
	len = 64 - (unsigned)__builtin_clzll(r);
	j = (64 - len) / b;
	if (j > *m)
		j = *m;
	*m -= j;
	if (!j)
		return r;
	/* b*j <= 64 - len <= 63; no division for n = 2, the usual radix */
	rep = ((uint64_t)1 << (b * j)) - 1;
	if (d && n > 2)
		rep /= n - 1;
	return (r << (b * j)) + d * rep;
}

/* pap_fold_overflows() for a @digit below @n, without a division when
 * n = 2^b, b >= 1: then r*n + digit overflows when r >= 2^(64 - b). */
static inline int pap_fold_digit_overflows(uint64_t r, uint64_t n,
					   uint64_t digit)
{
	if (n == 1 || (n & (n - 1)))
		return pap_fold_overflows(r, n, digit);
	return (r >> (64 - __builtin_ctzll(n))) != 0;
}

/* One fold of @digit that overflows: its breakpoint, then the restart. */
static inline uint64_t pap_fold_break(uint64_t r, uint64_t n,
				      uint64_t digit, uint64_t restart,
				      pap_fold_emit_fn *emit, void *arg)
{
	emit(arg, r, 1);
	return restart * n + digit;
}

/*
 * @m folds of @r with radix @n >= 1 and restart value @restart, the first
 * adding digit @first and the others @d (both below @n, as every fold's
 * digit is), each one what __pap_fold does: r*n + digit, or when that
 * overflows 64 bits a breakpoint at r and then restart*n + digit (modulo
 * 2^64).  Returns the last fold's value (@r when
 * @m is 0) and hands the breakpoints to @emit in order.
 */
static inline uint64_t pap_fold_run(uint64_t r, uint64_t n, uint64_t first,
				    uint64_t d, uint64_t restart, uint64_t m,
				    pap_fold_emit_fn *emit, void *arg)
{
	uint64_t before, period, k;

	if (!m)
		return r;
	if (pap_fold_digit_overflows(r, n, first))
		r = pap_fold_break(r, n, first, restart, emit, arg);
	else
		r = r * n + first;
	m--;
	/* up to the first breakpoint of a d: r then restarts at R0 =
	 * restart*n + d, and so it does after every later one */
	r = pap_fold_free(r, n, d, &m);
	if (!m)
		return r;
	r = pap_fold_break(r, n, d, restart, emit, arg);
	m--;
	/* from R0 to the value R that breaks: every period is the same */
	before = m;
	r = pap_fold_free(r, n, d, &m);
	if (!m)
		return r;
	period = before - m + 1;
	/* each whole period: a breakpoint at R and back to R */
	k = m / period;
	if (k)
		emit(arg, r, k);
	m -= k * period;
	if (!m)
		return r;
	/* what is left of a period: its breakpoint, then fewer folds than
	 * lead to the next */
	r = pap_fold_break(r, n, d, restart, emit, arg);
	m--;
	return pap_fold_free(r, n, d, &m);
}

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_FOLDRUN_H */
