#include "cmd/run_loop.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/runner.h"
#include "bench/tune_table.h"
#include "common/util.h"
#include "sessions/catalog.h"

static volatile sig_atomic_t RunLoop_interrupted;

static void RunLoop_onSignal(int sig) {
  (void)sig;
  RunLoop_interrupted = 1;
}

bool RunLoop_checkMetrics(const char *spec, char *err, size_t errsize) {
  char **names = NULL;
  int n = Metrics_resolve(spec, &names, err, errsize);
  if (n < 0) return false;
  Metrics_freeNames(names, n);
  return true;
}

static void RunLoop_progress(bool tty, int done, int total, const char *msg) {
  if (!tty) return;
  int width = 24, filled = total > 0 ? done * width / total : 0;
  char bar[32];
  for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
  bar[width] = '\0';
  fprintf(stderr, "\r\033[K[%s] %d/%d %.60s", bar, done, total, msg);
  fflush(stderr);
}

/* Metrics that are n/a for one reason across a record (counters restricted by the driver, no
 * profiler) get that reason on stderr once per run, so the fix is seen, not just "n/a". */
static void RunLoop_metricNote(const Record *r, char *noted, size_t size) {
  if (r->nmetrics == 0) return;
  for (int i = 0; i < r->nmetrics; i++)
    if (!isnan(r->metrics[i].value) || strcmp(r->metrics[i].reason, r->metrics[0].reason) != 0)
      return;
  if (!r->metrics[0].reason[0] || strcmp(noted, r->metrics[0].reason) == 0) return;
  fprintf(stderr, "benchtop: metrics n/a: %s\n", r->metrics[0].reason);
  Util_strlcpy(noted, r->metrics[0].reason, size);
}

/* Kernel timestamps were wanted but events were used: say why, once per run. */
static void RunLoop_clockNote(const Record *r, const RunOptions *o, char *noted, size_t size) {
  if (o->event_timing || r->timing.nsamples <= 0 || strcmp(r->timing.source, "events") != 0) return;
  if (strcmp(noted, r->timing.source_note) == 0) return;
  fprintf(stderr, "benchtop: timed with CUDA events (launch latency included), not kernel "
                  "timestamps: %s\n", r->timing.source_note);
  Util_strlcpy(noted, r->timing.source_note, size);
}

/* --knob auto, once the worker said which device this is: the tuned knobs (or the defaults,
 * said once per variant and shape on stderr), then the entries go to the worker. */
static void RunLoop_resolveAuto(Runner *r, PlanEntry *entries, int n, const DeviceInfo *d,
                                char (*notes)[160]) {
  TunedTable_resolve(entries, n, d, notes);
  for (int i = 0; i < n; i++) {
    if (!notes[i][0]) continue;
    bool said = false;
    for (int j = 0; j < i; j++)
      said |= entries[j].variant == entries[i].variant &&
              Shape_equal(&entries[j].shape, &entries[i].shape) && strcmp(notes[j], notes[i]) == 0;
    if (said) continue;
    char shape[64], knobs[160];
    Shape_format(&entries[i].shape, shape, sizeof shape);
    Registry_formatKnobs(entries[i].variant, &entries[i].knobs, knobs, sizeof knobs);
    bool tuned = Util_startsWith(notes[i], "tuned");
    fprintf(stderr, "benchtop: --knob auto: %s at %s: %s%s %s\n", entries[i].variant->name, shape,
            tuned ? notes[i] : notes[i] + strlen("defaults: "), tuned ? ":" : "; running the defaults",
            knobs);
  }
  Runner_submit(r, entries, n);
}

