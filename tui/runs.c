/* Live runs and replays: builds plan entries from the checked variants and shapes, submits
 * them to the runner, and folds the runner's events into the session (autosaved after every
 * record). No drawing here: events only mark regions dirty. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "common/util.h"
#include "tui/tui.h"

void App_autosave(App *a) {
  if (a->from_example || !a->session.path[0]) {
    Session_defaultPath(a->session.path, sizeof a->session.path);
    a->from_example = false;
  }
  a->autosave_ok = Session_autosave(&a->session, a->autosave_err, sizeof a->autosave_err);
  if (!a->autosave_ok) App_message(a, true, "autosave failed: %s", a->autosave_err);
}

/* ---- runs ------------------------------------------------------------------------------- */

static void App_submit(App *a, PlanEntry *entries, int count) {
  if (!a->runner) a->runner = Runner_new(NULL);
  if (!a->runner) {
    App_message(a, true, "cannot start the worker (benchtop worker): see stderr");
    return;
  }
  Runner_submit(a->runner, entries, count);
  if (!a->running) a->done = 0, a->total = 0;
  a->total += count;
  a->running = true;
  a->no_gpu = false;
  Util_strlcpy(a->worker, "starting worker", sizeof a->worker);
  a->dirty |= DIRTY_STATUS;
}

/* Records what the run asked for in the session's plan, so replay can repeat it. */
static void App_recordPlan(App *a, int nvar, const VariantRow **vars, int nshape,
                           const Shape *shapes) {
  Plan *p = &a->session.plan;
  RunOptions opts = p->opts;
  bool had_opts = p->opts.reps > 0;
  Plan_free(p);
  memset(p, 0, sizeof *p);
  if (had_opts) p->opts = opts;
  else Plan_defaultOptions(&p->opts);
  Util_strlcpy(p->metrics, "default", sizeof p->metrics);
  p->variants = Util_xcalloc((size_t)nvar, sizeof *p->variants);
  p->knobs = Util_xcalloc((size_t)nvar * KNOB_MAX, sizeof *p->knobs);
  for (int i = 0; i < nvar; i++) {
    p->variants[p->nvariants++] = Util_xstrdup(vars[i]->variant->name);
    for (int k = 0; k < vars[i]->variant->nknobs; k++) {
      const KnobDesc *kd = &vars[i]->variant->knobs[k];
      char *kv = Util_asprintf("%s=%s", kd->name, kd->values[vars[i]->knobs.idx[k]]);
      bool dup = false;
      for (int j = 0; j < p->nknobs; j++) dup |= strcmp(p->knobs[j], kv) == 0;
      if (dup) free(kv);
      else p->knobs[p->nknobs++] = kv;
    }
  }
  p->shapes = Util_xcalloc((size_t)nshape, sizeof *p->shapes);
  memcpy(p->shapes, shapes, (size_t)nshape * sizeof *shapes);
  p->nshapes = nshape;
  a->session.dirty = true;
}

