/* Run options: what `benchtop run` takes besides variants, knobs and shapes (reps, warm-up,
 * cold L2, graph replay, the clock, metrics, seed, watchdog), for the next run from the TUI.
 * One row per option; the row table says how each is shown, stepped and typed in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/plan.h"
#include "common/util.h"
#include "sessions/catalog.h"
#include "tui/tui.h"

static const KeyTable ViewRunOpts_keys; /* at the end, with its actions */

typedef enum { OPT_INT, OPT_BOOL, OPT_TEXT } OptKind;

typedef struct RunOptRow {
  const char *name;
  OptKind kind;
  int lo, hi;              /* OPT_INT */
  const int *steps;        /* Left/Right walk these (OPT_INT), ending at -1 */
  const char *help;
} RunOptRow;

enum { ROW_REPS, ROW_WARMUP, ROW_COLD, ROW_GRAPH, ROW_TIMING, ROW_METRICS, ROW_SEED,
       ROW_WATCHDOG,
       ROW_L2P,
       ROW_COUNT };

static const int RunOpts_repSteps[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, -1};
static const int RunOpts_warmSteps[] = {0, 1, 5, 10, 20, 50, 100, -1};
static const int RunOpts_dogSteps[] = {5, 10, 30, 60, 120, 300, 600, -1};

static const RunOptRow RunOpts_rows[ROW_COUNT] = {
  [ROW_REPS] = {"reps", OPT_INT, PLAN_REPS_MIN, PLAN_REPS_MAX, RunOpts_repSteps,
                "timed launches per record"},
  [ROW_WARMUP] = {"warm-up", OPT_INT, PLAN_WARMUP_MIN, PLAN_WARMUP_MAX, RunOpts_warmSteps,
                  "launches before timing (and at least 50 ms)"},
  [ROW_COLD] = {"cold L2", OPT_BOOL, 0, 0, NULL, "flush the L2 between timed launches"},
  [ROW_GRAPH] = {"graph", OPT_BOOL, 0, 0, NULL, "replay the launches from a CUDA graph"},
  [ROW_TIMING] = {"timing", OPT_BOOL, 0, 0, NULL,
                  "kernel timestamps (CUPTI), or CUDA events around each launch"},
  [ROW_METRICS] = {"metrics", OPT_TEXT, 0, 0, NULL,
                   "default, none, or Nsight Compute names: default,sm__cycles_elapsed.avg"},
  [ROW_SEED] = {"seed", OPT_TEXT, 0, 0, NULL, "inputs' seed: a number, or clock (fresh per run)"},
  [ROW_WATCHDOG] = {"watchdog", OPT_INT, PLAN_WATCHDOG_MIN, PLAN_WATCHDOG_MAX, RunOpts_dogSteps,
                    "seconds before a hung kernel is killed"},
  [ROW_L2P] = {"l2-persist", OPT_BOOL, 0, 0, NULL,
               "inputs kept in persisting L2 lines while timed: off, kv, q, qkv (docs/bundles.md)"},
};

/* --l2-persist's words in the order Left/Right walk them ("" is off). */
static const char *const RunOpts_l2p[] = {"", "kv", "q", "qkv"};

void ViewRunOpts_init(App *a, const Plan *p) {
  RunState *r = &a->run;
  Plan_defaultOptions(&r->opts);
  r->seed_fixed = false;
  Util_strlcpy(r->metrics, "default", sizeof r->metrics);
  /* A session's plan says what its runs used: the next run starts from there. */
  if (p && p->opts.reps > 0) {
    uint64_t seed = r->opts.seed;
    r->opts = p->opts;
    r->opts.seed = seed;
  }
  if (p && p->metrics[0]) Util_strlcpy(r->metrics, p->metrics, sizeof r->metrics);
}

