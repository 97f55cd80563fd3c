/* Live runs and replays: builds plan entries from the checked variants and shapes, submits
 * them to the runner, and folds the runner's events into the session (autosaved after every
 * record). No drawing here: events only mark regions dirty. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "bench/tune/tune_table.h"
#include "common/util.h"
#include "tui/runs.h"
#include "tui/tui.h"

void App_autosave(App *a) {
  if (a->from_example || !a->session.path[0]) {
    if (!Session_defaultPath(a->session.path, sizeof a->session.path)) {
      a->autosave_ok = false;
      App_message(a, true, "autosave failed: %s", a->session.path);
      a->session.path[0] = '\0';
      return;
    }
    a->from_example = false;
  }
  a->autosave_ok = Session_autosave(&a->session, a->autosave_err, sizeof a->autosave_err);
  if (!a->autosave_ok) App_message(a, true, "autosave failed: %s", a->autosave_err);
}

/* ---- runs ------------------------------------------------------------------------------- */

static void App_submit(App *a, PlanEntry *entries, int count) {
  if (!a->run.runner) a->run.runner = Runner_new(NULL);
  if (!a->run.runner) {
    App_message(a, true, "cannot start the worker (benchtop worker): see stderr");
    return;
  }
  if (!Tunes_submitRun(a, entries, count)) Runner_submit(a->run.runner, entries, count);
  if (!a->run.running) a->run.done = 0, a->run.total = 0;
  a->run.total += count;
  a->run.running = true;
  a->run.no_gpu = false;
  Util_strlcpy(a->run.worker, "starting worker", sizeof a->run.worker);
  a->dirty |= DIRTY_STATUS;
}

/* Records what the run asked for in the session's plan, so replay can repeat it. */
static void App_recordPlan(App *a, int nvar, const VariantRow **vars, int nshape,
                           const Shape *shapes, const RunOptions *opts) {
  Plan *p = &a->session.plan;
  Plan_free(p);
  Plan_init(p);
  p->opts = *opts;
  Util_strlcpy(p->metrics, a->run.metrics, sizeof p->metrics);
  for (int i = 0; i < nvar; i++) { /* each variant with its own knob settings */
    PlanVariant *pv = Plan_addVariant(p, vars[i]->variant->name);
    if (vars[i]->knobs_auto) { /* no knob named: replay resolves it again, for its device */
      p->knobs_auto = true;
      continue;
    }
    if (!vars[i]->knobs_set) continue; /* the defaults; tuned knobs are pinned when they run */
    const Variant *v = vars[i]->variant;
    KnobSweep sw; /* the row's setting: one value per knob */
    KnobSweep_init(&sw);
    for (int k = 0; k < v->nknobs; k++) {
      sw.order[sw.nknobs++] = k;
      sw.nvalues[k] = 1;
      sw.idx[k][0] = vars[i]->knobs.idx[k];
    }
    for (int k = 0; k < v->nknobs; k++) {
      char *spec = KnobSweep_format(v, &sw, k);
      PlanVariant_setKnob(pv, spec);
      free(spec);
    }
  }
  p->shapes = Util_xcalloc((size_t)nshape, sizeof *p->shapes);
  memcpy(p->shapes, shapes, (size_t)nshape * sizeof *shapes);
  p->nshapes = nshape;
  a->session.dirty = true;
}

