#include "cmd/run_pick.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune_dissent.h"
#include "bench/tune/tune_table.h"
#include "bench/tune/tune_wavefit.h"
#include "common/text.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/knobs.h"
#include "kernels/registry.h"

/* One line on stderr; the text quotes outside text (a table's, a worker's), made safe. */
static void RunPick_say(const char *text) {
  fputs("benchtop: pick: ", stderr);
  Text_print(stderr, text);
  fputc('\n', stderr);
}

#define RUN_PICK_NEAR (RUN_PICK_MAX + DISSENT_MAX)             /* a group's entries measured */
#define RUN_PICK_CANDS (RUN_PICK_NEAR + WAVEFIT_FROM) /* a group's candidates at most */

struct RunPickGroup {
  int entry;            /* the first entry of the group (variant, problem, conditions) */
  int first, count;     /* its candidates: cands[first .. first + count) */
  int nfit;             /* of them, refitted to fewer waves (WaveFit_alternative) */
  int ndissent;         /* of them, farther winners unlike the nearest in a knob (Dissent_choose) */
  KnobValues rule;      /* what the transfer rule chose (TunedTable_resolve), unmeasured */
  TunedEntry near[RUN_PICK_NEAR]; /* the nearest, then the dissenters */
  int origin[RUN_PICK_CANDS]; /* candidate first + c: from near[origin[c]] */
  bool fitted[RUN_PICK_CANDS]; /* ... refitted to fewer waves */
  int dissent[RUN_PICK_CANDS]; /* ... the knob it dissents in, else -1 */
};

/* Whether kv is already among the group's candidates. */
static bool RunPick_has(const RunPick *p, const RunPickGroup *g, const KnobValues *kv) {
  for (int c = g->first; c < p->ncands; c++)
    if (KnobValues_equal(p->cands[c].variant, &p->cands[c].knobs, kv)) return true;
  return false;
}

/* The nearest candidates refitted to fewer rounds of waves at this problem, where one is. */
static void RunPick_refit(RunPick *p, RunPickGroup *g, const DeviceInfo *d) {
  DeviceProps dev;
  Transfer_device(&dev, d->cc_major * 10 + d->cc_minor, d->sm_count);
  int n = p->ncands;
  for (int c = g->first; c < n && c < g->first + WAVEFIT_FROM; c++) {
    KnobValues alt;
    const PlanEntry *e = &p->cands[c];
    if (!WaveFit_alternative(e->variant, &e->shape, &e->knobs, &dev, &alt) || RunPick_has(p, g, &alt)) continue;
    p->cands[p->ncands] = *e;
    p->cands[p->ncands].knobs = alt;
    g->origin[p->ncands - g->first] = g->origin[c - g->first];
    g->fitted[p->ncands - g->first] = true;
    g->dissent[p->ncands - g->first] = g->dissent[c - g->first];
    p->ncands++;
    g->nfit++;
    p->nfit++;
  }
}

/* The farther winners (pool[0..npool), nearest first) unlike all the nearest candidates in a knob
 * they agree on (bench/tune/tune_dissent.h), as candidates of their own. */
static void RunPick_dissent(RunPick *p, RunPickGroup *g, int nnear, const TunedEntry *pool, int npool) {
  const Variant *v = p->cands[g->first].variant;
  KnobValues near[RUN_PICK_MAX], *far = Util_xcalloc((size_t)npool + 1, sizeof *far);
  int m = 0, nfar = 0, *from = Util_xcalloc((size_t)npool + 1, sizeof *from), out[DISSENT_MAX], knob[DISSENT_MAX];
  for (int c = g->first; c < p->ncands && m < RUN_PICK_MAX; c++) near[m++] = p->cands[c].knobs;
  for (int i = 0; i < npool; i++) {
    char err[256];
    Registry_defaults(v, &far[nfar]);
    if (Registry_applyKnobs(v, pool[i].knobs, &far[nfar], false, err, sizeof err)) from[nfar++] = i;
  }
  int n = Dissent_choose(v, near, m, far, nfar, DISSENT_MAX, out, knob);
  for (int j = 0; j < n; j++) {
    int at = nnear + j; /* near[]: the nearest, then the dissenters */
    g->near[at] = pool[from[out[j]]];
    int c = p->ncands - g->first;
    p->cands[p->ncands] = p->cands[g->first];
    p->cands[p->ncands].knobs = far[out[j]];
    g->origin[c] = at;
    g->fitted[c] = false;
    g->dissent[c] = knob[j];
    p->ncands++;
    g->ndissent++;
    p->ndissent++;
  }
  free(far);
  free(from);
}

static bool RunPick_sameProblem(const PlanEntry *a, const PlanEntry *b) {
  return a->variant == b->variant && Shape_equal(&a->shape, &b->shape) &&
         a->opts.cold_l2 == b->opts.cold_l2 && a->opts.graph == b->opts.graph;
}

