/* benchtop tune's search on a GPU: batches asked of the tuner (bench/tune.h), compiled ahead
 * and measured by the worker, every measurement a record in the session (saved once a second
 * and after every batch); then the ranking, the summary and the tuned table. Ctrl-C keeps every
 * finished record and ranks what finished. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/tune/tune_prebuild.h"
#include "cmd/cmd_tune.h"
#include "cmd/commands.h"
#include "cmd/stop_signals.h"
#include "common/text.h"
#include "common/util.h"
#include "sessions/catalog.h"

#define TUNE_BATCH 64 /* measurements handed to the worker (and prebuilt) at a time */

static volatile sig_atomic_t Tune_interrupted;
static void Tune_onSignal(int sig) {
  (void)sig;
  Tune_interrupted = 1;
}

static void Tune_progressLine(bool tty, const Tuner *t, const char *phase_msg) {
  if (!tty) return;
  TuneProgress g;
  Tuner_progress(t, &g);
  char shape[64];
  Shape_format(&g.shape, shape, sizeof shape);
  fprintf(stderr, "\r\033[K[tune %d/%d %s %s] %s %d/%d, %d refused", g.pair, g.npairs, g.variant,
          shape, g.phase, g.measured, g.budget, g.refused);
  char best[61];
  if (!isnan(g.best_p50))
    fprintf(stderr, ", best %.4g us %s", g.best_p50, Text_sanitize(best, sizeof best, g.best_knobs));
  if (phase_msg && *phase_msg) fprintf(stderr, " (%.30s)", phase_msg);
  fflush(stderr);
}

/* One line per measurement in table form: the whole knob setting (the table's knobs column
 * is too narrow for a search). */
static void Tune_row(const Record *r, int seen) {
  char shape[64], knobs[RECORD_KNOBS_MAX], reason[121];
  Shape_format(&r->shape, shape, sizeof shape);
  Text_sanitize(knobs, sizeof knobs, r->knobs); /* the record's text came from the worker */
  Text_sanitize(reason, sizeof reason, r->reason);
  if (r->status == REC_PASS)
    printf("%4d  %-9s %-20s %9.4g us  %s\n", seen, r->variant, shape, r->timing.p50, knobs);
  else
    printf("%4d  %-9s %-20s %9s     %s: %s\n", seen, r->variant, shape,
           Record_statusName(r->status), knobs, reason);
}

/* One search: what Tune_loop's steps share. */
typedef struct TuneLoop {
  TuneCli *cli;
  Tuner *t;
  Session *s;
  RunnerPool *r;
  PlanEntry *batch;
  Prebuild *pb;
  int nbatch, seen, rc, cc, jobs;
  /* A session of a thousand records takes ~0.2 s to write: saved at most once a second and at
   * the end of every batch, so writing never outruns a ~60 ms measurement; a signal ends in the
   * final save (Tune_conclude), only a kill can lose the last second. */
  double saved_ms;
  bool unsaved, ready, running, finished, cancelled, tty, table;
  Export x;
} TuneLoop;

/* The table form prints its own rows; the other formats stream as run's do, with the columns
 * of the metrics asked for. */
static void TuneLoop_beginOutput(TuneLoop *l) {
  if (l->table) return;
  char err[512], **names = NULL;
  MetricColumns mc = {0, NULL};
  int nnames = Metrics_resolve(l->cli->req.plan.metrics, &names, err, sizeof err);
  if (nnames > 0) MetricColumns_fromNames(&mc, names, nnames, Export_briefMetrics(l->cli->fmt, false));
  Metrics_freeNames(names, nnames > 0 ? nnames : 0);
  ExportLayout layout = {.cols = EXPORT_COL_ALL, .metrics = &mc};
  Export_begin(&l->x, stdout, l->cli->fmt, &layout);
  MetricColumns_free(&mc);
}

static void TuneLoop_cancel(TuneLoop *l) {
  l->cancelled = true;
  Tuner_stop(l->t);
  RunnerPool_cancel(l->r);
  Prebuild_free(l->pb);
  l->pb = NULL;
  if (l->tty) fprintf(stderr, "\r\033[K");
  fprintf(stderr, "benchtop tune: interrupted; keeping the finished records\n");
  if (!l->running) l->finished = true;
}

/* A line from the worker's side that ends the search (no GPU, a worker that cannot start). */
static void TuneLoop_fatal(TuneLoop *l, const char *message, int rc) {
  if (l->tty) fprintf(stderr, "\r\033[K");
  fprintf(stderr, "benchtop tune: %s\n", message);
  l->rc = rc;
  l->finished = true;
}

