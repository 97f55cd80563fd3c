/* The shapes panel: the notebook's presets plus the session's shapes, each with a checkbox;
 * add, edit and delete through a one-line prompt parsed by Shape_parse. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

static int ViewShapes_find(const App *a, const Shape *s) {
  for (int i = 0; i < a->nshapes; i++)
    if (Shape_equal(&a->shapes[i].shape, s)) return i;
  return -1;
}

static int ViewShapes_add(App *a, const Shape *s, bool checked) {
  int at = ViewShapes_find(a, s);
  if (at >= 0) {
    a->shapes[at].checked |= checked;
    return at;
  }
  if (a->nshapes == a->shapes_cap) {
    a->shapes_cap = a->shapes_cap ? a->shapes_cap * 2 : 16;
    a->shapes = Util_xrealloc(a->shapes, (size_t)a->shapes_cap * sizeof *a->shapes);
  }
  a->shapes[a->nshapes].shape = *s;
  a->shapes[a->nshapes].checked = checked;
  return a->nshapes++;
}

void ViewShapes_load(App *a) {
  a->nshapes = 0;
  for (int i = 0; i < Shape_presetCount; i++) {
    Shape s;
    char err[128];
    if (Shape_parse(Shape_presets[i], &s, err, sizeof err)) ViewShapes_add(a, &s, false);
  }
  /* The open session's plan is checked, so `r` repeats what the session did. */
  for (int i = 0; i < a->session.plan.nshapes; i++)
    ViewShapes_add(a, &a->session.plan.shapes[i], true);
  for (int i = 0; i < a->session.nrecords; i++)
    ViewShapes_add(a, &a->session.records[i].shape, false);
  ListCursor_move(&a->scur, a->nshapes, 0);
}

bool ViewShapes_submit(App *a, const char *text, bool replace, char *err, size_t errsize) {
  Shape s;
  if (!Shape_parse(text, &s, err, errsize)) return false;
  if (replace && a->scur.sel < a->nshapes) {
    int dup = ViewShapes_find(a, &s);
    if (dup >= 0 && dup != a->scur.sel) {
      snprintf(err, errsize, "%s is already in the list", text);
      return false;
    }
    a->shapes[a->scur.sel].shape = s;
  } else {
    a->scur.sel = ViewShapes_add(a, &s, true);
    a->shapes[a->scur.sel].checked = true;
  }
  a->dirty |= DIRTY_SHAPES;
  return true;
}

static void ViewShapes_row(App *a, WINDOW *w, int idx, int y, int x, int width, attr_t cur) {
  const ShapeRow *sr = &a->shapes[idx];
  char name[64], line[128];
  Shape_format(&sr->shape, name, sizeof name);
  wattrset(w, Draw_attr(cur, sr->checked ? TH_MARKED : TH_NORMAL));
  snprintf(line, sizeof line, "[%c] %-18s", sr->checked ? 'x' : ' ', name);
  Draw_clip(w, y, x, width, line);
  int used = (int)strlen(line) + 1;
  double flop = Shape_flops(&sr->shape);
  if (flop >= 1e12) snprintf(line, sizeof line, "%.3g TFLOP", flop / 1e12);
  else if (flop >= 1e9) snprintf(line, sizeof line, "%.3g GFLOP", flop / 1e9);
  else if (flop >= 1e6) snprintf(line, sizeof line, "%.3g MFLOP", flop / 1e6);
  else snprintf(line, sizeof line, "%.3g kFLOP", flop / 1e3);
  wattrset(w, Draw_attr(cur, TH_DIM));
  Draw_clip(w, y, x + used, width - used, line);
}

void ViewShapes_draw(App *a) {
  WINDOW *w = a->w_shape;
  werase(w);
  int checked = 0;
  for (int i = 0; i < a->nshapes; i++) checked += a->shapes[i].checked;
  char title[64];
  snprintf(title, sizeof title, "Shapes %d/%d", checked, a->nshapes);
  Draw_box(a, w, title, a->focus == PANEL_SHAPES);
  Draw_list(a, w, &a->scur, a->nshapes, a->focus == PANEL_SHAPES, ViewShapes_row);
  wnoutrefresh(w);
}

void ViewShapes_key(App *a, int ch) {
  char name[64];
  switch (ch) {
  case ' ':
    if (a->nshapes == 0) return;
    a->shapes[a->scur.sel].checked = !a->shapes[a->scur.sel].checked;
    ListCursor_move(&a->scur, a->nshapes, 1);
    break;
  case 'a':
    ViewPrompt_open(a, PROMPT_ADD_SHAPE, "add shape BxHxSxD[:causal]: ", "");
    return;
  case 'e': case '\n': case KEY_ENTER:
    if (a->nshapes == 0) return;
    Shape_format(&a->shapes[a->scur.sel].shape, name, sizeof name);
    ViewPrompt_open(a, PROMPT_EDIT_SHAPE, "edit shape: ", name);
    return;
  case 'd': case KEY_DC:
    if (a->nshapes == 0) return;
    Shape_format(&a->shapes[a->scur.sel].shape, name, sizeof name);
    memmove(&a->shapes[a->scur.sel], &a->shapes[a->scur.sel + 1],
            (size_t)(a->nshapes - a->scur.sel - 1) * sizeof *a->shapes);
    a->nshapes--;
    ListCursor_move(&a->scur, a->nshapes, 0);
    App_message(a, false, "removed shape %s", name);
    break;
  default: return;
  }
  a->dirty |= DIRTY_SHAPES;
}