void App_startRun(App *a) {
  const VariantRow **vars = Util_xcalloc((size_t)(a->variants.count ? a->variants.count : 1),
                                          sizeof *vars);
  int nvar = 0, nshape = 0;
  for (int i = 0; i < a->variants.count; i++)
    if (a->variants.rows[i].checked) vars[nvar++] = &a->variants.rows[i];
  const ShapesView *sv = &a->shapes;
  Shape *shapes = Util_xcalloc((size_t)(sv->count ? sv->count : 1), sizeof *shapes);
  for (int i = 0; i < sv->count; i++)
    if (sv->rows[i].checked) shapes[nshape++] = sv->rows[i].shape;
  if (nvar == 0 || nshape == 0) {
    App_message(a, true, "check at least one variant and one shape (Space), then r");
    free(shapes);
    free(vars);
    return;
  }
  /* The run options overlay's values; the seed fresh for this run unless one was typed. */
  RunOptions opts = a->run.opts;
  if (!a->run.seed_fixed) {
    RunOptions fresh;
    Plan_defaultOptions(&fresh);
    opts.seed = fresh.seed;
  }
  /* The plan records each variant with its own setting; its expansion is what runs. */
  App_recordPlan(a, nvar, vars, nshape, shapes, &opts);
  PlanEntry *entries = NULL;
  int n = 0;
  char err[512];
  if (!Plan_expand(&a->session.plan, &entries, &n, err, sizeof err)) {
    App_message(a, true, "run: %s", err);
    free(shapes);
    free(vars);
    return;
  }
  /* Knobs the user left alone take this GPU's tuned knobs where there are some, or a setting
   * that runs the problem where the defaults refuse it, as in run; auto is the row's own word
   * (the plan's knobs_auto covers the variants without knobs). */
  bool tuned_default = TunedTable_exists();
  for (int i = 0; i < n; i++) {
    PlanEntry *e = &entries[i];
    const VariantRow *row = NULL;
    for (int v = 0; v < nvar && !row; v++)
      if (strcmp(vars[v]->variant->name, e->variant->name) == 0) row = vars[v];
    if (row) e->variant = row->variant; /* the version the row shows (hot reload) */
    bool chosen = row && !row->knobs_set && TunedTable_choosesKnobs(e, tuned_default);
    e->knobs_auto = row && row->knobs_auto ? PLAN_AUTO_ASKED : chosen ? PLAN_AUTO_IF_TUNED : PLAN_AUTO_NONE;
    Util_strlcpy(e->metrics, a->run.metrics, sizeof e->metrics);
  }
  App_submit(a, entries, n);
  free(entries);
  free(shapes);
  free(vars);
  App_message(a, false, "running %d variant%s x %d shape%s = %d entries (x cancels)", nvar,
              nvar == 1 ? "" : "s", nshape, nshape == 1 ? "" : "s", n);
}

/* Replay entries from the records themselves when the session carries no plan. */
static int App_entriesFromRecords(const Session *s, PlanEntry **out) {
  *out = Util_xcalloc((size_t)(s->nrecords ? s->nrecords : 1), sizeof **out);
  int n = 0;
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    bool seen = false;
    for (int j = 0; j < i && !seen; j++) seen = Record_sameKey(&s->records[j], r);
    const Variant *v = Registry_find(r->variant);
    char err[160];
    if (seen || !v) continue;
    PlanEntry *e = &(*out)[n];
    e->variant = v;
    Registry_defaults(v, &e->knobs);
    if (!Registry_applyKnobs(v, r->knobs, &e->knobs, true, err, sizeof err)) continue;
    e->shape = r->shape;
    e->opts = r->opts;
    Util_strlcpy(e->metrics, s->plan.metrics[0] ? s->plan.metrics : "default", sizeof e->metrics);
    n++;
  }
  return n;
}

