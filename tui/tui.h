/* The TUI's state and what views call of each other. Data collection (the runner's events,
 * the session) is kept apart from drawing, as htop does it: events change the App and mark
 * regions dirty; the draw step repaints only dirty regions.
 *
 * Views are reached through one interface (tui/view.h) and their table (views.c); key tables
 * are in tui/keys.h, drawing helpers in tui/draw.h. A view whose state other views read keeps
 * it in the App (VariantsView, ResultsView, ...). */
#ifndef BENCHTOP_TUI_H
#define BENCHTOP_TUI_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "bench/runner/runner.h"
#include "kernels/registry.h"
#include "sessions/compare_stats.h"
#include "sessions/session.h"
#include "tui/columns.h"
#include "tui/config.h"
#include "tui/query.h"
#include "tui/theme.h"
#include "tui/view.h"

#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 16

/* What a prompt does with its entry (view_prompt.c), given by the view that opens it: accept
 * runs once the prompt has closed (so it may open another overlay), and false opens the prompt
 * again with the same text and err said; changed (live prompts, else NULL) runs after each key;
 * cancelled (NULL: "cancelled" is said) on Esc. */
typedef struct PromptHooks {
  bool (*accept)(App *a, const char *text, char *err, size_t errsize);
  void (*changed)(App *a, const char *text);
  void (*cancelled)(App *a);
} PromptHooks;

/* Regions that can be repainted on their own. */
enum {
  DIRTY_STATUS = 1 << 0, DIRTY_VARIANTS = 1 << 1, DIRTY_SHAPES = 1 << 2,
  DIRTY_RESULTS = 1 << 3, DIRTY_SIDE = 1 << 4, DIRTY_KEYBAR = 1 << 5, DIRTY_BODY = 1 << 6,
  DIRTY_OVERLAY = 1 << 7, DIRTY_ALL = 0xff,
};

/* ---- per-view state ----------------------------------------------------------------------- */

typedef struct VariantRow {
  const Variant *variant;
  bool checked;
  KnobValues knobs;
  bool knobs_auto;        /* run with the tuned knobs of each shape (--knob auto) */
  bool knobs_set;         /* the user chose these knobs; else a run takes the tuned knobs of
                             each shape where there are some, as `run` without --knob does */
  char auto_shown[RECORD_KNOBS_MAX + 32]; /* what auto (or the tuned default) chose at the last
                                             run, in words */
} VariantRow;

typedef struct VariantsView {
  VariantRow *rows;       /* one per registered variant, as many as there are */
  int count, cap;
  ListCursor cur;
  int knob_sel;           /* knob editor overlay: the knob row */
} VariantsView;

typedef struct ShapeRow {
  Shape shape;
  bool checked;
} ShapeRow;

typedef struct ShapesView {
  ShapeRow *rows;
  int count, cap;
  ListCursor cur;
} ShapesView;

typedef struct ResultsView {
  int *order;             /* record indices in display order */
  int norder;
  ListCursor cur;
  bool *marked;           /* per record index */
  int marked_cap;
  int sort_col;           /* ColumnId, or -1: arrival order */
  bool sort_desc;
  int col_cursor;         /* ColumnId under the column cursor */
  bool col_hidden[COL_COUNT];
  bool col_added[COL_COUNT];  /* metric columns added with the column chooser */
  bool col_valued[COL_COUNT]; /* some record has a value there (set by Results_rebuild) */
  /* "vs orig" after a replay: each record's comparison with the original's, made once. */
  Comparison *vs_orig;
  bool *vs_orig_done;
  int vs_orig_cap;
  char filter[256];       /* only records that match are shown ("" : all) */
  Query filter_query;
  char search[256];       /* n/N look for the next match */
  Query search_query;
  int search_from;        /* where the cursor was when the search prompt opened */
  char filter_before[256];/* the filter when its prompt opened (Esc goes back to it) */
  /* Set by drawing, read by the mouse: each column's x (0: not shown), where the columns end,
   * and whether more lie off screen to the left or right. */
  int col_x[COL_COUNT], end_x;
  bool more_left, more_right;
} ResultsView;

typedef struct CompareView {
  int rec[16];            /* record indices, rec[base] is the baseline */
  int count, base, sel, first, scroll;
  Comparison cmp[16];     /* each record's p50 against the baseline's (compare_stats.h) */
} CompareView;

