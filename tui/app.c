/* The TUI's entry point and main loop. The loop sleeps in poll() on the terminal and the
 * worker's pipe (with the runner's watchdog as timeout), so idle costs nothing and the GPU
 * never blocks the screen. Signal handlers only set a flag; the loop then cancels the run,
 * saves the session and restores the terminal. */
#include <errno.h>
#include <locale.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/plan.h"
#include "common/text.h"
#include "common/util.h"
#include "tui/best.h"
#include "tui/runs.h"
#include "tui/tui.h"
#include "tui/tui_main.h"

static volatile sig_atomic_t App_signal;

static void App_onSignal(int sig) { App_signal = sig; }

/* The settings file's choices, before the first draw. */
static void App_applyConfig(App *a) {
  ResultsView *rv = &a->results;
  memcpy(rv->col_hidden, a->config.hidden, sizeof rv->col_hidden);
  rv->sort_col = a->config.sort_col;
  rv->sort_desc = a->config.sort_desc;
  if (rv->col_hidden[rv->col_cursor]) rv->col_cursor = COL_VARIANT;
  Results_rebuild(a);
}

/* ---- session ---------------------------------------------------------------------------- */

static void App_initPanels(App *a) {
  VariantsView *vv = &a->variants;
  vv->count = 0;
  if (vv->cap < Registry_count()) { /* new rows start zeroed, as the App they were part of */
    vv->rows = Util_xrealloc(vv->rows, (size_t)Registry_count() * sizeof *vv->rows);
    memset(vv->rows + vv->cap, 0, (size_t)(Registry_count() - vv->cap) * sizeof *vv->rows);
    vv->cap = Registry_count();
  }
  for (int i = 0; i < Registry_count(); i++) {
    VariantRow *vr = &vv->rows[vv->count++];
    vr->variant = Registry_at(i);
    vr->checked = false;
    vr->knobs_set = false;
    vr->auto_shown[0] = '\0';
    Registry_defaults(vr->variant, &vr->knobs);
    const Plan *p = &a->session.plan;
    for (int k = 0; k < p->nvariants; k++) {
      const PlanVariant *pv = &p->variants[k];
      if (vr->checked || strcmp(pv->name, vr->variant->name) != 0) continue;
      vr->checked = true;
      vr->knobs_set = pv->nknobs > 0;
      /* The variant's own knobs; a sweep "k=v1,v2" shows its first value. */
      for (int j = 0; j < pv->nknobs; j++) {
        KnobSweep sw;
        char err[160];
        KnobSweep_init(&sw);
        if (!KnobSweep_add(vr->variant, pv->knobs[j], &sw, true, err, sizeof err)) continue;
        for (int m = 0; m < sw.nknobs; m++) vr->knobs.idx[sw.order[m]] = sw.idx[sw.order[m]][0];
      }
    }
  }
  ViewShapes_load(a);
}

void App_setSession(App *a, Session *s, const char *path) {
  Session_free(&a->session);
  a->session = *s;
  free(s);
  if (path) Util_strlcpy(a->session.path, path, sizeof a->session.path);
  /* The bundled examples are shared data: new records go to a fresh file instead. */
  a->from_example = path && strstr(path, "/examples/") != NULL;
  if (a->original) {
    Session_free(a->original);
    free(a->original);
    a->original = NULL;
  }
  Results_forgetRecords(a);
  a->autosave_ok = true;
  Results_rebuild(a);
  App_initPanels(a);
  ViewRunOpts_init(a, &a->session.plan);
  View_show(a, &View_main);
  App_message(a, false, "opened %s: %d records", path ? path : "session", a->session.nrecords);
}

/* ---- layout and drawing ----------------------------------------------------------------- */

#define APP_WINDOWS(a) \
  { &(a)->w_status, &(a)->w_var, &(a)->w_shape, &(a)->w_results, &(a)->w_side, &(a)->w_keys, \
    &(a)->w_body, &(a)->w_overlay }

static void App_freeWindows(App *a) {
  WINDOW **ws[] = APP_WINDOWS(a);
  for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
    if (*ws[i]) {
      delwin(*ws[i]);
      *ws[i] = NULL;
    }
}

static void App_layout(App *a) {
  App_freeWindows(a);
  getmaxyx(stdscr, a->rows, a->cols);
  a->too_small = a->rows < TUI_MIN_ROWS || a->cols < TUI_MIN_COLS;
  a->dirty = DIRTY_ALL;
  if (a->too_small) return;
  int body = a->rows - 2;
  int top = body / 3;
  if (top < 6) top = 6;
  if (top > 14) top = 14;
  int half = a->cols / 2;
  /* Wide and tall terminals get the detail of the selected record beside the table. */
  int side = a->cols >= 150 && a->rows >= 36 ? 66 : 0;
  a->w_status = newwin(1, a->cols, 0, 0);
  a->w_var = newwin(top, half, 1, 0);
  a->w_shape = newwin(top, a->cols - half, 1, half);
  a->w_results = newwin(body - top, a->cols - side, 1 + top, 0);
  if (side) a->w_side = newwin(body - top, side, 1 + top, a->cols - side);
  a->w_keys = newwin(1, a->cols, a->rows - 1, 0);
  a->w_body = newwin(body, a->cols, 1, 0);
}

