/* benchtop tune --grid (cmd/cmd_tune_grid.h): the units and their checks before a worker
 * starts, the session (new, or resumed: its complete units kept, the rest of its records for
 * the grid's units dropped so that they are redone), and at the end the tuned tables. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/l2persist.h"
#include "cmd/cmd_tune_grid.h"
#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"
#include "kernels/jit.h"

Tuner *Grid_unitTuner(const GridRun *g, const GridUnit *u, const DeviceInfo *d, char *err,
                      size_t errsize) {
  TuneRequest req = g->cli->req;
  Plan *plan = &req.plan;
  Plan_copy(plan, &g->cli->req.plan);
  for (int i = plan->nvariants - 1; i >= 0; i--)
    if (i != u->variant) Plan_removeVariant(plan, i);
  free(plan->shapes);
  plan->shapes = Util_xmalloc(sizeof(Shape));
  plan->shapes[0] = g->grid->problems[u->problem];
  plan->nshapes = 1;
  /* Each unit its own seed, from the grid's and its place: the same search whatever ran
   * before it, so a resumed grid searches as an unstopped one. */
  plan->opts.seed = g->cli->req.plan.opts.seed + (uint64_t)(u - g->units) * 1000003u;
  req.time_s = 0; /* --time bounds the whole grid (cmd_tune_grid_loop.c) */
  Tuner *t = Tuner_new(&req);
  Plan_free(plan);
  if (!Tuner_begin(t, d, err, errsize)) {
    Tuner_free(t);
    return NULL;
  }
  return t;
}

void Grid_saySkipped(const GridRun *g, char **notes) {
  int nv = g->cli->req.plan.nvariants, np = g->grid->nproblems;
  for (int v = 0; v < nv; v++) {
    int n = 0, first = -1;
    for (int p = 0; p < np; p++)
      if (notes[p * nv + v]) {
        n++;
        if (first < 0) first = p * nv + v;
      }
    for (int p = 0; n > 0 && p < np; p++) {
      const char *note = notes[p * nv + v];
      if (n == np && np > 1 && p * nv + v != first) continue; /* one line for all of them */
      if (!note) continue;
      if (n == np && np > 1)
        fprintf(stderr, "benchtop tune: skipped %s at all %d problems (e.g. ", g->cli->req.plan.variants[v].name, np);
      else
        fprintf(stderr, "benchtop tune: skipped ");
      Text_print(stderr, note);
      fputs(n == np && np > 1 ? ")\n" : "\n", stderr);
    }
  }
}

/* Before a worker starts: every unit's space as any GPU would see it. A unit with nothing to
 * search is skipped (said); a grid with nothing left, or one that plans more measurements
 * than a plan may hold, is one line. */
static bool Grid_probe(GridRun *g, char *err, size_t errsize) {
  DeviceInfo any;
  Device_init(&any);
  long long planned = 0;
  int live = 0;
  char why[600], **notes = Util_xcalloc((size_t)g->nunits + 1, sizeof *notes);
  for (int i = 0; i < g->nunits; i++) {
    GridUnit *u = &g->units[i];
    Tuner *t = Grid_unitTuner(g, u, &any, why, sizeof why);
    if (!t) {
      notes[i] = Util_xstrdup(why);
      u->state = UNIT_SKIPPED;
      g->skipped++;
      continue;
    }
    TuneProgress p;
    Tuner_progress(t, &p);
    planned += p.budget;
    live++;
    Tuner_free(t);
  }
  bool ok = false;
  if (live == 0)
    snprintf(err, errsize, "%s: no variant asked for has anything to search at any of its problems "
             "(e.g. %.300s)", g->grid->path, why);
  else if (planned > PLAN_ENTRIES_MAX)
    snprintf(err, errsize, "%s: %lld measurements planned (%d problems x %d variants); at most %d: "
             "a smaller --budget or grid", g->grid->path, planned, g->grid->nproblems,
             g->cli->req.plan.nvariants, PLAN_ENTRIES_MAX);
  else
    ok = true;
  g->skip_notes = notes; /* said once the session is known to be usable */
  return ok;
}

static int Grid_dropRecords(Session *s, const char *variant, const Shape *shape) {
  int k = 0, dropped = 0;
  for (int i = 0; i < s->nrecords; i++) {
    Record *r = &s->records[i];
    if (strcmp(r->variant, variant) == 0 && Shape_equal(&r->shape, shape)) {
      Record_free(r);
      dropped++;
      continue;
    }
    if (k != i) s->records[k] = *r;
    k++;
  }
  s->nrecords = k;
  return dropped;
}

