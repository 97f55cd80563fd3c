#include "cmd/run_loop.h"
#include "cmd/run_pick.h"
#include "cmd/stop_signals.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/plan_shard.h"
#include "bench/runner/runner.h"
#include "bench/tune/tune_prebuild.h"
#include "bench/tune/tune_table.h"
#include "common/safe_file.h"
#include "common/text.h"
#include "common/util.h"
#include "sessions/catalog.h"

static volatile sig_atomic_t RunLoop_interrupts; /* SIGINT, SIGTERM, SIGHUP received */

static void RunLoop_onSignal(int sig) {
  (void)sig;
  RunLoop_interrupts++;
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

/* One line on stderr, the progress bar cleared first; untrusted text sanitised. */
static void RunLoop_say(bool tty, const char *prefix, const char *text) {
  if (tty) fprintf(stderr, "\r\033[K");
  fputs(prefix, stderr);
  Text_print(stderr, text);
  fputc('\n', stderr);
}

/* Metrics that are n/a for one reason across a record (counters restricted by the driver, no
 * profiler) get that reason on stderr once per run, so the fix is seen, not just "n/a". */
static void RunLoop_metricNote(bool tty, const Record *r, char *noted, size_t size) {
  if (r->nmetrics == 0) return;
  for (int i = 0; i < r->nmetrics; i++)
    if (!isnan(r->metrics[i].value) || strcmp(r->metrics[i].reason, r->metrics[0].reason) != 0)
      return;
  if (!r->metrics[0].reason[0] || strcmp(noted, r->metrics[0].reason) == 0) return;
  RunLoop_say(tty, "benchtop: metrics n/a: ", r->metrics[0].reason);
  Util_strlcpy(noted, r->metrics[0].reason, size);
}

/* Kernel timestamps were wanted but events were used: say why, once per run. */
static void RunLoop_clockNote(bool tty, const Record *r, const RunOptions *o, char *noted, size_t size) {
  if (o->event_timing || r->timing.nsamples <= 0 || strcmp(r->timing.source, "events") != 0) return;
  if (strcmp(noted, r->timing.source_note) == 0) return;
  RunLoop_say(tty, "benchtop: timed with CUDA events (launch latency included), not kernel "
                   "timestamps: ", r->timing.source_note);
  Util_strlcpy(noted, r->timing.source_note, size);
}

/* The entries go to the worker with their knobs chosen: those the plan records as explicit
 * knobs (so replay repeats them), each choice said once per variant and shape on stderr. */
static void RunLoop_submitChosen(RunnerPool *r, PlanEntry *entries, int n,
                                 char (*notes)[RECORD_AUTO_NOTE_MAX], Plan *recorded) {
  for (int i = 0; i < n; i++)
    if (entries[i].knobs_auto == PLAN_AUTO_IF_TUNED && notes[i][0]) Plan_pin(recorded, &entries[i]);
  for (int i = 0; i < n; i++) {
    if (!notes[i][0]) continue;
    bool said = false;
    for (int j = 0; j < i; j++)
      said |= entries[j].variant == entries[i].variant &&
              Shape_equal(&entries[j].shape, &entries[i].shape) && strcmp(notes[j], notes[i]) == 0;
    if (said) continue;
    char shape[64], knobs[KNOB_TEXT_MAX];
    Shape_format(&entries[i].shape, shape, sizeof shape);
    Registry_formatKnobs(entries[i].variant, &entries[i].knobs, knobs, sizeof knobs);
    bool tuned = TunedTable_noteIsTuned(notes[i]);
    bool defaults = strncmp(notes[i], "defaults: ", strlen("defaults: ")) == 0;
    if (entries[i].knobs_auto == PLAN_AUTO_IF_TUNED)
      fprintf(stderr, "benchtop: %s at %s: %s%s: %s\n", entries[i].variant->name, shape, notes[i],
              tuned ? " (--knob default: the declared defaults)" : "", knobs);
    else
      fprintf(stderr, "benchtop: --knob auto: %s at %s: %s%s %s\n", entries[i].variant->name,
              shape, defaults ? notes[i] + strlen("defaults: ") : notes[i],
              defaults ? "; running the defaults" : ":", knobs);
  }
  RunnerPool_submit(r, entries, n);
}

/* The session file, claimed before any work: a file that cannot be written is found now. */
static bool RunLoop_openSession(Session *s, const Plan *plan, const RunOutput *o, int *existing) {
  char path[4096], err[1024];
  Session_init(s);
  Plan_free(&s->plan);
  Plan_copy(&s->plan, plan);
  if (o->path && !o->path[0]) {
    fprintf(stderr, "benchtop: -o needs a file name\n");
    return false;
  }
  if (o->force && o->append) {
    fprintf(stderr, "benchtop: --append and --force ask for opposite things: give one\n");
    return false;
  }
  if (o->path && Util_strlcpy(path, o->path, sizeof path) >= sizeof path) { /* cut: another file */
    fprintf(stderr, "benchtop: -o: the name is %zu bytes; at most %zu\n", strlen(o->path), sizeof path - 1);
    return false;
  }
  if (!o->path && !Session_defaultPath(path, sizeof path)) {
    RunLoop_say(false, "benchtop: no place for the session: ", path);
    return false;
  }
  if (o->not_this && o->path && SafeFile_same(o->path, o->not_this)) {
    fprintf(stderr, "benchtop: -o names the session being replayed (%s); replay writes another file\n",
            o->not_this);
    return false;
  }
  if (!Session_openOutput(s, path, o->force ? SESSION_OUT_REPLACE : SESSION_OUT_APPEND, existing,
                          err, sizeof err)) {
    RunLoop_say(false, "benchtop: cannot write the session: ", err);
    return false;
  }
  /* Records of other configurations mixed in silently make medians over the file lie. */
  if (*existing > 0 && !o->force && !o->append) {
    char *line = Util_asprintf("%s holds a session already (%d records of %s): add --append to add "
                               "to it, or --force to replace it (nothing run)", s->path, *existing,
                               s->has_device && s->device.name[0] ? s->device.name : "an unknown GPU");
    RunLoop_say(false, "benchtop: -o ", line);
    free(line);
    return false;
  }
  if (*existing > 0) {
    char line[4300];
    snprintf(line, sizeof line, "%s: it already holds %d records of %s", s->path, *existing,
             s->has_device && s->device.name[0] ? s->device.name : "an unknown GPU");
    RunLoop_say(false, "benchtop: appending to ", line);
  }
  return true;
}

/* A record goes into the session in plan order (several GPUs finish out of order), after the
 * records an appended-to session held already; the file is rewritten after each, so what is on
 * disk is always the finished records in plan order. */
static void RunLoop_addInOrder(Session *s, int existing, const Record *rec) {
  Session_add(s, rec);
  int k = s->nrecords - 1;
  if (rec->plan_index < 0) return;
  while (k > existing && s->records[k - 1].plan_index > rec->plan_index) k--;
  if (k == s->nrecords - 1) return;
  Record moved = s->records[s->nrecords - 1];
  memmove(&s->records[k + 1], &s->records[k], sizeof(Record) * (size_t)(s->nrecords - 1 - k));
  s->records[k] = moved;
}

/* One run of a plan: what RunLoop_run's steps share. */
typedef struct RunState {
  const Plan *plan;
  OutputFormat fmt;
  PlanEntry *entries; /* this shard's slice, in plan order */
  int n, total;       /* entries here; in the whole plan */
  uint64_t plan_hash; /* of the whole plan's entries (a shard's session names it) */
  int *plan_index;    /* entry i's place in the whole plan */
  const ShardSpec *shard;
  Session s;
  int existing;       /* records the session held before */
  RunnerPool *r;
  char (*notes)[RECORD_AUTO_NOTE_MAX]; /* --knob auto's word per entry */
  int pick_k;         /* candidates of a pick (cmd/run_pick.h; 0: none) */
  RunPick pick;       /* measured before the entries while picking */
  Prebuild *pick_pb;  /* its candidates compiled ahead, several at once */
  DeviceInfo device;  /* the worker's, once it said hello */
  bool picking;
  int req_base;       /* a pool numbers requests across submissions: the entries' first */
  bool tty, wait_device, begun, finished, cancelled, stdout_lost, wrong_gpu, failed;
  int rc, handled, measured, unasked_cancels; /* records that ran; cancels no one asked for */
  Export x;
  MetricColumns mc;
  ExportLayout layout;
  char noted[256], clock_noted[256], save_err[1024], line[8400];
  StopSignals signals;
} RunState;

/* The plan's entries of this shard, each with its own seed and place in the whole plan. */
static bool RunLoop_entries(RunState *st, bool tuned_by_default, const RunSpread *spread) {
  char err[1024];
  bool ok = Plan_expand(st->plan, &st->entries, &st->n, err, sizeof err);
  /* A variant given no knob takes this GPU's tuned knobs where there are some (only when some
   * tuned table exists), or a setting that runs the problem where its defaults refuse it; the
   * worker's device decides, so such entries wait for its hello. */
  bool left_alone = ok && tuned_by_default && !Plan_hasAuto(st->plan);
  bool tables = left_alone && TunedTable_exists();
  for (int i = 0; left_alone && i < st->n; i++) {
    PlanEntry *e = &st->entries[i];
    if (e->knobs_given == 0 && e->variant->nknobs > 0 && TunedTable_choosesKnobs(e, tables))
      e->knobs_auto = PLAN_AUTO_IF_TUNED;
  }
  if (!ok || !RunLoop_problemsRunnable(st->entries, st->n, err, sizeof err)) {
    RunLoop_say(false, "benchtop: ", err);
    return false;
  }
  /* Each record gets its own fresh inputs: seed + index, recorded in the record. */
  for (int i = 0; i < st->n; i++) st->entries[i].opts.seed = st->plan->opts.seed + (uint64_t)i * 7919u;
  /* A shard runs its slice of the whole plan; every record keeps its place in the whole. */
  static const ShardSpec whole = {0, 0};
  st->shard = spread && spread->shard.count > 0 ? &spread->shard : &whole;
  st->total = st->n;
  st->plan_hash = PlanShard_hash(st->entries, st->n);
  st->plan_index = Util_xmalloc(sizeof(int) * (size_t)(st->n > 0 ? st->n : 1));
  st->n = 0;
  for (int i = 0; i < st->total; i++)
    if (Shard_owns(st->shard, i)) {
      st->entries[st->n] = st->entries[i];
      st->plan_index[st->n++] = i;
    }
  return true;
}

static void RunLoop_trapSignals(RunState *st) {
  StopSignals_install(&st->signals, RunLoop_onSignal);
  RunLoop_interrupts = 0;
}

static void RunLoop_restoreSignals(const RunState *st) { StopSignals_restore(&st->signals); }

/* The output's columns widened to every entry's knobs. */
static void RunLoop_fitColumns(RunState *st) {
  for (int i = 0; i < st->n; i++) {
    char knobs[RECORD_KNOBS_MAX];
    Registry_formatKnobs(st->entries[i].variant, &st->entries[i].knobs, knobs, sizeof knobs);
    Export_fitRecord(&st->layout, st->entries[i].variant->name, knobs, &st->entries[i].shape);
  }
}

/* The columns, fixed before the first record: those of the metrics asked for. */
static void RunLoop_columns(RunState *st) {
  char err[1024], **names = NULL;
  st->mc = (MetricColumns){0, NULL};
  int nnames = Metrics_resolve(st->plan->metrics, &names, err, sizeof err);
  if (nnames > 0) MetricColumns_fromNames(&st->mc, names, nnames, Export_briefMetrics(st->fmt, false));
  Metrics_freeNames(names, nnames > 0 ? nnames : 0);
  st->layout = (ExportLayout){.cols = EXPORT_COL_REGS | EXPORT_COL_SPILLS | EXPORT_COL_FLOOR,
                              .metrics = &st->mc};
  RunLoop_fitColumns(st);
}

/* A variant given no knob takes this GPU's tuned knobs where there are some; the worker's device
 * decides, so the entries wait for its hello (only when some tuned table exists). */
static void RunLoop_start(RunState *st, const RunSpread *spread) {
  st->r = RunnerPool_new(NULL, spread ? spread->devices : NULL, spread ? spread->ndevices : 0,
                         spread && spread->all_devices);
  for (int i = 0; i < st->n; i++) st->wait_device |= st->entries[i].knobs_auto != PLAN_AUTO_NONE;
  st->notes = Util_xcalloc((size_t)st->n + 1, sizeof *st->notes);
  if (st->wait_device) RunnerPool_start(st->r);
  else if (st->n > 0) RunnerPool_submit(st->r, st->entries, st->n);
}

static void RunLoop_begin(RunState *st) {
  if (!st->begun && !st->stdout_lost) Export_begin(&st->x, stdout, st->fmt, &st->layout);
  st->begun = true; /* the header waits for a worker with a GPU: no GPU prints one line */
}

/* Once the worker said which device this is: --knob auto's entries take the tuned knobs (or
 * the defaults), a variant given no knob the tuned knobs where there are some; where those come
 * from another problem, the pick's candidates are measured first (RunLoop_picked goes on). */
static void RunLoop_resolveAuto(RunState *st, const DeviceInfo *d) {
  TunedTable_resolve(st->entries, st->n, d, st->notes);
  st->device = *d;
  int m = RunPick_plan(&st->pick, st->entries, st->n, d, st->pick_k);
  if (m > 0) {
    fprintf(stderr, "benchtop: pick: %d problem%s no table has tuned: measuring %d tuned neighbours' knobs there "
            "first, %d of them refitted to fewer waves, %d farther winners unlike the nearest in a knob (--pick 0: the "
            "transfer rule's, unmeasured)\n", st->pick.ngroups, st->pick.ngroups == 1 ? "" : "s", m, st->pick.nfit, st->pick.ndissent);
    st->picking = true;
    st->pick_pb = Prebuild_start(st->pick.cands, m, d->cc_major * 10 + d->cc_minor, Prebuild_defaultJobs());
    RunnerPool_submit(st->r, st->pick.cands, m);
    return;
  }
  RunLoop_submitChosen(st->r, st->entries, st->n, st->notes, &st->s.plan);
}

/* Every candidate answered: the entries take the picks and go to the worker (not when the run
 * was cancelled or its workers failed meanwhile). */
static void RunLoop_picked(RunState *st) {
  st->picking = false;
  if (st->cancelled || st->failed || st->pick.answered < st->pick.ncands) {
    st->finished = true;
    return;
  }
  RunPick_apply(&st->pick, st->entries, st->n, &st->device, st->notes, st->tty);
  RunLoop_fitColumns(st);
  RunLoop_begin(st); /* the header waited for the knobs the pick chose */
  st->req_base = RunnerPool_isPool(st->r) ? st->pick.ncands : 0;
  RunLoop_submitChosen(st->r, st->entries, st->n, st->notes, &st->s.plan);
}

static void RunLoop_onHello(RunState *st, const RunnerEvent *ev) {
  Session *s = &st->s;
  if (st->existing > 0 && !Session_acceptsDevice(s, &ev->device)) {
    snprintf(st->line, sizeof st->line, "%s holds records from %s; this GPU is %s: name another "
             "-o, or add --force to replace that session", s->path, s->device.name, ev->device.name);
    RunLoop_say(st->tty, "benchtop: ", st->line);
    st->wrong_gpu = true;
    st->rc = BT_EXIT_FAILED;
    RunnerPool_cancel(st->r);
    if (st->wait_device) st->finished = true; /* nothing was submitted: no FINISHED will come */
    return;
  }
  if (!s->has_device) s->device = ev->device;
  s->has_device = true;
  if (st->wait_device) {
    st->wait_device = false;
    if (st->cancelled) st->finished = true;
    else RunLoop_resolveAuto(st, &ev->device);
    RunLoop_fitColumns(st); /* the columns fit the knobs auto chose */
  }
  if (!st->picking) RunLoop_begin(st);
}

static void RunLoop_onRecord(RunState *st, RunnerEvent *ev) {
  char err[1024];
  Record *rec = &ev->record;
  if (st->wrong_gpu) { /* the request that was in flight when the device was refused */
    Record_free(rec);
    return;
  }
  if (st->picking) { /* a candidate of the pick: weighed, not kept in the session */
    RunPick_onRecord(&st->pick, ev->request, rec);
    Record_free(rec);
    return;
  }
  if (st->tty) fprintf(stderr, "\r\033[K");
  RunLoop_begin(st);
  /* The entry the record answers, by its request's id (never by what the record says). */
  int i = ev->request - st->req_base;
  if (ev->request >= 0 && i >= 0 && i < st->n) {
    if (st->notes[i][0]) Util_strlcpy(rec->knobs_auto, st->notes[i], sizeof rec->knobs_auto);
    rec->plan_index = st->plan_index[i];
  } else {
    rec->plan_index = -1;
  }
  Util_strlcpy(rec->host, st->s.host, sizeof rec->host);
  RunLoop_addInOrder(&st->s, st->existing, rec);
  if (!Session_autosave(&st->s, err, sizeof err) && strcmp(err, st->save_err) != 0) {
    RunLoop_say(st->tty, "benchtop: cannot save the session (will retry): ", err);
    Util_strlcpy(st->save_err, err, sizeof st->save_err);
  }
  if (!st->stdout_lost) Export_record(&st->x, rec);
  if (!st->stdout_lost && (fflush(stdout) != 0 || ferror(stdout))) {
    st->stdout_lost = true;
    snprintf(st->line, sizeof st->line, "stdout was closed (%s); the run goes on and every record "
             "is saved to %s", strerror(errno), st->s.path);
    RunLoop_say(st->tty, "benchtop: ", st->line);
  }
  RunLoop_metricNote(st->tty, rec, st->noted, sizeof st->noted);
  RunLoop_clockNote(st->tty, rec, &st->plan->opts, st->clock_noted, sizeof st->clock_noted);
  if (rec->status == REC_FAIL || rec->status == REC_ERROR) st->rc = BT_EXIT_FAILED;
  st->measured += rec->status == REC_PASS || rec->status == REC_FAIL;
  st->unasked_cancels += rec->status == REC_CANCELLED && !st->cancelled;
  Record_free(rec);
}

static void RunLoop_onEvent(RunState *st, RunnerEvent *ev) {
  switch (ev->kind) {
  case RUNNER_HELLO: RunLoop_onHello(st, ev); break;
  case RUNNER_PROGRESS: RunLoop_progress(st->tty, ev->done, ev->total, ev->message); break;
  case RUNNER_RECORD: RunLoop_onRecord(st, ev); break;
  case RUNNER_WARNING:
    if (ev->repeats) {
      size_t len = strlen(ev->message);
      snprintf(ev->message + len, sizeof ev->message - len, " (and %d more)", ev->repeats);
    }
    RunLoop_say(st->tty, "benchtop: ", ev->message);
    break;
  case RUNNER_FAILED:
  case RUNNER_NO_GPU:
    RunLoop_say(st->tty, "benchtop: ", ev->message);
    st->rc = ev->kind == RUNNER_NO_GPU ? BT_EXIT_NO_GPU : BT_EXIT_FAILED;
    st->failed |= ev->kind == RUNNER_FAILED;
    if (st->wait_device) st->finished = true; /* nothing was submitted: no FINISHED will come */
    break;
  case RUNNER_FINISHED:
    if (st->picking) RunLoop_picked(st);
    else st->finished = true;
    break;
  case RUNNER_NONE: case RUNNER_BUILT: break; /* run never asks for background builds */
  }
}

/* Events until the plan is done; a signal cancels (a second one stops the worker at once). */
static void RunLoop_events(RunState *st) {
  st->finished = st->n == 0;
  while (!st->finished) {
    if (RunLoop_interrupts > st->handled) {
      st->handled = RunLoop_interrupts;
      RunnerPool_cancel(st->r);
      if (st->wait_device) st->finished = true; /* nothing submitted yet: nothing to wait for */
      if (!st->cancelled) RunLoop_say(st->tty, "benchtop: interrupted; keeping the finished records", "");
      st->cancelled = true;
    }
    RunnerEvent ev;
    bool any = false;
    while (!st->finished && RunLoop_interrupts == st->handled && RunnerPool_poll(st->r, &ev)) {
      any = true;
      RunLoop_onEvent(st, &ev);
    }
    if (st->finished || any) continue;
    RunnerPool_wait(st->r, 250); /* then re-check the interrupt flag */
  }
  if (st->tty) fprintf(stderr, "\r\033[K");
  if (st->begun && !st->stdout_lost) {
    Export_end(&st->x);
    fflush(stdout);
  }
}

/* The last word: cancels no one asked for, and where the session went (or why not). */
static void RunLoop_conclude(RunState *st) {
  char err[1024], *line = st->line;
  size_t size = sizeof st->line;
  Session *s = &st->s;
  if (st->unasked_cancels > 0 && !st->cancelled) { /* a worker that cancels on its own measured nothing */
    snprintf(line, size, st->measured == 0 ? "nothing was measured: the worker answered all %d "
             "requests 'cancelled', and no one cancelled them" : "%d requests came back 'cancelled' "
             "from the worker, and no one cancelled them", st->unasked_cancels);
    RunLoop_say(false, "benchtop: ", line);
    st->rc = BT_EXIT_FAILED;
  }
  int added = s->nrecords - st->existing;
  if (added == 0 && (st->rc == BT_EXIT_NO_GPU || st->wrong_gpu || st->failed)) {
    Session_discardOutput(s); /* a file this run created and never wrote a record into */
  } else if (s->dirty && !Session_autosave(s, err, sizeof err)) {
    snprintf(line, size, "%d records could not be saved to %s: %s", added, s->path, err);
    RunLoop_say(false, "benchtop: ", line);
    st->rc = BT_EXIT_FAILED;
  } else {
    if (st->existing) snprintf(line, size, "%s (%d records, %d new)", s->path, s->nrecords, added);
    else if (st->shard->count > 0)
      snprintf(line, size, "%s (%d records, shard %d/%d of a plan of %d entries)", s->path,
               s->nrecords, st->shard->index, st->shard->count, st->total);
    else snprintf(line, size, "%s (%d records)", s->path, s->nrecords);
    RunLoop_say(false, "session: ", line);
  }
  if (st->cancelled && !s->dirty) st->rc = BT_EXIT_INTERRUPTED; /* what finished is saved */
}

int RunLoop_run(const Plan *plan, const RunOutput *output, OutputFormat fmt, Session *result,
                bool tuned_by_default, int pick, const RunSpread *spread) {
  RunState *st = Util_xcalloc(1, sizeof *st); /* ~10 KB of buffers: off the stack */
  st->plan = plan;
  st->pick_k = tuned_by_default || Plan_hasAuto(plan) ? pick : 0;
  st->fmt = fmt;
  int rc;
  if (!RunLoop_entries(st, tuned_by_default, spread)) {
    rc = BT_EXIT_USAGE;
  } else if (!RunLoop_openSession(&st->s, plan, output, &st->existing)) {
    Session_free(&st->s);
    if (result) Session_init(result);
    rc = output->path && !output->path[0] ? BT_EXIT_USAGE : BT_EXIT_FAILED;
  } else {
    if (st->shard->count > 0) { /* written with the first record, or at the end for an empty slice */
      st->s.shard.spec = *st->shard;
      st->s.shard.plan_size = st->total;
      Shard_formatHash(st->plan_hash, st->s.shard.plan_hash, sizeof st->s.shard.plan_hash);
      st->s.dirty = true;
    }
    RunLoop_trapSignals(st);
    st->tty = isatty(STDERR_FILENO);
    RunLoop_start(st, spread);
    RunLoop_columns(st);
    RunLoop_events(st);
    RunnerPool_free(st->r);
    MetricColumns_free(&st->mc);
    RunLoop_conclude(st);
    RunLoop_restoreSignals(st);
    rc = st->rc;
    if (result) *result = st->s;
    else Session_free(&st->s);
  }
  RunPick_free(&st->pick);
  Prebuild_free(st->pick_pb);
  free(st->entries);
  free(st->notes);
  free(st->plan_index);
  free(st);
  return rc;
}