typedef struct ColumnsView {
  ListCursor cur;         /* the column chooser's row (a ColumnId) */
} ColumnsView;

typedef struct DetailView {
  int scroll;
  const View *back;       /* where Esc goes back to */
} DetailView;

/* The chart view (view_chart.c): which chart of the records on screen. */
typedef struct ChartView {
  int kind;               /* a ChartKind (sessions/chart.h) */
  char axis[48];          /* the sweep's x axis; "" : the first that varies */
} ChartView;

typedef struct HelpView {
  int scroll;
} HelpView;

typedef struct PickerView {
  char **paths;           /* session files */
  int count;
  ListCursor cur;
} PickerView;

typedef struct RunOptsView {
  int sel;                /* the option row */
} RunOptsView;

typedef struct PromptView {
  const PromptHooks *hooks;
  const View *back;       /* the overlay under the prompt, shown again when it closes */
  char label[64];
  char buf[256];
  int len;
  bool selected;          /* buf is a prefill shown selected: the first printable key replaces
                             it, an editing key (Backspace) keeps it */
  char confirm_text[160];
  char confirm_no[96];    /* what n says */
  char pending[4096];     /* save as: the expanded path waiting for its confirmation */
  void (*on_yes)(App *a); /* the confirm overlay's action */
  int alt_key[2];         /* other answers to the confirm overlay (0: none) ... */
  void (*on_alt[2])(App *a); /* ... and their actions */
} PromptView;

/* Where the key bar drew each key (set by drawing, read by mouse clicks). */
typedef struct KeybarView {
  int count;
  int x0[32], x1[32], key[32];
} KeybarView;

/* The runner and what it last said. */
typedef struct RunState {
  Runner *runner;
  bool running;
  int done, total;
  char worker[160];       /* worker state in words: idle, starting, running..., no GPU */
  bool no_gpu;
  char device[96];
  RunOptions opts;        /* for the next run (run options overlay) */
  bool seed_fixed;        /* false: a fresh seed from the clock for each run */
  char metrics[512];      /* "default", "none" or names */
} RunState;

/* A tune in flight (T) and --knob auto runs (tui/tunes.c). */
struct Tuner;
struct Prebuild;
typedef struct TuneState {
  struct Tuner *tuner;    /* NULL when no tune is in flight */
  struct Prebuild *prebuild; /* the next batch compiling ahead of the worker */
  PlanEntry *batch;       /* ... and the batch itself, submitted when it is compiled */
  int nbatch;
  bool waiting, begun, stopping; /* for the worker's device; searching; cancelled (x) */
  DeviceInfo device;      /* the worker's, once it said hello */
  bool have_device;
  PlanEntry *auto_entries; /* the last --knob auto run's entries, as resolved ... */
  char (*auto_notes)[RECORD_AUTO_NOTE_MAX]; /* ... what auto chose for each (records' knobs_auto) */
  bool *auto_used;
  int nauto;
  bool auto_waiting;      /* resolved and submitted when the worker says hello */
} TuneState;

/* Hot reload (tui/hotreload.c): the kernel files of the variants listed, watched; a saved file
 * is read again and compiled in the background, and replaces the variant only when it built. */
struct Watch;
struct Rebuild;
typedef struct ReloadState {
  struct Watch *watch;    /* NULL: no variant listed has a file on disk */
  struct Rebuild *build;  /* the compile in flight */
  Variant *candidate;     /* what it compiles: registered when it built */
  char pending[VARIANT_NAME_MAX]; /* saved again while another compiled: read once it ends */
  bool restart_worker;    /* the worker still has the old code: replaced when it is idle */
} ReloadState;

struct App {
  Session session;
  Session *original;      /* replay: the session replayed, for deltas (NULL otherwise) */
  bool autosave_ok;       /* last autosave worked (or nothing to save yet) */
  char autosave_err[256];
  bool from_example;      /* opened the bundled example: new records go to a fresh file */
  bool quit_after_save;   /* the save-as prompt was opened by quit: a save quits */
  bool discard_unsaved;   /* the user chose to quit without the unsaved records */
  bool moved_device;      /* this run's records went to a new session (another GPU's) */

