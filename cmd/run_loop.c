#include "cmd/run_loop.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/plan_shard.h"
#include "bench/runner.h"
#include "bench/tune_table.h"
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

/* Once the worker said which device this is: --knob auto's entries take the tuned knobs (or the
 * defaults), and a variant given no knob the tuned knobs where there are some, each said once
 * per variant and shape on stderr; those the plan records as explicit knobs, so replay repeats
 * them. Then the entries go to the worker. */
static void RunLoop_resolveAuto(RunnerPool *r, PlanEntry *entries, int n, const DeviceInfo *d,
                                char (*notes)[160], Plan *recorded) {
  TunedTable_resolve(entries, n, d, notes);
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
    if (entries[i].knobs_auto == PLAN_AUTO_IF_TUNED)
      fprintf(stderr, "benchtop: %s at %s: %s (--knob default: the declared defaults): %s\n",
              entries[i].variant->name, shape, notes[i], knobs);
    else
      fprintf(stderr, "benchtop: --knob auto: %s at %s: %s%s %s\n", entries[i].variant->name,
              shape, tuned ? notes[i] : notes[i] + strlen("defaults: "),
              tuned ? ":" : "; running the defaults", knobs);
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

bool RunLoop_parseSpread(const char *shard, const char *devices, RunSpread *spread, char *err,
                         size_t errsize) {
  memset(spread, 0, sizeof *spread);
  if (shard && !(strcmp(shard, "slurm") == 0 ? Shard_fromSlurm(&spread->shard, err, errsize)
                                             : Shard_parse(shard, &spread->shard, err, errsize)))
    return false;
  if (devices) {
    spread->ndevices = RunnerPool_parseDevices(devices, spread->devices, &spread->all_devices, err,
                                               errsize);
    if (spread->ndevices < 0) return false;
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

uint64_t RunLoop_shardSeed(const Plan *plan) {
  PlanEntry *entries = NULL;
  int n = 0;
  char err[256];
  if (!Plan_expand(plan, &entries, &n, err, sizeof err)) return plan->opts.seed;
  uint64_t seed = PlanShard_seed(entries, n);
  free(entries);
  return seed;
}

/* Which of the submitted entries (from *next on) a record answers: the runner answers them in
 * order, one record each; a record that names another entry (one was lost on the way) is
 * matched forward by its variant, knobs and shape. */
static int RunLoop_matchEntry(const PlanEntry *entries, int n, int *next, const Record *rec) {
  for (int j = *next; j < n; j++) {
    char knobs[RECORD_KNOBS_MAX];
    Registry_formatKnobs(entries[j].variant, &entries[j].knobs, knobs, sizeof knobs);
    if (strcmp(entries[j].variant->name, rec->variant) == 0 && strcmp(knobs, rec->knobs) == 0 &&
        Shape_equal(&entries[j].shape, &rec->shape)) {
      *next = j + 1;
      return j;
    }
  }
  return *next < n ? (*next)++ : -1; /* a record the worker garbled: the entry in flight */
}

/* A problem that no entry of the plan can run on any device (every variant asked for refuses
 * it, with the knobs asked for and with its defaults: a dtype, GQA, a KV cache or a head
 * dimension it does not declare) is a usage error found before a worker starts, in one line
 * naming the problem and the first refusal. A refusal of the knobs alone stays an n/a record. */
static bool RunLoop_problemsRunnable(const PlanEntry *entries, int n, char *err, size_t errsize) {
  for (int i = 0; i < n; i++) {
    bool seen = false, runnable = false;
    for (int j = 0; j < i && !seen; j++) seen = Shape_equal(&entries[j].shape, &entries[i].shape);
    if (seen) continue;
    char why[300] = "", first[300] = "";
    const char *first_variant = NULL;
    int refusing = 0;
    for (int j = i; j < n && !runnable; j++) {
      if (!Shape_equal(&entries[j].shape, &entries[i].shape)) continue;
      KnobValues defaults;
      Registry_defaults(entries[j].variant, &defaults);
      if (!Registry_refusal(entries[j].variant, &entries[j].shape, &entries[j].knobs, NULL, why,
                            sizeof why) ||
          !Registry_refusal(entries[j].variant, &entries[j].shape, &defaults, NULL, why,
                            sizeof why)) {
        runnable = true;
      } else if (refusing++ == 0) {
        first_variant = entries[j].variant->name;
        Util_strlcpy(first, why, sizeof first);
      }
    }
    if (runnable) continue;
    char shape[96];
    Shape_format(&entries[i].shape, shape, sizeof shape);
    snprintf(err, errsize, "no variant asked for runs %s: %s refuses it (%s)%s; give a variant that "
             "supports it (benchtop list variants)", shape, first_variant, first,
             refusing > 1 ? ", and so do the others" : "");
    return false;
  }
  return true;
}

int RunLoop_run(const Plan *plan, const RunOutput *output, OutputFormat fmt, Session *result,
                bool tuned_by_default, const RunSpread *spread) {
  char err[1024], noted[256] = "", clock_noted[256] = "", save_err[1024] = "", line[8400];
  PlanEntry *entries = NULL;
  int n = 0;
  if (!Plan_expand(plan, &entries, &n, err, sizeof err) ||
      !RunLoop_problemsRunnable(entries, n, err, sizeof err)) {
    free(entries);
    RunLoop_say(false, "benchtop: ", err);
    return BT_EXIT_USAGE;
  }
  /* Each record gets its own fresh inputs: seed + index, recorded in the record. */
  for (int i = 0; i < n; i++) entries[i].opts.seed = plan->opts.seed + (uint64_t)i * 7919u;
  /* A shard runs its slice of the whole plan; every record keeps its place in the whole. */
  const ShardSpec whole = {0, 0};
  const ShardSpec *shard = spread && spread->shard.count > 0 ? &spread->shard : &whole;
  uint64_t plan_hash = PlanShard_hash(entries, n);
  int total = n;
  int *plan_index = Util_xmalloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  n = 0;
  for (int i = 0; i < total; i++)
    if (Shard_owns(shard, i)) {
      entries[n] = entries[i];
      plan_index[n++] = i;
    }

  Session s;
  int existing = 0;
  if (!RunLoop_openSession(&s, plan, output, &existing)) {
    free(entries);
    free(plan_index);
    Session_free(&s);
    if (result) Session_init(result);
    return output->path && !output->path[0] ? BT_EXIT_USAGE : BT_EXIT_FAILED;
  }
  if (shard->count > 0) { /* written with the first record, or at the end for an empty slice */
    s.shard.spec = *shard;
    s.shard.plan_size = total;
    Shard_formatHash(plan_hash, s.shard.plan_hash, sizeof s.shard.plan_hash);
    s.dirty = true;
  }

  struct sigaction sa, old_int, old_term, old_hup, old_pipe;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = RunLoop_onSignal;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  /* A closed stdout (`| head`) is an error on write, not a silent death mid-plan. */
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &old_pipe);
  RunLoop_interrupts = 0;

  bool tty = isatty(STDERR_FILENO);
  RunnerPool *r = RunnerPool_new(NULL, spread ? spread->devices : NULL, spread ? spread->ndevices : 0,
                                 spread && spread->all_devices);
  /* A variant given no knob takes this GPU's tuned knobs where there are some; the worker's
   * device decides, so the entries wait for its hello (only when some tuned table exists). */
  if (tuned_by_default && !Plan_hasAuto(plan) && TunedTable_exists())
    for (int i = 0; i < n; i++)
      if (entries[i].knobs_given == 0 && entries[i].variant->nknobs > 0)
        entries[i].knobs_auto = PLAN_AUTO_IF_TUNED;
  bool wait_device = false;
  for (int i = 0; i < n; i++) wait_device |= entries[i].knobs_auto != PLAN_AUTO_NONE;
  char (*notes)[160] = Util_xcalloc((size_t)n + 1, sizeof *notes);
  bool *used = Util_xcalloc((size_t)n + 1, sizeof *used);
  if (wait_device) RunnerPool_start(r);
  else if (n > 0) RunnerPool_submit(r, entries, n);
  Export x;
  unsigned cols = EXPORT_COL_REGS | EXPORT_COL_SPILLS | EXPORT_COL_FLOOR;
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
    Export_fitRecord(&layout, entries[i].variant->name, knobs, &entries[i].shape);
  }
  int next_entry = 0;
  bool begun = false; /* the header waits for a worker with a GPU: no GPU prints one line */
  int rc = BT_EXIT_OK, handled = 0;
  bool finished = n == 0, cancelled = false, stdout_lost = false, wrong_gpu = false, failed = false;
  int measured = 0, unasked_cancels = 0; /* records that ran; cancelled ones no one asked for */
  while (!finished) {
    if (RunLoop_interrupts > handled) {
      handled = RunLoop_interrupts;
      RunnerPool_cancel(r); /* a second signal stops the worker at once */
      if (wait_device) finished = true; /* nothing submitted yet: nothing to wait for */
      if (!cancelled) RunLoop_say(tty, "benchtop: interrupted; keeping the finished records", "");
      cancelled = true;
    }
    RunnerEvent ev;
    bool any = false;
    while (!finished && RunLoop_interrupts == handled && RunnerPool_poll(r, &ev)) {
      any = true;
      switch (ev.kind) {
      case RUNNER_HELLO:
        if (existing > 0 && !Session_acceptsDevice(&s, &ev.device)) {
          snprintf(line, sizeof line, "%s holds records from %s; this GPU is %s: name another -o, "
                   "or add --force to replace that session", s.path, s.device.name, ev.device.name);
          RunLoop_say(tty, "benchtop: ", line);
          wrong_gpu = true;
          rc = BT_EXIT_FAILED;
          RunnerPool_cancel(r);
          if (wait_device) finished = true; /* nothing was submitted: no FINISHED will come */
          break;
        }
        if (!s.has_device) s.device = ev.device;
        s.has_device = true;
        if (wait_device) {
          wait_device = false;
          if (cancelled) finished = true;
          else RunLoop_resolveAuto(r, entries, n, &ev.device, notes, &s.plan);
          for (int i = 0; i < n; i++) { /* the columns fit the knobs auto chose */
            char knobs[RECORD_KNOBS_MAX];
            Registry_formatKnobs(entries[i].variant, &entries[i].knobs, knobs, sizeof knobs);
            Export_fitRecord(&layout, entries[i].variant->name, knobs, &entries[i].shape);
          }
        }
        if (!begun && !stdout_lost) Export_begin(&x, stdout, fmt, &layout);
        begun = true;
        break;
      case RUNNER_PROGRESS: RunLoop_progress(tty, ev.done, ev.total, ev.message); break;
      case RUNNER_RECORD:
        if (wrong_gpu) { /* the request that was in flight when the device was refused */
          Record_free(&ev.record);
          break;
        }
        if (tty) fprintf(stderr, "\r\033[K");
        if (!begun && !stdout_lost) Export_begin(&x, stdout, fmt, &layout);
        begun = true;
        TunedTable_markRecord(&ev.record, entries, notes, used, n);
        {
          /* Several GPUs answer out of order, each record naming its entry; one GPU in order. */
          int j = RunnerPool_isPool(r) ? ev.record.plan_index
                                       : RunLoop_matchEntry(entries, n, &next_entry, &ev.record);
          ev.record.plan_index = j >= 0 ? plan_index[j] : -1;
          Util_strlcpy(ev.record.host, s.host, sizeof ev.record.host);
        }
        RunLoop_addInOrder(&s, existing, &ev.record);
        if (!Session_autosave(&s, err, sizeof err) && strcmp(err, save_err) != 0) {
          RunLoop_say(tty, "benchtop: cannot save the session (will retry): ", err);
          Util_strlcpy(save_err, err, sizeof save_err);
        }
        if (!stdout_lost) Export_record(&x, &ev.record);
        if (!stdout_lost && (fflush(stdout) != 0 || ferror(stdout))) {
          stdout_lost = true;
          snprintf(line, sizeof line, "stdout was closed (%s); the run goes on and every record is "
                   "saved to %s", strerror(errno), s.path);
          RunLoop_say(tty, "benchtop: ", line);
        }
        RunLoop_metricNote(tty, &ev.record, noted, sizeof noted);
        RunLoop_clockNote(tty, &ev.record, &plan->opts, clock_noted, sizeof clock_noted);
        if (ev.record.status == REC_FAIL || ev.record.status == REC_ERROR) rc = BT_EXIT_FAILED;
        measured += ev.record.status == REC_PASS || ev.record.status == REC_FAIL;
        unasked_cancels += ev.record.status == REC_CANCELLED && !cancelled;
        Record_free(&ev.record);
        break;
      case RUNNER_WARNING:
        if (ev.repeats) {
          size_t len = strlen(ev.message);
          snprintf(ev.message + len, sizeof ev.message - len, " (and %d more)", ev.repeats);
        }
        RunLoop_say(tty, "benchtop: ", ev.message);
        break;
      case RUNNER_FAILED:
        RunLoop_say(tty, "benchtop: ", ev.message);
        rc = BT_EXIT_FAILED;
        failed = true;
        if (wait_device) finished = true; /* nothing was submitted: no FINISHED will come */
        break;
      case RUNNER_NO_GPU:
        RunLoop_say(tty, "benchtop: ", ev.message);
        rc = BT_EXIT_NO_GPU;
        if (wait_device) finished = true;
        break;
      case RUNNER_FINISHED: finished = true; break;
      case RUNNER_NONE: case RUNNER_BUILT: break; /* run never asks for background builds */
      }
    }
    if (finished || any) continue;
    RunnerPool_wait(r, 250); /* then re-check the interrupt flag */
  }
  if (tty) fprintf(stderr, "\r\033[K");
  if (begun && !stdout_lost) {
    Export_end(&x);
    fflush(stdout);
  }
  RunnerPool_free(r);
  MetricColumns_free(&mc);
  free(entries);
  free(notes);
  free(used);
  free(plan_index);
  if (unasked_cancels > 0 && !cancelled) { /* a worker that cancels on its own measured nothing */
    snprintf(line, sizeof line, measured == 0 ? "nothing was measured: the worker answered all %d "
             "requests 'cancelled', and no one cancelled them" : "%d requests came back 'cancelled' "
             "from the worker, and no one cancelled them", unasked_cancels);
    RunLoop_say(false, "benchtop: ", line);
    rc = BT_EXIT_FAILED;
  }
  if (s.nrecords == existing && (rc == BT_EXIT_NO_GPU || wrong_gpu || failed)) {
    Session_discardOutput(&s); /* a file this run created and never wrote a record into */
  } else if (s.dirty && !Session_autosave(&s, err, sizeof err)) {
    snprintf(line, sizeof line, "%d records could not be saved to %s: %s", s.nrecords - existing,
             s.path, err);
    RunLoop_say(false, "benchtop: ", line);
    rc = BT_EXIT_FAILED;
  } else {
    if (existing) snprintf(line, sizeof line, "%s (%d records, %d new)", s.path, s.nrecords, s.nrecords - existing);
    else if (shard->count > 0)
      snprintf(line, sizeof line, "%s (%d records, shard %d/%d of a plan of %d entries)", s.path,
               s.nrecords, shard->index, shard->count, total);
    else snprintf(line, sizeof line, "%s (%d records)", s.path, s.nrecords);
    RunLoop_say(false, "session: ", line);
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  sigaction(SIGPIPE, &old_pipe, NULL);
  if (cancelled && !s.dirty) rc = BT_EXIT_INTERRUPTED; /* what finished is saved */
  if (result) *result = s;
  else Session_free(&s);
  return rc;
}
