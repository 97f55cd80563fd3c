/* Theme files: parsing, discovery, and mapping colours onto what the terminal can show. */
#include "tui/theme.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/datadir.h"
#include "common/util.h"

const char *const Theme_elemNames[TH_COUNT] = {
  "normal", "border", "title", "title_focus", "header", "header_sort", "cursor",
  "cursor_idle", "marked", "status", "status_busy", "keybar", "key", "better", "worse",
  "pass", "fail", "na", "dim", "accent", "message", "error", "baseline",
};

/* Used when no theme file can be found (an installed binary without its data dir). */
static const char Theme_builtinDark[] =
  "normal = default on default\n"
  "border = 244 on default\n"
  "title = 250 on default bold\n"
  "title_focus = 81 on default bold\n"
  "header = 250 on 236 bold\n"
  "header_sort = 81 on 236 bold\n"
  "cursor = 231 on 25 bold\n"
  "cursor_idle = default on 238\n"
  "marked = 220 on default bold\n"
  "status = 231 on 24\n"
  "status_busy = 16 on 178 bold\n"
  "keybar = 250 on 236\n"
  "key = 81 on 236 bold\n"
  "better = 84 on default bold\n"
  "worse = 203 on default bold\n"
  "pass = 84 on default\n"
  "fail = 203 on default bold\n"
  "na = 244 on default\n"
  "dim = 244 on default\n"
  "accent = 81 on default\n"
  "message = 231 on 24\n"
  "error = 231 on 124 bold\n"
  "baseline = 81 on default underline\n";

static attr_t Theme_attrs[TH_COUNT];

bool Theme_colorEnabled(void) {
  const char *nc = getenv("NO_COLOR");
  return has_colors() && !(nc && nc[0]);
}

static bool Theme_parseColor(const char *tok, short *out) {
  static const char *const names[] = {"black", "red",     "green", "yellow",
                                      "blue",  "magenta", "cyan",  "white"};
  if (strcmp(tok, "default") == 0) { *out = -1; return true; }
  for (int i = 0; i < 8; i++) {
    if (strcmp(tok, names[i]) == 0) { *out = (short)i; return true; }
    if (Util_startsWith(tok, "bright") && strcmp(tok + 6 + (tok[6] == '-'), names[i]) == 0) {
      *out = (short)(8 + i);
      return true;
    }
  }
  char *end;
  long v = strtol(tok, &end, 10);
  if (end == tok || *end || v < 0 || v > 255) return false;
  *out = (short)v;
  return true;
}

static bool Theme_parseAttr(const char *tok, attr_t *out) {
  static const struct { const char *name; attr_t a; } attrs[] = {
    {"bold", A_BOLD}, {"dim", A_DIM}, {"reverse", A_REVERSE}, {"underline", A_UNDERLINE},
    {"standout", A_STANDOUT},
  };
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
    if (strcmp(tok, attrs[i].name) == 0) { *out |= attrs[i].a; return true; }
  return false;
}

/* "FG [on BG] [attr...]"; returns a message on error, NULL when fine. */
static const char *Theme_parseStyle(char *value, ThemeStyle *st) {
  st->fg = st->bg = -1;
  st->attrs = 0;
  int n = 0;
  bool want_bg = false;
  for (char *tok = strtok(value, " \t"); tok; tok = strtok(NULL, " \t")) {
    for (char *c = tok; *c; c++) *c = (char)tolower((unsigned char)*c);
    if (strcmp(tok, "on") == 0) { want_bg = true; continue; }
    short c;
    if (want_bg) {
      if (!Theme_parseColor(tok, &c)) return "expected a background colour after 'on'";
      st->bg = c;
      want_bg = false;
    } else if (n == 0 && Theme_parseColor(tok, &c)) {
      st->fg = c;
    } else if (!Theme_parseAttr(tok, &st->attrs)) {
      return "unknown colour or attribute (colours: default, black..white, bright-*, 0-255; "
             "attributes: bold dim reverse underline standout)";
    }
    n++;
  }
  if (want_bg) return "expected a background colour after 'on'";
  st->set = true;
  return NULL;
}

