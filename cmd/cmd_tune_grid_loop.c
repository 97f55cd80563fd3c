/* benchtop tune --grid's loop (cmd/cmd_tune_grid.h): up to two units per GPU at a time, each
 * asking its tuner for a batch, compiling it ahead and handing it to the pool, its records
 * routed back to it by variant and problem; a progress bar with an ETA on a terminal, a line
 * per finished unit otherwise. Ctrl-C, SIGTERM and SIGHUP keep every finished record; the units
 * cut short are redone by the next run with the same session. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd_tune_grid.h"
#include "cmd/commands.h"
#include "cmd/stop_signals.h"
#include "common/text.h"
#include "common/util.h"

static volatile sig_atomic_t Grid_interrupted;
static void Grid_onSignal(int sig) {
  (void)sig;
  Grid_interrupted = 1;
}

static const char *Grid_variant(const GridRun *g, const GridUnit *u) {
  return g->cli->req.plan.variants[u->variant].name;
}

/* "4m05s", or "--" before anything was measured. */
static void Grid_duration(char *buf, size_t size, double s) {
  if (!isfinite(s) || s < 0) snprintf(buf, size, "--");
  else if (s >= 3600) snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
  else snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

/* Progress: a bar on a terminal (redrawn at most 5 times a second unless forced), a plain line
 * otherwise (when a unit ends: forced). */
static void Grid_progress(GridRun *g, bool force) {
  double now = Util_nowMs();
  if (!force && (!g->tty || now - g->drawn_ms < 200)) return;
  g->drawn_ms = now;
  int total = g->nunits - g->skipped, done = g->done_now + g->done_before;
  double elapsed = (now - g->t0) / 1000.0;
  double eta = g->measured_now > 0
                   ? elapsed / g->measured_now * (g->planned_now - g->measured_now) : NAN;
  char eta_s[32], el_s[32];
  Grid_duration(eta_s, sizeof eta_s, eta);
  Grid_duration(el_s, sizeof el_s, elapsed);
  double frac = g->planned_now > 0 ? (double)g->measured_now / g->planned_now : 1;
  if (frac > 1) frac = 1;
  if (g->tty) {
    char bar[31];
    int fill = (int)(frac * 30);
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r\033[K[grid %s %3d%%] %d/%d tuned, %d/%d measurements, %s, ETA %s", bar,
            (int)(frac * 100), done, total, g->measured_now, g->planned_now, el_s, eta_s);
  } else {
    fprintf(stderr, "grid: %d/%d tuned, %d/%d measurements, %s elapsed, ETA %s\n", done, total,
            g->measured_now, g->planned_now, el_s, eta_s);
  }
  fflush(stderr);
}

static void Grid_clearLine(const GridRun *g) {
  if (g->tty) fprintf(stderr, "\r\033[K");
}

static void Grid_fatal(GridRun *g, const char *message, int rc) {
  Grid_clearLine(g);
  fprintf(stderr, "benchtop tune: %s\n", message);
  g->rc = rc;
  g->finished = true;
}

/* A search the session holds ran with the budget this run gives it: else the table would mix
 * searches of two budgets. */
static bool Grid_sameBudget(const GridRun *g, const GridUnit *u, char *err, size_t errsize) {
  const char *v = Grid_variant(g, u);
  const Shape *shape = &g->grid->problems[u->problem];
  for (int i = 0; i < g->s->ntune; i++) {
    const TuneSummary *t = &g->s->tune[i];
    if (strcmp(t->variant, v) != 0 || !Shape_equal(&t->shape, shape) || t->budget == u->budget) continue;
    char name[64];
    Shape_format(shape, name, sizeof name);
    snprintf(err, errsize, "%s searched %s at %s with a budget of %d, this run would give it %d: give "
             "the budget it was made with, or name a new -o", g->s->path, v, name, t->budget, u->budget);
    return false;
  }
  return true;
}

/* The worker said which GPU it is: every unit still to do gets its search (a variant with
 * nothing to search at a problem on this GPU is skipped, said once), a unit the session holds
 * must have been tuned with the budget this run would give it. */
static void Grid_onHello(GridRun *g, const RunnerEvent *ev) {
  char err[4096 + 512];
  if (!Session_acceptsDevice(g->s, &ev->device)) {
    snprintf(err, sizeof err, "%s was measured on %s, this GPU is %s: resume it there, or name a "
             "new -o", g->s->path, g->s->device.name, ev->device.name);
    Grid_fatal(g, err, BT_EXIT_USAGE);
    return;
  }
  g->s->device = ev->device;
  g->s->has_device = true;
  g->cc = ev->device.cc_major * 10 + ev->device.cc_minor;
  int gpus = g->cli->spread.all_devices ? (ev->devices > 0 ? ev->devices : 1)
           : g->cli->spread.ndevices > 0 ? g->cli->spread.ndevices : 1;
  g->max_active = 2 * gpus;
  int jobs = g->cli->jobs >= 0 ? g->cli->jobs : Prebuild_defaultJobs();
  g->jobs = jobs > 0 ? (jobs / g->max_active > 0 ? jobs / g->max_active : 1) : 0;
  char **notes = Util_xcalloc((size_t)g->nunits + 1, sizeof *notes);
  for (int i = 0; i < g->nunits; i++) {
    GridUnit *u = &g->units[i];
    if (u->state == UNIT_SKIPPED) continue;
    Tuner *t = Grid_unitTuner(g, u, &ev->device, err, sizeof err);
    if (!t) {
      notes[i] = Util_xstrdup(err);
      if (u->state == UNIT_DONE) g->done_before--;
      u->state = UNIT_SKIPPED;
      g->skipped++;
      continue;
    }
    TuneProgress p;
    Tuner_progress(t, &p);
    u->budget = p.budget;
    if (u->state == UNIT_DONE) {
      Tuner_free(t);
      if (!Grid_sameBudget(g, u, err, sizeof err)) {
        Grid_fatal(g, err, BT_EXIT_USAGE);
        break;
      }
      continue;
    }
    u->t = t;
    g->planned_now += p.budget;
  }
  Grid_clearLine(g);
  if (!g->finished) Grid_saySkipped(g, notes);
  for (int i = 0; i < g->nunits; i++) free(notes[i]);
  free(notes);
  if (!g->finished) g->ready = true;
}

static GridUnit *Grid_unitOf(GridRun *g, const Record *r) {
  for (int i = 0; i < g->nunits; i++) {
    GridUnit *u = &g->units[i];
    if (u->state == UNIT_RUNNING && strcmp(Grid_variant(g, u), r->variant) == 0 &&
        Shape_equal(&g->grid->problems[u->problem], &r->shape))
      return u;
  }
  return NULL;
}

static void Grid_onRecord(GridRun *g, Record *rec) {
  rec->plan_index = -1; /* a search has no plan order */
  Session_add(g->s, rec);
  g->unsaved = true;
  GridUnit *u = Grid_unitOf(g, rec);
  if (u) {
    Tuner_take(u->t, rec);
    if (u->out > 0) u->out--;
    if (rec->status != REC_CANCELLED) {
      u->measured++;
      g->measured_now++;
    }
  }
  Record_free(rec);
  Grid_progress(g, false);
}

static void Grid_onEvent(GridRun *g, RunnerEvent *ev) {
  switch (ev->kind) {
  case RUNNER_HELLO: if (!g->ready) Grid_onHello(g, ev); break;
  case RUNNER_RECORD: Grid_onRecord(g, &ev->record); break;
  case RUNNER_NO_GPU: Grid_fatal(g, ev->message, BT_EXIT_NO_GPU); break;
  case RUNNER_FAILED: Grid_fatal(g, ev->message, BT_EXIT_FAILED); break;
  case RUNNER_FINISHED:
    if (g->cancelled) g->finished = true;
    break;
  case RUNNER_WARNING:
    Grid_clearLine(g);
    fprintf(stderr, "benchtop tune: %s", ev->message);
    if (ev->repeats) fprintf(stderr, " (and %d more)", ev->repeats);
    fputc('\n', stderr);
    break;
  case RUNNER_PROGRESS: case RUNNER_NONE: case RUNNER_BUILT: break;
  }
}

/* A unit's search ended: ranked into the session, one line on stdout. */
static void Grid_finishUnit(GridRun *g, GridUnit *u) {
  Tuner_finish(u->t, g->s);
  Tuner_free(u->t);
  u->t = NULL;
  free(u->batch);
  u->batch = NULL;
  u->state = UNIT_DONE;
  if (u->measured < u->budget) g->planned_now -= u->budget - u->measured; /* it ended short */
  g->active--;
  g->done_now++;
  g->saved_ms = 0; /* saved at once */
  g->unsaved = true;
  const Shape *shape = &g->grid->problems[u->problem];
  const TuneSummary *sum = NULL;
  for (int i = 0; i < g->s->ntune && !sum; i++)
    if (strcmp(g->s->tune[i].variant, Grid_variant(g, u)) == 0 && Shape_equal(&g->s->tune[i].shape, shape))
      sum = &g->s->tune[i];
  char name[64], knobs[RECORD_KNOBS_MAX];
  Shape_format(shape, name, sizeof name);
  Grid_clearLine(g);
  if (sum && sum->winner >= 0)
    printf("%3d/%-3d %-9s %-34s %9.4g us  %s  (%d measured)\n", g->done_now + g->done_before,
           g->nunits - g->skipped, Grid_variant(g, u), name, sum->winner_p50,
           Text_sanitize(knobs, sizeof knobs, sum->winner_knobs), sum->measured);
  else
    printf("%3d/%-3d %-9s %-34s no winner: every configuration measured failed\n",
           g->done_now + g->done_before, g->nunits - g->skipped, Grid_variant(g, u), name);
  fflush(stdout);
  Grid_progress(g, true);
}

static void Grid_submit(GridRun *g, GridUnit *u) {
  RunnerPool_submit(g->r, u->batch, u->nbatch);
  u->out = u->nbatch;
  u->nbatch = 0;
}

/* One running unit: its next batch asked, compiled and submitted. True when it moved. */
static bool Grid_feedUnit(GridRun *g, GridUnit *u) {
  if (u->out > 0) return false;
  if (u->pb) {
    if (!Prebuild_done(u->pb)) return false;
    Prebuild_free(u->pb);
    u->pb = NULL;
    Grid_submit(g, u);
    return true;
  }
  int n = Tuner_next(u->t, u->batch, TUNE_GRID_BATCH);
  if (n == 0) {
    if (!Tuner_done(u->t)) {
      Grid_clearLine(g);
      fprintf(stderr, "benchtop tune: the search of %s stalled; ranking what finished\n", Grid_variant(g, u));
    }
    Grid_finishUnit(g, u);
    return true;
  }
  u->nbatch = n;
  u->pb = Prebuild_start(u->batch, n, g->cc, g->jobs);
  if (!u->pb) Grid_submit(g, u);
  return true;
}

/* Starts units while there is room (none after --time's deadline or a stop), feeds the running
 * ones; true when something moved. */
static bool Grid_feed(GridRun *g) {
  if (!g->ready || g->cancelled) return false;
  bool late = g->deadline > 0 && Util_nowMs() >= g->deadline;
  while (!late && g->active < g->max_active && g->next < g->nunits) {
    GridUnit *u = &g->units[g->next++];
    if (u->state != UNIT_TODO) continue;
    u->state = UNIT_RUNNING;
    u->batch = Util_xmalloc(sizeof(PlanEntry) * TUNE_GRID_BATCH);
    g->active++;
  }
  bool moved = false;
  for (int i = 0; i < g->nunits; i++)
    if (g->units[i].state == UNIT_RUNNING) moved |= Grid_feedUnit(g, &g->units[i]);
  if (g->active == 0) g->finished = true; /* all done, or --time: nothing more starts */
  return moved;
}

/* Ctrl-C: the units running stop (ranked as incomplete: a rerun redoes them). */
static void Grid_cancel(GridRun *g) {
  g->cancelled = true;
  bool out = false;
  for (int i = 0; i < g->nunits; i++) {
    GridUnit *u = &g->units[i];
    if (u->state != UNIT_RUNNING) continue;
    Tuner_stop(u->t);
    Prebuild_free(u->pb);
    u->pb = NULL;
    out |= u->out > 0;
  }
  RunnerPool_cancel(g->r);
  Grid_clearLine(g);
  fprintf(stderr, "benchtop tune: interrupted; keeping the finished records (the same command "
                  "goes on from them)\n");
  if (!out) g->finished = true;
}

/* Saved at most once a second, and at most a tenth of the time (a grid's session of thousands
 * of records takes most of a second to write, while the GPUs wait for the loop), and at once
 * when a search ends (saved_ms 0). */
static void Grid_autosave(GridRun *g) {
  char err[512];
  double now = Util_nowMs(), gap = 10 * g->save_cost_ms > 1000 ? 10 * g->save_cost_ms : 1000;
  if (!g->unsaved || (g->saved_ms > 0 && now - g->saved_ms < gap)) return;
  if (!Session_autosave(g->s, err, sizeof err)) {
    Grid_clearLine(g);
    fprintf(stderr, "benchtop tune: autosave failed: %s\n", err);
  }
  g->unsaved = false;
  g->saved_ms = Util_nowMs();
  g->save_cost_ms = g->saved_ms - now;
}

/* The units a stop cut short: their searches ranked as incomplete (the session says so). */
static void Grid_endRunning(GridRun *g) {
  for (int i = 0; i < g->nunits; i++) {
    GridUnit *u = &g->units[i];
    if (u->t && u->state == UNIT_RUNNING) Tuner_finish(u->t, g->s);
    if (u->state == UNIT_RUNNING) u->state = UNIT_TODO;
    Prebuild_free(u->pb);
    u->pb = NULL;
    Tuner_free(u->t);
    u->t = NULL;
    free(u->batch);
    u->batch = NULL;
  }
}

int Grid_loop(GridRun *g) {
  StopSignals sig;
  StopSignals_install(&sig, Grid_onSignal);
  Grid_interrupted = 0;
  g->t0 = g->saved_ms = Util_nowMs();
  if (g->cli->req.time_s > 0) g->deadline = g->t0 + 1000.0 * g->cli->req.time_s;
  g->tty = isatty(STDERR_FILENO);
  g->rc = BT_EXIT_OK;
  g->r = RunnerPool_new(NULL, g->cli->spread.devices, g->cli->spread.ndevices, g->cli->spread.all_devices);
  RunnerPool_start(g->r);
  while (!g->finished) {
    if (Grid_interrupted && !g->cancelled) Grid_cancel(g);
    RunnerEvent ev;
    while (!g->finished && RunnerPool_poll(g->r, &ev)) Grid_onEvent(g, &ev);
    Grid_autosave(g);
    if (g->finished) break;
    if (!Grid_feed(g) && !g->finished) RunnerPool_wait(g->r, 50);
  }
  Grid_clearLine(g);
  Grid_endRunning(g);
  RunnerPool_free(g->r);
  g->r = NULL;
  StopSignals_restore(&sig);
  if (g->cancelled && g->rc == BT_EXIT_OK) g->rc = BT_EXIT_INTERRUPTED;
  return g->rc;
}
