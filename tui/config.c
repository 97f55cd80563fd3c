/* The TUI's settings file (see config.h for the format and the rules of writing it). */
#include "tui/config.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"

static const char *const Config_keyNames[] = {"theme", "hidden", "sort", "mouse"};
#define CONFIG_NKEYS ((int)(sizeof Config_keyNames / sizeof Config_keyNames[0]))

void Config_defaults(TuiConfig *c, const char *path) {
  memset(c, 0, sizeof *c);
  Util_strlcpy(c->path, path ? path : "", sizeof c->path);
  c->sort_col = -1;
  c->mouse = true;
}

void Config_defaultPath(char *buf, size_t size) {
  char dir[4096];
  Util_configDir(dir, sizeof dir);
  snprintf(buf, size, "%.4000s/tui.conf", dir);
}

/* A value is quoted back to the user only when it is short plain text: the file may hold
 * anything, and messages go to the terminal. */
static void Config_quote(const char *v, char *out, size_t size) {
  bool plain = strlen(v) <= 40;
  for (const char *p = v; *p && plain; p++)
    plain = isalnum((unsigned char)*p) || strchr("_.,:+- ", *p);
  if (plain) snprintf(out, size, "'%s'", v);
  else snprintf(out, size, "a value that is not plain text");
}

static char *Config_trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

static bool Config_bool(const char *v, bool *out) {
  static const char *const yes[] = {"on", "yes", "true", "1"}, *const no[] = {"off", "no", "false", "0"};
  for (int i = 0; i < 4; i++) {
    if (strcmp(v, yes[i]) == 0) { *out = true; return true; }
    if (strcmp(v, no[i]) == 0) { *out = false; return true; }
  }
  return false;
}

/* One "key = value"; false with what is wrong in why. *key gets the ConfigKey (0: none). */
static bool Config_line(TuiConfig *c, char *line, unsigned *key, char *why, size_t wsize) {
  char q[64];
  *key = 0;
  char *eq = strchr(line, '=');
  if (!eq) {
    snprintf(why, wsize, "expected 'key = value'");
    return false;
  }
  *eq = 0;
  char *k = Config_trim(line), *v = Config_trim(eq + 1);
  int ki = -1;
  for (int i = 0; i < CONFIG_NKEYS; i++)
    if (strcmp(k, Config_keyNames[i]) == 0) ki = i;
  if (ki < 0) {
    Config_quote(k, q, sizeof q);
    snprintf(why, wsize, "unknown key %s (known: theme, hidden, sort, mouse)", q);
    return false;
  }
  *key = 1u << ki;
  switch (*key) {
  case CONF_THEME:
    for (const char *p = v; *p; p++)
      if (!isalnum((unsigned char)*p) && !strchr("_.-", *p)) {
        snprintf(why, wsize, "theme: a theme name is letters, digits, '_', '.' and '-'");
        return false;
      }
    if (!v[0] || strlen(v) >= sizeof c->theme) {
      snprintf(why, wsize, "theme: expected a theme name");
      return false;
    }
    Util_strlcpy(c->theme, v, sizeof c->theme);
    return true;
  case CONF_HIDDEN: {
    bool hidden[COL_COUNT] = {false};
    for (char *save = NULL, *tok = strtok_r(v, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      tok = Config_trim(tok);
      if (!tok[0]) continue;
      int col = Columns_find(tok);
      Config_quote(tok, q, sizeof q);
      if (col < 0) {
        snprintf(why, wsize, "hidden: unknown column %s", q);
        return false;
      }
      if (col == COL_VARIANT) {
        snprintf(why, wsize, "hidden: the variant column cannot be hidden");
        return false;
      }
      hidden[col] = true;
    }
    memcpy(c->hidden, hidden, sizeof hidden);
    return true;
  }
  case CONF_SORT: {
    if (strcmp(v, "none") == 0) {
      c->sort_col = -1;
      return true;
    }
    char col[64] = "", dir[16] = "", extra[2] = "";
    int n = sscanf(v, "%63s %15s %1s", col, dir, extra);
    int id = n >= 1 ? Columns_find(col) : -1;
    if (n < 1 || n > 2 || id < 0 || (n == 2 && strcmp(dir, "asc") && strcmp(dir, "desc"))) {
      Config_quote(v, q, sizeof q);
      snprintf(why, wsize, "sort: expected 'COLUMN asc|desc' or 'none', not %s", q);
      return false;
    }
    c->sort_col = id;
    c->sort_desc = n == 2 ? strcmp(dir, "desc") == 0 : Columns[id].dir == DIR_HIGHER;
    return true;
  }
  default:
    if (!Config_bool(v, &c->mouse)) {
      snprintf(why, wsize, "mouse: expected on or off");
      return false;
    }
    return true;
  }
}

bool Config_parse(TuiConfig *c, const char *text, const char *name, char *err, size_t errsize) {
  if (errsize) err[0] = 0;
  char *copy = Util_xstrdup(text);
  bool ok = true;
  int lineno = 0;
  for (char *line = copy, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    lineno++;
    char *t = Config_trim(line);
    if (!t[0] || t[0] == '#') continue;
    char why[256];
    unsigned key;
    TuiConfig trial = *c; /* a bad value leaves the default it would have replaced */
    if (Config_line(&trial, t, &key, why, sizeof why)) {
      *c = trial;
      c->set |= key;
    } else if (ok) {
      snprintf(err, errsize, "%.3000s:%d: %s; defaults used for it, the file is left as it is",
               name, lineno, why);
      ok = false;
    }
  }
  free(copy);
  if (!ok) c->readonly = true;
  return ok;
}

/* The text, or NULL with *missing set when there is no file; NULL with err otherwise. */
static char *Config_read(const char *path, bool *missing, char *err, size_t errsize) {
  *missing = false;
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) {
      *missing = true;
      return NULL;
    }
    snprintf(err, errsize, "%.3000s: %s", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) { /* a FIFO would block, a device never end */
    snprintf(err, errsize, "%.3000s: not a regular file", path);
    return NULL;
  }
  size_t len = 0;
  char *text = Util_readFile(path, &len, CONFIG_MAX_BYTES);
  if (!text) {
    snprintf(err, errsize, "%.3000s: %s", path,
             errno == EFBIG ? "larger than 64 KB, not a settings file" : strerror(errno));
    return NULL;
  }
  if (strlen(text) != len) {
    snprintf(err, errsize, "%.3000s: holds NUL bytes, not a settings file", path);
    free(text);
    return NULL;
  }
  return text;
}