static void App_drawTooSmall(App *a) {
  bkgdset(' ' | Theme_attr(TH_NORMAL));
  erase();
  char line[96];
  snprintf(line, sizeof line, "benchtop needs %dx%d; this terminal is %dx%d", TUI_MIN_COLS,
           TUI_MIN_ROWS, a->cols, a->rows);
  int y = a->rows / 2, x = (a->cols - (int)strlen(line)) / 2;
  mvaddnstr(y > 0 ? y : 0, x > 0 ? x : 0, line, a->cols);
  if (a->rows > 2) mvaddnstr(y + 1, 0, "(enlarge it, or q to quit)", a->cols);
  wnoutrefresh(stdscr);
}

static void App_draw(App *a) {
  unsigned d = a->dirty;
  a->dirty = 0;
  if (a->too_small) {
    App_drawTooSmall(a);
    doupdate();
    return;
  }
  if (d == DIRTY_ALL) {
    /* getch() reads through stdscr and repaints it whenever it is touched: keep it clean and
     * refreshed underneath the windows so it never blanks them. */
    werase(stdscr);
    wnoutrefresh(stdscr);
    WINDOW **ws[] = APP_WINDOWS(a);
    for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
      if (*ws[i]) wbkgdset(*ws[i], ' ' | Theme_attr(TH_NORMAL));
  }
  if (d & DIRTY_STATUS) Statusline_draw(a);
  if (d & a->screen->region) a->screen->draw(a, d);
  if (d & DIRTY_KEYBAR) Keybar_draw(a);
  /* Overlays sit on top: repaint them whenever anything under them was repainted; a prompt
   * typed for an overlay (a run option) shows over it. */
  if (a->overlay && d) {
    const View *under = a->overlay->under ? a->overlay->under(a) : NULL;
    if (under) under->draw(a, d);
    a->overlay->draw(a, d);
  }
  doupdate();
}

/* ---- start-up and the loop -------------------------------------------------------------- */

static bool App_loadInitial(App *a, const char *path) {
  char err[1024], found[4096];
  Session *s = Util_xcalloc(1, sizeof *s);
  if (path) {
    if (access(path, F_OK) != 0 && errno == ENOENT) {
      Session_init(s);
      App_setSession(a, s, path);
      App_message(a, false, "new session: records will be saved to %s", path);
      return true;
    }
    if (!Session_load(path, s, err, sizeof err)) {
      fprintf(stderr, "benchtop: %s\n", err);
      Session_free(s);
      free(s);
      return false;
    }
    App_setSession(a, s, path);
    return true;
  }
  if (Session_findDefault(found, sizeof found)) {
    if (Session_load(found, s, err, sizeof err)) {
      App_setSession(a, s, found);
      return true;
    }
    Session_free(s);
    memset(s, 0, sizeof *s);
    Session_init(s);
    App_setSession(a, s, NULL);
    App_message(a, true, "could not open %s (%s); empty session", found, err);
    return true;
  }
  Session_init(s);
  App_setSession(a, s, NULL);
  App_message(a, false, "no session yet: check variants and shapes with Space, r runs them");
  return true;
}

static void App_initTerminal(App *a) {
  a->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  const char *term = getenv("TERM"), *noacs = getenv("NCURSES_NO_UTF8_ACS"),
             *ascii = getenv("BENCHTOP_ASCII");
  /* PuTTY and the Linux console draw the line set badly or not at all: plain ASCII there. */
  a->ascii = !a->utf8 || (noacs && noacs[0] && strcmp(noacs, "0") != 0) ||
             (term && Util_startsWith(term, "linux")) || (ascii && ascii[0] == '1');
  cbreak();
  noecho();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  curs_set(0);
  /* A short wait for the rest of an escape sequence, unless the user set ESCDELAY (a slow
   * link splits arrow keys and mouse reports). */
  const char *escdelay = getenv("ESCDELAY");
  if (!escdelay || !escdelay[0]) set_escdelay(25);
  if (has_colors()) {
    start_color();
    use_default_colors();
  }
  Theme_scan(&a->themes);
  /* BENCHTOP_THEME, else the settings file's, else dark. */
  const char *want = getenv("BENCHTOP_THEME");
  if (!want || !want[0]) want = a->config.theme[0] ? a->config.theme : "dark";
  a->theme_idx = Theme_find(&a->themes, want);
  if (a->theme_idx < 0) {
    a->theme_idx = Theme_find(&a->themes, "dark");
    if (a->theme_idx < 0) a->theme_idx = 0;
    App_message(a, true, "theme %s is not installed (t cycles through those that are)", want);
  }
  char err[512];
  Theme_apply(&a->themes, a->theme_idx, err, sizeof err);
  if (err[0]) App_message(a, true, "%s", err);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = App_onSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN); /* a dead worker's pipe is the runner's business, not a crash */
}

