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
 * without a breakpoint (each at most 65 folds) are made one by
 * one, and the periods between them are counted, not made.
 */
#ifndef PAP_CORE_FOLDRUN_H
#define PAP_CORE_FOLDRUN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Receives @count (>= 1) breakpoints in a row whose r is @r. */
typedef void pap_fold_emit_fn(void *arg, uint64_t r, uint64_t count);

/*
 * @m folds of @r with radix @n >= 1 and restart value @restart, the first
 * adding digit @first and the others @d (both below @n, as every fold's
 * digit is), each one what __pap_fold does:
 * r*n + digit, or when that overflows 64 bits a breakpoint at r and then
 * restart*n + digit (modulo 2^64).  Returns the last fold's value (@r when
 * @m is 0) and hands the breakpoints to @emit in order.
 */
uint64_t pap_fold_run(uint64_t r, uint64_t n, uint64_t first, uint64_t d,
		      uint64_t restart, uint64_t m, pap_fold_emit_fn *emit,
		      void *arg);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_FOLDRUN_H */
