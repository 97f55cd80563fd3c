/* The tune engine's search (bench/tune/tune.h); ranking and summaries are in tune_rank.c. */
#include "bench/tune/tune.h"
#include "bench/l2persist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/jit.h"

enum { PHASE_SEARCH, PHASE_CONFIRM, PHASE_DONE };

typedef struct TunePair {
  const Variant *v;
  Shape shape;
  bool live;              /* has a space to search */
  TuneSpace space;
  Strategy *st;
  StrategyKind kind;
  int budget, reserve;    /* measurements in all; of them kept for the leaders */
  int asked, received, failed, cross;
  int *nrec;              /* per configuration: passing records */
  double *sum;            /* ... and the sum of their p50s */
  bool *bad;              /* ... a record of it failed verification or errored */
  int phase;
  double deadline;        /* Util_nowMs(); 0 none */
  bool stopped_early;
  char note[200];
  char source_hash[20];
} TunePair;

struct Tuner {
  TuneRequest req;
  TunePair *pairs;
  int npairs, cur;
  bool begun, stopped, cross_done, cross_confirmed;
  int cross_asked, cross_received;
  DeviceInfo device;
  double t_end;           /* Util_nowMs() deadline of --time; 0 none */
  uint64_t seed;
  int entries_made;
  char **notes;
  int nnotes;
};

Tuner *Tuner_new(const TuneRequest *req) {
  Tuner *t = Util_xcalloc(1, sizeof *t);
  t->req = *req;
  Plan_init(&t->req.plan);
  Plan_copy(&t->req.plan, &req->plan);
  t->seed = req->plan.opts.seed;
  return t;
}

static void TunePair_free(TunePair *p) {
  Strategy_free(p->st);
  if (p->live) TuneSpace_free(&p->space);
  free(p->nrec);
  free(p->sum);
  free(p->bad);
}

void Tuner_free(Tuner *t) {
  if (!t) return;
  for (int i = 0; i < t->npairs; i++) TunePair_free(&t->pairs[i]);
  free(t->pairs);
  for (int i = 0; i < t->nnotes; i++) free(t->notes[i]);
  free(t->notes);
  Plan_free(&t->req.plan);
  free(t);
}

static void Tuner_note(Tuner *t, const char *text) {
  t->notes = Util_xrealloc(t->notes, sizeof(char *) * (size_t)(t->nnotes + 1));
  t->notes[t->nnotes++] = Util_xstrdup(text);
}

const char *const *Tuner_notes(const Tuner *t, int *n) {
  *n = t->nnotes;
  return (const char *const *)t->notes;
}

void Tune_budgetFor(const TuneRequest *req, int n, StrategyKind *kind, int *budget, int *reserve) {
  *kind = req->strategy;
  int b = req->budget;
  if (req->budget_pct > 0) {
    b = (int)ceil(n * req->budget_pct / 100.0);
    int floor_ = req->min_budget < n + TUNE_LEADERS ? req->min_budget : n + TUNE_LEADERS;
    if (b < floor_) b = floor_;
  }
  if (*kind == STRATEGY_AUTO)
    *kind = b <= 0 || b >= n + (n > 1 ? TUNE_LEADERS : 0) ? STRATEGY_EXHAUSTIVE : STRATEGY_LOCAL;
  if (b <= 0) {
    int leaders = n > 1 ? (n < TUNE_LEADERS ? n : TUNE_LEADERS) : 0;
    b = *kind == STRATEGY_EXHAUSTIVE ? n + leaders : (n / 4 > 20 ? n / 4 : 20) + leaders;
  }
  *budget = b;
  *reserve = b >= 4 * TUNE_LEADERS ? TUNE_LEADERS : b >= 6 ? 2 : 0;
  if (*reserve >= n) *reserve = n > 1 ? n : 0;
}

static void Tuner_budget(const Tuner *t, TunePair *p) {
  Tune_budgetFor(&t->req, p->space.nconfigs, &p->kind, &p->budget, &p->reserve);
}

