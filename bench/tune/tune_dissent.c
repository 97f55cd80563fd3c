#include "bench/tune/tune_dissent.h"

int Dissent_choose(const Variant *v, const KnobValues *near, int m, const KnobValues *pool, int npool,
                   int max, int *out, int *knob) {
  if (m < 2 || max <= 0) return 0;
  int first[KNOB_MAX]; /* per knob, the first pool setting unlike near's agreed value (-1: none) */
  for (int k = 0; k < v->nknobs; k++) {
    first[k] = -1;
    if (v->knobs[k].nvalues < 2) continue;
    bool agreed = true;
    for (int j = 1; j < m && agreed; j++) agreed = near[j].idx[k] == near[0].idx[k];
    for (int i = 0; agreed && i < npool && first[k] < 0; i++)
      if (pool[i].idx[k] != near[0].idx[k]) first[k] = i;
  }
  int n = 0;
  for (int i = 0; i < npool && n < max; i++) /* nearest first: pool order */
    for (int k = 0; k < v->nknobs; k++)
      if (first[k] == i) {
        out[n] = i;
        knob[n++] = k;
        break; /* each pool setting once, named by its first dissenting knob */
      }
  return n;
}
