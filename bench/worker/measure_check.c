/* Checks that the timed launches did the work that was verified (see WorkCheck in
 * measure_private.h). The checks sit outside each launch's events and kernel-clock mark, so the
 * timed region is the same launch as an unchecked one; what they cost is a poison write and a
 * read of two outputs, between launches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/measure_private.h"
#include "common/util.h"

/* Checked launches besides the consecutive pair: about one in ten, at least six. */
static int WorkCheck_count(int reps) {
  int n = 2 + (reps / 10 > 6 ? reps / 10 : 6);
  return n > reps ? reps : n;
}

static uint64_t WorkCheck_next(uint64_t *s) {
  uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

bool WorkCheck_plan(WorkCheck *c, int reps, bool all, uint64_t seed, char *err, size_t errsize) {
  memset(c, 0, sizeof *c);
  if (reps <= 0) return true;
  c->at = Util_xmalloc(sizeof(bool) * (size_t)reps);
  memset(c->at, 0, sizeof(bool) * (size_t)reps);
  int want = all ? reps : WorkCheck_count(reps);
  uint64_t s = seed ^ 0x5eedc4ec4ull;
  int marked = 0;
  if (reps >= 2 && !all) { /* the consecutive pair */
    int p = (int)(WorkCheck_next(&s) % (uint64_t)(reps - 1));
    c->at[p] = c->at[p + 1] = true;
    marked = 2;
  }
  while (marked < want) {
    int p = (int)(WorkCheck_next(&s) % (uint64_t)reps);
    if (!c->at[p]) c->at[p] = true, marked++;
  }
  c->launch_of = Util_xmalloc(sizeof(int) * (size_t)want);
  for (int i = 0; i < reps; i++)
    if (c->at[i]) c->launch_of[c->nchecks++] = i;
  size_t bytes = sizeof(unsigned int) * 2 * (size_t)c->nchecks;
  if (!Gpu_ok(cudaMalloc((void **)&c->bad, bytes), "allocating the work-check counters", err, errsize)) {
    c->bad = NULL;
    return false;
  }
  return Gpu_ok(cudaMemset(c->bad, 0, bytes), "clearing the work-check counters", err, errsize);
}

static int WorkCheck_slot(const WorkCheck *c, int i) {
  int lo = 0, hi = c->nchecks - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (c->launch_of[mid] == i) return mid;
    if (c->launch_of[mid] < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

bool WorkCheck_before(const WorkCheck *c, const TimedRun *t, int i, char *err, size_t errsize) {
  if (!c->at || !c->at[i]) return true;
  return Measure_poison(t->g, t->p->o, t->elems, err, errsize);
}

bool WorkCheck_after(const WorkCheck *c, const TimedRun *t, int i, char *err, size_t errsize) {
  if (!c->at || !c->at[i]) return true;
  Gpu *g = t->g;
  const void *o = t->p->o;
  const void *good = t->good;
  unsigned long long n = t->elems;
  unsigned short poison = POISON_BITS;
  unsigned int *bad = c->bad + 2 * WorkCheck_slot(c, i);
  void *args[] = {&o, &good, &n, &poison, &bad};
  unsigned blocks = (unsigned)((n + 255) / 256 > 1024 ? 1024 : (n + 255) / 256);
  int check = t->p->dtype == SHAPE_BF16 ? 6 : 4; /* check_output_bf16, check_output */
  return Gpu_ok(cudaLaunchKernel((const void *)g->util.kernels[check], (dim3){blocks, 1, 1},
                                 (dim3){256, 1, 1}, args, 0, g->stream),
                "checking a timed launch's output", err, errsize);
}

bool WorkCheck_read(const WorkCheck *c, const TimedRun *t, int launched, char *reason,
                    size_t rsize, char *err, size_t errsize) {
  if (c->nchecks == 0) return true;
  unsigned int *host = Util_xmalloc(sizeof(unsigned int) * 2 * (size_t)c->nchecks);
  bool ok = Gpu_ok(cudaMemcpy(host, c->bad, sizeof(unsigned int) * 2 * (size_t)c->nchecks,
                              cudaMemcpyDeviceToHost),
                   "reading the work-check counters", err, errsize);
  int checked = 0, failed = 0, first = -1;
  for (int k = 0; ok && k < c->nchecks && c->launch_of[k] < launched; k++) {
    checked++;
    if (host[2 * k] || host[2 * k + 1]) {
      failed++;
      if (first < 0) first = k;
    }
  }
  if (ok && failed > 0) {
    size_t len = strlen(reason);
    snprintf(reason + len, rsize - len,
             "%sthe timed launches did not all compute: launch %d of %d left %u of %zu output "
             "elements unwritten and %u wrong (%d of %d checked launches failed)",
             len ? "; " : "", c->launch_of[first] + 1, launched, host[2 * first], t->elems,
             host[2 * first + 1], failed, checked);
  }
  free(host);
  return ok;
}

void WorkCheck_free(WorkCheck *c) {
  free(c->at);
  free(c->launch_of);
  if (c->bad) cudaFree(c->bad);
  memset(c, 0, sizeof *c);
}