bool Tuner_begin(Tuner *t, const DeviceInfo *d, char *err, size_t errsize) {
  const Plan *plan = &t->req.plan;
  t->device = *d;
  /* What the registry's refusals need to know of the device; an unknown one (cc -1) is "any".
   * The per-block shared-memory ceiling is not in the hello: the worker refuses those itself. */
  DeviceProps props = {.cc = d->cc_major * 10 + d->cc_minor, .sm_count = d->sm_count,
                       .l2_bytes = d->l2_bytes};
  const DeviceProps *dev = d->cc_major >= 0 ? &props : NULL;
  int npairs = 0, nshapes;
  for (int i = 0; i < plan->nvariants; i++) {
    Plan_shapesOf(plan, &plan->variants[i], &nshapes);
    npairs += nshapes;
  }
  t->pairs = Util_xcalloc((size_t)npairs + 1, sizeof(TunePair));
  int live = 0;
  for (int i = 0; i < plan->nvariants; i++) {
    const PlanVariant *pv = &plan->variants[i]; /* its own knob restrictions and shapes */
    const Shape *shapes = Plan_shapesOf(plan, pv, &nshapes);
    for (int j = 0; j < nshapes; j++) {
      TunePair *p = &t->pairs[t->npairs++];
      p->v = Registry_find(pv->name);
      p->shape = shapes[j];
      p->phase = PHASE_DONE;
      char why[400], shape[64];
      Shape_format(&p->shape, shape, sizeof shape);
      if (!p->v) {
        snprintf(why, sizeof why, "unknown variant '%.40s'", pv->name);
        Tuner_note(t, why);
        continue;
      }
      if (!TuneSpace_build(&p->space, p->v, &p->shape, pv->knobs, pv->nknobs, dev, why,
                           sizeof why)) {
        Tuner_note(t, why);
        continue;
      }
      p->live = true;
      Tuner_budget(t, p);
      if (p->budget <= 0) {
        snprintf(why, sizeof why, "%s at %s: a budget of 0 measures nothing", p->v->name, shape);
        Tuner_note(t, why);
        TuneSpace_free(&p->space);
        p->live = false;
        continue;
      }
      if (!Jit_sourceHash(p->v, p->source_hash, sizeof p->source_hash)) p->source_hash[0] = '\0';
      int n = p->space.nconfigs;
      p->nrec = Util_xcalloc((size_t)n, sizeof(int));
      p->sum = Util_xcalloc((size_t)n, sizeof(double));
      p->bad = Util_xcalloc((size_t)n, sizeof(bool));
      p->st = Strategy_new(p->kind, &p->space, p->budget - p->reserve,
                           t->seed + (uint64_t)t->npairs * 104729u);
      p->phase = PHASE_SEARCH;
      live++;
    }
  }
  if (live == 0) {
    snprintf(err, errsize, "%s", t->nnotes ? t->notes[0] : "nothing to tune");
    for (int i = 1; i < t->nnotes; i++) {
      size_t len = strlen(err);
      snprintf(err + len, errsize - len, "; %s", t->notes[i]);
    }
    return false;
  }
  t->begun = true;
  if (t->req.time_s > 0) t->t_end = Util_nowMs() + 1000.0 * t->req.time_s;
  t->cur = -1;
  return true;
}

static void Tuner_entry(Tuner *t, const TunePair *p, int config, PlanEntry *e) {
  memset(e, 0, sizeof *e);
  e->variant = p->v;
  e->knobs = p->space.configs[config];
  e->shape = p->shape;
  e->opts = t->req.plan.opts;
  /* Fresh inputs for every measurement, as run does: seed + index, kept in the record. */
  e->opts.seed = t->seed + (uint64_t)t->entries_made++ * 7919u;
  Util_strlcpy(e->metrics, t->req.plan.metrics[0] ? t->req.plan.metrics : "default",
               sizeof e->metrics);
}

static double Tuner_score(const TunePair *p, int c) {
  return p->nrec[c] > 0 && !p->bad[c] ? p->sum[c] / p->nrec[c] : INFINITY;
}

/* Where the local search starts: the winners of the shapes of this variant searched before
 * (a good configuration often stays good at a nearby shape), then the declared settings. */
