/* A plan for tests that expand, check or pin one: the default options, the given variants and
 * shapes (the CHECKs count in the calling test, with the reason a list was refused). */
#ifndef BENCHTOP_TEST_PLANS_H
#define BENCHTOP_TEST_PLANS_H

#include "bench/plan.h"
#include "check.h"
#include "kernels/shape.h"

static inline void Test_plan(Plan *p, const char *variants, const char *shapes) {
  char err[256];
  Plan_init(p);
  Plan_defaultOptions(&p->opts);
  CHECKF(Plan_setVariants(p, variants, err, sizeof err), "%s", err);
  CHECKF(Shape_parseList(shapes, &p->shapes, &p->nshapes, err, sizeof err), "%s", err);
}

#endif
