/* The status line (top: session file and autosave state, device, worker state, progress) and
 * the key bar (bottom: the keys that matter where the user is, or the last message). */
#include <stdio.h>
#include <string.h>

#include "bench/plan.h"
#include "common/util.h"
#include "tui/tui.h"

static const char *Statusline_base(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

static void Statusline_session(const App *a, char *buf, size_t size) {
  const Session *s = &a->session;
  if (!s->path[0]) {
    snprintf(buf, size, "%s (not saved: S saves)",
             s->nrecords ? "unsaved session" : "empty session");
  } else if (!a->autosave_ok) {
    snprintf(buf, size, "%.200s AUTOSAVE FAILED", Statusline_base(s->path));
  } else if (a->from_example) {
    snprintf(buf, size, "%.200s (example, read-only)", Statusline_base(s->path));
  } else {
    snprintf(buf, size, "%.200s (%s)", Statusline_base(s->path), s->dirty ? "unsaved" : "saved");
  }
}

/* The run options that differ from benchtop run's defaults, so the next run holds no surprise. */
static void Statusline_runOptions(const App *a, char *buf, size_t size) {
  const RunOptions *o = &a->run.opts;
  RunOptions d;
  Plan_defaultOptions(&d);
  size_t n = 0;
  buf[0] = 0;
#define ADD(...) \
  do { if (n < size) n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
  if (o->reps != d.reps) ADD(" reps %d", o->reps);
  if (o->warmup != d.warmup) ADD(" warm-up %d", o->warmup);
  if (o->cold_l2) ADD(" cold-L2");
  if (o->graph) ADD(" graph");
  if (o->event_timing) ADD(" events");
  if (o->l2_persist[0]) ADD(" l2-persist %.8s", o->l2_persist);
  if (strcmp(a->run.metrics, "default") != 0) ADD(" metrics %.40s", a->run.metrics);
  if (a->run.seed_fixed) ADD(" seed %llu", (unsigned long long)o->seed);
  if (o->watchdog_s != d.watchdog_s) ADD(" watchdog %.0fs", o->watchdog_s);
#undef ADD
}

void Statusline_draw(App *a) {
  WINDOW *w = a->w_status;
  int width = getmaxx(w);
  attr_t base = Theme_attr(a->run.running ? TH_STATUS_BUSY : TH_STATUS);
  wbkgdset(w, ' ' | base);
  werase(w);
  wattrset(w, base);
  mvwhline(w, 0, 0, ' ', width);
  char sess[512], dev[160], work[256];
  Statusline_session(a, sess, sizeof sess);
  if (a->run.no_gpu) snprintf(dev, sizeof dev, "no GPU");
  else if (a->run.device[0]) snprintf(dev, sizeof dev, "%s", a->run.device);
  else if (a->session.has_device) snprintf(dev, sizeof dev, "recorded on %s", a->session.device.name);
  else snprintf(dev, sizeof dev, "device: not started");
  /* Progress as a bar of # over the width that is left, so it reads at 80 columns. */
  if (a->run.running) {
    int barw = width / 6;
    if (barw > 24) barw = 24;
    char bar[32];
    int fill = a->run.total > 0 ? a->run.done * barw / a->run.total : 0;
    for (int i = 0; i < barw; i++) bar[i] = i < fill ? '#' : '-';
    bar[barw] = 0;
    snprintf(work, sizeof work, "%d/%d [%s] %s", a->run.done, a->run.total, bar, a->run.worker);
  } else {
    snprintf(work, sizeof work, "%s", a->run.worker);
  }
  char opts[256], line[1400];
  Statusline_runOptions(a, opts, sizeof opts);
  snprintf(line, sizeof line, " benchtop | %s | %s | %s%s%s", sess, dev, work,
           opts[0] ? " | next:" : "", opts);
  Draw_clip(w, 0, 0, width, line);
  wnoutrefresh(w);
}

/* "KEY what": the key in the key colour. */
static void Keybar_item(App *a, WINDOW *w, int x, const KeyBinding *b, attr_t base) {
  const char *bar = b->bar;
  KeybarView *kv = &a->keybar;
  if (kv->count < (int)(sizeof kv->key / sizeof kv->key[0])) {
    kv->x0[kv->count] = x;
    kv->x1[kv->count] = x + (int)strlen(bar);
    kv->key[kv->count++] = b->keys[0];
  }
  const char *sp = strchr(bar, ' ');
  int klen = sp ? (int)(sp - bar) : (int)strlen(bar);
  wattrset(w, Theme_attr(TH_KEY));
  mvwaddnstr(w, 0, x, bar, klen);
  wattrset(w, base);
  mvwprintw(w, 0, x + klen, "%s ", bar + klen);
}

void Keybar_draw(App *a) {
  WINDOW *w = a->w_keys;
  int width = getmaxx(w);
  attr_t base = Theme_attr(TH_KEYBAR);
  wbkgdset(w, ' ' | base);
  werase(w);
  wattrset(w, base);
  mvwhline(w, 0, 0, ' ', width);
  a->keybar.count = 0;
  if (a->message[0]) {
    wattrset(w, Theme_attr(a->message_error ? TH_ERROR : TH_MESSAGE));
    mvwhline(w, 0, 0, ' ', width);
    Draw_clip(w, 0, 1, width - 2, a->message);
    wnoutrefresh(w);
    return;
  }
  /* The bar words of the tables that apply now (keys.c): a key shown here is a key that works.
   * Pinned ones (F1, F10) at the right end, the others from the left while they fit. */
  const KeyTable *chain[8];
  int n = Keys_chain(a, chain, 8), pinned = 0;
  for (int t = 0; t < n; t++)
    for (int i = 0; chain[t]->pinned && i < chain[t]->count; i++)
      if (chain[t]->bindings[i].bar) pinned += (int)strlen(chain[t]->bindings[i].bar) + 1;
  if (pinned > width) pinned = 0; /* no room: the others only */
  int right = width - pinned, x = 0;
  for (int t = 0; t < n; t++)
    for (int i = 0; i < chain[t]->count; i++) {
      const KeyBinding *b = &chain[t]->bindings[i];
      if (!b->bar) continue;
      int need = (int)strlen(b->bar) + 1;
      if (chain[t]->pinned) {
        if (pinned) Keybar_item(a, w, right, b, base);
        right += need;
      } else if (x + need <= width - pinned) {
        Keybar_item(a, w, x, b, base);
        x += need;
      }
    }
  wnoutrefresh(w);
}