static void Tuner_hint(Tuner *t, TunePair *p) {
  for (int i = 0; i < t->cur; i++) {
    const TunePair *q = &t->pairs[i];
    if (!q->live || q->v != p->v) continue;
    int win = -1;
    for (int c = 0; c < q->space.nconfigs; c++)
      if (isfinite(Tuner_score(q, c)) && (win < 0 || Tuner_score(q, c) < Tuner_score(q, win)))
        win = c;
    if (win >= 0) Strategy_hint(p->st, TuneSpace_find(&p->space, &q->space.configs[win]));
  }
  int *declared = Util_xmalloc(sizeof(int) * (size_t)(p->space.nconfigs + 1));
  int n = Strategy_declared(&p->space, declared, p->space.nconfigs);
  for (int i = 0; i < n; i++) Strategy_hint(p->st, declared[i]);
  free(declared);
}

/* The pair after the current one that has a search to run; sets its share of --time. */
static TunePair *Tuner_advance(Tuner *t) {
  while (++t->cur < t->npairs) {
    TunePair *p = &t->pairs[t->cur];
    if (!p->live) continue;
    Tuner_hint(t, p);
    if (t->t_end > 0) {
      int left = 0;
      for (int i = t->cur; i < t->npairs; i++) left += t->pairs[i].live;
      p->deadline = Util_nowMs() + (t->t_end - Util_nowMs()) / (left > 0 ? left : 1);
    }
    return p;
  }
  return NULL;
}

/* The leaders: the best configurations so far, measured once more each, so the winner is
 * chosen on two measurements and its published p50 is not the lucky one it won with. */
static int Tuner_confirm(Tuner *t, TunePair *p, PlanEntry *out, int max) {
  p->phase = PHASE_DONE;
  int room = p->budget - p->asked, n = 0, picked[TUNE_LEADERS];
  if (room > TUNE_LEADERS) room = TUNE_LEADERS;
  if (room > max) room = max;
  for (int k = 0; k < room; k++) {
    int best = -1;
    for (int c = 0; c < p->space.nconfigs; c++) {
      bool taken = false;
      for (int j = 0; j < n; j++) taken |= picked[j] == c;
      if (!taken && isfinite(Tuner_score(p, c)) &&
          (best < 0 || Tuner_score(p, c) < Tuner_score(p, best)))
        best = c;
    }
    if (best < 0) break;
    picked[n++] = best;
  }
  if (n < 2) n = n == 1 && p->reserve > 0 ? 1 : 0; /* one leader: its p50 still gets re-measured */
  for (int i = 0; i < n; i++) Tuner_entry(t, p, picked[i], &out[i]);
  p->asked += n;
  if (n > 0) p->phase = PHASE_CONFIRM;
  return n;
}

/* Several shapes: every shape's winner measured at the shapes where it has not been, so that
 * each candidate has a p50 everywhere and the geometric means compare like with like. */
static int Tuner_cross(Tuner *t, PlanEntry *out, int max) {
  int n = 0;
  for (int a = 0; a < t->npairs; a++) {
    TunePair *pa = &t->pairs[a];
    if (!pa->live) continue;
    int win = -1;
    for (int c = 0; c < pa->space.nconfigs; c++)
      if (isfinite(Tuner_score(pa, c)) && (win < 0 || Tuner_score(pa, c) < Tuner_score(pa, win)))
        win = c;
    if (win < 0) continue;
    for (int b = 0; b < t->npairs && n < max; b++) {
      TunePair *pb = &t->pairs[b];
      if (b == a || !pb->live || pb->v != pa->v) continue;
      int c = TuneSpace_find(&pb->space, &pa->space.configs[win]);
      if (c < 0 || pb->nrec[c] > 0 || pb->bad[c]) continue; /* refused there, or known */
      bool dup = false;
      for (int i = 0; i < n; i++)
        dup |= out[i].variant == pb->v && Shape_equal(&out[i].shape, &pb->shape) &&
               KnobValues_equal(pb->v, &out[i].knobs, &pb->space.configs[c]);
      if (dup) continue;
      Tuner_entry(t, pb, c, &out[n++]);
    }
  }
  return n;
}

