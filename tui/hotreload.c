/* Hot reload: a variant's .cu saved in an editor is read again within a poll interval, its
 * declaration checked and its code compiled in a child process; the status line says
 * "rebuilt NAME: compiled in ..." or the first error as FILE:LINE. Only a version that built
 * replaces the variant: a broken save leaves the last good one in use, and nothing is lost. */
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "bench/rebuild.h"
#include "common/util.h"
#include "common/watch.h"
#include "tui/runs.h"
#include "tui/tui.h"

#define RELOAD_MAX_CHANGES 32

void HotReload_start(App *a) {
  ReloadState *rs = &a->reload;
  for (int i = 0; i < a->variants.count; i++) {
    const Variant *v = a->variants.rows[i].variant;
    if (!v->path) continue; /* compiled into benchtop: nothing to watch */
    if (!rs->watch) rs->watch = Watch_new(false);
    Watch_add(rs->watch, v->path);
  }
}

int HotReload_fd(const App *a) { return a->reload.watch ? Watch_fd(a->reload.watch) : -1; }
int HotReload_buildFd(const App *a) { return Rebuild_fd(a->reload.build); }
int HotReload_timeoutMs(const App *a) { return a->reload.watch ? Watch_timeoutMs(a->reload.watch) : -1; }

static VariantRow *HotReload_row(App *a, const char *name) {
  for (int i = 0; i < a->variants.count; i++)
    if (strcmp(a->variants.rows[i].variant->name, name) == 0) return &a->variants.rows[i];
  return NULL;
}

/* The head dimension to compile for: the first checked shape's that the variant supports. */
static int HotReload_headDim(const App *a, const Variant *v) {
  for (int i = 0; i < a->shapes.count; i++) {
    if (!a->shapes.rows[i].checked) continue;
    for (int d = 0; d < VARIANT_MAX_HEAD_DIMS && v->head_dims[d]; d++)
      if (v->head_dims[d] == a->shapes.rows[i].shape.D) return v->head_dims[d];
  }
  return v->head_dims[0] ? v->head_dims[0] : 64;
}

/* The knobs of the row carried over to v where it still has them (by name and value). */
static void HotReload_carryKnobs(const Variant *old, const KnobValues *from, const Variant *v,
                                 KnobValues *to) {
  Registry_defaults(v, to);
  for (int k = 0; k < v->nknobs; k++) {
    int ok = Registry_knobIndex(old, v->knobs[k].name);
    if (ok < 0) continue;
    int j = Registry_knobValueIndex(&v->knobs[k], old->knobs[ok].values[from->idx[ok]]);
    if (j >= 0) to->idx[k] = j;
  }
}

/* Reads name's file again and starts compiling it; a declaration error is said at once. */
static void HotReload_begin(App *a, const char *name) {
  ReloadState *rs = &a->reload;
  VariantRow *vr = HotReload_row(a, name);
  if (!vr) return;
  if (rs->build) { /* one compile at a time: this one is read when that one ends */
    Util_strlcpy(rs->pending, name, sizeof rs->pending);
    return;
  }
  char err[600];
  Variant *v = Registry_readAgain(name, err, sizeof err);
  if (!v) {
    App_message(a, true, "%s (%s keeps its last good version)", err, name);
    return;
  }
  KnobValues kv;
  HotReload_carryKnobs(vr->variant, &vr->knobs, v, &kv);
  int cc = a->tune.have_device ? a->tune.device.cc_major * 10 + a->tune.device.cc_minor : 0;
  rs->build = Rebuild_start(v, &kv, HotReload_headDim(a, v), cc, err, sizeof err);
  if (!rs->build) { /* no compiler here: the declaration alone was checked */
    App_message(a, false, "reloaded %s: %s", name, err);
    const Variant *nv = Registry_install(v);
    if (nv) {
      vr->knobs = kv;
      vr->variant = nv;
    }
    a->dirty |= DIRTY_VARIANTS | DIRTY_SIDE;
    return;
  }
  rs->candidate = v;
  App_message(a, false, "%s changed: compiling...", name);
}

/* The compile ended: the candidate replaces the variant when it built. */
static void HotReload_finish(App *a) {
  ReloadState *rs = &a->reload;
  bool ok = false;
  char msg[600];
  if (!Rebuild_result(rs->build, &ok, msg, sizeof msg)) return;
  Rebuild_free(rs->build);
  rs->build = NULL;
  Variant *v = rs->candidate;
  rs->candidate = NULL;
  char name[VARIANT_NAME_MAX];
  Util_strlcpy(name, v->name, sizeof name);
  VariantRow *vr = HotReload_row(a, name);
  if (!ok || !vr) {
    App_message(a, true, "%s (%s keeps its last good build)", msg, name);
    Registry_freeVariant(v);
  } else {
    KnobValues kv;
    HotReload_carryKnobs(vr->variant, &vr->knobs, v, &kv);
    const Variant *nv = Registry_install(v);
    if (nv) {
      vr->variant = nv;
      vr->knobs = kv;
      rs->restart_worker = true;
      App_message(a, false, "rebuilt %s: %s", name, msg);
    }
    a->dirty |= DIRTY_VARIANTS | DIRTY_SIDE;
  }
  if (rs->pending[0]) {
    char next[VARIANT_NAME_MAX];
    Util_strlcpy(next, rs->pending, sizeof next);
    rs->pending[0] = '\0';
    HotReload_begin(a, next);
  }
}

void HotReload_poll(App *a) {
  ReloadState *rs = &a->reload;
  if (rs->build) {
    struct pollfd pfd = {.fd = Rebuild_fd(rs->build), .events = POLLIN};
    if (poll(&pfd, 1, 0) > 0) HotReload_finish(a);
  }
  if (!rs->watch) return;
  int changed[RELOAD_MAX_CHANGES];
  int n = Watch_changes(rs->watch, changed, RELOAD_MAX_CHANGES);
  for (int i = 0; i < n; i++) {
    const char *path = Watch_path(rs->watch, changed[i]);
    for (int r = 0; r < a->variants.count; r++) {
      const Variant *v = a->variants.rows[r].variant;
      if (v->path && strcmp(v->path, path) == 0) HotReload_begin(a, v->name);
    }
  }
  if (n) a->dirty |= DIRTY_STATUS;
  HotReload_workerIdle(a); /* here, never inside the runner's own event loop */
}

void HotReload_workerIdle(App *a) {
  ReloadState *rs = &a->reload;
  if (!rs->restart_worker || !a->run.runner || a->run.running || a->tune.tuner || a->tune.prebuild)
    return;
  Runner_free(a->run.runner); /* the next run starts a worker that reads the files again */
  a->run.runner = NULL;
  a->tune.have_device = false;
  rs->restart_worker = false;
  Util_strlcpy(a->run.worker, "idle", sizeof a->run.worker);
  a->dirty |= DIRTY_STATUS;
}

void HotReload_free(App *a) {
  ReloadState *rs = &a->reload;
  Rebuild_free(rs->build);
  if (rs->candidate) Registry_freeVariant(rs->candidate);
  Watch_free(rs->watch);
  memset(rs, 0, sizeof *rs);
}
