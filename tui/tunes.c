/* Tuning from the TUI (T: the variant under the Variants cursor on the checked shapes) and
 * --knob auto runs (a variant whose knobs are set to auto in the knob editor). Both need the
 * worker's device before their entries are final, so both wait for its hello. Like runs.c, no
 * drawing here: the tune's progress goes to the status line's worker text, the winners into
 * the session (the results mark them, the detail view shows each record's rank). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune.h"
#include "bench/tune/tune_prebuild.h"
#include "bench/tune/tune_table.h"
#include "common/util.h"
#include "tui/runs.h"
#include "tui/tui.h"

#define TUNES_BATCH 64
#define TUNES_PCT 25.0      /* the TUI's budget: a quarter of each space ... */
#define TUNES_MIN_BUDGET 20 /* ... and at least 20 measurements (or the whole space) */

void Tunes_showProgress(App *a) {
  TuneProgress g;
  Tuner_progress(a->tune.tuner, &g);
  char shape[64];
  Shape_format(&g.shape, shape, sizeof shape);
  char line[512];
  int n = snprintf(line, sizeof line, "tune %s %s %d/%d: %s, %d refused", g.variant, shape, g.pair,
                   g.npairs, g.phase, g.refused);
  if (n > 0 && (size_t)n < sizeof line && g.best_p50 == g.best_p50) /* not NAN */
    snprintf(line + n, sizeof line - (size_t)n, ", best %.4g us %.160s", g.best_p50, g.best_knobs);
  Util_strlcpy(a->run.worker, line, sizeof a->run.worker);
  a->run.done = g.measured;
  a->run.total = g.budget;
  a->dirty |= DIRTY_STATUS;
}

/* The tune's end (finished or cancelled): ranks into the session, winners to the table. */
static void Tunes_finish(App *a) {
  Tuner *t = a->tune.tuner;
  Prebuild_free(a->tune.prebuild);
  a->tune.prebuild = NULL;
  Tuner_finish(t, &a->session);
  App_autosave(a);
  Results_rebuild(a);
  char note[600], err[512], knobs[RECORD_KNOBS_MAX] = "";
  TunedEntry *entries = NULL;
  int n = Tuner_tunedEntries(t, &a->session, &entries), winners = 0;
  bool stored = n > 0 && TunedTable_store(entries, n, note, sizeof note, err, sizeof err);
  free(entries);
  const TuneSummary *last = NULL;
  for (int i = 0; i < a->session.ntune; i++)
    if (a->session.tune[i].winner >= 0) {
      winners++;
      last = &a->session.tune[i];
    }
  if (last) Util_strlcpy(knobs, last->winner_knobs, sizeof knobs);
  if (n > 0 && !stored) App_message(a, true, "tuned, but the tuned table was not updated: %s", err);
  else if (!last) App_message(a, true, "tune: no configuration passed (see the results)");
  else
    App_message(a, false, "tune %s: %d winner%s marked W (last %s, p50 %.4g us, %s%s)%s",
                a->tune.stopping ? "cancelled" : "done", winners, winners == 1 ? "" : "s", knobs,
                last->winner_p50, last->verdict[0] ? last->verdict : "no runner-up",
                stored ? "; in the tuned table" : "", a->tune.stopping ? " (x stopped it)" : "");
  Tuner_free(t);
  a->tune.tuner = NULL;
  a->tune.stopping = a->tune.begun = false;
  a->run.running = false;
  snprintf(a->run.worker, sizeof a->run.worker, "idle (tune %s)", last ? "done" : "without a winner");
  a->dirty |= DIRTY_STATUS | DIRTY_RESULTS | DIRTY_SIDE;
}

/* The next batch: compiled ahead in other processes, then measured. */
static void Tunes_next(App *a) {
  PlanEntry *batch = Util_xmalloc(sizeof(PlanEntry) * TUNES_BATCH);
  int n = a->tune.stopping ? 0 : Tuner_next(a->tune.tuner, batch, TUNES_BATCH);
  if (n == 0) {
    free(batch);
    if (a->tune.stopping || Tuner_done(a->tune.tuner)) Tunes_finish(a);
    return;
  }
  free(a->tune.batch);
  a->tune.batch = batch;
  a->tune.nbatch = n;
  const DeviceInfo *d = &a->tune.device;
  a->tune.prebuild = Prebuild_start(batch, n, d->cc_major * 10 + d->cc_minor, Prebuild_defaultJobs());
  if (!a->tune.prebuild) {
    Runner_submit(a->run.runner, batch, n);
    a->tune.nbatch = 0;
  } else {
    Util_strlcpy(a->run.worker, "tune: compiling the next configurations", sizeof a->run.worker);
    a->dirty |= DIRTY_STATUS;
  }
}