static int Grid_summaryOf(const Session *s, const char *variant, const Shape *shape) {
  for (int i = 0; i < s->ntune; i++)
    if (strcmp(s->tune[i].variant, variant) == 0 && Shape_equal(&s->tune[i].shape, shape)) return i;
  return -1;
}

/* Whether the winner of a complete search ran the kernel source there is now (a kernel edited
 * since is searched again: its entry would name the new source). */
static bool Grid_sameSource(const Session *s, const TuneSummary *t) {
  const Variant *v = Registry_find(t->variant);
  char now[20];
  if (!v || t->winner < 0 || t->winner >= s->nrecords || !Jit_sourceHash(v, now, sizeof now)) return true;
  const char *then = s->records[t->winner].build.source_hash;
  return !then[0] || strcmp(then, now) == 0;
}

/* A resumed session: its complete units are done; the records and summary of every other unit
 * of the grid go (the unit is searched again from its start, as an unstopped run would), and
 * the summaries left are ranked again (their winners' places moved). */
static void Grid_resume(GridRun *g) {
  Session *s = g->s;
  int dropped = 0, redo = 0, edited = 0;
  bool *keep_unit = Util_xcalloc((size_t)g->nunits + 1, sizeof *keep_unit);
  for (int i = 0; i < g->nunits; i++) { /* before any record moves: winners are indices */
    const GridUnit *u = &g->units[i];
    int k = Grid_summaryOf(s, g->cli->req.plan.variants[u->variant].name, &g->grid->problems[u->problem]);
    bool same = k < 0 || Grid_sameSource(s, &s->tune[k]);
    edited += !same;
    keep_unit[i] = k >= 0 && s->tune[k].complete && same;
  }
  for (int i = 0; i < g->nunits; i++) {
    GridUnit *u = &g->units[i];
    const char *v = g->cli->req.plan.variants[u->variant].name;
    const Shape *shape = &g->grid->problems[u->problem];
    if (keep_unit[i]) {
      if (u->state == UNIT_TODO) {
        u->state = UNIT_DONE;
        u->from_session = true;
        g->done_before++;
      }
      continue;
    }
    int k = Grid_summaryOf(s, v, shape);
    int n = Grid_dropRecords(s, v, shape);
    dropped += n;
    redo += n > 0 || k >= 0;
    if (k >= 0) {
      memmove(&s->tune[k], &s->tune[k + 1], sizeof *s->tune * (size_t)(s->ntune - k - 1));
      s->ntune--;
    }
  }
  free(keep_unit);
  int n = s->ntune;
  TuneSummary *keep = Util_xmalloc(sizeof *keep * (size_t)(n + 1));
  memcpy(keep, s->tune, sizeof *keep * (size_t)n);
  for (int i = 0; i < n; i++) Tune_finishSession(s, &keep[i], 1);
  free(keep);
  s->dirty = true;
  fprintf(stderr, "benchtop tune: resuming %s: %d of %d searches done", s->path, g->done_before,
          g->nunits - g->skipped);
  if (redo > edited) fprintf(stderr, "; %d cut short are searched again", redo - edited);
  if (edited) fprintf(stderr, "; %d measured with an older kernel source are searched again", edited);
  if (redo) fprintf(stderr, " (%d records dropped)", dropped);
  fputc('\n', stderr);
}

/* The session's plan goes on with this one: the same, or a grid that grew (every problem of the
 * session still in it; variants, knobs and options the same, the seed too where --seed was
 * given: without it the grid's seed, made from its problems, changed with them): its searches
 * are kept and only the new problems measured. where says what differs. */
static bool TuneGrid_samePlan(const Plan *old, const Plan *now, bool seed_given, char *where, size_t size) {
  for (int i = 0; i < old->nshapes; i++) {
    bool kept = false;
    for (int j = 0; j < now->nshapes && !kept; j++) kept = Shape_equal(&old->shapes[i], &now->shapes[j]);
    if (!kept) {
      char shape[96];
      Shape_format(&old->shapes[i], shape, sizeof shape);
      snprintf(where, size, "its problem %s is not in this grid", shape);
      return false;
    }
  }
  Plan grown = *old; /* read only: the session's plan with this grid's problems */
  grown.nshapes = now->nshapes;
  grown.shapes = now->shapes;
  if (!seed_given) grown.opts.seed = now->opts.seed;
  if (Plan_equal(&grown, now, "plan", where, size)) return true;
  size_t used = strlen(where);
  snprintf(where + used, size - used, " differs");
  return false;
}

/* The session: -o's file, new, a session of this very grid to go on with, or of a grid that
 * grew since. */
