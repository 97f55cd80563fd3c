/* KernelClock_busy, the CPU part of the kernel-timestamp clock: which kernels belong to which
 * timed launch, and the span each launch gets. No GPU needed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cupti/kernel_clock.h"
#include "tests/unit/check.h"

/* Per kernel of a launch: a split kernel and its combine over 4 launches, one launch that ran a
 * third kernel (left out), a flush outside any mark; then a graph of 2 runs per launch. */
static void Test_breakdown(void) {
  static const char *const names[] = {"attn_fwd_split", "combine", "flush_l2", "extra"};
  KernelClockKernel k[] = {
      {1, 1000, 9000, 0},   {2, 9500, 10500, 1},   /* launch 1: 8.0 us, gap 0.5, 1.0 us */
      {3, 20000, 29000, 0}, {4, 29300, 30300, 1},  /* launch 2: 9.0, gap 0.3, 1.0 */
      {5, 40000, 48000, 0}, {6, 48500, 49700, 1},  /* launch 3: 8.0, gap 0.5, 1.2 */
      {7, 60000, 68500, 0}, {8, 69000, 70000, 1},  /* launch 4: 8.5, gap 0.5, 1.0 */
      {9, 80000, 81000, 2},                        /* the flush: no mark */
      {10, 90000, 91000, 0}, {11, 91100, 92000, 1}, {12, 92100, 93000, 3}, /* launch 5: three */
  };
  KernelClockMark m[] = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {6, 3}, {7, 4}, {8, 4},
                         {10, 5}, {11, 5}, {12, 5}};
  KernelSpan out[4];
  int got = KernelClock_breakdown(k, 12, m, 11, 5, 1, names, 4, out, 4);
  CHECKF(got == 2, "%d kernels per launch, want 2", got);
  if (got == 2) {
    CHECKF(strcmp(out[0].name, "attn_fwd_split") == 0 && strcmp(out[1].name, "combine") == 0,
          "names %s %s", out[0].name, out[1].name);
    CHECKF(fabs(out[0].p50_us - 8.25) < 1e-12, "split p50 %g, want 8.25", out[0].p50_us);
    CHECKF(fabs(out[1].p50_us - 1.0) < 1e-12, "combine p50 %g", out[1].p50_us);
    CHECKF(isnan(out[0].gap_before_us) && fabs(out[1].gap_before_us - 0.5) < 1e-12,
          "gap %g", out[1].gap_before_us);
    CHECKF(out[0].launches == 4 && isnan(out[0].share), "launches %d", out[0].launches);
  }
  CHECKF(KernelClock_breakdown(k, 12, m, 11, 5, 1, names, 4, out, 1) == 0, "more than max: none");
  CHECKF(KernelClock_breakdown(k, 12, NULL, 0, 5, 1, names, 4, out, 4) == 0, "no marks: none");
  CHECKF(KernelClock_breakdown(k, 12, m, 11, 0, 1, names, 4, out, 4) == 0, "n = 0: none");
  /* A graph replaying the variant twice per timed launch: positions by run, not by launch. */
  KernelClockKernel g[] = {
      {1, 0, 8000, 0}, {1, 8400, 9400, 1}, {1, 10000, 18000, 0}, {1, 18400, 19400, 1},
      {2, 30000, 38000, 0}, {2, 38400, 39400, 1}, {2, 40000, 48000, 0}, {2, 48400, 49400, 1},
  };
  KernelClockMark gm[] = {{1, 1}, {2, 2}};
  got = KernelClock_breakdown(g, 8, gm, 2, 2, 2, names, 4, out, 4);
  CHECKF(got == 2 && fabs(out[1].gap_before_us - 0.4) < 1e-12 && fabs(out[0].p50_us - 8.0) < 1e-12,
        "graph of 2: %d kernels, gap %g", got, got == 2 ? out[1].gap_before_us : NAN);
  /* ... and the first kernel's gap is the idle time since the previous run (the p50, a replay's
   * span over its runs, holds it): 10000 - 9400 ns. */
  CHECKF(got == 2 && fabs(out[0].gap_before_us - 0.6) < 1e-12, "graph of 2: gap between runs %g",
         got == 2 ? out[0].gap_before_us : NAN);
  /* Names past the table (the clock ran out of memory naming one) read "?". */
  KernelClockKernel u[] = {{1, 0, 1000, 99}};
  KernelClockMark um[] = {{1, 1}};
  got = KernelClock_breakdown(u, 1, um, 1, 1, 1, names, 4, out, 4);
  CHECKF(got == 1 && strcmp(out[0].name, "?") == 0, "unnamed kernel");
}

int main(void) {
  /* Launch 1: one kernel. Launch 2: two kernels (a split and its combine) with a host gap of
   * 0.8 us between them, which is not GPU work and does not count. Launch 3: nothing recorded. A flush kernel (corr 50) has no mark and an API
   * call of launch 2 (corr 21) launched no kernel; mark 9 is out of range. */
  KernelClockKernel k[] = {
      {10, 1000, 9500, 0},   /* launch 1 */
      {50, 10000, 40000, 1}, /* the L2 flush between reps: not timed */
      {20, 41000, 45000, 2}, /* launch 2, first kernel */
      {22, 45800, 47000, 3}, /* launch 2, combine */
      {90, 50000, 60000, 0}, /* marked 9: outside 1..3 */
  };
  KernelClockMark m[] = {{22, 2}, {10, 1}, {20, 2}, {21, 2}, {90, 9}};
  double span[3];
  int missing = KernelClock_busy(k, 5, m, 5, 3, span);
  CHECKF(fabs(span[0] - 8.5) < 1e-12, "launch 1 busy %g us, want 8.5", span[0]);
  CHECKF(fabs(span[1] - 5.2) < 1e-12, "launch 2 busy %g us, want 5.2 (4.0 + 1.2, not the 6.0 span)",
         span[1]);
  CHECKF(isnan(span[2]), "launch 3 has no kernel, span %g", span[2]);
  CHECKF(missing == 1, "missing %d, want 1", missing);

  /* No marks at all: every launch is missing, nothing crashes. */
  double one[1];
  CHECKF(KernelClock_busy(k, 5, NULL, 0, 1, one) == 1 && isnan(one[0]), "no marks");
  /* No launches asked for. */
  CHECKF(KernelClock_busy(k, 5, m, 5, 0, one) == 0, "n = 0");
  /* Overlapping kernels (two streams) count once; one inside another adds nothing; kernels
   * recorded out of order are sorted. */
  KernelClockKernel o[] = {{1, 5000, 6000, 0}, {1, 1000, 4000, 0}, {1, 2000, 3000, 1}, {1, 3500, 5500, 1}};
  KernelClockMark om[] = {{1, 1}};
  CHECKF(KernelClock_busy(o, 4, om, 1, 1, one) == 0 && fabs(one[0] - 5.0) < 1e-12,
         "overlapping kernels: busy %g us, want 5.0 (1000..6000 ns)", one[0]);
  Test_breakdown();
  return Check_done("kernel clock busy times and breakdown");
}
