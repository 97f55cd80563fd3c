/* The knob space `benchtop tune` searches: every combination of one variant's knob values
 * (narrowed by --knob k=v1,v2), at one shape, with the combinations the variant refuses for
 * that shape dropped before anything is compiled or launched (and counted). Enumerated only
 * through the registry's public calls, so it follows the registry wherever the values come
 * from. Pure C, no CUDA: tests build spaces without a GPU. */
#ifndef BENCHTOP_TUNE_SPACE_H
#define BENCHTOP_TUNE_SPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/registry.h"

/* Combinations enumerated before refusals at most: a larger space needs --knob restrictions. */
#define TUNE_SPACE_MAX_COMBOS 1000000

typedef struct TuneSpace {
  const Variant *variant;
  Shape shape;
  int nknobs;
  /* Per knob: how many values the search may give it, and their indices in the knob's list
   * (all of them unless --knob narrowed it). A configuration's "genes" are positions in these. */
  int nvals[KNOB_MAX];
  int vals[KNOB_MAX][KNOB_MAX_VALUES];
  long combos;         /* product of nvals: the space before refusals */
  int nconfigs;        /* accepted configurations */
  KnobValues *configs; /* in enumeration order */
  int *genes;          /* nconfigs x nknobs positions, for the strategies' neighbourhoods */
  int refused;         /* combos - nconfigs */
  char refusal[200];   /* the first refusal's reason, for the message when every one is */
  int *lookup;         /* combos entries: mixed-radix gene code -> config index, -1 refused */
} TuneSpace;

/* Builds the space of v at shape s on device dev (NULL: any supported device).
 * restrictions: --knob texts "k=v" or "k=v1,v2" (knobs v lacks are skipped: a plan-wide
 * option applies to the variants that have it). False with one line in err when there is
 * nothing to search: no knobs, an unknown value, too many combinations, every one refused. */
bool TuneSpace_build(TuneSpace *sp, const Variant *v, const Shape *s, char *const *restrictions,
                     int nrestrictions, const DeviceProps *dev, char *err, size_t errsize);
void TuneSpace_free(TuneSpace *sp);
/* Index of the configuration with these genes (positions per knob), -1 when refused. */
int TuneSpace_lookup(const TuneSpace *sp, const int *genes);
/* Index of a configuration by its knob values, -1 when it is not in the space. */
int TuneSpace_find(const TuneSpace *sp, const KnobValues *kv);
/* "k=v,k=v" of configuration i. */
void TuneSpace_format(const TuneSpace *sp, int i, char *buf, size_t size);

#endif
