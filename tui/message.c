/* What every view says and keeps: the message on the key bar, and the settings the user
 * changed (tui.conf). Calls nothing of the views, so that all of them can call it. */
#include <stdarg.h>
#include <string.h>

#include "common/text.h"
#include "common/util.h"
#include "tui/tui.h"

void App_message(App *a, bool error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  Text_vformat(a->message, sizeof a->message, fmt, ap); /* quotes files and workers */
  va_end(ap);
  a->message_error = error;
  a->dirty |= DIRTY_KEYBAR | (a->overlay && a->overlay->shows_message ? DIRTY_OVERLAY : 0);
}

void App_settingChanged(App *a, unsigned key) {
  TuiConfig *c = &a->config;
  if (key & CONF_THEME) Util_strlcpy(c->theme, a->themes.names[a->theme_idx], sizeof c->theme);
  if (key & CONF_HIDDEN) memcpy(c->hidden, a->results.col_hidden, sizeof c->hidden);
  if (key & CONF_SORT) {
    c->sort_col = a->results.sort_col;
    c->sort_desc = a->results.sort_desc;
  }
  c->changed |= key;
  char err[512];
  if (!Config_save(c, err, sizeof err) && !a->config_warned) {
    /* Said once: the same line after every key would hide what the keys say. */
    App_message(a, true, "%s", err);
    a->config_warned = true;
  }
}
