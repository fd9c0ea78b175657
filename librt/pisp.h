/* SPDX-License-Identifier: MIT */
/*
 * pisp.h - a thread's standing against the call sequences of interest
 * (pisp.c; plugin/pisp.cc).
 */
#ifndef PAP_RT_PISP_H
#define PAP_RT_PISP_H

#include "pap/export.h"
#include "rt.h"

/* Set to 1 by the entry of a function on no sequence of interest, or
 * by the automaton. */
extern RT_TLS PAP_API unsigned __pap_pisp_dead;

/* The entry of a function that a sequence of interest names, @letter
 * its place among their names: the thread's automaton steps, and the
 * thread is dropped when no sequence can go on (libcore/pispauto.h). */
PAP_API void __pap_pisp_step(unsigned letter);
/*
 * A unit's constructor: its @automaton encoded (pap_pisp_auto_encode(),
 * @size bytes), or NULL for a unit with call probes and no calls-spec.
 * The first unit's is the process's; a unit whose spec hash differs
 * (or that has none when another has one) is refused: said on stderr,
 * and no call sequence is recorded (rt_pisp_take()).
 */
PAP_API void __pap_pisp_unit(const void *automaton, unsigned size);

/*
 * Ends this thread's standing with its sequence: 1 when the sequence
 * left every sequence of interest (its record is only counted, as
 * PAP_CSEQ_LEFT), -1 when units of different specs were refused (no
 * record), else 0.
 * The next sequence starts on them again.
 */
int rt_pisp_take(void);
/* Has this thread left them?  Then a signal handler's own sequence is
 * not recorded either: the copies the thread runs have no call probes,
 * and an entry below one looks like a handler's. */
int rt_pisp_dead(void);
/* A fresh sequence (a forked child's): not followed by the automaton
 * (it begins inside the frames open); still off the sequences if the
 * forking thread was, whose activations may have moved to their copies
 * without probes (plugin/pisp.cc), so that the child's sequence is
 * counted as one that left rather than recorded without their calls. */
void rt_pisp_reset(void);

#endif /* PAP_RT_PISP_H */
