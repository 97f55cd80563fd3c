/* The TUI's settings file, $XDG_CONFIG_HOME/benchtop/tui.conf: the theme, the hidden columns,
 * the sort order and the mouse, kept across restarts. One "key = value" a line, '#' comments:
 *   theme = light
 *   hidden = knobs,l2rdhit
 *   sort = p50 asc          (or: none)
 *   mouse = on
 * Saving rewrites only the keys this process changed, into the file as it is at that moment
 * (comments, other lines and keys another benchtop wrote stay), atomically. A file with a
 * problem gives one line and the defaults for what could not be read, and is then never
 * rewritten by this process, so nothing the user wrote is lost. No curses here. */
#ifndef BENCHTOP_TUI_CONFIG_H
#define BENCHTOP_TUI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/columns.h"

#define CONFIG_MAX_BYTES (64u << 10) /* a larger file is refused, not read */

typedef enum {
  CONF_THEME = 1u << 0, CONF_HIDDEN = 1u << 1, CONF_SORT = 1u << 2, CONF_MOUSE = 1u << 3,
} ConfigKey;

typedef struct TuiConfig {
  char path[4096];
  char theme[64];           /* "" when the file names none */
  bool hidden[COL_COUNT];
  int sort_col;             /* ColumnId, -1: arrival order */
  bool sort_desc;
  bool mouse;
  unsigned set;             /* ConfigKey bits the file set */
  unsigned changed;         /* ConfigKey bits changed since loading, for Config_save */
  bool readonly;            /* the file had a problem: left as it is */
} TuiConfig;

/* Defaults (no theme, nothing hidden, arrival order, mouse on) for the file at path. */
void Config_defaults(TuiConfig *c, const char *path);
/* $XDG_CONFIG_HOME/benchtop/tui.conf (~/.config/benchtop/tui.conf). */
void Config_defaultPath(char *buf, size_t size);
/* Loads c->path (set by Config_defaults). A missing file is no error. False with one line in
 * err ("PATH:LINE: what is wrong; ...") when something could not be used: the defaults stand
 * for it and c->readonly is set. */
bool Config_load(TuiConfig *c, char *err, size_t errsize);
/* The same from text; name prefixes the message. */
bool Config_parse(TuiConfig *c, const char *text, const char *name, char *err, size_t errsize);
/* old (the file's text now, or NULL) with c's changed keys written in: a changed key's first
 * line is replaced, its later duplicates dropped, a missing one appended. Heap string. */
char *Config_merge(const TuiConfig *c, const char *old);
/* Writes the changed keys (nothing to do when none changed). False with one line in err when
 * the file cannot be written, or is read-only for this process, or has since become one that
 * would lose something. */
bool Config_save(TuiConfig *c, char *err, size_t errsize);

#endif