static void TuneLoop_onHello(TuneLoop *l, const RunnerEvent *ev) {
  char err[512];
  l->s->device = ev->device;
  l->s->has_device = true;
  l->cc = ev->device.cc_major * 10 + ev->device.cc_minor;
  if (!Tuner_begin(l->t, &ev->device, err, sizeof err)) {
    fprintf(stderr, "benchtop tune: %s\n", err);
    l->rc = BT_EXIT_FAILED;
    l->finished = true;
    return;
  }
  l->ready = true;
}

static void TuneLoop_onRecord(TuneLoop *l, Record *rec) {
  if (l->tty) fprintf(stderr, "\r\033[K");
  rec->plan_index = -1; /* a search has no plan order (the pool numbers its entries) */
  Session_add(l->s, rec);
  l->unsaved = true;
  Tuner_take(l->t, rec);
  if (l->table) Tune_row(rec, ++l->seen);
  else Export_record(&l->x, rec);
  fflush(stdout);
  Record_free(rec);
  Tune_progressLine(l->tty, l->t, NULL);
}

static void TuneLoop_onEvent(TuneLoop *l, RunnerEvent *ev) {
  switch (ev->kind) {
  case RUNNER_HELLO: TuneLoop_onHello(l, ev); break;
  case RUNNER_PROGRESS: Tune_progressLine(l->tty, l->t, ev->message); break;
  case RUNNER_RECORD: TuneLoop_onRecord(l, &ev->record); break;
  case RUNNER_NO_GPU: TuneLoop_fatal(l, ev->message, BT_EXIT_NO_GPU); break;
  case RUNNER_FAILED: /* the worker cannot start: nothing more can be measured */
    TuneLoop_fatal(l, ev->message, BT_EXIT_FAILED);
    break;
  case RUNNER_FINISHED:
    l->running = false;
    l->saved_ms = 0; /* the batch is whole: save it now */
    if (l->cancelled) l->finished = true;
    break;
  case RUNNER_WARNING:
    if (l->tty) fprintf(stderr, "\r\033[K");
    fprintf(stderr, "benchtop tune: %s", ev->message);
    if (ev->repeats) fprintf(stderr, " (and %d more)", ev->repeats);
    fputc('\n', stderr);
    break;
  case RUNNER_NONE: case RUNNER_BUILT: break;
  }
}

static void TuneLoop_autosave(TuneLoop *l) {
  char err[512];
  if (!l->unsaved || Util_nowMs() - l->saved_ms < 1000) return;
  if (!Session_autosave(l->s, err, sizeof err))
    fprintf(stderr, "benchtop tune: autosave failed: %s\n", err);
  l->unsaved = false;
  l->saved_ms = Util_nowMs();
}

/* Between batches: the next one asked of the tuner and compiled ahead, then handed to the
 * worker. True when there is more to do at once (no wait). */
static bool TuneLoop_feed(TuneLoop *l) {
  if (l->ready && !l->running && !l->pb && !l->cancelled) {
    l->nbatch = Tuner_next(l->t, l->batch, TUNE_BATCH);
    if (l->nbatch == 0) {
      l->finished = Tuner_done(l->t);
      if (!l->finished) { /* cannot happen: nothing out, nothing to ask, not done */
        fprintf(stderr, "benchtop tune: the search stalled; ranking what finished\n");
        l->finished = true;
      }
      return true;
    }
    l->pb = Prebuild_start(l->batch, l->nbatch, l->cc, l->jobs);
    if (l->pb && l->tty) {
      fprintf(stderr, "\r\033[Kcompiling %d configurations with %d processes", Prebuild_count(l->pb),
              l->jobs);
      fflush(stderr);
    }
  }
  if (l->pb && Prebuild_done(l->pb)) {
    Prebuild_free(l->pb);
    l->pb = NULL;
  }
  if (l->ready && !l->running && !l->pb && l->nbatch > 0 && !l->cancelled) {
    RunnerPool_submit(l->r, l->batch, l->nbatch);
    l->nbatch = 0;
    l->running = true;
    return true;
  }
  return false;
}

