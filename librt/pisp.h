/* SPDX-License-Identifier: MIT */
/*
 * pisp.h - a thread's standing against the call sequences of interest
 * (pisp.c; plugin/pisp.cc).
 */
#ifndef PAP_RT_PISP_H
#define PAP_RT_PISP_H

#include "pap/export.h"
#include "rt.h"

/* Set to 1 by the entry of a function on no sequence of interest. */
extern RT_TLS PAP_API unsigned __pap_pisp_dead;

/*
 * Ends this thread's standing with its sequence: 1 when the sequence
 * left every sequence of interest (its record is only counted, as
 * PAP_CSEQ_LEFT), else 0.
 * The next sequence starts on them again.
 */
int rt_pisp_take(void);
/* A fresh sequence (a forked child's): on the sequences again. */
void rt_pisp_reset(void);

#endif /* PAP_RT_PISP_H */