/* Whether the table chooses e's knobs: --knob auto or left alone, none given. */
static bool RunPick_chosen(const PlanEntry *e) {
  return e->knobs_auto != PLAN_AUTO_NONE && e->knobs_given == 0 && e->variant->nknobs > 0;
}

int RunPick_plan(RunPick *p, const PlanEntry *entries, int n, const DeviceInfo *d, int k) {
  memset(p, 0, sizeof *p);
  if (k < 2) return 0; /* one candidate is the transfer rule's own choice: nothing to measure */
  if (k > RUN_PICK_MAX) k = RUN_PICK_MAX;
  int cap = 0;
  RunPickGroup *g = Util_xcalloc(1, sizeof *g);
  TunedEntry *pool = Util_xcalloc(DISSENT_POOL, sizeof *pool); /* the nearest, then farther ones */
  for (int i = 0; i < n; i++) {
    bool seen = false;
    for (int j = 0; j < p->ngroups && !seen; j++) seen = RunPick_sameProblem(&entries[p->groups[j].entry], &entries[i]);
    if (seen || !RunPick_chosen(&entries[i])) continue;
    int all = TunedTable_neighbours(d, entries[i].variant, &entries[i].shape, &entries[i].opts, DISSENT_POOL, pool);
    int m = all < k ? all : k;
    memcpy(g->near, pool, sizeof *pool * (size_t)m);
    /* Nearest first: an entry at this very problem and conditions is a tune, not a transfer. */
    if (m > 0 && g->near[0].distance == 0 && g->near[0].protocol_distance == 0) continue;
    if (m < 2) continue; /* one set of knobs near: the rule's, nothing to choose between */
    if (p->ncands + m + DISSENT_MAX + WAVEFIT_FROM > cap) { /* grows with the problems that need a pick, not the plan */
      cap = 2 * cap + m + DISSENT_MAX + WAVEFIT_FROM;
      p->cands = Util_xrealloc(p->cands, sizeof *p->cands * (size_t)cap);
    }
    g->entry = i;
    g->rule = entries[i].knobs; /* as TunedTable_resolve chose them */
    g->first = p->ncands;
    g->nfit = g->ndissent = 0;
    for (int c = 0; c < m; c++) {
      PlanEntry *e = &p->cands[p->ncands];
      *e = entries[i]; /* the same inputs (seed) for every candidate */
      e->knobs_auto = PLAN_AUTO_NONE;
      Util_strlcpy(e->metrics, "none", sizeof e->metrics); /* a pick weighs time alone */
      char err[256];
      Registry_defaults(e->variant, &e->knobs);
      if (!Registry_applyKnobs(e->variant, g->near[c].knobs, &e->knobs, false, err, sizeof err)) continue;
      g->origin[p->ncands - g->first] = c;
      g->fitted[p->ncands - g->first] = false;
      g->dissent[p->ncands - g->first] = -1;
      p->ncands++;
    }
    RunPick_dissent(p, g, m, pool + m, all - m);
    RunPick_refit(p, g, d);
    g->count = p->ncands - g->first;
    if (g->count < 2) {
      p->ncands = g->first;
      continue;
    }
    p->groups = Util_xrealloc(p->groups, sizeof *p->groups * (size_t)(p->ngroups + 1));
    p->groups[p->ngroups++] = *g;
  }
  free(g);
  free(pool);
  p->p50 = Util_xcalloc((size_t)p->ncands + 1, sizeof *p->p50);
  p->clock = Util_xcalloc((size_t)p->ncands + 1, sizeof *p->clock);
  for (int i = 0; i < p->ncands; i++) p->p50[i] = NAN;
  return p->ncands;
}

void RunPick_onRecord(RunPick *p, int i, const Record *r) {
  if (i < 0 || i >= p->ncands) return;
  p->answered++;
  if (r->status == REC_PASS && isfinite(r->timing.p50) && r->timing.p50 > 0) {
    p->p50[i] = r->timing.p50;
    Util_strlcpy(p->clock[i], r->timing.source, sizeof p->clock[i]);
  }
}

/* The user's table keeps the pick (this device, driver and kernel source), so the next run at
 * this problem takes it unmeasured. False with one line in err. */
