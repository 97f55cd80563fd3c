/* The TUI settings file's parser and merge (tui/config.c), without a terminal. */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tui/config.h"

static bool Parse(TuiConfig *c, const char *text, char *err, size_t size) {
  Config_defaults(c, "t.conf");
  return Config_parse(c, text, "t.conf", err, size);
}

int main(void) {
  TuiConfig c;
  char err[512];
  CHECK(Parse(&c, "# hi\n\n  theme =  light  \nhidden = knobs, l2rdhit,\nsort = tflops\nmouse = off\n", err,
              sizeof err));
  CHECK(strcmp(c.theme, "light") == 0);
  CHECK(c.hidden[COL_KNOBS] && c.hidden[Columns_find("l2rdhit")] && !c.hidden[COL_P50]);
  CHECK(c.sort_col == COL_TFLOPS && c.sort_desc); /* no direction: best first */
  CHECK(!c.mouse && !c.readonly);
  CHECK(c.set == (CONF_THEME | CONF_HIDDEN | CONF_SORT | CONF_MOUSE));

  /* Each problem: one line naming the line, the default for that key, read-only. */
  static const struct { const char *text, *says; } bad[] = {
    {"hidden = p50, nope\n", "t.conf:1: hidden: unknown column 'nope'"},
    {"theme = light\nhidden = variant\n", "t.conf:2: hidden: the variant column"},
    {"sort = p50 sideways\n", "t.conf:1: sort: expected"},
    {"sort = bogus asc\n", "t.conf:1: sort: expected"},
    {"mouse = maybe\n", "t.conf:1: mouse: expected on or off"},
    {"colour = red\n", "t.conf:1: unknown key 'colour'"},
    {"just words\n", "t.conf:1: expected 'key = value'"},
    {"theme = \x1b[31mred\n", "t.conf:1: theme: a theme name"},
    {"hidden = \x1b]0;owned\x07\n", "a value that is not plain text"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bool ok = Parse(&c, bad[i].text, err, sizeof err);
    if (ok || !strstr(err, bad[i].says)) fprintf(stderr, "case %zu: '%s'\n", i, err);
    CHECK(!ok && strstr(err, bad[i].says) != NULL);
    CHECK(c.readonly);
    CHECK(strchr(err, '\x1b') == NULL && strchr(err, '\n') == NULL);
  }
  /* The good lines around a bad one still count. */
  CHECK(!Parse(&c, "theme = light\nhidden = nope\nsort = p90 desc\n", err, sizeof err));
  CHECK(strcmp(c.theme, "light") == 0 && c.sort_col == COL_P90 && c.sort_desc);
  CHECK(!c.hidden[COL_KNOBS]);

  /* Merge: the changed key's first line replaced, its duplicates dropped, the rest kept. */
  Config_defaults(&c, "t.conf");
  c.hidden[COL_SHAPE] = true;
  c.sort_col = COL_P50;
  c.changed = CONF_HIDDEN | CONF_SORT;
  char *m = Config_merge(&c, "# mine\ntheme = light\nhidden = knobs\nx\nhidden = regs\n");
  CHECK(strcmp(m, "# mine\ntheme = light\nhidden = shape\nx\nsort = p50 asc\n") == 0);
  free(m);
  m = Config_merge(&c, NULL);
  CHECK(strstr(m, "# benchtop") == m && strstr(m, "\nhidden = shape\nsort = p50 asc\n"));
  free(m);
  c.changed = 0;
  m = Config_merge(&c, "keep\nme");
  CHECK(strcmp(m, "keep\nme\n") == 0);
  free(m);
  return Check_done("tui_config");
}
