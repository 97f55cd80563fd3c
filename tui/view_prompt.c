/* A one-line prompt drawn over the key bar (add/edit shape, save as) and the yes/no confirm
 * used before quitting during a run. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/runs.h"
#include "tui/tui.h"

void ViewPrompt_open(App *a, const PromptHooks *hooks, const char *label, const char *initial) {
  PromptView *pv = &a->prompt;
  pv->hooks = hooks;
  Util_strlcpy(pv->label, label, sizeof pv->label);
  pv->len = (int)Util_strlcpy(pv->buf, initial, sizeof pv->buf);
  if (pv->len >= (int)sizeof pv->buf) pv->len = (int)sizeof pv->buf - 1;
  pv->selected = false;
  pv->back = NULL; /* an overlay that types a value in the prompt says so itself */
  View_show(a, &View_prompt);
  a->message[0] = 0; /* an old message would read as a problem with this entry */
  a->message_error = false;
}

/* The row above the key bar shows again what is under it (a search's position on the
 * results' border) once no problem is shown there. */
static void ViewPrompt_uncover(App *a, int y) {
  WINDOW *under[] = {a->screen->has_panels ? a->w_results : a->w_body,
                     a->screen->has_panels ? a->w_side : NULL};
  for (size_t i = 0; i < sizeof under / sizeof under[0]; i++) {
    WINDOW *w = under[i];
    if (!w || y < getbegy(w) || y >= getbegy(w) + getmaxy(w)) continue;
    touchline(w, y - getbegy(w), 1);
    wnoutrefresh(w);
  }
}

static void ViewPrompt_draw(App *a, unsigned dirty) {
  (void)dirty;
  if (a->w_overlay) delwin(a->w_overlay);
  /* The prompt on the key bar's row; a problem with the entry on the row above it. */
  bool problem = a->message_error && a->message[0];
  if (!problem) ViewPrompt_uncover(a, a->rows - 2);
  a->w_overlay = newwin(problem ? 2 : 1, a->cols, a->rows - (problem ? 2 : 1), 0);
  WINDOW *w = a->w_overlay;
  if (!w) return;
  int y = problem ? 1 : 0;
  wbkgdset(w, ' ' | Theme_attr(TH_MESSAGE));
  werase(w);
  if (problem) {
    wattrset(w, Theme_attr(TH_ERROR));
    mvwhline(w, 0, 0, ' ', a->cols);
    Draw_clip(w, 0, 1, a->cols - 2, a->message);
  }
  wattrset(w, Theme_attr(TH_MESSAGE));
  mvwhline(w, y, 0, ' ', a->cols);
  if (a->overlay == &View_confirm) {
    Draw_clip(w, y, 1, a->cols - 2, a->prompt.confirm_text);
    wnoutrefresh(w);
    return;
  }
  int lw = (int)strlen(a->prompt.label);
  Draw_clip(w, y, 1, a->cols - 2, a->prompt.label);
  /* Show the tail of a long entry so the cursor stays on screen. */
  int room = a->cols - 3 - lw;
  const char *text = a->prompt.buf;
  if (room > 0 && a->prompt.len > room) text += a->prompt.len - room;
  wattrset(w, Theme_attr(a->prompt.selected ? TH_CURSOR : TH_NORMAL));
  Draw_clip(w, y, 1 + lw, room, text);
  wattrset(w, Theme_attr(TH_CURSOR));
  int cx = 1 + lw + (int)strlen(text);
  if (cx < a->cols) mvwaddch(w, y, cx, ' ');
  wnoutrefresh(w);
}

static void ViewPrompt_close(App *a) {
  a->message[0] = 0; /* a problem with the entry is over with it */
  a->overlay = a->prompt.back;
  a->dirty = DIRTY_ALL;
}

/* The entry goes to the view that asked for it, once the prompt has closed; a problem with it
 * opens the prompt again with the same text (and the overlay under it), so it can be fixed. */
static void ViewPrompt_enter(App *a, int ch) {
  (void)ch;
  PromptView *pv = &a->prompt;
  const PromptHooks *hooks = pv->hooks;
  const View *back = pv->back;
  char label[sizeof pv->label], typed[sizeof pv->buf], err[4200] = "";
  Util_strlcpy(label, pv->label, sizeof label);
  Util_strlcpy(typed, pv->buf, sizeof typed);
  ViewPrompt_close(a);
  if (hooks->accept(a, typed, err, sizeof err)) return;
  ViewPrompt_open(a, hooks, label, typed);
  pv->back = back;
  App_message(a, true, "%s (Esc cancels)", err);
}