void Tunes_start(App *a) {
  if (a->run.running || a->tune.tuner) {
    App_message(a, true, "a run is in flight: x cancels it first");
    return;
  }
  const VariantsView *vv = &a->variants;
  if (vv->count == 0) return;
  const Variant *v = vv->rows[vv->cur.sel].variant;
  TuneRequest req;
  memset(&req, 0, sizeof req);
  Plan *p = &req.plan;
  Plan_init(p);
  p->opts = a->run.opts;
  if (!a->run.seed_fixed) {
    RunOptions fresh;
    Plan_defaultOptions(&fresh);
    p->opts.seed = fresh.seed;
  }
  Util_strlcpy(p->metrics, a->run.metrics, sizeof p->metrics);
  char err[512];
  Plan_setVariants(p, v->name, err, sizeof err);
  p->shapes = Util_xcalloc((size_t)a->shapes.count + 1, sizeof *p->shapes);
  for (int i = 0; i < a->shapes.count; i++)
    if (a->shapes.rows[i].checked) p->shapes[p->nshapes++] = a->shapes.rows[i].shape;
  req.strategy = STRATEGY_AUTO;
  req.budget_pct = TUNES_PCT;
  req.min_budget = TUNES_MIN_BUDGET;
  if (p->nshapes == 0) {
    App_message(a, true, "check at least one shape (Space in Shapes), then T tunes %s on them", v->name);
    Plan_free(p);
    return;
  }
  /* Nothing to search (no knobs, everything refused): said now, before any worker starts. */
  Tuner *probe = Tuner_new(&req);
  DeviceInfo any;
  Device_init(&any);
  bool ok = Tuner_begin(probe, &any, err, sizeof err);
  Tuner_free(probe);
  if (!ok) {
    App_message(a, true, "tune: %s", err);
    Plan_free(p);
    return;
  }
  a->tune.tuner = Tuner_new(&req);
  Plan_free(&a->session.plan);
  Plan_copy(&a->session.plan, p);
  a->session.dirty = true;
  Plan_free(p);
  if (!a->run.runner) a->run.runner = Runner_new(NULL);
  a->run.running = true;
  a->run.no_gpu = false;
  a->run.done = a->run.total = 0;
  if (a->tune.have_device) {
    Tunes_hello(a, &a->tune.device);
  } else {
    a->tune.waiting = true;
    Runner_start(a->run.runner);
    Util_strlcpy(a->run.worker, "tune: starting the worker", sizeof a->run.worker);
  }
  App_message(a, false, "tuning %s on %d shape%s (a quarter of each space, at least 20; x cancels)",
              v->name, a->session.plan.nshapes, a->session.plan.nshapes == 1 ? "" : "s");
  a->dirty |= DIRTY_STATUS;
}

static void Tunes_resolveAuto(App *a, const DeviceInfo *d);

void Tunes_hello(App *a, const DeviceInfo *d) {
  a->tune.device = *d;
  a->tune.have_device = true;
  if (a->tune.auto_waiting) {
    a->tune.auto_waiting = false;
    Tunes_resolveAuto(a, d);
  }
  if (!a->tune.tuner || a->tune.begun) return;
  a->tune.waiting = false;
  char err[512];
  if (!Tuner_begin(a->tune.tuner, d, err, sizeof err)) {
    App_message(a, true, "tune: %s", err);
    Tuner_free(a->tune.tuner);
    a->tune.tuner = NULL;
    a->run.running = false;
    return;
  }
  a->tune.begun = true;
  Tunes_next(a);
}

void Tunes_noGpu(App *a) {
  if (a->tune.auto_waiting) a->run.running = false; /* nothing was submitted: no FINISHED comes */
  a->tune.auto_waiting = false;
  if (!a->tune.tuner) return;
  Tuner_free(a->tune.tuner);
  a->tune.tuner = NULL;
  a->tune.waiting = a->tune.begun = a->tune.stopping = false;
  a->run.running = false;
}

bool Tunes_batchDone(App *a) {
  if (!a->tune.tuner) return false;
  if (a->tune.waiting) return true;
  Tunes_next(a);
  return true;
}

void Tunes_record(App *a, Record *r) {
  if (a->tune.nauto > 0)
    TunedTable_markRecord(r, a->tune.auto_entries, a->tune.auto_notes, a->tune.auto_used, a->tune.nauto);
}

void Tunes_recorded(App *a, const Record *r) {
  if (!a->tune.tuner) return;
  Tuner_take(a->tune.tuner, r);
  Tunes_showProgress(a);
}

bool Tunes_cancel(App *a) {
  if (!a->tune.tuner) return false;
  a->tune.stopping = true;
  Tuner_stop(a->tune.tuner);
  Prebuild_free(a->tune.prebuild);
  a->tune.prebuild = NULL;
  if (a->tune.waiting || !Runner_busy(a->run.runner)) {
    a->tune.waiting = false;
    Tunes_finish(a);
  } else {
    Runner_cancel(a->run.runner);
  }
  return true;
}