static void App_loop(App *a) {
  App_layout(a);
  while (!a->quit && !App_signal) {
    if (a->dirty) App_draw(a);
    struct pollfd fds[4] = {{.fd = STDIN_FILENO, .events = POLLIN}};
    int nfds = 1, timeout = -1;
    if (a->run.runner) {
      int fd = Runner_fd(a->run.runner);
      if (fd >= 0) fds[nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
      timeout = Runner_timeoutMs(a->run.runner);
      /* A run between workers has no fd yet: look again shortly rather than sleep forever. */
      if (Runner_busy(a->run.runner) && fd < 0 && (timeout < 0 || timeout > 100)) timeout = 100;
    }
    /* A tune's batch compiling in other processes: look for its end now and then. */
    if (a->tune.prebuild && (timeout < 0 || timeout > 100)) timeout = 100;
    /* Kernel files saved in an editor, and the compile of one in the background. */
    int reload_fds[2] = {HotReload_fd(a), HotReload_buildFd(a)};
    for (int i = 0; i < 2; i++)
      if (reload_fds[i] >= 0) fds[nfds++] = (struct pollfd){.fd = reload_fds[i], .events = POLLIN};
    int reload_ms = HotReload_timeoutMs(a);
    if (reload_ms >= 0 && (timeout < 0 || timeout > reload_ms)) timeout = reload_ms;
    int n = poll(fds, (nfds_t)nfds, timeout);
    if (n < 0 && errno != EINTR) break;
    if (n > 0 && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))) break; /* terminal gone */
    /* Keys, and KEY_RESIZE that ncurses queues from SIGWINCH (which woke poll with EINTR). */
    for (int ch; !a->quit && (ch = getch()) != ERR;) {
      if (ch == KEY_RESIZE) App_layout(a);
      else if (a->too_small && ch != 'q' && ch != KEY_F(10)) continue;
      else if (a->too_small) a->quit = true;
      else Keys_handle(a, ch);
    }
    App_pollRunner(a);
    HotReload_poll(a);
  }
}

static void App_free(App *a) {
  App_freeWindows(a);
  HotReload_free(a);
  Tunes_free(a);
  if (a->run.runner) Runner_free(a->run.runner);
  ViewPicker_free(a);
  Session_free(&a->session);
  if (a->original) {
    Session_free(a->original);
    free(a->original);
  }
  Results_forgetOriginal(a);
  Best_free(a);
  free(a->results.order);
  free(a->results.marked);
  free(a->shapes.rows);
  free(a->variants.rows);
  free(a);
}

int Tui_main(const char *path) {
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    fprintf(stderr, "benchtop: the TUI needs a terminal (for text output: benchtop show FILE)\n");
    return BT_EXIT_USAGE;
  }
  setlocale(LC_ALL, "");
  App *a = Util_xcalloc(1, sizeof *a);
  a->results.sort_col = -1;
  a->results.col_cursor = COL_P50;
  ViewMain_init(a);
  a->autosave_ok = true;
  Util_strlcpy(a->run.worker, "idle", sizeof a->run.worker);
  if (!App_loadInitial(a, path)) {
    App_free(a);
    return BT_EXIT_FAILED;
  }
  char conf[4096], err[1024];
  Config_defaultPath(conf, sizeof conf);
  Config_defaults(&a->config, conf);
  bool conf_ok = Config_load(&a->config, err, sizeof err);
  App_applyConfig(a);
  const char *term = getenv("TERM");
  SCREEN *scr = term && term[0] ? newterm(NULL, stdout, stdin) : NULL;
  /* A terminal that cannot move the cursor (TERM=dumb, emacs' shell) would show a blank screen:
   * say so in one line instead. */
  char *cup = scr ? tigetstr("cup") : NULL;
  if (!scr || !cup || cup == (char *)-1) {
    if (scr) {
      endwin();
      delscreen(scr);
    }
    fprintf(stderr, "benchtop: the TUI needs a terminal that can move the cursor (TERM=%s); set TERM "
            "(e.g. xterm-256color), or use benchtop show FILE\n", term && term[0] ? term : "unset");
    App_free(a);
    return BT_EXIT_USAGE;
  }
  App_initTerminal(a);
  if (a->config.mouse) Mouse_enable(true);
  if (!conf_ok) {
    App_message(a, true, "%s", err);
    a->config_warned = true;
  }
  HotReload_start(a);
  a->dirty = DIRTY_ALL;
  App_loop(a);
  int sig = App_signal;
  if (a->run.running && a->run.runner) Runner_cancel(a->run.runner);
  App_freeWindows(a); /* before the screen they belong to is deleted (delwin after delscreen
                        * crashed on quit after a live run) */
  endwin();
  delscreen(scr);
  bool saved = Quit_saveAtExit(a, sig);
  App_free(a);
  /* As `run`: 1 when something could not be saved, else 130 after a signal. */
  return !saved ? BT_EXIT_FAILED : sig ? BT_EXIT_INTERRUPTED : BT_EXIT_OK;
}
