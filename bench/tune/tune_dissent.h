/* Dissent: where the nearest tuned problems all agree on a knob, the nearest winner farther out
 * that sets it otherwise. Nearness in shape does not separate every choice: at mid-length causal
 * problems a persistent, deeper-pipelined setting wins where all eight nearest winners run two
 * stages, and only a farther problem's winner carries it. A plain run's pick measures such a
 * setting beside the neighbours' knobs (one per agreed knob, nearest first, at most DISSENT_MAX). */
#ifndef BENCHTOP_TUNE_DISSENT_H
#define BENCHTOP_TUNE_DISSENT_H

#include "kernels/registry.h"

#define DISSENT_MAX 2  /* candidates a pick adds this way */
#define DISSENT_POOL 32 /* the nearest distinct winners it looks among, the neighbours included */

/* Of pool[0..npool) (distinct settings, nearest first, none of them among near), up to max: for
 * each knob of v with more than one value on which all of near[0..m) (m >= 2) agree, the first
 * of pool that sets it otherwise; nearest first, each pool setting once. Writes pool indices to
 * out and the knob each dissents in to knob; returns how many. */
int Dissent_choose(const Variant *v, const KnobValues *near, int m, const KnobValues *pool, int npool,
                   int max, int *out, int *knob);

#endif
