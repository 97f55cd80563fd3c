/* The shapes panel: the preset shapes plus the session's shapes, each with a checkbox;
 * add, edit and delete through a one-line prompt parsed by Shape_parse (a malformed problem is
 * refused with its one-line reason and the row keeps its last good value). */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

static int ViewShapes_find(const App *a, const Shape *s) {
  for (int i = 0; i < a->shapes.count; i++)
    if (Shape_equal(&a->shapes.rows[i].shape, s)) return i;
  return -1;
}

static int ViewShapes_add(App *a, const Shape *s, bool checked) {
  int at = ViewShapes_find(a, s);
  if (at >= 0) {
    a->shapes.rows[at].checked |= checked;
    return at;
  }
  if (a->shapes.count == a->shapes.cap) {
    a->shapes.cap = a->shapes.cap ? a->shapes.cap * 2 : 16;
    a->shapes.rows = Util_xrealloc(a->shapes.rows, (size_t)a->shapes.cap * sizeof *a->shapes.rows);
  }
  a->shapes.rows[a->shapes.count].shape = *s;
  a->shapes.rows[a->shapes.count].checked = checked;
  return a->shapes.count++;
}

void ViewShapes_load(App *a) {
  a->shapes.count = 0;
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
  ListCursor_move(&a->shapes.cur, a->shapes.count, 0);
}

bool ViewShapes_submit(App *a, const char *text, bool replace, char *err, size_t errsize) {
  Shape s;
  if (!Shape_parse(text, &s, err, errsize)) return false;
  if (replace && a->shapes.cur.sel < a->shapes.count) {
    int dup = ViewShapes_find(a, &s);
    if (dup >= 0 && dup != a->shapes.cur.sel) {
      snprintf(err, errsize, "%s is already in the list", text);
      return false;
    }
    a->shapes.rows[a->shapes.cur.sel].shape = s;
  } else {
    a->shapes.cur.sel = ViewShapes_add(a, &s, true);
    a->shapes.rows[a->shapes.cur.sel].checked = true;
  }
  a->dirty |= DIRTY_SHAPES;
  return true;
}

/* The names' column: the longest problem in the list, at least today's 18. */
static int ViewShapes_nameWidth(const App *a) {
  int wmax = 18;
  for (int i = 0; i < a->shapes.count; i++) {
    char name[64];
    Shape_format(&a->shapes.rows[i].shape, name, sizeof name);
    if ((int)strlen(name) > wmax) wmax = (int)strlen(name);
  }
  return wmax;
}

static void ViewShapes_row(App *a, WINDOW *w, int idx, int y, int x, int width, attr_t cur) {
  const ShapeRow *sr = &a->shapes.rows[idx];
  char name[64], line[128];
  Shape_format(&sr->shape, name, sizeof name);
  wattrset(w, Draw_attr(cur, sr->checked ? TH_MARKED : TH_NORMAL));
  snprintf(line, sizeof line, "[%c] %-*s", sr->checked ? 'x' : ' ', ViewShapes_nameWidth(a), name);
  Draw_clip(w, y, x, width, line);
  int used = (int)strlen(line) + 1;
  double flop = Shape_flops(&sr->shape);
  if (Shape_isDecode(&sr->shape)) /* bandwidth-bound: its bytes say what it costs */
    snprintf(line, sizeof line, "%.3g MB decode", Shape_bytes(&sr->shape) / 1e6);
  else if (flop >= 1e12) snprintf(line, sizeof line, "%.3g TFLOP", flop / 1e12);
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
  for (int i = 0; i < a->shapes.count; i++) checked += a->shapes.rows[i].checked;
  char title[64];
  snprintf(title, sizeof title, "Shapes %d/%d", checked, a->shapes.count);
  Draw_box(a, w, title, a->focus == PANEL_SHAPES);
  Draw_list(a, w, &a->shapes.cur, a->shapes.count, a->focus == PANEL_SHAPES, ViewShapes_row);
  wnoutrefresh(w);
}

static void ViewShapes_check(App *a, int ch) {
  (void)ch;
  ShapesView *sv = &a->shapes;
  if (sv->count == 0) return;
  sv->rows[sv->cur.sel].checked = !sv->rows[sv->cur.sel].checked;
  ListCursor_move(&sv->cur, sv->count, 1);
  a->dirty |= DIRTY_SHAPES;
}

static void ViewShapes_addPrompt(App *a, int ch) {
  (void)ch;
  ViewPrompt_open(a, PROMPT_ADD_SHAPE, "add shape BxHq[/Hkv]xSq[/Skv]xD[:causal][:bf16]: ", "");
}

/* The shape under the cursor as text; false when the list is empty. */
static bool ViewShapes_selectedName(const App *a, char *name, size_t size) {
  const ShapesView *sv = &a->shapes;
  if (sv->count == 0) return false;
  Shape_format(&sv->rows[sv->cur.sel].shape, name, size);
  return true;
}

static void ViewShapes_editPrompt(App *a, int ch) {
  (void)ch;
  char name[64];
  if (ViewShapes_selectedName(a, name, sizeof name))
    ViewPrompt_open(a, PROMPT_EDIT_SHAPE, "edit shape: ", name);
}

static void ViewShapes_delete(App *a, int ch) {
  (void)ch;
  char name[64];
  if (!ViewShapes_selectedName(a, name, sizeof name)) return;
  ShapesView *sv = &a->shapes;
  memmove(&sv->rows[sv->cur.sel], &sv->rows[sv->cur.sel + 1],
          (size_t)(sv->count - sv->cur.sel - 1) * sizeof *sv->rows);
  sv->count--;
  ListCursor_move(&sv->cur, sv->count, 0);
  App_message(a, false, "removed shape %s", name);
  a->dirty |= DIRTY_SHAPES;
}

static const KeyBinding ViewShapes_bindings[] = {
  {{' '}, "Space", "Spc check", "check / uncheck the shape for the next run", ViewShapes_check},
  {{'a'}, "a", "a add", "add a shape (BxHq[/Hkv]xSq[/Skv]xD[:causal][:bf16], docs/problems.md)", ViewShapes_addPrompt},
  {{'\n', KEY_ENTER, 'e'}, "Enter / e", "Enter edit", "edit the shape", ViewShapes_editPrompt},
  {{'d', KEY_DC}, "d / Del", NULL, "delete the shape", ViewShapes_delete},
};
const KeyTable ViewShapes_keys = KEY_TABLE("Shapes", ViewShapes_bindings);
