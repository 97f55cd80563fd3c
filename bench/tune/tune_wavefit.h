/* Wave-fit: a setting near a given one whose grid fills fewer rounds of waves of SMs. Whether a
 * setting fills whole waves depends on the problem's B*H*S, not on which tuned problem is
 * nearest, so a table of winners misses it (a winner tuned where one more block a SM made no
 * difference loses a quarter where it does); the plain run's pick measures such a setting
 * beside the neighbours' knobs. */
#ifndef BENCHTOP_TUNE_WAVEFIT_H
#define BENCHTOP_TUNE_WAVEFIT_H

#include <stdbool.h>

#include "kernels/device_props.h"
#include "kernels/registry.h"
#include "kernels/shape.h"

#define WAVEFIT_FROM 3    /* the nearest candidates a pick refits */
#define WAVEFIT_CHANGES 2 /* knobs a refit may change */
#define WAVEFIT_TRIES 4096 /* settings one refit plans at most (declared ranges reach 256 values) */

/* The launch's largest kernel (of those launched) and its blocks; NULL and 0 when none. */
const LaunchDims *WaveFit_largest(const LaunchPlan *plan, long long *blocks);

/* Rounds of waves of the launch of v at s with kv on dev: its largest kernel's blocks over the SMs
 * times the blocks one SM holds (by shared memory, threads and the architecture's block limit;
 * registers are unknown before the compile and not counted), and the share of the last round
 * filled. False when it cannot be planned or is persistent (one wave by construction). */
bool WaveFit_rounds(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                    int *rounds, double *fill, int *splits);

/* The setting of at most WAVEFIT_CHANGES knobs changed from kv, with the same splits of the keys
 * and no smaller block_m, that v runs at s in the fewest rounds, fewer than kv's (then the best
 * filled last round, then the fewest changes), of the first WAVEFIT_TRIES settings in knob
 * order. False when none has fewer. */
bool WaveFit_alternative(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                         KnobValues *out);

#endif
