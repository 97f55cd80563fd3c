/* Hardware metrics for one launch, through the CUPTI Range Profiler (see cupti/README.md).
 *
 * The worker creates one Profiler after its CUDA context exists and keeps it for its life:
 * the chip's metric evaluator, and per metric set the validation, config image and counter
 * data image, are built on first use and reused, so later collections cost only the replay
 * passes and the evaluation. Collection is separate from timing: call it outside the timed
 * reps.
 *
 * Replay: user range + user replay. launch(user) is called once per replay pass (passes is
 * usually 1-3 for the headline set) inside one range, so a variant made of several kernels
 * gets one set of values for the whole sequence. launch() must therefore be repeatable:
 * each call reads the same inputs and overwrites the same outputs. It must only enqueue work
 * on the current device (any stream); the profiler synchronises the device after it. */
#ifndef BENCHTOP_PROFILER_H
#define BENCHTOP_PROFILER_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/catalog.h"
#include "sessions/record.h"

/* The one line shown for every metric when the driver restricts performance counters. */
#define PROFILER_DENIED_FIX                                                                \
  "GPU performance counters are restricted by the driver: run as root or with "            \
  "CAP_SYS_ADMIN/CAP_PERFMON, or load nvidia with NVreg_RestrictProfilingToAdminUsers=0"

/* Set to 1, makes every collection report the restricted-counters path above (for tests). */
#define PROFILER_SIMULATE_DENIED_ENV "BENCHTOP_SIMULATE_CUPTI_DENIED"
/* Overrides Profiler_setKeepEnabled: 1 keeps the range profiler enabled between collections,
 * 0 disables it after each one. */
#define PROFILER_KEEP_ENABLED_ENV "BENCHTOP_CUPTI_KEEP_ENABLED"

typedef struct Profiler Profiler;

/* Number of CUDA devices; 0 with one line in err when there is none (no driver, no GPU). */
int Profiler_deviceCount(char *err, size_t errsize);

/* For the device `cuda_device` (the current CUDA context's device, made current if needed).
 * NULL with one line in err when the device cannot be profiled at all (CUPTI missing, range
 * profiling unsupported). Restricted counters do NOT fail here: the profiler is returned and
 * every collection reports PROFILER_DENIED_FIX. */
Profiler *Profiler_new(int cuda_device, char *err, size_t errsize);
void Profiler_free(Profiler *p);

/* Chip name CUPTI reports ("GH100", "AD104"). */
const char *Profiler_chip(const Profiler *p);

/* Collects `names` over one range around launch(user). out[i] gets name, unit and value, or
 * value NAN and a reason (without the "n/a: " prefix, which callers add when showing it).
 * Each name is validated alone: an unknown or unavailable one costs only itself, the others
 * are still collected. *passes = replay passes run (0 when nothing was collected).
 * Returns false with one line in err on a global failure (restricted counters, CUPTI error,
 * launch() returned false, CUDA error after a pass), with every out[i].reason filled too.
 * n == 0 is a no-op that returns true. */
bool Profiler_collect(Profiler *p, const char *const *names, int n, bool (*launch)(void *user),
                      void *user, Metric *out, int *passes, char *err, size_t errsize);

/* Wall-clock breakdown of the last Profiler_collect, for the benchmark print. */
typedef struct ProfilerTimes {
  double prepare_ms;  /* validation + config image (0 when the metric set was cached) */
  double setup_ms;    /* enable + counter data init + set config */
  double passes_ms;   /* the replay passes, launches included */
  double decode_ms;   /* decode + evaluation */
  double total_ms;
} ProfilerTimes;
void Profiler_lastTimes(const Profiler *p, ProfilerTimes *out);
/* hook(user) runs before every replay pass, outside the profiled range: e.g. an L2 flush, so
 * each pass starts from the same cold cache as `ncu --cache-control all`. NULL: none. */
void Profiler_setPassHook(Profiler *p, bool (*hook)(void *user), void *user);
/* Whether the range profiler stays enabled on the context after a collection (default: no).
 * Kept enabled, a collection costs ~40 ms instead of ~180 ms (the first pass after an enable
 * is slow); kernel durations are unchanged by it but launches take ~0.1 us longer between
 * CUDA events (on an H200), so keep it only when timing by kernel timestamps. */
void Profiler_setKeepEnabled(Profiler *p, bool keep);
/* What a collection does with `keep` asked for: PROFILER_KEEP_ENABLED_ENV when set, else keep. */
bool Profiler_keepEnabledFor(bool keep);
/* Disables the range profiler on the context if enabled (before event-timed launches). */
void Profiler_disable(Profiler *p);

/* Chip name and counter availability image of a device (for `benchtop list metrics` on the
 * GPU): *avail is heap memory. Needs a CUDA context on the device (made here if needed). */
bool Profiler_deviceChip(int cuda_device, char *chip, size_t chipsize, unsigned char **avail,
                         char *err, size_t errsize);

#endif