void App_replay(App *a) {
  if (a->run.running) {
    App_message(a, true, "a run is in flight: x cancels it first");
    return;
  }
  PlanEntry *entries = NULL;
  int n = 0;
  char err[512] = "";
  if (a->session.plan.nvariants > 0 && a->session.plan.nshapes > 0) {
    if (!Plan_expand(&a->session.plan, &entries, &n, err, sizeof err)) {
      App_message(a, true, "replay: %s", err);
      return;
    }
  } else {
    n = App_entriesFromRecords(&a->session, &entries);
  }
  if (n == 0) {
    free(entries);
    App_message(a, true, "nothing to replay: the session has no plan and no records");
    return;
  }
  /* The open session becomes the original; the replay fills a fresh session. */
  Session *orig = Util_xcalloc(1, sizeof *orig);
  *orig = a->session;
  if (a->original) {
    Session_free(a->original);
    free(a->original);
  }
  a->original = orig;
  Session_init(&a->session);
  Plan_copy(&a->session.plan, &orig->plan);
  if (!Session_defaultPath(a->session.path, sizeof a->session.path)) {
    App_message(a, true, "replay: %s", a->session.path);
    a->session.path[0] = '\0';
  }
  a->from_example = false;
  Results_forgetRecords(a);
  Results_rebuild(a);
  App_submit(a, entries, n);
  free(entries);
  App_message(a, false, "replaying %d entries; 'vs orig': p50 against the original (e: by events)", n);
}

void App_cancelRun(App *a) {
  if (Tunes_cancel(a)) {
    App_message(a, false, "cancelling the tune (finished records stay, ranked)");
    return;
  }
  if (!a->run.running || !a->run.runner) {
    App_message(a, false, "nothing is running");
    return;
  }
  Runner_cancel(a->run.runner);
  Util_strlcpy(a->run.worker, "cancelling", sizeof a->run.worker);
  App_message(a, false, "cancelling the run");
  a->dirty |= DIRTY_STATUS;
}

/* Records measured on another GPU than the open session's never join it (the rule of run -o):
 * they start a new session, named on the status line; the open one stays as it is on disk.
 * The session's device is the one that measured its records. */
static void App_followDevice(App *a) {
  const DeviceInfo *d = &a->tune.device;
  if (!a->tune.have_device) return;
  if (Session_acceptsDevice(&a->session, d)) {
    if (!a->session.has_device || a->session.nrecords == 0) {
      a->session.device = *d;
      a->session.has_device = true;
    }
    return;
  }
  char old[96], where[4096] = "";
  Util_strlcpy(old, a->session.device.name, sizeof old);
  if (a->session.dirty && !a->autosave_ok && !Quit_recover(a, where, sizeof where))
    where[0] = '\0'; /* its unsaved records: kept in a file of their own, or said lost below */
  bool lost = a->session.dirty && !a->autosave_ok && !where[0];
  Plan plan;
  Plan_init(&plan);
  Plan_copy(&plan, &a->session.plan); /* the run's plan goes on with its records */
  Session_free(&a->session);
  Session_init(&a->session);
  Plan_copy(&a->session.plan, &plan);
  Plan_free(&plan);
  a->session.device = *d;
  a->session.has_device = true;
  a->session.dirty = true;
  if (!Session_defaultPath(a->session.path, sizeof a->session.path)) a->session.path[0] = '\0';
  a->from_example = false;
  a->autosave_ok = true;
  Results_forgetRecords(a);
  a->moved_device = true;
  App_message(a, lost, "%s is not %s, the GPU of the open session: its records go to a new "
              "session %s%s%s", d->name, old, a->session.path, where[0] ? "; unsaved records of "
              "the old one went to " : lost ? "; the old one's unsaved records are LOST" : "", where);
}

