/* The TUI's shared state and the functions each view file exports. Data collection (the
 * runner's events, the session) is kept apart from drawing, as htop does it: events change
 * the App and mark regions dirty; the draw step repaints only dirty regions. */
#ifndef BENCHTOP_TUI_H
#define BENCHTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "bench/runner.h"
#include "kernels/registry.h"
#include "sessions/session.h"
#include "tui/columns.h"
#include "tui/theme.h"

#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 16

typedef enum { PANEL_VARIANTS, PANEL_SHAPES, PANEL_RESULTS, PANEL_COUNT } PanelId;
typedef enum { VIEW_MAIN, VIEW_DETAIL, VIEW_COMPARE } ViewId;
typedef enum {
  OVERLAY_NONE, OVERLAY_HELP, OVERLAY_PICKER, OVERLAY_KNOBS, OVERLAY_PROMPT, OVERLAY_CONFIRM,
} OverlayId;
typedef enum { PROMPT_ADD_SHAPE, PROMPT_EDIT_SHAPE, PROMPT_SAVE_AS } PromptKind;

/* Regions that can be repainted on their own. */
enum {
  DIRTY_STATUS = 1 << 0, DIRTY_VARIANTS = 1 << 1, DIRTY_SHAPES = 1 << 2,
  DIRTY_RESULTS = 1 << 3, DIRTY_SIDE = 1 << 4, DIRTY_KEYBAR = 1 << 5, DIRTY_BODY = 1 << 6,
  DIRTY_OVERLAY = 1 << 7, DIRTY_ALL = 0xff,
};

typedef struct ListCursor {
  int sel, top;
} ListCursor;

typedef struct VariantRow {
  const Variant *variant;
  bool checked;
  KnobValues knobs;
} VariantRow;

typedef struct ShapeRow {
  Shape shape;
  bool checked;
} ShapeRow;

typedef struct App {
  Session session;
  Session *original;      /* replay: the session replayed, for deltas (NULL otherwise) */
  bool autosave_ok;       /* last autosave worked (or nothing to save yet) */
  char autosave_err[256];
  bool from_example;      /* opened the bundled example: new records go to a fresh file */

  Runner *runner;
  bool running;
  int done, total;
  char worker[160];       /* worker state in words: idle, starting, running..., no GPU */
  bool no_gpu;
  char device[96];

  VariantRow variants[32];
  int nvariants;
  ListCursor vcur;
  ShapeRow *shapes;
  int nshapes, shapes_cap;
  ListCursor scur;

  int *order;             /* results: record indices in display order */
  int norder;
  ListCursor rcur;
  bool *marked;           /* per record index */
  int marked_cap;
  int sort_col;           /* ColumnId, or -1: arrival order */
  bool sort_desc;
  int col_cursor;         /* ColumnId under the column cursor */
  bool col_hidden[COL_COUNT];

  int cmp[16];            /* compare: record indices, cmp[baseline] is the baseline */
  int ncmp, cmp_base, cmp_sel, cmp_first, cmp_scroll;
  int detail_scroll;
  int help_scroll;

  PanelId focus;
  ViewId view;
  ViewId detail_return;    /* where Esc in the detail view goes back to */
  OverlayId overlay;
  PromptKind prompt_kind;
  char prompt_label[64];
  char prompt_buf[256];
  int prompt_len;
  char confirm_text[128];
  int knob_sel;           /* knob editor: knob row */
  char **picker;          /* session files */
  int npicker;
  ListCursor pcur;

  ThemeSet themes;
  int theme_idx;
  bool ascii, utf8;

  char message[320];
  bool message_error;
  unsigned dirty;
  bool quit;
  int rows, cols;
  bool too_small;
  WINDOW *w_status, *w_var, *w_shape, *w_results, *w_side, *w_keys, *w_body, *w_overlay;
} App;

/* app.c */
void App_message(App *a, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void App_rebuildOrder(App *a);
const Record *App_selectedRecord(const App *a);
void App_startRun(App *a);
void App_replay(App *a);
void App_cancelRun(App *a);
void App_setSession(App *a, Session *s, const char *path);
/* runs.c */
void App_autosave(App *a);
void App_pollRunner(App *a);
void App_prebuild(App *a, const VariantRow *vr);

/* keys.c: one key press, routed to the overlay, the view or the focused panel. */
void Keys_handle(App *a, int ch);
/* Every key, for the help overlay (the same table the dispatcher documents). */
typedef struct KeyHelp {
  const char *keys, *where, *what;
} KeyHelp;
extern const KeyHelp Keys_help[];
extern const int Keys_helpCount;

/* Drawing helpers (draw.c). */
void Draw_box(App *a, WINDOW *w, const char *title, bool focused);
/* The centred overlay window (help, knob editor, picker): h clamped to the screen, cleared in
 * the theme's colours; NULL when ncurses has no room. */
WINDOW *Draw_overlay(App *a, int h, int wd);
/* Rows 1..h-2 of a boxed window; row() draws item idx, `cursor` is the cursor attribute on
 * the cursor row (the line is already filled with it) and 0 elsewhere. */
void Draw_list(App *a, WINDOW *w, ListCursor *c, int count, bool focused,
               void (*row)(App *, WINDOW *, int idx, int y, int x, int width, attr_t cursor));
/* The attribute for a cell: the cursor's when on the cursor row, else the element's. */
attr_t Draw_attr(attr_t cursor, ThemeElem el);
void Draw_clip(WINDOW *w, int y, int x, int width, const char *text);
void ListCursor_move(ListCursor *c, int count, int delta);
/* A scrolling text page (detail, help): lines past `scroll` into rows 1..h-2 of w. */
typedef struct Page {
  App *app;
  WINDOW *w;
  int line, scroll, top, height, x, width, col;
} Page;
void Page_begin(Page *p, App *a, WINDOW *w, int scroll, int top, int height, int x, int width);
void Page_text(Page *p, ThemeElem el, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void Page_newline(Page *p);

/* Views: one file each. */
void ViewVariants_draw(App *a);
void ViewVariants_key(App *a, int ch);
void ViewKnobs_draw(App *a);
void ViewKnobs_key(App *a, int ch);
void ViewShapes_draw(App *a);
void ViewShapes_key(App *a, int ch);
void ViewShapes_load(App *a);
bool ViewShapes_submit(App *a, const char *text, bool replace, char *err, size_t errsize);
void ViewResults_draw(App *a);
void ViewResults_key(App *a, int ch);
void ViewDetail_draw(App *a, WINDOW *w, bool framed);
void ViewDetail_key(App *a, int ch);
void ViewCompare_open(App *a);
void ViewCompare_draw(App *a);
void ViewCompare_key(App *a, int ch);
void ViewHelp_draw(App *a);
void ViewPicker_open(App *a);
void ViewPicker_draw(App *a);
void ViewPicker_key(App *a, int ch);
void ViewPicker_free(App *a);
void ViewPrompt_open(App *a, PromptKind kind, const char *label, const char *initial);
void ViewPrompt_draw(App *a);
void ViewPrompt_key(App *a, int ch);
void Statusline_draw(App *a);
void Keybar_draw(App *a);

#endif