static bool RunPick_store(const RunPick *p, const RunPickGroup *g, int best, const DeviceInfo *d,
                          const PlanEntry *e, char *err, size_t errsize) {
  TunedEntry t;
  memset(&t, 0, sizeof t);
  Util_strlcpy(t.device, d->name, sizeof t.device);
  TunedTable_chipOf(d->name, t.chip, sizeof t.chip);
  t.cc = d->cc_major * 10 + d->cc_minor;
  t.driver = d->driver_version;
  Util_strlcpy(t.variant, e->variant->name, sizeof t.variant);
  if (!Jit_sourceHash(e->variant, t.source_hash, sizeof t.source_hash)) {
    snprintf(err, errsize, "the source of %s cannot be read", e->variant->name);
    return false;
  }
  t.shape = e->shape;
  t.cold_l2 = e->opts.cold_l2;
  t.graph = e->opts.graph;
  Registry_formatKnobs(e->variant, &p->cands[best].knobs, t.knobs, sizeof t.knobs);
  t.p50 = p->p50[best];
  Util_strlcpy(t.clock, p->clock[best], sizeof t.clock);
  Util_isoTime(t.created, sizeof t.created);
  t.picked_of = g->count;
  char note[512] = "";
  bool ok = TunedTable_store(&t, 1, note, sizeof note, err, errsize);
  if (note[0]) RunPick_say(note); /* a malformed table set aside, say */
  return ok;
}

void RunPick_apply(RunPick *p, PlanEntry *entries, int n, const DeviceInfo *d,
                   char (*notes)[RECORD_AUTO_NOTE_MAX], bool tty) {
  for (int gi = 0; gi < p->ngroups; gi++) {
    const RunPickGroup *g = &p->groups[gi];
    const PlanEntry *e0 = &entries[g->entry];
    int best = -1, rule = -1;
    for (int c = g->first; c < g->first + g->count; c++) {
      if (KnobValues_equal(e0->variant, &p->cands[c].knobs, &g->rule)) rule = c;
      if (isfinite(p->p50[c]) && (best < 0 || p->p50[c] < p->p50[best])) best = c;
    }
    char shape[64], knobs[RECORD_KNOBS_MAX], near[64], line[1200], rule_p50[64] = "";
    Shape_format(&e0->shape, shape, sizeof shape);
    if (tty) fprintf(stderr, "\r\033[K");
    if (best < 0) {
      snprintf(line, sizeof line, "%s at %s: none of the %d candidates (tuned neighbours' knobs) passed there; "
               "running the transfer rule's", e0->variant->name, shape, g->count);
      RunPick_say(line);
      continue;
    }
    const TunedEntry *from = &g->near[g->origin[best - g->first]];
    bool fitted = g->fitted[best - g->first];
    Shape_format(&from->shape, near, sizeof near);
    Registry_formatKnobs(e0->variant, &p->cands[best].knobs, knobs, sizeof knobs);
    if (rule >= 0 && rule != best && isfinite(p->p50[rule]))
      snprintf(rule_p50, sizeof rule_p50, "; the transfer rule's %.4g us", p->p50[rule]);
    char err[512] = "", note[RECORD_AUTO_NOTE_MAX];
    bool kept = RunPick_store(p, g, best, d, e0, err, sizeof err);
    char fits[48] = "", far[64] = "", why[96] = "";
    if (g->nfit > 0) snprintf(fits, sizeof fits, "%s%d refitted to fewer waves", g->ndissent ? ", " : " and ", g->nfit);
    if (g->ndissent > 0) snprintf(far, sizeof far, " and %d farther winner%s unlike them in a knob", g->ndissent,
                                  g->ndissent > 1 ? "s" : "");
    int dk = g->dissent[best - g->first];
    if (fitted) snprintf(why, sizeof why, ", refitted to fewer waves");
    else if (dk >= 0) snprintf(why, sizeof why, ", unlike the nearest in %.40s", e0->variant->knobs[dk].name);
    snprintf(note, sizeof note, TUNED_NOTE_PREFIX "%.63s%s: picked at this shape, the fastest of %d "
             "tuned neighbours' knobs%s%s measured here (%.40s's%s), p50 %.4g us%s", from->table,
             from->shipped ? " (shipped)" : "", g->count - g->nfit - g->ndissent, fits, far, near, why,
             p->p50[best], rule_p50);
    Text_sanitize(note, sizeof note, note); /* the table's file name is outside text */
    for (int i = 0; i < n; i++) {
      if (!RunPick_sameProblem(&entries[i], e0) || !RunPick_chosen(&entries[i])) continue;
      entries[i].knobs = p->cands[best].knobs;
      Util_strlcpy(notes[i], note, sizeof notes[i]);
    }
    if (kept) continue; /* the run's line for the entry says what was picked */
    snprintf(line, sizeof line, "%s at %s: %s (%s's) was not kept in the tuned table: %s",
             e0->variant->name, shape, knobs, near, err);
    RunPick_say(line);
  }
}

void RunPick_free(RunPick *p) {
  free(p->cands);
  free(p->p50);
  free(p->clock);
  free(p->groups);
  memset(p, 0, sizeof *p);
}