static bool Grid_session(GridRun *g, const char *out_path, char *err, size_t errsize) {
  char path[4096];
  if (out_path && Util_strlcpy(path, out_path, sizeof path) >= sizeof path) {
    snprintf(err, errsize, "-o: the name is %zu bytes; at most %zu", strlen(out_path), sizeof path - 1);
    return false;
  }
  if (!out_path && !Session_defaultPath(path, sizeof path)) {
    snprintf(err, errsize, "no sessions folder: %s", path);
    return false;
  }
  FILE *f = out_path ? fopen(path, "r") : NULL;
  bool resume = f != NULL;
  if (f) fclose(f);
  if (resume) {
    Session old;
    char where[400];
    if (!Session_load(path, &old, err, errsize)) return false;
    bool same = TuneGrid_samePlan(&old.plan, &g->cli->req.plan, g->seed_given, where, sizeof where);
    /* A grid that grew searches on with its session's seed: each unit's own comes from it. */
    if (same) g->cli->req.plan.opts.seed = old.plan.opts.seed;
    Session_free(&old);
    if (!same) {
      snprintf(err, errsize, "%s holds another grid or command line (%s): give the same -v, "
               "--knob, options and grid to go on with it, or name a new -o", path, where);
      return false;
    }
  }
  int existing = 0;
  Plan_free(&g->s->plan);
  Plan_copy(&g->s->plan, &g->cli->req.plan);
  if (!Session_openOutput(g->s, path, resume ? SESSION_OUT_APPEND : SESSION_OUT_NEW, &existing, err,
                          errsize))
    return false;
  g->resumed = resume;
  if (resume) { /* the grid's plan, also when it grew: what replay and a later resume read */
    Plan_free(&g->s->plan);
    Plan_copy(&g->s->plan, &g->cli->req.plan);
    Grid_resume(g);
  }
  return true;
}

/* The user's table: the winner of every complete unit. */
static bool Grid_storeTable(GridRun *g) {
  const Session *s = g->s;
  if (L2Persist_on(&g->cli->req.plan.opts)) return true;
  TunedEntry *keys = Util_xcalloc((size_t)g->nunits + 1, sizeof *keys), *entries = NULL;
  int n = 0;
  for (int i = 0; i < g->nunits; i++) {
    const GridUnit *u = &g->units[i];
    const Variant *v = Registry_find(g->cli->req.plan.variants[u->variant].name);
    TunedEntry *k = &keys[n];
    if (u->state != UNIT_DONE || !v || !Jit_sourceHash(v, k->source_hash, sizeof k->source_hash)) continue;
    Util_strlcpy(k->device, s->device.name, sizeof k->device);
    k->cc = s->device.cc_major * 10 + s->device.cc_minor;
    k->driver = s->device.driver_version;
    Util_strlcpy(k->variant, v->name, sizeof k->variant);
    k->shape = g->grid->problems[u->problem];
    k->cold_l2 = g->cli->req.plan.opts.cold_l2;
    k->graph = g->cli->req.plan.opts.graph;
    n++;
  }
  int m = Tune_tunedEntries(s, keys, n, &entries);
  free(keys);
  char path[4096], note[600], err[600];
  bool ok = true;
  if (m > 0) {
    TunedTable_path(path, sizeof path);
    ok = TunedTable_store(entries, m, note, sizeof note, err, sizeof err);
    if (!ok) fprintf(stderr, "benchtop tune: the tuned table was not updated: %s\n", err);
    else {
      if (note[0]) fprintf(stderr, "benchtop tune: %s\n", note);
      fprintf(stderr, "tuned table: %s (%d entr%s for plain runs and --knob auto)\n", path, m, m == 1 ? "y" : "ies");
    }
  }
  free(entries);
  return ok;
}

/* --table-out: the shipped form (benchtop tune-table) from the session just saved. */
static bool Grid_shippedTable(GridRun *g, const char *out) {
  TunedTableInfo info;
  int n = 0, searched = 0;
  char *warn = Util_xmalloc(1 << 16), err[1024];
  const char *sessions[1] = {g->s->path};
  bool ok = TunedTable_build(sessions, 1, out, &info, &n, warn, 1 << 16, err, sizeof err);
  for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n")) {
    if (strstr(line, ", not exhaustively")) {
      searched++; /* a grid searches within a budget: said once, below */
      continue;
    }
    fputs("benchtop tune: table note: ", stderr);
    Text_print(stderr, line);
    fputc('\n', stderr);
  }
  free(warn);
  if (!ok) {
    fputs("benchtop tune: --table-out: ", stderr);
    Text_print(stderr, err);
    fputc('\n', stderr);
    return false;
  }
  fprintf(stderr, "table: ");
  Text_print(stderr, out);
  fprintf(stderr, ": %d entries for %s (%d searched within the budget, not exhaustively)\n", n,
          info.chip, searched);
  return true;
}