static void ViewRunOpts_value(const App *a, int row, char *buf, size_t size) {
  const RunState *r = &a->run;
  switch (row) {
  case ROW_REPS: snprintf(buf, size, "%d", r->opts.reps); break;
  case ROW_WARMUP: snprintf(buf, size, "%d", r->opts.warmup); break;
  case ROW_COLD: snprintf(buf, size, "%s", r->opts.cold_l2 ? "on" : "off"); break;
  case ROW_GRAPH: snprintf(buf, size, "%s", r->opts.graph ? "on" : "off"); break;
  case ROW_TIMING: snprintf(buf, size, "%s", r->opts.event_timing ? "events" : "kernel"); break;
  case ROW_L2P: snprintf(buf, size, "%s", r->opts.l2_persist[0] ? r->opts.l2_persist : "off"); break;
  case ROW_METRICS: snprintf(buf, size, "%s", r->metrics); break;
  case ROW_SEED:
    if (r->seed_fixed) snprintf(buf, size, "%llu", (unsigned long long)r->opts.seed);
    else snprintf(buf, size, "clock");
    break;
  default: snprintf(buf, size, "%.0f", r->opts.watchdog_s); break;
  }
}

/* Sets a row from typed text; false with one line in err. */
static bool ViewRunOpts_set(App *a, int row, const char *text, char *err, size_t errsize) {
  RunState *r = &a->run;
  const RunOptRow *o = &RunOpts_rows[row];
  if (o->kind == OPT_INT) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < o->lo || v > o->hi) {
      snprintf(err, errsize, "%s: a whole number from %d to %d", o->name, o->lo, o->hi);
      return false;
    }
    if (row == ROW_REPS) r->opts.reps = (int)v;
    else if (row == ROW_WARMUP) r->opts.warmup = (int)v;
    else r->opts.watchdog_s = (double)v;
    return true;
  }
  if (row == ROW_METRICS) {
    if (strlen(text) >= sizeof r->metrics) { /* never cut: the cut tail would name a metric */
      snprintf(err, errsize, "metrics: the list is %zu bytes; at most %zu", strlen(text), sizeof r->metrics - 1);
      return false;
    }
    char **names = NULL;
    int n = Metrics_resolve(text[0] ? text : "default", &names, err, errsize);
    if (n < 0) return false;
    Metrics_freeNames(names, n);
    Util_strlcpy(r->metrics, text[0] ? text : "default", sizeof r->metrics);
    return true;
  }
  if (row == ROW_SEED) {
    if (!text[0] || strcmp(text, "clock") == 0) {
      r->seed_fixed = false;
      return true;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || *end || errno || text[0] == '-') {
      snprintf(err, errsize, "seed: a whole number from 0 to 2^64-1, or clock");
      return false;
    }
    r->opts.seed = v;
    r->seed_fixed = true;
    return true;
  }
  snprintf(err, errsize, "%s: Space switches it", o->name);
  return false;
}

bool ViewRunOpts_submit(App *a, const char *text, char *err, size_t errsize) {
  return ViewRunOpts_set(a, a->runopts.sel, text, err, errsize);
}

static void ViewRunOpts_open(App *a, int ch) {
  (void)ch;
  View_show(a, &View_runopts);
}

static void ViewRunOpts_draw(App *a, unsigned dirty) {
  (void)dirty;
  int h = ROW_COUNT + 6, wd = a->cols - 6 < 96 ? a->cols - 6 : 96;
  WINDOW *w = Draw_overlay(a, h, wd);
  if (!w) return;
  Draw_box(a, w, "Run options (for the next run)", true);
  for (int i = 0; i < ROW_COUNT; i++) {
    const RunOptRow *o = &RunOpts_rows[i];
    bool sel = i == a->runopts.sel;
    attr_t cur = sel ? Theme_attr(TH_CURSOR) : 0;
    wattrset(w, Draw_attr(cur, TH_NORMAL));
    mvwhline(w, 1 + i, 1, ' ', wd - 2);
    char val[600], line[700];
    ViewRunOpts_value(a, i, val, sizeof val);
    snprintf(line, sizeof line, " %-9s %-14.14s", o->name, val);
    Draw_clip(w, 1 + i, 1, wd - 2, line);
    wattrset(w, Draw_attr(cur, TH_DIM));
    Draw_clip(w, 1 + i, 27, wd - 28, o->help);
  }
  Draw_keyBar(w, h - 4, 1, wd - 2, &ViewRunOpts_keys);
  /* The whole metrics list, which the row cuts. */
  char val[600];
  ViewRunOpts_value(a, ROW_METRICS, val, sizeof val);
  wattrset(w, Theme_attr(TH_ACCENT));
  Draw_clip(w, h - 3, 2, wd - 4, "metrics: ");
  Draw_clip(w, h - 3, 11, wd - 13, val);
  wattrset(w, Theme_attr(TH_DIM));
  Draw_clip(w, h - 2, 2, wd - 4, "benchtop run takes the same: --reps --warmup --cold-l2 --graph "
                                 "--timing --metrics --seed --watchdog");
  wnoutrefresh(w);
}

