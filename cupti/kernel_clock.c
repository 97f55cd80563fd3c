/* Kernel timestamps from CUPTI activity records (see kernel_clock.h).
 *
 * CUPTI puts an external-correlation record before each API record made while an id is
 * pushed, so API records (runtime and driver) are enabled too: they carry the correlation id
 * that the launched kernels' records repeat. Buffers arrive on a CUPTI thread or in the
 * flush, hence the lock. */
#include "cupti/kernel_clock.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>

#include "common/util.h"

#define KC_BUFFER_BYTES (4u << 20)

/* The kernel record CUPTI writes is the newest its headers declare: CUpti_ActivityKernel10
 * from CUDA 13.0 (CUPTI_API_VERSION 130000), CUpti_ActivityKernel9 in CUDA 12.x. The fields
 * read here (start, end, correlationId) are in both. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 KcKernelRecord;
#else
typedef CUpti_ActivityKernel9 KcKernelRecord;
#endif

typedef KernelClockKernel KcKernel;
typedef KernelClockMark KcExt;

static struct {
  pthread_mutex_t lock;
  bool registered;
  KcKernel *kernels;
  size_t nkernels, capkernels;
  KcExt *ext;
  size_t next, capext;
  size_t dropped;
  size_t untimed; /* kernel records without timestamps */
  char **names;   /* kernel names seen (copies), indexed by KcKernel.name */
  size_t nnames, capnames;
} kc = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const CUpti_ActivityKind kc_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};
#define KC_NKINDS ((int)(sizeof kc_kinds / sizeof kc_kinds[0]))

static void CUPTIAPI KernelClock_bufferRequested(uint8_t **buffer, size_t *size,
                                                 size_t *max_records) {
  /* CUPTI wants 8-byte alignment; malloc gives 16. NULL makes CUPTI drop records, which
   * KernelClock_end then reports. */
  *buffer = malloc(KC_BUFFER_BYTES);
  *size = *buffer ? KC_BUFFER_BYTES : 0;
  *max_records = 0;
}

static void KernelClock_push(void **arr, size_t *n, size_t *cap, size_t elem, const void *item) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 1024;
    void *p = realloc(*arr, nc * elem);
    if (!p) { kc.dropped++; return; }
    *arr = p;
    *cap = nc;
  }
  memcpy((char *)*arr + *n * elem, item, elem);
  (*n)++;
}

/* The index of a kernel name, added when new (under kc.lock). Few distinct kernels run in a
 * timing phase, so a linear search is enough. */
static uint32_t KernelClock_nameIndex(const char *name) {
  if (!name) name = "?";
  for (size_t i = 0; i < kc.nnames; i++)
    if (strcmp(kc.names[i], name) == 0) return (uint32_t)i;
  char *copy = strdup(name);
  if (!copy) return UINT32_MAX;
  if (strlen(copy) >= KERNEL_NAME_MAX) copy[KERNEL_NAME_MAX - 1] = '\0';
  size_t before = kc.nnames;
  KernelClock_push((void **)&kc.names, &kc.nnames, &kc.capnames, sizeof copy, &copy);
  if (kc.nnames == before) { /* no memory: the kernel stays unnamed */
    free(copy);
    return UINT32_MAX;
  }
  return (uint32_t)before;
}

static void CUPTIAPI KernelClock_bufferCompleted(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                                 size_t size, size_t valid) {
  (void)size;
  pthread_mutex_lock(&kc.lock);
  CUpti_Activity *rec = NULL;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const KcKernelRecord *k = (const KcKernelRecord *)rec;
      if (k->start == 0 && k->end == 0) {
        kc.untimed++;
        continue;
      }
      KcKernel item = {k->correlationId, k->start, k->end, KernelClock_nameIndex(k->name)};
      KernelClock_push((void **)&kc.kernels, &kc.nkernels, &kc.capkernels, sizeof item, &item);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)rec;
      if (x->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) continue;
      KcExt item = {x->correlationId, x->externalId};
      KernelClock_push((void **)&kc.ext, &kc.next, &kc.capext, sizeof item, &item);
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) kc.dropped += dropped;
  pthread_mutex_unlock(&kc.lock);
  free(buffer);
}

static bool KernelClock_failed(CUptiResult r, const char *call, char *err, size_t errsize) {
  if (r == CUPTI_SUCCESS) return false;
  const char *s = NULL;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) s = "unknown CUPTI error";
  snprintf(err, errsize, "%s failed: %s (%d)", call, s, (int)r);
  return true;
}

static void KernelClock_disableAll(void) {
  for (int i = 0; i < KC_NKINDS; i++) (void)cuptiActivityDisable(kc_kinds[i]);
}