int Tuner_next(Tuner *t, PlanEntry *out, int max) {
  if (!t->begun || t->stopped || max < 1) return 0;
  for (;;) {
    if (t->cur >= t->npairs) break;
    TunePair *p = t->cur >= 0 ? &t->pairs[t->cur] : NULL;
    if (p && p->asked > p->received) return 0; /* a batch is still out */
    if (!p || p->phase == PHASE_DONE) {
      if (!Tuner_advance(t)) break;
      continue;
    }
    if (p->phase == PHASE_CONFIRM) {
      p->phase = PHASE_DONE;
      continue;
    }
    int left = p->budget - p->reserve - p->asked;
    bool late = p->deadline > 0 && Util_nowMs() >= p->deadline;
    if (late) {
      p->stopped_early = true;
      snprintf(p->note, sizeof p->note, "--time ran out after %d measurements", p->asked);
    }
    int idx[256], n = 0;
    if (!late && left > 0)
      n = Strategy_ask(p->st, idx, left < max ? (left < 256 ? left : 256) : (max < 256 ? max : 256));
    if (n > 0) {
      for (int i = 0; i < n; i++) Tuner_entry(t, p, idx[i], &out[i]);
      p->asked += n;
      return n;
    }
    if (Strategy_pending(p->st) > 0) return 0;
    /* Fewer leaders than measurements kept for them (failures): the rest go to the search. */
    int leaders = 0;
    for (int c = 0; c < p->space.nconfigs && leaders < p->reserve; c++)
      leaders += isfinite(Tuner_score(p, c));
    if (!late && leaders < p->reserve && p->asked < p->budget && Strategy_pending(p->st) == 0 &&
        p->received < p->space.nconfigs) {
      p->reserve = leaders;
      continue;
    }
    int confirming = Tuner_confirm(t, p, out, max);
    if (confirming > 0) return confirming;
  }
  if (t->cross_asked > t->cross_received) return 0;
  int n = 0;
  if (!t->cross_done) {
    t->cross_done = true;
    n = Tuner_cross(t, out, max);
    t->cross_asked += n;
    if (n > 0) return n;
  }
  if (!t->cross_confirmed) {
    /* Another shape's winner that now leads here on one measurement gets its second, as the
     * searched leaders did: no winner stands on a single draw. */
    t->cross_confirmed = true;
    for (int i = 0; i < t->npairs && n < max; i++) {
      TunePair *p = &t->pairs[i];
      if (!p->live || p->cross == 0) continue;
      int best = -1;
      for (int c = 0; c < p->space.nconfigs; c++)
        if (isfinite(Tuner_score(p, c)) && (best < 0 || Tuner_score(p, c) < Tuner_score(p, best)))
          best = c;
      if (best >= 0 && p->nrec[best] == 1) Tuner_entry(t, p, best, &out[n++]);
    }
  }
  t->cross_asked += n;
  return n;
}

static TunePair *Tuner_pairOf(Tuner *t, const Record *r) {
  for (int i = 0; i < t->npairs; i++)
    if (t->pairs[i].live && strcmp(t->pairs[i].v->name, r->variant) == 0 &&
        Shape_equal(&t->pairs[i].shape, &r->shape))
      return &t->pairs[i];
  return NULL;
}

void Tuner_take(Tuner *t, const Record *r) {
  TunePair *p = Tuner_pairOf(t, r);
  if (!p) return;
  KnobValues kv;
  char err[256];
  Registry_defaults(p->v, &kv);
  int c = Registry_applyKnobs(p->v, r->knobs, &kv, false, err, sizeof err)
              ? TuneSpace_find(&p->space, &kv) : -1;
  bool cross = t->cur >= t->npairs;
  if (cross) {
    t->cross_received++;
    p->cross++;
  } else {
    p->received++;
  }
  if (c < 0) return;
  bool pass = r->status == REC_PASS && isfinite(r->timing.p50) && r->timing.p50 > 0;
  if (pass) {
    p->nrec[c]++;
    p->sum[c] += r->timing.p50;
  } else if (r->status == REC_FAIL || r->status == REC_ERROR || r->status == REC_NA) {
    p->bad[c] = true;
    p->failed++;
  }
  if (r->status != REC_CANCELLED) Strategy_tell(p->st, c, pass ? r->timing.p50 : NAN);
}

bool Tuner_done(const Tuner *t) {
  if (!t->begun) return false;
  if (t->stopped) return true;
  return t->cur >= t->npairs && t->cross_done && t->cross_confirmed &&
         t->cross_asked <= t->cross_received;
}

