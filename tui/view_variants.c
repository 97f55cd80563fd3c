/* The variants panel (checkboxes and a knob summary per variant) and its knob editor, which
 * only offers the values a knob allows (KnobDesc.values). */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/runs.h"
#include "tui/tui.h"

static const KeyTable ViewKnobs_keys; /* at the end, with its actions */

static void ViewVariants_row(App *a, WINDOW *w, int idx, int y, int x, int width, attr_t cur) {
  const VariantRow *vr = &a->variants.rows[idx];
  char knobs[RECORD_KNOBS_MAX], line[256];
  Registry_formatKnobs(vr->variant, &vr->knobs, knobs, sizeof knobs);
  wattrset(w, Draw_attr(cur, vr->checked ? TH_MARKED : TH_NORMAL));
  snprintf(line, sizeof line, "[%c] %-9s", vr->checked ? 'x' : ' ', vr->variant->name);
  Draw_clip(w, y, x, width, line);
  int used = (int)strlen(line) + 1;
  wattrset(w, Draw_attr(cur, TH_DIM));
  if (vr->knobs_auto || (!vr->knobs_set && vr->auto_shown[0])) {
    /* auto, or knobs left alone that took tuned ones: what was chosen at the last run */
    char shown[RECORD_KNOBS_MAX + 48];
    snprintf(shown, sizeof shown, "%s%s%s", vr->knobs_auto ? "auto" : "",
             vr->knobs_auto && vr->auto_shown[0] ? ": " : "", vr->auto_shown);
    wattrset(w, Draw_attr(cur, TH_ACCENT));
    Draw_clip(w, y, x + used, width - used, shown);
    return;
  }
  Draw_clip(w, y, x + used, width - used, knobs[0] ? knobs : "(no knobs)");
}

static void ViewVariants_draw(App *a, unsigned dirty) {
  (void)dirty;
  WINDOW *w = a->w_var;
  werase(w);
  VariantsView *vv = &a->variants;
  int checked = 0;
  for (int i = 0; i < vv->count; i++) checked += vv->rows[i].checked;
  char title[64];
  snprintf(title, sizeof title, "Variants %d/%d", checked, vv->count);
  Draw_box(a, w, title, a->focus == &View_variants);
  Draw_list(a, w, &vv->cur, vv->count, a->focus == &View_variants, ViewVariants_row);
  wnoutrefresh(w);
}

static VariantRow *ViewVariants_selected(App *a) {
  VariantsView *vv = &a->variants;
  return vv->count ? &vv->rows[vv->cur.sel] : NULL;
}

static void ViewVariants_check(App *a, int ch) {
  (void)ch;
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr) return;
  vr->checked = !vr->checked;
  ListCursor_move(&a->variants.cur, a->variants.count, 1);
  a->dirty |= DIRTY_VARIANTS;
}

static void ViewVariants_editKnobs(App *a, int ch) {
  (void)ch;
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr) return;
  if (vr->variant->nknobs == 0) {
    App_message(a, false, "%s has no knobs", vr->variant->name);
    return;
  }
  a->variants.knob_sel = 0;
  View_show(a, &View_knobs);
  a->dirty |= DIRTY_VARIANTS;
}

static const KeyBinding ViewVariants_bindings[] = {
  {{' '}, "Space", "Spc check", "check / uncheck the variant for the next run", ViewVariants_check},
  {{'\n', KEY_ENTER, 'e'}, "Enter / e", "Enter knobs", "edit the variant's knobs",
   ViewVariants_editKnobs},
};
static const KeyTable ViewVariants_keys = KEY_TABLE("Variants", ViewVariants_bindings);

/* ---- knob editor overlay ---------------------------------------------------------------- */

static void ViewKnobs_draw(App *a, unsigned dirty) {
  (void)dirty;
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr) return;
  const Variant *v = vr->variant;
  int h = v->nknobs * 2 + 6, wd = a->cols - 8 < 76 ? a->cols - 8 : 76;
  if (h > a->rows - 2) h = a->rows - 2; /* the caller lays out for the clamped height */
  WINDOW *w = Draw_overlay(a, h, wd);
  if (!w) return;
  char title[96];
  snprintf(title, sizeof title, "Knobs: %s", v->name);
  Draw_box(a, w, title, true);
  int y = 1;
  for (int i = 0; i < v->nknobs && y < h - 3; i++) {
    const KnobDesc *k = &v->knobs[i];
    bool sel = i == a->variants.knob_sel;
    wattrset(w, Theme_attr(sel ? TH_CURSOR : TH_NORMAL));
    mvwhline(w, y, 1, ' ', wd - 2);
    char line[160];
    snprintf(line, sizeof line, " %-8s <", k->name);
    Draw_clip(w, y, 1, wd - 2, line);
    int x = 1 + (int)strlen(line);
    for (int j = 0; j < Registry_knobValueCount(k) && x < wd - 2; j++) {
      bool cur = vr->knobs.idx[i] == j;
      char val[48];
      snprintf(val, sizeof val, cur ? " [%s]" : "  %s ", k->values[j]);
      wattrset(w, sel ? Theme_attr(TH_CURSOR) : Theme_attr(cur ? TH_MARKED : TH_DIM));
      Draw_clip(w, y, x, wd - 2 - x, val);
      x += (int)strlen(val);
    }
    wattrset(w, Theme_attr(sel ? TH_CURSOR : TH_NORMAL));
    Draw_clip(w, y, x, wd - 2 - x, " >");
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, y + 1, 4, wd - 6, k->help ? k->help : "");
    y += 2;
  }
  Draw_keyBar(w, h - 3, 1, wd - 2, &ViewKnobs_keys);
  char preset[RECORD_KNOBS_MAX];
  Registry_formatKnobs(v, &vr->knobs, preset, sizeof preset);
  wattrset(w, Theme_attr(TH_ACCENT));
  Draw_clip(w, h - 2, 2, wd - 4, preset);
  wnoutrefresh(w);
}