static void ViewPrompt_cancel(App *a, int ch) {
  (void)ch;
  a->quit_after_save = false;
  ViewPrompt_close(a);
  if (a->prompt.hooks->cancelled) a->prompt.hooks->cancelled(a);
  else App_message(a, false, "cancelled");
}

static void ViewPrompt_edit(App *a, int ch) {
  PromptView *pv = &a->prompt;
  bool editing = ch == 21 || ch == KEY_BACKSPACE || ch == 127 || ch == 8;
  if (pv->selected && !editing) { /* typed text replaces a selected prefill, as in readline */
    pv->len = 0;
    pv->buf[0] = 0;
  }
  pv->selected = false;
  if (ch == 21) { /* Ctrl-U */
    pv->len = 0;
    pv->buf[0] = 0;
  } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
    if (pv->len > 0) pv->buf[--pv->len] = 0;
  } else if (pv->len < (int)sizeof pv->buf - 1) {
    pv->buf[pv->len++] = (char)ch;
    pv->buf[pv->len] = 0;
  }
  if (pv->hooks->changed) pv->hooks->changed(a, pv->buf);
  a->dirty |= DIRTY_OVERLAY;
}

static const KeyBinding ViewPrompt_bindings[] = {
  {{'\n', KEY_ENTER}, "Enter", NULL, "accept the entry", ViewPrompt_enter},
  {{27}, "Esc", NULL, "cancel the entry", ViewPrompt_cancel},
  {{KEY_BACKSPACE, 127, 8}, "Backspace", NULL, "delete the last character", ViewPrompt_edit},
  {{21}, "Ctrl-U", NULL, "clear the entry", ViewPrompt_edit},
  {{KEYS_PRINTABLE}, "text", NULL, "typed into the entry", ViewPrompt_edit},
};
static const KeyTable ViewPrompt_keys = KEY_TABLE("prompts", ViewPrompt_bindings);

static void ViewConfirm_no(App *a, int ch) {
  for (int i = 0; i < 2; i++) /* another answer than yes or no (quit: save as, discard) */
    if (a->prompt.alt_key[i] && ch == a->prompt.alt_key[i]) {
      void (*on_alt)(App *) = a->prompt.on_alt[i];
      ViewPrompt_close(a);
      on_alt(a);
      return;
    }
  a->quit_after_save = false;
  ViewPrompt_close(a);
  App_message(a, false, "%s", a->prompt.confirm_no);
}

static void ViewConfirm_yes(App *a, int ch) {
  void (*on_yes)(App *) = a->prompt.on_yes;
  if (!on_yes) { /* a question without a yes: y is one more other key */
    ViewConfirm_no(a, ch);
    return;
  }
  ViewPrompt_close(a);
  on_yes(a);
}

static const KeyBinding ViewConfirm_bindings[] = {
  {{'y', 'Y'}, "y", NULL, "yes", ViewConfirm_yes},
  {{KEYS_ANY}, "any other key", NULL, "no", ViewConfirm_no},
};
static const KeyTable ViewConfirm_keys = KEY_TABLE("y/n", ViewConfirm_bindings);

void App_confirm(App *a, const char *question, const char *no, void (*on_yes)(App *a)) {
  Util_strlcpy(a->prompt.confirm_text, question, sizeof a->prompt.confirm_text);
  Util_strlcpy(a->prompt.confirm_no, no, sizeof a->prompt.confirm_no);
  a->prompt.on_yes = on_yes;
  memset(a->prompt.alt_key, 0, sizeof a->prompt.alt_key);
  a->prompt.back = NULL;
  View_show(a, &View_confirm);
}

static const View *ViewPrompt_under(const App *a) { return a->prompt.back; }

const View View_prompt = {
  .name = "prompt", .layer = VIEW_OVERLAY, .keys = &ViewPrompt_keys, .draw = ViewPrompt_draw,
  .shows_message = true, .under = ViewPrompt_under,
};

/* The yes/no question (App_confirm): drawn as a prompt without an entry. */
const View View_confirm = {
  .name = "confirm", .layer = VIEW_OVERLAY, .keys = &ViewConfirm_keys, .draw = ViewPrompt_draw,
  .under = ViewPrompt_under,
};