bool Theme_parse(const char *text, const char *name, Theme *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  Util_strlcpy(out->name, name, sizeof out->name);
  if (err && errsize) err[0] = 0;
  bool ok = true;
  int lineno = 0;
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[512];
    Util_strlcpy(line, p, len + 1 < sizeof line ? len + 1 : sizeof line);
    p += len + (nl ? 1 : 0);
    lineno++;
    char *s = line;
    while (isspace((unsigned char)*s)) s++;
    if (!*s || *s == '#') continue;
    char *eq = strchr(s, '=');
    const char *problem = NULL;
    if (!eq) {
      problem = "expected key = value";
    } else {
      *eq = 0;
      char *key = s, *value = eq + 1;
      for (char *e = key + strlen(key); e > key && isspace((unsigned char)e[-1]);) *--e = 0;
      while (isspace((unsigned char)*value)) value++;
      if (strcmp(key, "name") == 0) {
        Util_strlcpy(out->name, value, sizeof out->name);
        continue;
      }
      int el = -1;
      for (int i = 0; i < TH_COUNT; i++)
        if (strcmp(key, Theme_elemNames[i]) == 0) el = i;
      if (el < 0) problem = "unknown element (see themes/README.md for the list)";
      else problem = Theme_parseStyle(value, &out->style[el]);
    }
    if (problem && ok) {
      if (err) snprintf(err, errsize, "%s:%d: %s", name, lineno, problem);
      ok = false;
    }
  }
  /* Elements a theme leaves out look like normal text. */
  for (int i = 0; i < TH_COUNT; i++)
    if (!out->style[i].set) {
      out->style[i] = out->style[TH_NORMAL];
      if (!out->style[TH_NORMAL].set) out->style[i].fg = out->style[i].bg = -1;
    }
  return ok;
}

static void Theme_addDir(ThemeSet *set, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  /* Sorted insertion keeps cycling order stable across runs. */
  struct dirent *e;
  while ((e = readdir(d)) && set->count < 32) {
    size_t n = strlen(e->d_name);
    if (n <= 6 || strcmp(e->d_name + n - 6, ".theme") != 0 || n - 6 >= 64) continue;
    char name[64];
    Util_strlcpy(name, e->d_name, n - 5);
    if (Theme_find(set, name) >= 0) continue; /* the user's config dir wins */
    int at = set->count;
    Util_strlcpy(set->names[at], name, sizeof set->names[at]);
    snprintf(set->paths[at], sizeof set->paths[at], "%s/%s", dir, e->d_name);
    set->count++;
  }
  closedir(d);
}

int Theme_find(const ThemeSet *set, const char *name) {
  for (int i = 0; i < set->count; i++)
    if (strcmp(set->names[i], name) == 0) return i;
  return -1;
}

void Theme_scan(ThemeSet *set) {
  memset(set, 0, sizeof *set);
  char dir[4096];
  if (Util_configDir(dir, sizeof dir)) {
    Util_strlcpy(dir + strlen(dir), "/themes", sizeof dir - strlen(dir));
    Theme_addDir(set, dir);
  }
  const char *env = getenv("BENCHTOP_THEMES");
  if (env && env[0]) Theme_addDir(set, env);
  if (DataDir_find(DATA_THEMES, dir, sizeof dir)) Theme_addDir(set, dir); /* the shipped ones */
  if (Theme_find(set, "dark") < 0 && set->count < 32) {
    Util_strlcpy(set->names[set->count], "dark", sizeof set->names[0]);
    set->paths[set->count][0] = 0;
    set->count++;
  }
  /* Sorted by name so cycling goes in a stable order; names[] and paths[] move together. */
  static char tmp_path[4096];
  for (int i = 1; i < set->count; i++)
    for (int j = i; j > 0 && strcmp(set->names[j - 1], set->names[j]) > 0; j--) {
      char tmp_name[64];
      memcpy(tmp_name, set->names[j], sizeof tmp_name);
      memcpy(set->names[j], set->names[j - 1], sizeof tmp_name);
      memcpy(set->names[j - 1], tmp_name, sizeof tmp_name);
      memcpy(tmp_path, set->paths[j], sizeof tmp_path);
      memcpy(set->paths[j], set->paths[j - 1], sizeof tmp_path);
      memcpy(set->paths[j - 1], tmp_path, sizeof tmp_path);
    }
}