/* Next shipped preset after the current setting (wrapping), so `p` walks the presets. */
static void ViewKnobs_nextPreset(App *a, VariantRow *vr) {
  const Variant *v = vr->variant;
  int n = 0;
  while (n < VARIANT_MAX_PRESETS && v->presets[n]) n++;
  if (n == 0) return;
  int at = -1;
  for (int i = 0; i < n; i++) {
    KnobValues kv;
    Registry_defaults(v, &kv);
    char err[128];
    if (!Registry_applyKnobs(v, v->presets[i], &kv, false, err, sizeof err)) continue;
    if (KnobValues_equal(v, &kv, &vr->knobs)) at = i;
  }
  const char *next = v->presets[(at + 1) % n];
  KnobValues kv;
  Registry_defaults(v, &kv);
  char err[160];
  if (!Registry_applyKnobs(v, next, &kv, false, err, sizeof err)) {
    App_message(a, true, "preset '%s': %s", next, err);
    return;
  }
  vr->knobs = kv;
  vr->knobs_set = true;
  App_message(a, false, "preset %d/%d: %s", (at + 1) % n + 1, n, next[0] ? next : "defaults");
}

/* The knobs shown were chosen by hand: explicit from now on (no longer auto), and compiled in
 * the background. */
static void ViewKnobs_chosen(App *a, VariantRow *vr) {
  vr->knobs_auto = false;
  vr->knobs_set = true;
  vr->auto_shown[0] = '\0';
  App_prebuild(a, vr);
  a->dirty |= DIRTY_OVERLAY | DIRTY_VARIANTS;
}

/* Left/Right and friends on the selected knob; every change compiles in the background. */
static void ViewKnobs_value(App *a, int ch) {
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr || vr->variant->nknobs == 0) return;
  int *sel = &a->variants.knob_sel;
  const KnobDesc *k = &vr->variant->knobs[*sel];
  int nvals = Registry_knobValueCount(k);
  if (nvals <= 0) return;
  if (ch == KEY_LEFT || ch == 'h') vr->knobs.idx[*sel] = (vr->knobs.idx[*sel] + nvals - 1) % nvals;
  else vr->knobs.idx[*sel] = (vr->knobs.idx[*sel] + 1) % nvals;
  ViewKnobs_chosen(a, vr);
}

static void ViewKnobs_row(App *a, int ch) {
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr) return;
  a->variants.knob_sel = Index_move(a->variants.knob_sel, vr->variant->nknobs, Keys_delta(ch));
  a->dirty |= DIRTY_OVERLAY;
}

static void ViewKnobs_preset(App *a, int ch) {
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr) return;
  if (ch == 'p') ViewKnobs_nextPreset(a, vr);
  else Registry_defaults(vr->variant, &vr->knobs);
  ViewKnobs_chosen(a, vr);
}

/* auto: each shape runs with what benchtop tune found for it on this GPU (or the defaults,
 * said in the record); a knob change goes back to explicit knobs. */
static void ViewKnobs_auto(App *a, int ch) {
  (void)ch;
  VariantRow *vr = ViewVariants_selected(a);
  if (!vr) return;
  vr->knobs_auto = !vr->knobs_auto;
  vr->knobs_set |= !vr->knobs_auto; /* auto off: the knobs shown, as chosen */
  vr->auto_shown[0] = '\0';
  App_message(a, false, "%s: %s", vr->variant->name,
              vr->knobs_auto ? "auto (the tuned knobs of each shape, or the defaults)" : "explicit knobs");
  a->dirty |= DIRTY_OVERLAY | DIRTY_VARIANTS;
}

static const KeyBinding ViewKnobs_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", "Up/Dn knob", "previous / next knob",
   ViewKnobs_row},
  {{'\t'}, "Tab", NULL, "next knob", ViewKnobs_row},
  {{KEY_LEFT, KEY_RIGHT, 'h', 'l'}, "Left Right / h l", "Lt/Rt value",
   "previous / next allowed value (compiles in the background)", ViewKnobs_value},
  {{' '}, "Space", NULL, "next allowed value", ViewKnobs_value},
  {{'p'}, "p", "p preset", "next shipped preset", ViewKnobs_preset},
  {{'d'}, "d", "d defaults", "the variant's defaults", ViewKnobs_preset},
  {{'a'}, "a", "a auto", "auto: the knobs benchtop tune found for each shape (again: explicit)",
   ViewKnobs_auto},
  {{'\n', KEY_ENTER, 27, 'q'}, "Enter / Esc", "Esc close", "close the knob editor",
   Keys_closeOverlay},
};
static const KeyTable ViewKnobs_keys = KEY_TABLE("Knobs", ViewKnobs_bindings);

static WINDOW *ViewVariants_window(const App *a) { return a->w_var; }

static ListCursor *ViewVariants_cursor(App *a, int *count) {
  *count = a->variants.count;
  return &a->variants.cur;
}

const View View_variants = {
  .name = "variants", .layer = VIEW_PANEL, .keys = &ViewVariants_keys,
  .draw = ViewVariants_draw, .region = DIRTY_VARIANTS, .window = ViewVariants_window,
  .cursor = ViewVariants_cursor,
};

const View View_knobs = {
  .name = "knobs", .layer = VIEW_OVERLAY, .keys = &ViewKnobs_keys, .draw = ViewKnobs_draw,
};