void App_startRun(App *a) {
  const VariantRow *vars[32];
  int nvar = 0, nshape = 0;
  for (int i = 0; i < a->nvariants; i++)
    if (a->variants[i].checked) vars[nvar++] = &a->variants[i];
  Shape *shapes = Util_xcalloc((size_t)(a->nshapes ? a->nshapes : 1), sizeof *shapes);
  for (int i = 0; i < a->nshapes; i++)
    if (a->shapes[i].checked) shapes[nshape++] = a->shapes[i].shape;
  if (nvar == 0 || nshape == 0) {
    App_message(a, true, "check at least one variant and one shape (Space), then r");
    free(shapes);
    return;
  }
  /* Entries are built here rather than through Plan_expand: each variant keeps its own knob
   * setting, which a plan-wide --knob cannot say when two variants share a knob name. */
  PlanEntry *entries = Util_xcalloc((size_t)(nvar * nshape), sizeof *entries);
  RunOptions opts;
  Plan_defaultOptions(&opts);
  if (a->session.plan.opts.reps > 0) opts = a->session.plan.opts;
  int n = 0;
  for (int v = 0; v < nvar; v++)
    for (int s = 0; s < nshape; s++) {
      PlanEntry *e = &entries[n++];
      e->variant = vars[v]->variant;
      e->knobs = vars[v]->knobs;
      e->shape = shapes[s];
      e->opts = opts;
      Util_strlcpy(e->metrics, "default", sizeof e->metrics);
    }
  App_recordPlan(a, nvar, vars, nshape, shapes);
  App_submit(a, entries, n);
  free(entries);
  free(shapes);
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
  if (a->running) {
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
  Session_defaultPath(a->session.path, sizeof a->session.path);
  a->from_example = false;
  free(a->marked);
  a->marked = NULL;
  a->marked_cap = 0;
  a->norder = 0;
  a->rcur.sel = a->rcur.top = 0;
  App_rebuildOrder(a);
  App_submit(a, entries, n);
  free(entries);
  App_message(a, false, "replaying %d entries; 'vs orig': p50 against the original (e: by events)", n);
}

void App_cancelRun(App *a) {
  if (!a->running || !a->runner) {
    App_message(a, false, "nothing is running");
    return;
  }
  Runner_cancel(a->runner);
  Util_strlcpy(a->worker, "cancelling", sizeof a->worker);
  App_message(a, false, "cancelling the run");
  a->dirty |= DIRTY_STATUS;
}

static void App_runnerEvent(App *a, RunnerEvent *ev) {
  switch (ev->kind) {
  case RUNNER_HELLO:
    Util_strlcpy(a->device, ev->device.name, sizeof a->device);
    if (!a->session.has_device) {
      a->session.device = ev->device;
      a->session.has_device = true;
    }
    Util_strlcpy(a->worker, "worker ready", sizeof a->worker);
    break;
  case RUNNER_PROGRESS:
    a->done = ev->done;
    if (ev->total > 0) a->total = ev->total;
    Util_strlcpy(a->worker, ev->message, sizeof a->worker);
    break;
  case RUNNER_RECORD:
    Session_add(&a->session, &ev->record);
    Record_free(&ev->record);
    if (a->done < a->total) a->done++;
    App_rebuildOrder(a);
    App_autosave(a);
    break;
  case RUNNER_BUILT:
    App_message(a, strstr(ev->message, "build failed") != NULL, "%s", ev->message);
    if (!a->running) Util_strlcpy(a->worker, "worker ready", sizeof a->worker);
    break;
  case RUNNER_NO_GPU:
    a->no_gpu = true;
    snprintf(a->worker, sizeof a->worker, "no GPU: %.140s", ev->message);
    /* Said aloud only for a run the user asked for: a background build on a machine without a
     * GPU fails quietly (the status line says it), not over whatever the user is doing. */
    if (a->running) App_message(a, true, "no GPU: %s", ev->message);
    break;
  case RUNNER_FINISHED:
    a->running = false;
    snprintf(a->worker, sizeof a->worker, "idle (%d/%d done)", a->done, a->total);
    if (!a->no_gpu) App_message(a, false, "run finished: %d records", a->done);
    break;
  default: return;
  }
  a->dirty |= DIRTY_STATUS;
}

/* A knob changed: compile the variant at its new setting in the worker now, for each head
 * dimension among the checked shapes (64 when none is checked), so the next run starts warm. */
void App_prebuild(App *a, const VariantRow *vr) {
  if (a->no_gpu) return;
  int dims[8], nd = 0;
  for (int i = 0; i < a->nshapes && nd < 8; i++) {
    if (!a->shapes[i].checked) continue;
    bool seen = false;
    for (int j = 0; j < nd; j++) seen |= dims[j] == a->shapes[i].shape.D;
    if (!seen) dims[nd++] = a->shapes[i].shape.D;
  }
  if (nd == 0) dims[nd++] = 64;
  if (!a->runner) a->runner = Runner_new(NULL);
  for (int i = 0; i < nd; i++) {
    PlanEntry e;
    memset(&e, 0, sizeof e);
    e.variant = vr->variant;
    e.knobs = vr->knobs;
    e.shape = (Shape){1, 1, 128, dims[i], false};
    Plan_defaultOptions(&e.opts);
    Util_strlcpy(e.metrics, "none", sizeof e.metrics);
    char why[256];
    if (Registry_supports(vr->variant, &e.shape, &e.knobs, NULL, why, sizeof why)) continue;
    Runner_prebuild(a->runner, &e);
  }
  if (!a->running) Util_strlcpy(a->worker, "compiling in the background", sizeof a->worker);
  a->dirty |= DIRTY_STATUS;
}

void App_pollRunner(App *a) {
  if (!a->runner) return;
  RunnerEvent ev;
  memset(&ev, 0, sizeof ev);
  while (Runner_poll(a->runner, &ev)) {
    App_runnerEvent(a, &ev);
    memset(&ev, 0, sizeof ev);
  }
}