bool Config_load(TuiConfig *c, char *err, size_t errsize) {
  if (errsize) err[0] = 0;
  bool missing;
  char *text = Config_read(c->path, &missing, err, errsize);
  if (!text) {
    if (missing) return true;
    Util_strlcpy(err + strlen(err), "; using the defaults", errsize - strlen(err));
    c->readonly = true;
    return false;
  }
  bool ok = Config_parse(c, text, c->path, err, errsize);
  free(text);
  return ok;
}

static void Config_render(const TuiConfig *c, unsigned key, char *buf, size_t size) {
  size_t n = 0;
  switch (key) {
  case CONF_THEME: snprintf(buf, size, "theme = %s", c->theme); return;
  case CONF_HIDDEN: {
    const char *sep = " ";
    n = (size_t)snprintf(buf, size, "hidden =");
    for (int col = 0; col < COL_COUNT && n < size; col++)
      if (c->hidden[col]) {
        n += (size_t)snprintf(buf + n, size - n, "%s%s", sep, Columns[col].key);
        sep = ",";
      }
    return;
  }
  case CONF_SORT:
    if (c->sort_col < 0) snprintf(buf, size, "sort = none");
    else snprintf(buf, size, "sort = %s %s", Columns[c->sort_col].key, c->sort_desc ? "desc" : "asc");
    return;
  default: snprintf(buf, size, "mouse = %s", c->mouse ? "on" : "off"); return;
  }
}

/* The ConfigKey a line sets (0 for comments, blank and unknown lines). */
static unsigned Config_lineKey(const char *line) {
  while (isspace((unsigned char)*line)) line++;
  for (int i = 0; i < CONFIG_NKEYS; i++) {
    size_t n = strlen(Config_keyNames[i]);
    if (strncmp(line, Config_keyNames[i], n) != 0) continue;
    const char *p = line + n;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '=') return 1u << i;
  }
  return 0;
}

char *Config_merge(const TuiConfig *c, const char *old) {
  size_t cap = (old ? strlen(old) : 0) + 1024, len = 0;
  char *out = Util_xmalloc(cap);
  out[0] = 0;
  if (!old) len = (size_t)snprintf(out, cap, "# benchtop TUI settings (written by benchtop; edit freely)\n");
  unsigned written = 0;
  char line[512];
  for (const char *p = old; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char *src = Util_xmalloc(n + 1);
    memcpy(src, p, n);
    src[n] = 0;
    p += n + (nl ? 1 : 0);
    unsigned key = Config_lineKey(src);
    const char *emit = src;
    if (key & c->changed) {
      if (written & key) {
        free(src);
        continue; /* a duplicate of a key written above */
      }
      Config_render(c, key, line, sizeof line);
      emit = line;
      written |= key;
    }
    size_t need = strlen(emit) + 2;
    if (len + need >= cap) out = Util_xrealloc(out, cap = (len + need) * 2);
    len += (size_t)snprintf(out + len, cap - len, "%s\n", emit);
    free(src);
  }
  for (int i = 0; i < CONFIG_NKEYS; i++) {
    unsigned key = 1u << i;
    if (!(c->changed & key) || (written & key)) continue;
    Config_render(c, key, line, sizeof line);
    if (len + strlen(line) + 2 >= cap) out = Util_xrealloc(out, cap = (len + strlen(line) + 2) * 2);
    len += (size_t)snprintf(out + len, cap - len, "%s\n", line);
  }
  return out;
}

bool Config_save(TuiConfig *c, char *err, size_t errsize) {
  if (errsize) err[0] = 0;
  if (!c->changed) return true;
  if (c->readonly) {
    snprintf(err, errsize, "%.3000s has a problem: settings not saved until it is fixed", c->path);
    return false;
  }
  /* What is there now: another benchtop may have written since this one read it. */
  bool missing;
  char *old = Config_read(c->path, &missing, err, errsize);
  if (!old && !missing) return false;
  if (old) {
    TuiConfig check;
    Config_defaults(&check, c->path);
    if (!Config_parse(&check, old, c->path, err, errsize)) {
      free(old);
      c->readonly = true;
      return false;
    }
  }
  /* A settings file linked from elsewhere (a dotfiles checkout) is written where it lives,
   * and the link stays. */
  char target[PATH_MAX];
  if (!realpath(c->path, target)) Util_strlcpy(target, c->path, sizeof target);
  char dir[4096];
  Util_strlcpy(dir, target, sizeof dir);
  char *slash = strrchr(dir, '/');
  if (slash && slash != dir) {
    *slash = 0;
    if (!Util_mkdirs(dir)) {
      snprintf(err, errsize, "cannot create %.3000s: %s", dir, strerror(errno));
      free(old);
      return false;
    }
  }
  char *text = Config_merge(c, old);
  free(old);
  bool ok = Util_writeFileAtomic(target, text, strlen(text), err, errsize);
  free(text);
  if (ok) c->changed = 0;
  return ok;
}
