/* KernelClock_spans, the CPU part of the kernel-timestamp clock: which kernels belong to which
 * timed launch, and the span each launch gets. No GPU needed. */
#include <math.h>
#include <stdio.h>

#include "cupti/kernel_clock.h"
#include "tests/unit/check.h"

int main(void) {
  /* Launch 1: one kernel. Launch 2: two kernels (a split and its combine) with a gap, the span
   * covers both. Launch 3: nothing recorded. A flush kernel (corr 50) has no mark and an API
   * call of launch 2 (corr 21) launched no kernel; mark 9 is out of range. */
  KernelClockKernel k[] = {
      {10, 1000, 9500},   /* launch 1 */
      {50, 10000, 40000}, /* the L2 flush between reps: not timed */
      {20, 41000, 45000}, /* launch 2, first kernel */
      {22, 45800, 47000}, /* launch 2, combine */
      {90, 50000, 60000}, /* marked 9: outside 1..3 */
  };
  KernelClockMark m[] = {{22, 2}, {10, 1}, {20, 2}, {21, 2}, {90, 9}};
  double span[3];
  int missing = KernelClock_spans(k, 5, m, 5, 3, span);
  CHECKF(fabs(span[0] - 8.5) < 1e-12, "launch 1 span %g us, want 8.5", span[0]);
  CHECKF(fabs(span[1] - 6.0) < 1e-12, "launch 2 span %g us, want 6.0 (41000..47000 ns)", span[1]);
  CHECKF(isnan(span[2]), "launch 3 has no kernel, span %g", span[2]);
  CHECKF(missing == 1, "missing %d, want 1", missing);

  /* No marks at all: every launch is missing, nothing crashes. */
  double one[1];
  CHECKF(KernelClock_spans(k, 5, NULL, 0, 1, one) == 1 && isnan(one[0]), "no marks");
  /* No launches asked for. */
  CHECKF(KernelClock_spans(k, 5, m, 5, 0, one) == 0, "n = 0");
  return Check_done("kernel clock spans");
}