bool KernelClock_begin(char *err, size_t errsize) {
  const char *sim = getenv(KERNEL_CLOCK_SIMULATE_FAIL_ENV);
  if (sim && strcmp(sim, "1") == 0) {
    snprintf(err, errsize, "simulated by %s=1", KERNEL_CLOCK_SIMULATE_FAIL_ENV);
    return false;
  }
  if (!kc.registered) {
    if (KernelClock_failed(cuptiActivityRegisterCallbacks(KernelClock_bufferRequested,
                                                          KernelClock_bufferCompleted),
                           "cuptiActivityRegisterCallbacks", err, errsize))
      return false;
    kc.registered = true;
  }
  pthread_mutex_lock(&kc.lock);
  kc.nkernels = kc.next = kc.dropped = kc.untimed = 0;
  pthread_mutex_unlock(&kc.lock);
  for (int i = 0; i < KC_NKINDS; i++) {
    if (KernelClock_failed(cuptiActivityEnable(kc_kinds[i]), "cuptiActivityEnable", err, errsize)) {
      KernelClock_disableAll();
      return false;
    }
  }
  return true;
}

void KernelClock_mark(uint64_t id) {
  (void)cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void KernelClock_unmark(void) {
  uint64_t last = 0;
  (void)cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

static int KernelClock_byCorr(const void *a, const void *b) {
  uint32_t x = ((const KcExt *)a)->corr, y = ((const KcExt *)b)->corr;
  return (x > y) - (x < y);
}

typedef struct KcPlaced {
  int mark;       /* 0..n-1 */
  uint64_t start, end;
  uint32_t name;
} KcPlaced;

static int KernelClock_byMarkStart(const void *a, const void *b) {
  const KcPlaced *x = a, *y = b;
  if (x->mark != y->mark) return x->mark < y->mark ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

/* Each kernel of a timed launch (marks 1..n) with its mark, sorted by mark, then start: launch
 * order within the mark. Kernels of no such mark (an L2 flush) are left out. Sorts m in place;
 * the caller frees the array (*np entries). */
static KcPlaced *KernelClock_place(const KernelClockKernel *k, size_t nk, KernelClockMark *m,
                                   size_t nm, int n, size_t *np) {
  KcPlaced *p = Util_xmalloc(sizeof *p * (nk ? nk : 1));
  *np = 0;
  if (nm) qsort(m, nm, sizeof *m, KernelClock_byCorr);
  for (size_t i = 0; i < nk && nm; i++) {
    KcExt key = {k[i].corr, 0};
    const KcExt *x = bsearch(&key, m, nm, sizeof *m, KernelClock_byCorr);
    if (!x || x->id < 1 || x->id > (uint64_t)n) continue;
    p[(*np)++] = (KcPlaced){(int)(x->id - 1), k[i].start, k[i].end, k[i].name};
  }
  if (*np) qsort(p, *np, sizeof *p, KernelClock_byMarkStart);
  return p;
}

int KernelClock_busy(const KernelClockKernel *k, size_t nk, KernelClockMark *m, size_t nm, int n,
                     double *busy_us) {
  /* A mark's busy time is the length of the union of its kernels' intervals, so the host's
   * launch gaps between the kernels of one run never count, and kernels that overlap count
   * once. Intervals come sorted by start within each mark. */
  size_t np;
  KcPlaced *p = KernelClock_place(k, nk, m, nm, n, &np);
  for (int i = 0; i < n; i++) busy_us[i] = NAN;
  uint64_t total = 0, lo = 0, hi = 0;
  int mark = -1;
  for (size_t i = 0; i <= np; i++) {
    if (i < np && p[i].end <= p[i].start) continue; /* no duration: nothing timed */
    if (i == np || p[i].mark != mark) { /* close the mark before */
      if (mark >= 0) busy_us[mark] = (double)(total + hi - lo) / 1000.0;
      if (i == np) break;
      mark = p[i].mark;
      total = 0;
      lo = p[i].start;
      hi = p[i].end;
      continue;
    }
    if (p[i].start > hi) { /* a gap: close the covered run */
      total += hi - lo;
      lo = p[i].start;
    }
    if (p[i].end > hi) hi = p[i].end;
  }
  free(p);
  int missing = 0;
  for (int i = 0; i < n; i++) missing += isnan(busy_us[i]);
  return missing;
}

bool KernelClock_end(int n, double *busy_us, char *err, size_t errsize) {
  CUptiResult fr = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  KernelClock_disableAll();
  if (KernelClock_failed(fr, "cuptiActivityFlushAll", err, errsize)) return false;
  pthread_mutex_lock(&kc.lock);
  bool ok = true;
  if (kc.dropped > 0) {
    snprintf(err, errsize, "CUPTI dropped %zu activity records", kc.dropped);
    ok = false;
  }
  int missing = ok ? KernelClock_busy(kc.kernels, kc.nkernels, kc.ext, kc.next, n, busy_us) : 0;
  if (ok && missing > 0) {
    snprintf(err, errsize,
             "no kernel timestamps for %d of %d launches (%zu kernel records, %zu correlations%s)",
             missing, n, kc.nkernels, kc.next, kc.untimed ? ", some without timestamps" : "");
    ok = false;
  }
  pthread_mutex_unlock(&kc.lock);
  return ok;
}

static int KernelClock_cmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n) (sorted in place); NAN for n == 0. */
static double KernelClock_median(double *v, int n) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, KernelClock_cmpDouble);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int KernelClock_breakdown(const KernelClockKernel *k, size_t nk, KernelClockMark *m, size_t nm,
                          int n, int repeats, const char *const *names, size_t nnames,
                          KernelSpan *out, int max) {
  if (n <= 0 || nk == 0 || nm == 0 || max <= 0) return 0;
  if (repeats < 1) repeats = 1;
  size_t np;
  KcPlaced *p = KernelClock_place(k, nk, m, nm, n, &np);
  /* The number of kernels most launches ran: launches that ran another are left out. */
  int *count = Util_xcalloc((size_t)n, sizeof *count);
  for (size_t i = 0; i < np; i++) count[p[i].mark]++;
  int modal = 0, best = 0;
  for (int i = 0; i < n; i++) {
    if (count[i] == 0) continue;
    int same = 0;
    for (int j = 0; j < n; j++) same += count[j] == count[i];
    if (same > best || (same == best && count[i] < modal)) best = same, modal = count[i];
  }
  int per_run = modal % repeats == 0 ? modal / repeats : modal;
  int used = 0;
  if (modal > 0 && per_run <= max) {
    double *dur = Util_xmalloc(sizeof *dur * (size_t)n * (size_t)modal);
    double *gap = Util_xmalloc(sizeof *gap * (size_t)n * (size_t)modal);
    int *nd = Util_xcalloc((size_t)per_run, sizeof *nd), *ng = Util_xcalloc((size_t)per_run, sizeof *ng);
    memset(out, 0, sizeof *out * (size_t)per_run);
    for (size_t i = 0; i < np;) {
      size_t j = i;
      while (j < np && p[j].mark == p[i].mark) j++;
      if ((int)(j - i) == modal) {
        used++;
        for (size_t q = i; q < j; q++) {
          int pos = (int)(q - i) % per_run;
          dur[(size_t)pos * (size_t)n * (size_t)repeats + (size_t)nd[pos]++] =
              (double)(p[q].end - p[q].start) / 1000.0;
          /* Negative when the kernels overlap. The first kernel of a run after the first in a
           * graph has one too, since the previous run: the p50 (a replay's span over its runs)
           * holds it. */
          if (q > i)
            gap[(size_t)pos * (size_t)n * (size_t)repeats + (size_t)ng[pos]++] =
                ((double)p[q].start - (double)p[q - 1].end) / 1000.0;
          if (!out[pos].name[0] && p[q].name < nnames)
            Util_strlcpy(out[pos].name, names[p[q].name], sizeof out[pos].name);
        }
      }
      i = j;
    }
    for (int pos = 0; pos < per_run; pos++) {
      if (!out[pos].name[0]) Util_strlcpy(out[pos].name, "?", sizeof out[pos].name);
      out[pos].p50_us = KernelClock_median(dur + (size_t)pos * (size_t)n * (size_t)repeats, nd[pos]);
      out[pos].gap_before_us =
          ng[pos] > 0 ? KernelClock_median(gap + (size_t)pos * (size_t)n * (size_t)repeats, ng[pos]) : NAN;
      out[pos].share = NAN;
      out[pos].launches = used;
    }
    free(dur);
    free(gap);
    free(nd);
    free(ng);
  }
  free(count);
  free(p);
  return used > 0 ? per_run : 0;
}

int KernelClock_lastBreakdown(int n, int repeats, KernelSpan *out, int max) {
  pthread_mutex_lock(&kc.lock);
  int got = KernelClock_breakdown(kc.kernels, kc.nkernels, kc.ext, kc.next, n, repeats,
                                  (const char *const *)kc.names, kc.nnames, out, max);
  pthread_mutex_unlock(&kc.lock);
  return got;
}