/* The xterm 256-colour palette as RGB, to find the nearest basic colour. */
static void Theme_rgb(int c, int rgb[3]) {
  static const int base[16][3] = {
    {0, 0, 0},       {205, 0, 0},     {0, 205, 0},   {205, 205, 0},   {0, 0, 238},
    {205, 0, 205},   {0, 205, 205},   {229, 229, 229}, {127, 127, 127}, {255, 0, 0},
    {0, 255, 0},     {255, 255, 0},   {92, 92, 255}, {255, 0, 255},   {0, 255, 255},
    {255, 255, 255},
  };
  if (c < 16) {
    memcpy(rgb, base[c], sizeof base[c]);
  } else if (c < 232) {
    static const int steps[6] = {0, 95, 135, 175, 215, 255};
    c -= 16;
    rgb[0] = steps[c / 36]; rgb[1] = steps[(c / 6) % 6]; rgb[2] = steps[c % 6];
  } else {
    rgb[0] = rgb[1] = rgb[2] = 8 + (c - 232) * 10;
  }
}

/* Maps colour c to one the terminal has (ncolors 8 or 16); bright ones gain A_BOLD for fg. */
static short Theme_fit(short c, int ncolors, bool fg, attr_t *attrs) {
  if (c < 0 || c < ncolors) return c;
  int rgb[3], best = 0;
  long best_d = -1;
  Theme_rgb(c, rgb);
  int limit = ncolors >= 16 ? 16 : 8;
  for (int i = 0; i < limit; i++) {
    int b[3];
    Theme_rgb(i, b);
    long d = 0;
    for (int k = 0; k < 3; k++) d += (long)(rgb[k] - b[k]) * (rgb[k] - b[k]);
    if (best_d < 0 || d < best_d) { best_d = d; best = i; }
  }
  /* With 8 colours, light greys/whites read better as bold white than as plain white. */
  if (fg && limit == 8 && rgb[0] + rgb[1] + rgb[2] > 600) *attrs |= A_BOLD;
  return (short)best;
}

bool Theme_apply(const ThemeSet *set, int i, char *err, size_t errsize) {
  if (err && errsize) err[0] = 0;
  if (i < 0 || i >= set->count) return false;
  Theme th;
  bool ok;
  if (!set->paths[i][0]) {
    ok = Theme_parse(Theme_builtinDark, "dark", &th, err, errsize);
  } else {
    char *text = Util_readFile(set->paths[i], NULL, 1 << 20);
    if (!text) {
      if (err) snprintf(err, errsize, "cannot read theme %s: %s", set->paths[i], strerror(errno));
      return false;
    }
    ok = Theme_parse(text, set->paths[i], &th, err, errsize);
    free(text);
  }
  bool color = Theme_colorEnabled();
  int ncolors = color ? COLORS : 0;
  for (int e = 0; e < TH_COUNT; e++) {
    ThemeStyle st = th.style[e];
    attr_t a = st.attrs;
    if (color) {
      short fg = Theme_fit(st.fg, ncolors, true, &a);
      short bg = Theme_fit(st.bg, ncolors, false, &a);
      init_pair((short)(e + 1), fg, bg);
      a |= COLOR_PAIR(e + 1);
    } else if (e == TH_CURSOR || e == TH_STATUS || e == TH_KEYBAR || e == TH_HEADER ||
               e == TH_ERROR || e == TH_MESSAGE || e == TH_STATUS_BUSY) {
      /* Without colour, bars and the cursor must still stand out. */
      if (!(a & (A_REVERSE | A_STANDOUT | A_UNDERLINE))) a |= A_REVERSE;
    }
    Theme_attrs[e] = a;
  }
  return ok;
}

attr_t Theme_attr(ThemeElem el) { return el < TH_COUNT ? Theme_attrs[el] : A_NORMAL; }
