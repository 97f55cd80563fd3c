/* The pieces of one measurement (bench/measure*.c), apart so each file stays one concern:
 * measure.c runs an entry start to finish, measure_inputs.c fills, poisons and verifies,
 * measure_guard.c checks that a kernel kept to its buffers and left its inputs alone,
 * measure_time.c times. Only bench/ includes this. */
#ifndef BENCHTOP_MEASURE_PRIVATE_H
#define BENCHTOP_MEASURE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/worker/buffers.h"
#include "bench/worker/gpu.h"

#define POISON_BITS 0xFFFFu /* a NaN in fp16 and in bf16 that no kernel produces by arithmetic */

/* Independently allocated buffer sets the direct timed launches rotate through
 * (measure_replicates.c); set 0 is the worker's own buffers. */
#define MEASURE_REPLICATES 4
/* --span: the timed launches go in this many blocks, spread over the span. */
#define MEASURE_SPAN_BLOCKS 8
typedef struct Replicates {
  int n;                              /* 1: no rotation */
  bool whole;                         /* every buffer replicated, not only the output */
  bool blocks;                        /* sets in consecutive blocks of launches (warm L2) */
  int span_blocks;                    /* --span: the launches in this many blocks spread in time,
                                       * each block a replicate; 0: replicates are the sets */
  void *mem[MEASURE_REPLICATES][BUFFERS_REGIONS_MAX]; /* sets 1..n-1: owned allocations */
  AttnParams p[MEASURE_REPLICATES];   /* the entry's parameters over each (tensor maps too) */
} Replicates;

/* One compiled variant ready to launch with its parameters. */
typedef struct TimedRun {
  Gpu *g;
  const Variant *v;
  const KnobValues *kv;
  GpuModule *m;
  const AttnParams *p;
  void *good;        /* the verified output of these inputs (p->dtype), for the work checks */
  size_t elems;      /* output elements */
  uint64_t seed;     /* picks which timed launches are checked */
  double launch_ms;  /* the verification launch's wall time: sizes warm-up, reps and progress */
  Replicates *rep;   /* NULL or one output: every launch on p; its time blocks set by timing */
} TimedRun;

/* Allocates the replicate buffer sets (n stays 1 where none fits the protocol, or when the
 * memory is short). False with one line in err when a copy or a tensor map fails. */
bool Replicates_prepare(Gpu *g, const AttnParams *p0, const Shape *s, const BufferNeeds *need,
                        bool l2_persist, Replicates *r, char *err, size_t errsize);
/* The parameters of direct timed launch i of reps (the last one: the worker's own O). */
const AttnParams *Replicates_params(const Replicates *r, int i, int reps);
/* --span's time blocks for reps launches (0: none), and the block of launch i. */
int Replicates_spanBlocks(const Replicates *r, int reps);
int Replicates_blockOf(const Replicates *r, int i, int reps);
/* The median of each replicate's samples into t->replicate_p50 (two or more). */
void Replicates_medians(const Replicates *r, const double *samples, int n, int reps, Timing *t);
void Replicates_release(Replicates *r);

/* Which timed launches are checked for work (measure_check.c): before each, the output is
 * poisoned outside the timed region; after it, a kernel compares it with the verified output
 * of the same inputs. Two consecutive launches are always among them, so a kernel that computes
 * on one launch in N (any N >= 2) cannot pass; the rest are spread at random. */
typedef struct WorkCheck {
  bool *at;              /* per timed launch: checked */
  int nchecks;
  int *launch_of;        /* check slot -> timed launch index */
  unsigned int *bad;     /* device: two counters per slot (skipped, wrong) */
} WorkCheck;

/* all: every one of the reps launches is checked (the direct launches after graph replays). */
bool WorkCheck_plan(WorkCheck *c, int reps, bool all, uint64_t seed, char *err, size_t errsize);
/* Poison before timed launch i (when checked), outside its events. */
bool WorkCheck_before(const WorkCheck *c, const TimedRun *t, int i, char *err, size_t errsize);
/* Compare after timed launch i (when checked), outside its events. */
bool WorkCheck_after(const WorkCheck *c, const TimedRun *t, int i, char *err, size_t errsize);
/* After the stream drained: appends "the timed launches did not all compute: ..." to reason
 * when a checked launch skipped or changed its work. False on a CUDA error. */
bool WorkCheck_read(const WorkCheck *c, const TimedRun *t, int launched, char *reason,
                    size_t rsize, char *err, size_t errsize);
void WorkCheck_free(WorkCheck *c);

/* A word of progress; launch_ms is the measured time of one launch once known (else NAN): the
 * parent's watchdog scales with it. */
typedef void (*MeasureProgress)(const char *phase, double launch_ms, void *user);

/* n standard-normal fp16 values from seed, on g->stream. */
bool Measure_fill(Gpu *g, void *ptr, size_t n, ShapeDtype dtype, uint64_t seed, char *err,
                  size_t errsize);
/* n fp16 words set to the poison pattern no kernel produces by arithmetic. */
bool Measure_poison(Gpu *g, void *ptr, size_t n, char *err, size_t errsize);
/* The output against the fp32 reference, element by element (waits for the stream). */
bool Measure_verify(Gpu *g, const Shape *s, double tol, ErrorStats *es, char *err,
                    size_t errsize);

/* Guard bands (bench/worker/integrity.h) around every buffer entry n hands its kernel (measure_guard.c). */
bool Guard_arm(Gpu *g, const BufferNeeds *n, char *err, size_t errsize);
/* Reads them back: what a kernel wrote out of bounds is appended to reason ("wrote 8 bytes past
 * the end of O", then when). False with one line in err on a CUDA error. */
bool Guard_check(Gpu *g, const BufferNeeds *n, const char *when, char *reason, size_t rsize,
                 char *err, size_t errsize);
/* Checksums of the bytes of Q, K and V entry n uses (waits for the stream). */
bool Guard_inputSums(Gpu *g, const BufferNeeds *n, uint64_t sums[3], char *err, size_t errsize);
/* Appends "modified its input K" (then when) for each input whose checksum changed. */
void Guard_compareInputs(const uint64_t was[3], const uint64_t now[3], const char *when,
                         char *reason, size_t size);

/* Warm-up, then o->reps launches timed one at a time (or one graph replay of several): kernel
 * timestamps with CUDA events beside them. Fills rec->timing (samples owned) and, by kernel
 * timestamps, rec->kernels. Launches checked for work (WorkCheck; after graph replays, ten
 * direct launches all checked) append what they found to cheat. A slow kernel (t->launch_ms)
 * gets fewer reps, said in rec->reason. False with one line in err on a CUDA error; everything
 * it made is released either way. */
bool Measure_time(const TimedRun *t, const RunOptions *o, Record *rec, volatile int *cancel,
                  MeasureProgress progress, void *user, char *cheat, size_t cheatsize, char *err,
                  size_t errsize);

#endif