static void ViewRunOpts_move(App *a, int ch) {
  a->runopts.sel = Index_move(a->runopts.sel, ROW_COUNT, Keys_delta(ch));
  a->dirty |= DIRTY_OVERLAY;
}

/* Left/Right: the next step of a number, a switch flipped. */
static void ViewRunOpts_step(App *a, int ch) {
  int row = a->runopts.sel;
  const RunOptRow *o = &RunOpts_rows[row];
  RunState *r = &a->run;
  bool up = ch != KEY_LEFT && ch != 'h';
  if (row == ROW_COLD) r->opts.cold_l2 = !r->opts.cold_l2;
  else if (row == ROW_GRAPH) r->opts.graph = !r->opts.graph;
  else if (row == ROW_TIMING) r->opts.event_timing = !r->opts.event_timing;
  else if (row == ROW_L2P) {
    int i = 0;
    while (i < 4 && strcmp(RunOpts_l2p[i], r->opts.l2_persist) != 0) i++;
    Util_strlcpy(r->opts.l2_persist, RunOpts_l2p[((i % 4) + (up ? 1 : 3)) % 4], sizeof r->opts.l2_persist);
  } else if (o->kind == OPT_INT) {
    int now = row == ROW_REPS ? r->opts.reps : row == ROW_WARMUP ? r->opts.warmup
                                                                  : (int)r->opts.watchdog_s;
    int next = now, n = 0;
    while (o->steps[n] >= 0) n++;
    for (int i = 0; i < n; i++) {
      int s = o->steps[up ? i : n - 1 - i];
      if (up ? s > now : s < now) { next = s; break; }
    }
    char text[32], err[160];
    snprintf(text, sizeof text, "%d", next);
    ViewRunOpts_set(a, row, text, err, sizeof err);
  } else {
    App_message(a, false, "Enter types the %s", o->name);
  }
  a->dirty |= DIRTY_OVERLAY | DIRTY_STATUS;
}

static void ViewRunOpts_edit(App *a, int ch) {
  int row = a->runopts.sel;
  if (RunOpts_rows[row].kind == OPT_BOOL) {
    ViewRunOpts_step(a, ch);
    return;
  }
  char label[64], val[600];
  snprintf(label, sizeof label, "%s: ", RunOpts_rows[row].name);
  ViewRunOpts_value(a, row, val, sizeof val);
  static const PromptHooks hooks = {.accept = ViewRunOpts_submit};
  ViewPrompt_open(a, &hooks, label, val);
  a->prompt.back = &View_runopts; /* shown under the prompt, and again once it closes */
}

static void ViewRunOpts_defaults(App *a, int ch) {
  (void)ch;
  ViewRunOpts_init(a, NULL);
  App_message(a, false, "run options: benchtop run's defaults");
  a->dirty |= DIRTY_OVERLAY | DIRTY_STATUS;
}

static const KeyBinding ViewRunOpts_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", "j/k option", "previous / next option",
   ViewRunOpts_move},
  {{KEY_LEFT, KEY_RIGHT, 'h', 'l'}, "Left Right / h l", "h/l change",
   "a switch flipped, a number to its next step", ViewRunOpts_step},
  {{' '}, "Space", NULL, "flip a switch", ViewRunOpts_step},
  {{'\n', KEY_ENTER}, "Enter", "Enter type", "type the value (a switch: flip it)", ViewRunOpts_edit},
  {{'d'}, "d", "d defaults", "benchtop run's defaults", ViewRunOpts_defaults},
  {{27, 'q', 'O', KEY_F(2)}, "Esc / q / O", "Esc close", "close the run options", Keys_closeOverlay},
};
static const KeyTable ViewRunOpts_keys = KEY_TABLE("Run opts", ViewRunOpts_bindings);

const View View_runopts = {
  .name = "run options", .layer = VIEW_OVERLAY, .open = ViewRunOpts_open,
  .keys = &ViewRunOpts_keys, .draw = ViewRunOpts_draw,
};
