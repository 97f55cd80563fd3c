/* Tuning grids (bench/tune/tune_grid.h): finding a grid file and reading it. */
#include "bench/tune/tune_grid.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/datadir.h"
#include "common/safe_file.h"
#include "common/util.h"

/* The shipped grids' folder: TUNE_GRID_DIR_ENV, else the data folder's grids/. */
static bool TuneGrid_dir(char *dir, size_t size) {
  const char *env = getenv(TUNE_GRID_DIR_ENV);
  if (env && *env) return Util_strlcpy(dir, env, size) < size;
  return DataDir_find(DATA_GRIDS, dir, size);
}

/* "default, small" into list: the shipped grids' names. */
static void TuneGrid_names(const char *dir, char *list, size_t size) {
  list[0] = '\0';
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".grid") != 0) continue;
    size_t used = strlen(list);
    snprintf(list + used, size - used, "%s%.*s", used ? ", " : "", (int)(len - 5), e->d_name);
  }
  closedir(d);
}

bool TuneGrid_resolve(const char *arg, char *path, size_t size, char *err, size_t errsize) {
  size_t len = strlen(arg);
  if (len == 0) {
    snprintf(err, errsize, "--grid needs a grid name (default) or a grid file");
    return false;
  }
  if (strchr(arg, '/') || (len > 5 && strcmp(arg + len - 5, ".grid") == 0)) {
    if (Util_strlcpy(path, arg, size) >= size) {
      snprintf(err, errsize, "--grid: the file name is %zu bytes; at most %zu", len, size - 1);
      return false;
    }
    return true;
  }
  for (const char *c = arg; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_') {
      snprintf(err, errsize, "--grid '%.60s': a grid name is letters, digits, - and _ (or give a "
               "file: ./NAME.grid)", arg);
      return false;
    }
  char dir[4096];
  if (!TuneGrid_dir(dir, sizeof dir)) {
    snprintf(err, errsize, "--grid %.60s: no folder of shipped grids was found (set %s=DIR, or "
             "give a grid file)", arg, TUNE_GRID_DIR_ENV);
    return false;
  }
  if ((size_t)snprintf(path, size, "%s/%s.grid", dir, arg) >= size) {
    snprintf(err, errsize, "--grid %.60s: the grid's path is longer than %zu bytes", arg, size - 1);
    return false;
  }
  if (SafeFile_regularOrAbsent(path, err, errsize)) {
    FILE *f = fopen(path, "r");
    if (f) {
      fclose(f);
      return true;
    }
    char names[1024];
    TuneGrid_names(dir, names, sizeof names);
    snprintf(err, errsize, "--grid %.60s: no such grid in %s (there: %s; or give a grid file)",
             arg, dir, names[0] ? names : "none");
  }
  return false;
}

void TuneGrid_free(TuneGrid *g) {
  free(g->problems);
  g->problems = NULL;
  g->nproblems = 0;
}

/* A setting line ("budget 30"); false with err. */
static bool TuneGrid_setting(TuneGrid *g, const char *word, const char *value, const char *where,
                             char *err, size_t errsize) {
  char *target = NULL;
  size_t cap = 0;
  if (strcmp(word, "budget") == 0) {
    target = g->budget;
    cap = sizeof g->budget;
  } else if (strcmp(word, "metrics") == 0) {
    target = g->metrics;
    cap = sizeof g->metrics;
  } else {
    snprintf(err, errsize, "%s: unknown setting '%.40s' (a line is a problem BxHq[/Hkv]xSq[/Skv]xD"
             "[:causal][:bf16], 'budget N|P%%' or 'metrics LIST')", where, word);
    return false;
  }
  if (!*value) {
    snprintf(err, errsize, "%s: '%s' needs a value", where, word);
    return false;
  }
  if (target[0]) {
    snprintf(err, errsize, "%s: '%s' is set twice", where, word);
    return false;
  }
  if (Util_strlcpy(target, value, cap) >= cap) {
    snprintf(err, errsize, "%s: the %s is %zu bytes; at most %zu", where, word, strlen(value), cap - 1);
    return false;
  }
  return true;
}

/* One line, comments and blanks trimmed (line is modified). */
static bool TuneGrid_line(TuneGrid *g, char *line, const char *where, int *lines_of, int lineno,
                          char *err, size_t errsize) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  while (isspace((unsigned char)*line)) line++;
  size_t len = strlen(line);
  while (len > 0 && isspace((unsigned char)line[len - 1])) line[--len] = '\0';
  if (len == 0) return true;
  if (isalpha((unsigned char)line[0])) {
    char *value = line + strcspn(line, " \t");
    if (*value) *value++ = '\0';
    while (isspace((unsigned char)*value)) value++;
    return TuneGrid_setting(g, line, value, where, err, errsize);
  }
  if (g->nproblems >= TUNE_GRID_PROBLEMS_MAX) {
    snprintf(err, errsize, "%s: more than %d problems; a grid holds at most %d (split it into two "
             "grids)", where, TUNE_GRID_PROBLEMS_MAX, TUNE_GRID_PROBLEMS_MAX);
    return false;
  }
  Shape s;
  char why[256];
  if (!Shape_parse(line, &s, why, sizeof why)) {
    snprintf(err, errsize, "%s: %s", where, why);
    return false;
  }
  for (int i = 0; i < g->nproblems; i++)
    if (Shape_equal(&g->problems[i], &s)) {
      snprintf(err, errsize, "%s: '%.60s' is the problem of line %d again (give each once)", where,
               line, lines_of[i]);
      return false;
    }
  lines_of[g->nproblems] = lineno;
  g->problems[g->nproblems++] = s;
  return true;
}

bool TuneGrid_parse(const char *text, size_t len, const char *name, TuneGrid *g, char *err,
                    size_t errsize) {
  memset(g, 0, sizeof *g);
  Util_strlcpy(g->path, name, sizeof g->path);
  if (memchr(text, '\0', len)) {
    snprintf(err, errsize, "%s: holds a NUL byte; a grid is text", name);
    return false;
  }
  g->problems = Util_xcalloc(TUNE_GRID_PROBLEMS_MAX, sizeof(Shape));
  int *lines_of = Util_xcalloc(TUNE_GRID_PROBLEMS_MAX, sizeof(int));
  char *copy = Util_xmalloc(len + 1);
  memcpy(copy, text, len);
  copy[len] = '\0';
  bool ok = true;
  int lineno = 0;
  for (char *line = copy; ok && line && (size_t)(line - copy) <= len;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char where[4200];
    snprintf(where, sizeof where, "%s:%d", name, ++lineno);
    ok = TuneGrid_line(g, line, where, lines_of, lineno, err, errsize);
    line = next;
  }
  if (ok && g->nproblems == 0) {
    snprintf(err, errsize, "%s: no problems (one BxHq[/Hkv]xSq[/Skv]xD[:causal][:bf16] a line)", name);
    ok = false;
  }
  free(copy);
  free(lines_of);
  if (!ok) TuneGrid_free(g);
  return ok;
}

bool TuneGrid_load(const char *path, TuneGrid *g, char *err, size_t errsize) {
  size_t len = 0;
  char *text = SafeFile_read(path, TUNE_GRID_FILE_MAX, &len, err, errsize);
  if (!text) {
    memset(g, 0, sizeof *g);
    return false;
  }
  bool ok = TuneGrid_parse(text, len, path, g, err, errsize);
  free(text);
  return ok;
}