int RunLoop_run(const Plan *plan, const char *out_path, OutputFormat fmt, Session *result) {
  char err[512], noted[256] = "", clock_noted[256] = "";
  PlanEntry *entries = NULL;
  int n = 0;
  if (!Plan_expand(plan, &entries, &n, err, sizeof err)) {
    fprintf(stderr, "benchtop: %s\n", err);
    return BT_EXIT_USAGE;
  }
  /* Each record gets its own fresh inputs: seed + index, recorded in the record. */
  for (int i = 0; i < n; i++) entries[i].opts.seed = plan->opts.seed + (uint64_t)i * 7919u;

  Session s;
  Session_init(&s);
  Plan_free(&s.plan);
  Plan_copy(&s.plan, plan);
  if (out_path) Util_strlcpy(s.path, out_path, sizeof s.path);
  else Session_defaultPath(s.path, sizeof s.path);

  struct sigaction sa, old_int, old_term, old_hup;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = RunLoop_onSignal;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  RunLoop_interrupted = 0;

  bool tty = isatty(STDERR_FILENO);
  Runner *r = Runner_new(NULL);
  bool wait_device = Plan_hasAuto(plan);
  char (*notes)[160] = Util_xcalloc((size_t)n + 1, sizeof *notes);
  bool *used = Util_xcalloc((size_t)n + 1, sizeof *used);
  if (wait_device) Runner_start(r);
  else Runner_submit(r, entries, n);
  Export x;
  unsigned cols = EXPORT_COL_REGS | EXPORT_COL_SPILLS;
  /* The columns are fixed before the first record: those of the metrics asked for. */
  MetricColumns mc = {0, NULL};
  char **names = NULL;
  int nnames = Metrics_resolve(plan->metrics, &names, err, sizeof err);
  if (nnames > 0) MetricColumns_fromNames(&mc, names, nnames, Export_briefMetrics(fmt, false));
  Metrics_freeNames(names, nnames > 0 ? nnames : 0);
  ExportLayout layout = {.cols = cols, .metrics = &mc};
  for (int i = 0; i < n; i++) {
    char knobs[RECORD_KNOBS_MAX];
    Registry_formatKnobs(entries[i].variant, &entries[i].knobs, knobs, sizeof knobs);
    Export_fitRecord(&layout, entries[i].variant->name, knobs);
  }
  bool begun = false; /* the header waits for a worker with a GPU: no GPU prints one line */
  int rc = BT_EXIT_OK;
  bool finished = false, cancelled = false, saved_once = false;
  while (!finished) {
    if (RunLoop_interrupted && !cancelled) {
      cancelled = true;
      Runner_cancel(r);
      if (wait_device) finished = true; /* nothing submitted yet: nothing to wait for */
      if (tty) fprintf(stderr, "\r\033[K");
      fprintf(stderr, "benchtop: interrupted; keeping the finished records\n");
    }
    RunnerEvent ev;
    bool any = false;
    while (Runner_poll(r, &ev)) {
      any = true;
      switch (ev.kind) {
      case RUNNER_HELLO:
        s.device = ev.device;
        s.has_device = true;
        if (wait_device) {
          wait_device = false;
          if (cancelled) finished = true;
          else RunLoop_resolveAuto(r, entries, n, &ev.device, notes);
          for (int i = 0; i < n; i++) { /* the columns fit the knobs auto chose */
            char knobs[RECORD_KNOBS_MAX];
            Registry_formatKnobs(entries[i].variant, &entries[i].knobs, knobs, sizeof knobs);
            Export_fitRecord(&layout, entries[i].variant->name, knobs);
          }
        }
        if (!begun) Export_begin(&x, stdout, fmt, &layout);
        begun = true;
        break;
      case RUNNER_PROGRESS: RunLoop_progress(tty, ev.done, ev.total, ev.message); break;
      case RUNNER_RECORD:
        if (tty) fprintf(stderr, "\r\033[K");
        if (!begun) Export_begin(&x, stdout, fmt, &layout);
        begun = true;
        TunedTable_markRecord(&ev.record, entries, notes, used, n);
        Session_add(&s, &ev.record);
        if (!Session_autosave(&s, err, sizeof err)) fprintf(stderr, "benchtop: autosave failed: %s\n", err);
        else saved_once = true;
        Export_record(&x, &ev.record);
        RunLoop_metricNote(&ev.record, noted, sizeof noted);
        RunLoop_clockNote(&ev.record, &plan->opts, clock_noted, sizeof clock_noted);
        fflush(stdout);
        if (ev.record.status == REC_FAIL || ev.record.status == REC_ERROR) rc = BT_EXIT_FAILED;
        Record_free(&ev.record);
        break;
      case RUNNER_NO_GPU:
        if (tty) fprintf(stderr, "\r\033[K");
        fprintf(stderr, "benchtop: %s\n", ev.message);
        rc = BT_EXIT_NO_GPU;
        if (wait_device) finished = true; /* nothing was submitted: no FINISHED will come */
        break;
      case RUNNER_FINISHED: finished = true; break;
      case RUNNER_NONE: case RUNNER_BUILT: break; /* run never asks for background builds */
      }
    }
    if (finished || any) continue;
    Runner_wait(r, 250); /* then re-check the interrupt flag */
  }
  if (tty) fprintf(stderr, "\r\033[K");
  if (begun) Export_end(&x);
  MetricColumns_free(&mc);
  Runner_free(r);
  free(entries);
  free(notes);
  free(used);
  if (rc != BT_EXIT_NO_GPU && (saved_once || s.nrecords == 0)) {
    if (s.nrecords == 0 && !Session_autosave(&s, err, sizeof err))
      fprintf(stderr, "benchtop: cannot save the session: %s\n", err);
    fprintf(stderr, "session: %s (%d records)\n", s.path, s.nrecords);
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  if (cancelled && rc == BT_EXIT_OK) rc = 130;
  if (result) *result = s;
  else Session_free(&s);
  return rc;
}