/* Runs the tune to its end (or Ctrl-C); returns the exit code. */
static int Tune_loop(TuneCli *cli, Tuner *t, Session *s) {
  TuneLoop l = {.cli = cli, .t = t, .s = s, .rc = BT_EXIT_OK, .saved_ms = Util_nowMs(),
                .tty = isatty(STDERR_FILENO), .table = cli->fmt == FMT_TABLE};
  l.jobs = cli->jobs >= 0 ? cli->jobs : Prebuild_defaultJobs();
  l.r = RunnerPool_new(NULL, cli->spread.devices, cli->spread.ndevices, cli->spread.all_devices);
  RunnerPool_start(l.r);
  l.batch = Util_xmalloc(sizeof(PlanEntry) * TUNE_BATCH);
  TuneLoop_beginOutput(&l);
  while (!l.finished) {
    if (Tune_interrupted && !l.cancelled) TuneLoop_cancel(&l);
    RunnerEvent ev;
    while (RunnerPool_poll(l.r, &ev)) TuneLoop_onEvent(&l, &ev);
    TuneLoop_autosave(&l);
    if (l.finished) break;
    if (!TuneLoop_feed(&l)) RunnerPool_wait(l.r, l.pb ? 50 : 250);
  }
  if (l.tty) fprintf(stderr, "\r\033[K");
  if (!l.table) Export_end(&l.x);
  Prebuild_free(l.pb);
  RunnerPool_free(l.r);
  free(l.batch);
  if (l.cancelled && l.rc == BT_EXIT_OK) l.rc = 130;
  return l.rc;
}

/* After the search: ranks, summary, session, tuned table. */
static int Tune_conclude(TuneCli *cli, Tuner *t, Session *s, int rc) {
  char err[512], note[600];
  if (rc == BT_EXIT_NO_GPU || !s->has_device) {
    Session_discardOutput(s); /* claimed before the worker said there is no GPU: nothing in it */
    return rc;
  }
  Tuner_finish(t, s);
  bool saved = Session_autosave(s, err, sizeof err);
  if (!saved) {
    fprintf(stderr, "benchtop tune: cannot save the session: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    rc = BT_EXIT_FAILED;
  }
  int nnotes;
  const char *const *notes = Tuner_notes(t, &nnotes);
  for (int i = 0; i < nnotes; i++) fprintf(stderr, "benchtop tune: skipped %s\n", notes[i]);
  FILE *out = cli->fmt == FMT_TABLE || cli->fmt == FMT_MD ? stdout : stderr;
  fflush(stdout);
  TuneSummary_print(out, s->tune, s->ntune, s->overall, s->noverall);
  fflush(out);
  for (int i = 0; i < s->ntune; i++)
    if (s->tune[i].winner < 0 && s->tune[i].measured > 0) {
      char shape[64];
      Shape_format(&s->tune[i].shape, shape, sizeof shape);
      const char *why = "";
      for (int k = 0; k < s->nrecords && !*why; k++)
        if (strcmp(s->records[k].variant, s->tune[i].variant) == 0 &&
            Shape_equal(&s->records[k].shape, &s->tune[i].shape) && s->records[k].reason[0])
          why = s->records[k].reason;
      char line[400];
      snprintf(line, sizeof line, "%s at %s: every one of the %d configurations measured failed "
                                  "(e.g. %.200s)", s->tune[i].variant, shape, s->tune[i].configs, why);
      fprintf(stderr, "benchtop tune: ");
      Text_print(stderr, line); /* the reason is the worker's text */
      fputc('\n', stderr);
      if (rc == BT_EXIT_OK) rc = BT_EXIT_FAILED;
    }
  if (cli->save_table) {
    TunedEntry *entries = NULL;
    int n = Tuner_tunedEntries(t, s, &entries);
    if (n > 0) {
      char path[4096];
      TunedTable_path(path, sizeof path);
      if (!TunedTable_store(entries, n, note, sizeof note, err, sizeof err)) {
        fprintf(stderr, "benchtop tune: the tuned table was not updated: %s\n", err);
        rc = rc == BT_EXIT_OK ? BT_EXIT_FAILED : rc;
      } else {
        if (note[0]) fprintf(stderr, "benchtop tune: %s\n", note);
        fprintf(stderr, "tuned table: %s (%d entr%s for --knob auto)\n", path, n, n == 1 ? "y" : "ies");
      }
    }
    free(entries);
  }
  /* Only a session that holds its records is named as one (the failed save was said above). */
  if (saved) {
    fprintf(stderr, "session: ");
    Text_print(stderr, s->path);
    fprintf(stderr, " (%d records)\n", s->nrecords);
  }
  return rc;
}


int TuneCmd_search(TuneCli *cli, Session *s) {
  StopSignals sig;
  StopSignals_install(&sig, Tune_onSignal);
  Tune_interrupted = 0;
  Tuner *t = Tuner_new(&cli->req);
  int rc = Tune_loop(cli, t, s);
  rc = Tune_conclude(cli, t, s, rc);
  StopSignals_restore(&sig);
  Tuner_free(t);
  return rc;
}