/* After the loop: the session saved; the tables once every unit is done. */
static int Grid_conclude(GridRun *g, const char *table_out, int rc) {
  char err[512];
  if (rc == BT_EXIT_USAGE) return rc; /* refused at the worker's hello: nothing ran, nothing saved */
  if (rc == BT_EXIT_NO_GPU || !g->s->has_device) {
    if (!g->resumed) Session_discardOutput(g->s); /* claimed for nothing: a resumed one stays as it was */
    return rc;
  }
  if (!Session_autosave(g->s, err, sizeof err)) {
    fprintf(stderr, "benchtop tune: cannot save the session: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    return BT_EXIT_FAILED;
  }
  int todo = 0;
  for (int i = 0; i < g->nunits; i++) todo += g->units[i].state == UNIT_TODO;
  fprintf(stderr, "grid %s: %d searches done now, %d before, %d skipped, %d to do\n", g->grid->path,
          g->done_now, g->done_before, g->skipped, todo);
  if (todo == 0 && rc == BT_EXIT_OK) {
    if (g->cli->save_table && !Grid_storeTable(g)) rc = BT_EXIT_FAILED;
    if (table_out && !Grid_shippedTable(g, table_out)) rc = BT_EXIT_FAILED;
  } else if (todo > 0) {
    fprintf(stderr, "benchtop tune: %d searches left: run the same command (with -o ", todo);
    Text_print(stderr, g->s->path);
    fprintf(stderr, ") to go on; the table is written when the grid is done\n");
  }
  fprintf(stderr, "session: ");
  Text_print(stderr, g->s->path);
  fprintf(stderr, " (%d records)\n", g->s->nrecords);
  return rc;
}

static uint64_t Grid_hash(uint64_t h, const char *text) {
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) h = (h ^ *c) * 1099511628211u;
  return (h ^ 0xff) * 1099511628211u;
}

/* Without --seed a grid's seed comes from what it tunes (variants, their knob ranges, the
 * problems), not the clock: the same grid searches the same way every time it is made. */
static uint64_t Grid_seed(const Plan *plan) {
  uint64_t h = 1469598103934665603u;
  for (int i = 0; i < plan->nvariants; i++) {
    h = Grid_hash(h, plan->variants[i].name);
    for (int k = 0; k < plan->variants[i].nknobs; k++) h = Grid_hash(h, plan->variants[i].knobs[k]);
  }
  for (int i = 0; i < plan->nshapes; i++) {
    char name[64];
    Shape_format(&plan->shapes[i], name, sizeof name);
    h = Grid_hash(h, name);
  }
  return h;
}

int TuneCmd_grid(TuneCli *cli, const TuneGrid *grid, const char *table_out, bool seed_given) {
  Plan *plan = &cli->req.plan;
  free(plan->shapes);
  plan->shapes = Util_xmalloc(sizeof(Shape) * (size_t)grid->nproblems);
  memcpy(plan->shapes, grid->problems, sizeof(Shape) * (size_t)grid->nproblems);
  plan->nshapes = grid->nproblems;
  if (!seed_given) plan->opts.seed = Grid_seed(plan);
  Session s;
  Session_init(&s);
  GridRun g = {.cli = cli, .grid = grid, .s = &s, .seed_given = seed_given};
  g.nunits = grid->nproblems * plan->nvariants;
  g.units = Util_xcalloc((size_t)g.nunits, sizeof *g.units);
  for (int i = 0; i < g.nunits; i++) {
    g.units[i].problem = i / plan->nvariants;
    g.units[i].variant = i % plan->nvariants;
  }
  char err[9000]; /* room for two paths: never cut */
  int rc = BT_EXIT_USAGE;
  if (!Grid_probe(&g, err, sizeof err)) {
    Command_usageError(&Cmd_tune, "%s", err);
  } else if (!Grid_session(&g, cli->out_path, err, sizeof err)) {
    fprintf(stderr, "benchtop tune: cannot use the session: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
  } else {
    Grid_saySkipped(&g, g.skip_notes);
    rc = Grid_loop(&g);
    rc = Grid_conclude(&g, table_out, rc);
  }
  for (int i = 0; g.skip_notes && i < g.nunits; i++) free(g.skip_notes[i]);
  free(g.skip_notes);
  free(g.units);
  Session_free(&s);
  return rc;
}
