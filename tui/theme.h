/* Themes: key=value files (themes/README.md) turned into curses attributes. Colour numbers
 * above what the terminal has are mapped to the nearest of its 8 (or 16) colours; NO_COLOR
 * keeps only bold/underline/reverse. */
#ifndef BENCHTOP_THEME_H
#define BENCHTOP_THEME_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

typedef enum {
  TH_NORMAL, TH_BORDER, TH_TITLE, TH_TITLE_FOCUS, TH_HEADER, TH_HEADER_SORT, TH_CURSOR,
  TH_CURSOR_IDLE, TH_MARKED, TH_STATUS, TH_STATUS_BUSY, TH_KEYBAR, TH_KEY, TH_BETTER, TH_WORSE,
  TH_PASS, TH_FAIL, TH_NA, TH_DIM, TH_ACCENT, TH_MESSAGE, TH_ERROR, TH_BASELINE, TH_COUNT,
} ThemeElem;

/* One colour spec: fg/bg are -1 (terminal default) or 0..255; attrs are A_* bits. */
typedef struct ThemeStyle {
  short fg, bg;
  attr_t attrs;
  bool set;
} ThemeStyle;

typedef struct Theme {
  char name[64];
  ThemeStyle style[TH_COUNT];
} Theme;

typedef struct ThemeSet {
  int count;
  char names[32][64];
  char paths[32][4096]; /* "" for the built-in fallback */
} ThemeSet;

extern const char *const Theme_elemNames[TH_COUNT];

/* Parses theme text; unknown keys or bad values give one "NAME:LINE: ..." line in err but the
 * rest of the theme still loads (returns false then). */
bool Theme_parse(const char *text, const char *name, Theme *out, char *err, size_t errsize);
/* Finds *.theme under ~/.config/benchtop/themes, $BENCHTOP_THEMES, the source tree and the
 * installed data dir; always has at least the built-in "dark". */
void Theme_scan(ThemeSet *set);
/* Index of a theme by name, -1 if absent. */
int Theme_find(const ThemeSet *set, const char *name);
/* Loads set entry i and installs its colour pairs; err gets a problem line (or ""). */
bool Theme_apply(const ThemeSet *set, int i, char *err, size_t errsize);
/* The attribute to draw an element with (after Theme_apply). */
attr_t Theme_attr(ThemeElem el);
/* Colour usable: has_colors() and NO_COLOR unset. */
bool Theme_colorEnabled(void);

#endif
