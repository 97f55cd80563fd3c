/* The variants panel (checkboxes and a knob summary per variant) and its knob editor, which
 * only offers the values a knob allows (KnobDesc.values). */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

static void ViewVariants_row(App *a, WINDOW *w, int idx, int y, int x, int width, attr_t cur) {
  const VariantRow *vr = &a->variants[idx];
  char knobs[RECORD_KNOBS_MAX], line[256];
  Registry_formatKnobs(vr->variant, &vr->knobs, knobs, sizeof knobs);
  wattrset(w, Draw_attr(cur, vr->checked ? TH_MARKED : TH_NORMAL));
  snprintf(line, sizeof line, "[%c] %-9s", vr->checked ? 'x' : ' ', vr->variant->name);
  Draw_clip(w, y, x, width, line);
  int used = (int)strlen(line) + 1;
  wattrset(w, Draw_attr(cur, TH_DIM));
  Draw_clip(w, y, x + used, width - used, knobs[0] ? knobs : "(no knobs)");
}

void ViewVariants_draw(App *a) {
  WINDOW *w = a->w_var;
  werase(w);
  int checked = 0;
  for (int i = 0; i < a->nvariants; i++) checked += a->variants[i].checked;
  char title[64];
  snprintf(title, sizeof title, "Variants %d/%d", checked, a->nvariants);
  Draw_box(a, w, title, a->focus == PANEL_VARIANTS);
  Draw_list(a, w, &a->vcur, a->nvariants, a->focus == PANEL_VARIANTS, ViewVariants_row);
  wnoutrefresh(w);
}

void ViewVariants_key(App *a, int ch) {
  if (a->nvariants == 0) return;
  VariantRow *vr = &a->variants[a->vcur.sel];
  switch (ch) {
  case ' ':
    vr->checked = !vr->checked;
    ListCursor_move(&a->vcur, a->nvariants, 1);
    break;
  case '\n': case KEY_ENTER: case 'e':
    if (vr->variant->nknobs == 0) {
      App_message(a, false, "%s has no knobs", vr->variant->name);
      return;
    }
    a->knob_sel = 0;
    a->overlay = OVERLAY_KNOBS;
    a->dirty |= DIRTY_OVERLAY;
    break;
  default: return;
  }
  a->dirty |= DIRTY_VARIANTS;
}

/* ---- knob editor overlay ---------------------------------------------------------------- */

void ViewKnobs_draw(App *a) {
  VariantRow *vr = &a->variants[a->vcur.sel];
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
    bool sel = i == a->knob_sel;
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
  wattrset(w, Theme_attr(TH_DIM));
  Draw_clip(w, h - 3, 2, wd - 4, "Up/Down knob   Left/Right value   p preset   d defaults");
  char preset[RECORD_KNOBS_MAX];
  Registry_formatKnobs(v, &vr->knobs, preset, sizeof preset);
  wattrset(w, Theme_attr(TH_ACCENT));
  Draw_clip(w, h - 2, 2, wd - 4, preset);
  wattrset(w, Theme_attr(TH_DIM));
  Draw_clip(w, h - 2, wd - 18, 16, "Enter/Esc close");
  wnoutrefresh(w);
}

/* Next shipped preset after the current setting (wrapping), so `p` walks the presets. */
static void ViewKnobs_nextPreset(App *a, VariantRow *vr) {
  const Variant *v = vr->variant;
  int n = 0;
  while (n < VARIANT_MAX_PRESETS && v->presets[n]) n++;
  if (n == 0) return;
  char now[RECORD_KNOBS_MAX];
  Registry_formatKnobs(v, &vr->knobs, now, sizeof now);
  int at = -1;
  for (int i = 0; i < n; i++) {
    KnobValues kv;
    Registry_defaults(v, &kv);
    char err[128], s[RECORD_KNOBS_MAX];
    if (!Registry_applyKnobs(v, v->presets[i], &kv, false, err, sizeof err)) continue;
    Registry_formatKnobs(v, &kv, s, sizeof s);
    if (strcmp(s, now) == 0) at = i;
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
  App_message(a, false, "preset %d/%d: %s", (at + 1) % n + 1, n, next[0] ? next : "defaults");
}

void ViewKnobs_key(App *a, int ch) {
  VariantRow *vr = &a->variants[a->vcur.sel];
  const Variant *v = vr->variant;
  if (v->nknobs == 0) {
    a->overlay = OVERLAY_NONE;
    return;
  }
  const KnobDesc *k = &v->knobs[a->knob_sel];
  int nvals = Registry_knobValueCount(k);
  switch (ch) {
  case KEY_UP: case 'k':
    if (a->knob_sel > 0) a->knob_sel--;
    break;
  case KEY_DOWN: case 'j': case '\t':
    if (a->knob_sel < v->nknobs - 1) a->knob_sel++;
    break;
  case KEY_LEFT: case 'h':
    if (nvals > 0) vr->knobs.idx[a->knob_sel] = (vr->knobs.idx[a->knob_sel] + nvals - 1) % nvals;
    break;
  case KEY_RIGHT: case 'l': case ' ':
    if (nvals > 0) vr->knobs.idx[a->knob_sel] = (vr->knobs.idx[a->knob_sel] + 1) % nvals;
    break;
  case 'p': ViewKnobs_nextPreset(a, vr); break;
  case 'd': Registry_defaults(v, &vr->knobs); break;
  case '\n': case KEY_ENTER: case 27: case 'q':
    a->overlay = OVERLAY_NONE;
    a->dirty = DIRTY_ALL;
    return;
  default: return;
  }
  if (ch != KEY_UP && ch != 'k' && ch != KEY_DOWN && ch != 'j' && ch != '\t') App_prebuild(a, vr);
  a->dirty |= DIRTY_OVERLAY | DIRTY_VARIANTS;
}
