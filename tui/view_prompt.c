/* A one-line prompt drawn over the key bar (add/edit shape, save as) and the yes/no confirm
 * used before quitting during a run. */
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "tui/tui.h"

void ViewPrompt_open(App *a, PromptKind kind, const char *label, const char *initial) {
  a->prompt_kind = kind;
  Util_strlcpy(a->prompt_label, label, sizeof a->prompt_label);
  a->prompt_len = (int)Util_strlcpy(a->prompt_buf, initial, sizeof a->prompt_buf);
  if (a->prompt_len >= (int)sizeof a->prompt_buf) a->prompt_len = (int)sizeof a->prompt_buf - 1;
  a->overlay = OVERLAY_PROMPT;
  a->message[0] = 0; /* an old message would read as a problem with this entry */
  a->message_error = false;
  a->dirty |= DIRTY_OVERLAY;
}

void ViewPrompt_draw(App *a) {
  if (a->w_overlay) delwin(a->w_overlay);
  /* Two rows: a problem with the last entry above, the prompt itself on the key bar's row. */
  a->w_overlay = newwin(2, a->cols, a->rows - 2, 0);
  WINDOW *w = a->w_overlay;
  if (!w) return;
  wbkgdset(w, ' ' | Theme_attr(TH_MESSAGE));
  werase(w);
  if (a->message_error && a->message[0]) {
    wattrset(w, Theme_attr(TH_ERROR));
    mvwhline(w, 0, 0, ' ', a->cols);
    Draw_clip(w, 0, 1, a->cols - 2, a->message);
  }
  wattrset(w, Theme_attr(TH_MESSAGE));
  mvwhline(w, 1, 0, ' ', a->cols);
  if (a->overlay == OVERLAY_CONFIRM) {
    Draw_clip(w, 1, 1, a->cols - 2, a->confirm_text);
    wnoutrefresh(w);
    return;
  }
  int lw = (int)strlen(a->prompt_label);
  Draw_clip(w, 1, 1, a->cols - 2, a->prompt_label);
  /* Show the tail of a long entry so the cursor stays on screen. */
  int room = a->cols - 3 - lw;
  const char *text = a->prompt_buf;
  if (room > 0 && a->prompt_len > room) text += a->prompt_len - room;
  wattrset(w, Theme_attr(TH_NORMAL));
  Draw_clip(w, 1, 1 + lw, room, text);
  wattrset(w, Theme_attr(TH_CURSOR));
  int cx = 1 + lw + (int)strlen(text);
  if (cx < a->cols) mvwaddch(w, 1, cx, ' ');
  wnoutrefresh(w);
}

static void ViewPrompt_close(App *a) {
  a->overlay = OVERLAY_NONE;
  a->dirty = DIRTY_ALL;
}

static void ViewPrompt_submit(App *a) {
  char err[512];
  switch (a->prompt_kind) {
  case PROMPT_ADD_SHAPE:
  case PROMPT_EDIT_SHAPE:
    if (!ViewShapes_submit(a, a->prompt_buf, a->prompt_kind == PROMPT_EDIT_SHAPE, err,
                           sizeof err)) {
      App_message(a, true, "%s (Esc cancels)", err);
      a->dirty |= DIRTY_OVERLAY;
      return; /* keep the prompt open so the typo can be fixed */
    }
    ViewPrompt_close(a);
    App_message(a, false, "shape %s %s", a->prompt_buf,
                a->prompt_kind == PROMPT_EDIT_SHAPE ? "changed" : "added and checked");
    return;
  case PROMPT_SAVE_AS:
    ViewPrompt_close(a);
    if (!a->prompt_buf[0]) return;
    if (!Session_save(&a->session, a->prompt_buf, err, sizeof err)) {
      App_message(a, true, "save failed: %s", err);
      return;
    }
    Util_strlcpy(a->session.path, a->prompt_buf, sizeof a->session.path);
    a->session.dirty = false;
    a->from_example = false;
    a->autosave_ok = true;
    App_message(a, false, "saved %d records to %s (autosave goes there now)",
                a->session.nrecords, a->session.path);
    return;
  }
}

void ViewPrompt_key(App *a, int ch) {
  if (a->overlay == OVERLAY_CONFIRM) {
    if (ch == 'y' || ch == 'Y') {
      a->quit = true;
    } else {
      App_message(a, false, "still running; x cancels the run");
    }
    ViewPrompt_close(a);
    return;
  }
  switch (ch) {
  case 27: ViewPrompt_close(a); App_message(a, false, "cancelled"); return;
  case '\n': case KEY_ENTER: ViewPrompt_submit(a); return;
  case KEY_BACKSPACE: case 127: case 8:
    if (a->prompt_len > 0) a->prompt_buf[--a->prompt_len] = 0;
    break;
  case 21: /* Ctrl-U */
    a->prompt_len = 0;
    a->prompt_buf[0] = 0;
    break;
  default:
    if (ch >= 32 && ch < 127 && a->prompt_len < (int)sizeof a->prompt_buf - 1) {
      a->prompt_buf[a->prompt_len++] = (char)ch;
      a->prompt_buf[a->prompt_len] = 0;
    } else {
      return;
    }
  }
  a->dirty |= DIRTY_OVERLAY;
}