static void App_runnerEvent(App *a, RunnerEvent *ev) {
  switch (ev->kind) {
  case RUNNER_HELLO:
    Util_strlcpy(a->run.device, ev->device.name, sizeof a->run.device);
    if (!a->session.has_device) {
      a->session.device = ev->device;
      a->session.has_device = true;
    }
    Util_strlcpy(a->run.worker, "worker ready", sizeof a->run.worker);
    Tunes_hello(a, &ev->device);
    break;
  case RUNNER_PROGRESS:
    if (a->tune.tuner) { /* a tune says where its search stands, not which phase one record is in */
      Tunes_showProgress(a);
      break;
    }
    a->run.done = ev->done;
    if (ev->total > 0) a->run.total = ev->total;
    Util_strlcpy(a->run.worker, ev->message, sizeof a->run.worker);
    break;
  case RUNNER_RECORD:
    App_followDevice(a);
    Tunes_record(a, &ev->record);
    Session_add(&a->session, &ev->record);
    if (a->run.done < a->run.total) a->run.done++;
    Tunes_recorded(a, &ev->record);
    Record_free(&ev->record);
    Results_rebuild(a);
    App_autosave(a);
    break;
  case RUNNER_BUILT:
    App_message(a, strstr(ev->message, "build failed") != NULL, "%s", ev->message);
    if (!a->run.running) Util_strlcpy(a->run.worker, "worker ready", sizeof a->run.worker);
    break;
  case RUNNER_NO_GPU:
    a->run.no_gpu = true;
    snprintf(a->run.worker, sizeof a->run.worker, "no GPU: %.140s", ev->message);
    /* Said aloud only for a run the user asked for: a background build on a machine without a
     * GPU fails quietly (the status line says it), not over whatever the user is doing. */
    if (a->run.running) App_message(a, true, "no GPU: %s", ev->message);
    Tunes_noGpu(a);
    break;
  case RUNNER_WARNING:
    App_message(a, true, "%s", ev->message);
    break;
  case RUNNER_FAILED:
    App_message(a, true, "%s", ev->message);
    if (a->tune.auto_waiting) { /* the worker is gone before the run was submitted */
      a->tune.auto_waiting = false;
      a->run.running = false;
    }
    break;
  case RUNNER_FINISHED:
    if (Tunes_batchDone(a)) break; /* a tune goes on to its next batch, or finishes */
    a->run.running = false;
    snprintf(a->run.worker, sizeof a->run.worker, "idle (%d/%d done)", a->run.done, a->run.total);
    if (!a->run.no_gpu && a->moved_device)
      App_message(a, false, "run finished: %d records, in a new session (another GPU than the "
                  "one opened): %s", a->run.done, a->session.path);
    else if (!a->run.no_gpu) App_message(a, false, "run finished: %d records", a->run.done);
    a->moved_device = false;
    break;
  default: return;
  }
  a->dirty |= DIRTY_STATUS;
}

/* A knob changed: compile the variant at its new setting in the worker now, for each head
 * dimension among the checked shapes (64 when none is checked), so the next run starts warm. */
void App_prebuild(App *a, const VariantRow *vr) {
  if (a->run.no_gpu) return;
  int dims[8], nd = 0;
  const ShapesView *sv = &a->shapes;
  for (int i = 0; i < sv->count && nd < 8; i++) {
    if (!sv->rows[i].checked) continue;
    bool seen = false;
    for (int j = 0; j < nd; j++) seen |= dims[j] == sv->rows[i].shape.D;
    if (!seen) dims[nd++] = sv->rows[i].shape.D;
  }
  if (nd == 0) dims[nd++] = 64;
  if (!a->run.runner) a->run.runner = Runner_new(NULL);
  for (int i = 0; i < nd; i++) {
    PlanEntry e;
    memset(&e, 0, sizeof e);
    e.variant = vr->variant;
    e.knobs = vr->knobs;
    e.shape = (Shape){.B = 1, .H = 1, .S = 128, .D = dims[i], .causal = false};
    Plan_defaultOptions(&e.opts);
    Util_strlcpy(e.metrics, "none", sizeof e.metrics);
    char why[256];
    if (Registry_refusal(vr->variant, &e.shape, &e.knobs, NULL, why, sizeof why)) continue;
    Runner_prebuild(a->run.runner, &e);
  }
  if (!a->run.running) Util_strlcpy(a->run.worker, "compiling in the background", sizeof a->run.worker);
  a->dirty |= DIRTY_STATUS;
}

void App_pollRunner(App *a) {
  if (!a->run.runner) return;
  RunnerEvent ev;
  memset(&ev, 0, sizeof ev);
  while (Runner_poll(a->run.runner, &ev)) {
    App_runnerEvent(a, &ev);
    memset(&ev, 0, sizeof ev);
  }
  Tunes_poll(a);
}

