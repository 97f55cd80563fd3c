/* What the tuned-table tests build their cases from: a problem from its text and a plan entry.
 * Include after check.h. */
#ifndef BENCHTOP_TUNE_FIXTURES_H
#define BENCHTOP_TUNE_FIXTURES_H

#include <string.h>

#include "bench/plan.h"
#include "kernels/shape.h"

static inline Shape test_shape(const char *text) {
  Shape s;
  char err[128];
  CHECKF(Shape_parse(text, &s, err, sizeof err), "%s: %s", text, err);
  return s;
}

/* A plan entry of v at shape s with its default knobs, auto as given. */
static inline PlanEntry test_planEntry(const Variant *v, Shape s, RunOptions opts, int knobs_auto) {
  PlanEntry pe;
  memset(&pe, 0, sizeof pe);
  pe.variant = v;
  pe.shape = s;
  pe.opts = opts;
  pe.knobs_auto = knobs_auto;
  Registry_defaults(v, &pe.knobs);
  return pe;
}

#endif