void Tuner_stop(Tuner *t) {
  t->stopped = true;
  for (int i = 0; i < t->npairs; i++)
    if (t->pairs[i].live && (t->pairs[i].phase != PHASE_DONE || i >= t->cur)) {
      t->pairs[i].stopped_early = true;
      snprintf(t->pairs[i].note, sizeof t->pairs[i].note, "cancelled after %d measurements",
               t->pairs[i].received);
    }
}

void Tuner_progress(const Tuner *t, TuneProgress *g) {
  memset(g, 0, sizeof *g);
  g->best_p50 = NAN;
  g->npairs = 0;
  for (int i = 0; i < t->npairs; i++) g->npairs += t->pairs[i].live;
  int shown = t->cur < 0 ? 0 : t->cur < t->npairs ? t->cur : t->npairs - 1;
  const TunePair *p = t->npairs ? &t->pairs[shown] : NULL;
  g->phase = t->cur >= t->npairs ? (Tuner_done(t) ? "done" : "across shapes")
           : p && p->phase == PHASE_CONFIRM ? "re-measuring the leaders" : "searching";
  for (int i = 0; i <= shown && i < t->npairs; i++) g->pair += t->pairs[i].live;
  if (!p || !p->live) return;
  Util_strlcpy(g->variant, p->v->name, sizeof g->variant);
  g->shape = p->shape;
  g->measured = p->received;
  g->budget = p->budget;
  g->refused = p->space.refused;
  g->configs = p->space.nconfigs;
  int best = -1;
  for (int c = 0; c < p->space.nconfigs; c++)
    if (isfinite(Tuner_score(p, c)) && (best < 0 || Tuner_score(p, c) < Tuner_score(p, best))) best = c;
  if (best >= 0) {
    TuneSpace_format(&p->space, best, g->best_knobs, sizeof g->best_knobs);
    g->best_p50 = Tuner_score(p, best);
  }
}

void Tuner_finish(Tuner *t, Session *s) {
  TuneSummary *base = Util_xcalloc((size_t)t->npairs + 1, sizeof *base);
  int n = 0;
  for (int i = 0; i < t->npairs; i++) {
    const TunePair *p = &t->pairs[i];
    if (!p->live) continue;
    TuneSummary *b = &base[n++];
    TuneSummary_init(b);
    Util_strlcpy(b->variant, p->v->name, sizeof b->variant);
    b->shape = p->shape;
    Util_strlcpy(b->strategy, Strategy_name(p->kind), sizeof b->strategy);
    b->budget = p->budget;
    b->space = (int)p->space.combos;
    b->refused = p->space.refused;
    b->complete = !p->stopped_early && p->received > 0;
    b->cross = p->cross;
    Util_strlcpy(b->note, p->note, sizeof b->note);
  }
  Tune_finishSession(s, base, n);
  free(base);
}

int Tuner_tunedEntries(const Tuner *t, const Session *s, TunedEntry **out) {
  TunedEntry *keys = Util_xcalloc((size_t)t->npairs + 1, sizeof *keys);
  int n = 0;
  for (int i = 0; i < t->npairs; i++) {
    const TunePair *p = &t->pairs[i];
    char now[20];
    /* An edit during the tune: the measurements belong to neither source, so none is kept. A
     * persisting L2 window is not what a later run without it sees: not kept either. */
    if (L2Persist_on(&t->req.plan.opts) || !p->live || !p->source_hash[0] || !Jit_sourceHash(p->v, now, sizeof now) ||
        strcmp(now, p->source_hash) != 0)
      continue;
    TunedEntry *k = &keys[n++];
    Util_strlcpy(k->device, t->device.name, sizeof k->device);
    k->cc = t->device.cc_major * 10 + t->device.cc_minor;
    k->driver = t->device.driver_version;
    Util_strlcpy(k->variant, p->v->name, sizeof k->variant);
    Util_strlcpy(k->source_hash, p->source_hash, sizeof k->source_hash);
    k->shape = p->shape;
    k->cold_l2 = t->req.plan.opts.cold_l2;
    k->graph = t->req.plan.opts.graph;
  }
  int m = Tune_tunedEntries(s, keys, n, out);
  free(keys);
  return m;
}
