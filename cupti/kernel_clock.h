/* Kernel timestamps through the CUPTI Activity API: the GPU's own start and end of every
 * kernel of a timed launch, so a p50 means kernel time, as Nsight Compute's
 * gpu__time_duration does, without the launch latency that CUDA events around a launch
 * include (about 2 us on an H200).
 *
 * Use, from the one thread that launches:
 *   KernelClock_begin(err)            enables kernel and external-correlation records
 *   KernelClock_mark(i) ... launches ... KernelClock_unmark()   for i = 1..n
 *   (anything launched outside a mark, e.g. an L2 flush, is not counted)
 *   KernelClock_end(n, busy_us, err)  synchronise first; flushes, disables, and gives per mark
 *                                     the time its kernels kept the GPU busy: the union of
 *                                     their intervals, so the host's launch gaps between the
 *                                     kernels of a several-kernel variant never count (they
 *                                     vary from process to process); NAN for a mark that had
 *                                     no kernel
 *   KernelClock_lastBreakdown(...)    then, per kernel of a launch: name, median duration and
 *                                     the median gap before it
 * Activity tracing is process-wide in CUPTI; it is on only between begin and end, so
 * verification and metric collection run without it. */
#ifndef BENCHTOP_KERNEL_CLOCK_H
#define BENCHTOP_KERNEL_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sessions/record.h"

/* Set to 1, KernelClock_begin fails as if CUPTI activity were unavailable (for tests). */
#define KERNEL_CLOCK_SIMULATE_FAIL_ENV "BENCHTOP_SIMULATE_NO_KERNEL_CLOCK"

bool KernelClock_begin(char *err, size_t errsize);
void KernelClock_mark(uint64_t id);
void KernelClock_unmark(void);
/* False with one line in err when records were lost or tracing failed; tracing is off either
 * way afterwards. */
bool KernelClock_end(int n, double *busy_us, char *err, size_t errsize);

/* The per-kernel breakdown of the last begin..end: out[0..count) in launch order, share left
 * NAN (the caller knows the p50 it is a share of). Each timed launch ran its variant `repeats`
 * times (a graph replays several): kernels are matched by their position in one run, and the
 * first kernel's gap is the one since the previous run's last kernel (NAN with one run). Returns
 * the count, 0 when there is no breakdown (no kernel clock, launches that ran different numbers
 * of kernels, more than max kernels). */
int KernelClock_lastBreakdown(int n, int repeats, KernelSpan *out, int max);

/* The pure part of KernelClock_end, apart for tests: a kernel record (correlation id, start
 * and end in ns, name index) and a mark (the correlation id of an API call made under mark
 * `id`). */
typedef struct KernelClockKernel {
  uint32_t corr;
  uint64_t start, end;
  uint32_t name; /* index into the names the clock collected */
} KernelClockKernel;
typedef struct KernelClockMark {
  uint32_t corr;
  uint64_t id;
} KernelClockMark;
/* busy_us[i] for mark i+1: the length of the union of its kernels' [start, end) intervals,
 * NAN when it has no kernel. Kernels whose correlation has no mark in 1..n are ignored. Sorts
 * marks in place. Returns how many marks had no kernel. */
int KernelClock_busy(const KernelClockKernel *k, size_t nk, KernelClockMark *m, size_t nm, int n,
                     double *busy_us);
/* KernelClock_lastBreakdown's arithmetic: the kernels of marks 1..n (sorted in place). Marks
 * that ran the most common number of kernels count; names[k.name] names a kernel. */
int KernelClock_breakdown(const KernelClockKernel *k, size_t nk, KernelClockMark *m, size_t nm,
                          int n, int repeats, const char *const *names, size_t nnames,
                          KernelSpan *out, int max);

#endif
