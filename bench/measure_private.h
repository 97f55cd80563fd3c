/* The pieces of one measurement (bench/measure*.c), apart so each file stays one concern:
 * measure.c runs an entry start to finish, measure_inputs.c fills, poisons and verifies,
 * measure_time.c times. Only bench/ includes this. */
#ifndef BENCHTOP_MEASURE_PRIVATE_H
#define BENCHTOP_MEASURE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/gpu.h"

/* One compiled variant ready to launch with its parameters. */
typedef struct TimedRun {
  Gpu *g;
  const Variant *v;
  const KnobValues *kv;
  GpuModule *m;
  const AttnParams *p;
} TimedRun;

typedef void (*MeasureProgress)(const char *phase, void *user);

/* n standard-normal fp16 values from seed, on g->stream. */
bool Measure_fill(Gpu *g, void *ptr, size_t n, uint64_t seed, char *err, size_t errsize);
/* n fp16 words set to the poison pattern no kernel produces by arithmetic. */
bool Measure_poison(Gpu *g, void *ptr, size_t n, char *err, size_t errsize);
/* The output against the fp32 reference, element by element (waits for the stream). */
bool Measure_verify(Gpu *g, const Shape *s, double tol, ErrorStats *es, char *err,
                    size_t errsize);

/* Warm-up, then o->reps launches timed one at a time (or one graph replay of several): kernel
 * timestamps with CUDA events beside them. Fills rec->timing (samples owned) and, by kernel
 * timestamps, rec->kernels. False with one line in err on a CUDA error; everything it made is
 * released either way. */
bool Measure_time(const TimedRun *t, const RunOptions *o, Record *rec, volatile int *cancel,
                  MeasureProgress progress, void *user, char *err, size_t errsize);

#endif