  RunState run;
  TuneState tune;
  ReloadState reload;
  struct BestSoFar *best; /* the best-so-far column's sessions (tui/best.c); NULL before L */
  VariantsView variants;
  ShapesView shapes;
  ResultsView results;
  CompareView compare;
  DetailView detail;
  ChartView chart;
  HelpView help;
  PickerView picker;
  ColumnsView columns;
  RunOptsView runopts;
  PromptView prompt;
  KeybarView keybar;

  const View *focus;      /* the main screen's focused panel */
  const View *screen;     /* what fills the body */
  const View *overlay;    /* on top (NULL: none) */

  TuiConfig config;        /* settings kept across restarts */
  bool config_warned;      /* its problem was said once */
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
};

/* message.c (calls no view): the key bar's message; a setting the user changed (ConfigKey),
 * recorded from the views' state and saved. */
void App_message(App *a, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void App_settingChanged(App *a, unsigned key);
/* app.c: a session in place of the open one (takes s). */
void App_setSession(App *a, Session *s, const char *path);
/* quit.c: quits, or asks first while a run is in flight. */
void App_requestQuit(App *a);
/* view_prompt.c: opens the yes/no overlay; on_yes runs on y, any other key says `no`. */
void App_confirm(App *a, const char *question, const char *no, void (*on_yes)(App *a));
/* results.c: the results table's data (order, sort), apart from its drawing. */
void Results_rebuild(App *a);
const Record *Results_selected(const App *a);
/* Whether column c is in the table now: in use, not hidden, and for a metric column either a
 * brief one with values or one added with the chooser. */
bool Results_columnShown(const App *a, int c);
/* The comparison of record idx with the original session's after a replay (cached); NULL
 * without a replay or a matching original record. */
const Comparison *Results_vsOriginal(App *a, int idx);
/* Forgets the cached comparisons (a new replay, a new original). */
void Results_forgetOriginal(App *a);
/* A new session is in place: everything the table kept that indexes the old records (marks,
 * order, cursor, cached comparisons) is forgotten. */
void Results_forgetRecords(App *a);
/* Sets the filter (and rebuilds); false with one line in err, the filter unchanged. */
bool Results_setFilter(App *a, const char *text, char *err, size_t errsize);
/* The display position of the next record matching q from position `from` (itself included)
 * in direction dir (+1/-1), wrapping; -1 when none matches. */
int Results_find(const App *a, const Query *q, int from, int dir);
/* mouse.c: mousemask on or off (false when the terminal has no mouse); the KEY_MOUSE action;
 * the M action (on/off, kept in tui.conf). */
bool Mouse_enable(bool on);
void Mouse_event(App *a, int ch);
void Mouse_toggle(App *a, int ch);

/* What views call of each other (each view's own keys and drawing are reached through its
 * View only). The views other files name: */
extern const View View_variants, View_shapes, View_results, View_knobs, View_columns,
    View_detail, View_compare, View_chart, View_help, View_picker, View_runopts, View_prompt,
    View_confirm;
/* The main screen's first focus (Results) and where its panels start. */
void ViewMain_init(App *a);
/* The main screen's list movement (a table of the help), and a press on row y of the focused
 * panel's list, whose rows start at first_row of its window (a second press: Enter). */
extern const KeyTable ViewMain_listKeys;
void ViewMain_clickList(App *a, int y, int x, int first_row);
void ViewShapes_load(App *a);
bool ViewShapes_submit(App *a, const char *text, bool replace, char *err, size_t errsize);
/* The detail of the selected record into w: the detail screen's body, or framed beside the
 * results on wide terminals. */
void ViewDetail_drawIn(App *a, WINDOW *w, bool framed);
/* Opens the detail of the selected record; Esc goes back to `back`. */
void ViewDetail_open(App *a, const View *back);
void ViewPicker_free(App *a);
/* Opens the session file at path in place of the open one; false with one line in err. */
bool ViewPicker_load(App *a, const char *path, char *err, size_t errsize);
/* Run options from a session's plan (NULL: benchtop run's defaults). */
void ViewRunOpts_init(App *a, const Plan *p);
/* The typed value of the selected option; false with one line in err. */
bool ViewRunOpts_submit(App *a, const char *text, char *err, size_t errsize);
void ViewPrompt_open(App *a, const PromptHooks *hooks, const char *label, const char *initial);
void Statusline_draw(App *a);
void Keybar_draw(App *a);

#endif