void Tunes_poll(App *a) {
  if (!a->tune.prebuild || !Prebuild_done(a->tune.prebuild)) return;
  Prebuild_free(a->tune.prebuild);
  a->tune.prebuild = NULL;
  if (a->tune.nbatch > 0 && !a->tune.stopping) Runner_submit(a->run.runner, a->tune.batch, a->tune.nbatch);
  a->tune.nbatch = 0;
  if (a->tune.tuner) Tunes_showProgress(a);
}

/* ---- --knob auto ------------------------------------------------------------------------ */

void Tunes_autoShown(App *a) {
  for (int i = 0; i < a->variants.count; i++) {
    VariantRow *vr = &a->variants.rows[i];
    if (!vr->knobs_auto && vr->knobs_set) continue;
    vr->auto_shown[0] = '\0';
    int tuned = 0, total = 0;
    char first[RECORD_KNOBS_MAX] = "", table[64] = "";
    const KnobValues *first_kv = NULL;
    bool same = true;
    for (int k = 0; k < a->tune.nauto; k++) {
      const PlanEntry *e = &a->tune.auto_entries[k];
      if (e->variant != vr->variant) continue;
      if (total++ == 0) {
        first_kv = &e->knobs;
        Registry_formatKnobs(e->variant, &e->knobs, first, sizeof first);
      } else {
        same &= KnobValues_equal(e->variant, first_kv, &e->knobs);
      }
      const char *note = a->tune.auto_notes[k];
      if (TunedTable_noteIsTuned(note) && tuned++ == 0) { /* "auto from table T (shipped): ..." */
        Util_strlcpy(table, note + strlen(TUNED_NOTE_PREFIX), sizeof table);
        table[strcspn(table, " :")] = '\0';
      }
    }
    if (total == 0 || (!vr->knobs_auto && tuned == 0)) continue; /* left alone, nothing tuned */
    if (same)
      snprintf(vr->auto_shown, sizeof vr->auto_shown, "%s%s%s %s", tuned ? "from " : "defaults",
               table, tuned < total && tuned ? " (some shapes)" : "", first);
    else
      snprintf(vr->auto_shown, sizeof vr->auto_shown, "from %s for %d of %d shapes", table, tuned, total);
  }
  a->dirty |= DIRTY_VARIANTS;
}

/* The device is known: the entries take their tuned knobs (those of knobs left alone are pinned
 * in the session's plan, so replay repeats them) and go to the worker. */
static void Tunes_resolveAuto(App *a, const DeviceInfo *d) {
  TunedTable_resolve(a->tune.auto_entries, a->tune.nauto, d, a->tune.auto_notes);
  for (int i = 0; i < a->tune.nauto; i++)
    if (a->tune.auto_entries[i].knobs_auto == PLAN_AUTO_IF_TUNED && a->tune.auto_notes[i][0]) {
      Plan_pin(&a->session.plan, &a->tune.auto_entries[i]);
      a->session.dirty = true;
    }
  Tunes_autoShown(a);
  Runner_submit(a->run.runner, a->tune.auto_entries, a->tune.nauto);
}

bool Tunes_submitRun(App *a, PlanEntry *entries, int n) {
  bool any = false;
  for (int i = 0; i < n; i++) any |= entries[i].knobs_auto && entries[i].variant->nknobs > 0;
  /* Without a GPU no device will come to resolve them: the runner says so and finishes. */
  if (!any || a->run.no_gpu) return false;
  free(a->tune.auto_entries);
  free(a->tune.auto_notes);
  free(a->tune.auto_used);
  a->tune.auto_entries = Util_xmalloc(sizeof(PlanEntry) * (size_t)n);
  memcpy(a->tune.auto_entries, entries, sizeof(PlanEntry) * (size_t)n);
  a->tune.auto_notes = Util_xcalloc((size_t)n, sizeof *a->tune.auto_notes);
  a->tune.auto_used = Util_xcalloc((size_t)n, sizeof *a->tune.auto_used);
  a->tune.nauto = n;
  if (a->tune.have_device) {
    Tunes_resolveAuto(a, &a->tune.device);
  } else {
    a->tune.auto_waiting = true;
    Runner_start(a->run.runner);
  }
  return true;
}

void Tunes_free(App *a) {
  Prebuild_free(a->tune.prebuild);
  Tuner_free(a->tune.tuner);
  free(a->tune.batch);
  free(a->tune.auto_entries);
  free(a->tune.auto_notes);
  free(a->tune.auto_used);
  memset(&a->tune, 0, sizeof a->tune);
}
