/* JSON text checks cJSON does not do: where a syntax error is (line:column and what), byte
 * order marks, NUL bytes, duplicate keys, invalid UTF-8. cJSON accepts duplicate keys and
 * passes string bytes through unchecked, so a hostile file needs these before we trust it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/json_fields.h"

/* Line and column (1-based; columns count UTF-8 characters) of byte offset pos. */
static void Json_lineCol(const char *data, size_t pos, int *line, int *col) {
  int l = 1, c = 1;
  for (size_t i = 0; i < pos; i++) {
    unsigned char ch = (unsigned char)data[i];
    if (ch == '\n') {
      l++;
      c = 1;
    } else if ((ch & 0xC0) != 0x80) {
      c++;
    }
  }
  *line = l;
  *col = c;
}

/* Bracket depth just before pos and whether pos is inside a string, by a plain scan. A closing
 * bracket that does not match its opener sets *mismatch to its offset (else len). */
static void Json_scanFull(const char *data, size_t pos, int *depth, bool *in_string,
                          size_t *mismatch) {
  enum { STACK = CJSON_NESTING_LIMIT + 8 };
  char stack[STACK];
  int d = 0;
  bool str = false, esc = false;
  *mismatch = pos;
  for (size_t i = 0; i < pos; i++) {
    char ch = data[i];
    if (str) {
      if (esc) esc = false;
      else if (ch == '\\') esc = true;
      else if (ch == '"') str = false;
    } else if (ch == '"') {
      str = true;
    } else if (ch == '[' || ch == '{') {
      if (d < STACK) stack[d] = ch;
      d++;
    } else if (ch == ']' || ch == '}') {
      char open = ch == ']' ? '[' : '{';
      if (d == 0 || (d <= STACK && stack[d - 1] != open)) {
        if (*mismatch == pos) *mismatch = i;
      }
      if (d > 0) d--;
    }
  }
  *depth = d;
  *in_string = str;
}

static void Json_scan(const char *data, size_t pos, int *depth, bool *in_string) {
  size_t ignored;
  Json_scanFull(data, pos, depth, in_string, &ignored);
}

/* A short printable excerpt of the text at pos, for the message. */
static void Json_excerpt(const char *data, size_t len, size_t pos, char *buf, size_t size) {
  size_t o = 0;
  for (size_t i = pos; i < len && i < pos + 12 && o + 5 < size; i++) {
    unsigned char ch = (unsigned char)data[i];
    if (ch == '\n') break;
    buf[o++] = (ch >= 0x20 && ch < 0x7f && ch != '\'') ? (char)ch : '?';
  }
  buf[o] = '\0';
}

static void Json_syntaxError(const char *data, size_t len, size_t pos, bool at_end,
                             const char *name, char *err, size_t errsize) {
  int line, col, depth;
  bool in_string;
  size_t mismatch;
  Json_scanFull(data, len, &depth, &in_string, &mismatch);
  if (mismatch < len) { /* a real error wherever cJSON stopped */
    Json_lineCol(data, mismatch, &line, &col);
    snprintf(err, errsize, "%s:%d:%d: '%c' does not close the bracket that is open here", name,
             line, col, data[mismatch]);
    return;
  }
  /* cJSON reports a nested failure near the start of the enclosing value, not at the end, so
   * a text whose brackets never close is called truncated whatever position cJSON gave. */
  if (at_end || depth > 0 || in_string) {
    Json_lineCol(data, len, &line, &col);
    snprintf(err, errsize, "%s:%d:%d: unexpected end of input (%s; file truncated?)", name, line,
             col, in_string ? "inside a string" : "unclosed object or array");
    return;
  }
  Json_lineCol(data, pos, &line, &col);
  Json_scan(data, pos, &depth, &in_string);
  unsigned char ch = (unsigned char)data[pos];
  const char *rest = data + pos;
  size_t left = len - pos;
  char what[160];
  if ((ch == '[' || ch == '{') && depth >= CJSON_NESTING_LIMIT - 1) {
    snprintf(what, sizeof what, "nested deeper than %d levels", CJSON_NESTING_LIMIT);
  } else if ((left >= 3 && memcmp(rest, "NaN", 3) == 0) ||
             (left >= 8 && memcmp(rest, "Infinity", 8) == 0) ||
             (left >= 9 && memcmp(rest, "-Infinity", 9) == 0)) {
    snprintf(what, sizeof what, "NaN and Infinity are not JSON (write null for n/a)");
  } else if (ch < 0x20 || ch >= 0x7f) {
    snprintf(what, sizeof what, "unexpected byte 0x%02x", ch);
  } else {
    char ex[24];
    Json_excerpt(data, len, pos, ex, sizeof ex);
    snprintf(what, sizeof what, "invalid JSON at '%s'", ex);
  }
  snprintf(err, errsize, "%s:%d:%d: %s", name, line, col, what);
}

cJSON *Json_parseText(const char *data, size_t len, const char *name, char *err, size_t errsize) {
  size_t ws = 0;
  while (ws < len && strchr(" \t\r\n", data[ws]) && data[ws]) ws++;
  if (ws == len) {
    snprintf(err, errsize, "%s:1:1: empty file (expected a benchtop session, a JSON object)",
             name);
    return NULL;
  }
  if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
    snprintf(err, errsize, "%s:1:1: UTF-8 byte order mark; save the file without a BOM", name);
    return NULL;
  }
  const char *nul = memchr(data, '\0', len);
  if (nul) {
    int line, col;
    Json_lineCol(data, (size_t)(nul - data), &line, &col);
    snprintf(err, errsize, "%s:%d:%d: NUL byte (not a text file?)", name, line, col);
    return NULL;
  }
  /* A terminated private copy: the caller's buffer (the fuzzer's) may end without a NUL. */
  char *text = Util_xmalloc(len + 1);
  memcpy(text, data, len);
  text[len] = '\0';
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (!root) {
    size_t pos = end && end >= text ? (size_t)(end - text) : 0;
    if (pos > len) pos = len;
    Json_syntaxError(text, len, pos, pos >= len, name, err, errsize);
    free(text);
    return NULL;
  }
  size_t pos = end && end >= text ? (size_t)(end - text) : len;
  while (pos < len && strchr(" \t\r\n", text[pos])) pos++;
  if (pos < len) {
    int line, col;
    Json_lineCol(text, pos, &line, &col);
    snprintf(err, errsize, "%s:%d:%d: unexpected text after the end of the JSON value", name,
             line, col);
    cJSON_Delete(root);
    root = NULL;
  }
  free(text);
  return root;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool Json_utf8Valid(const unsigned char *s) {
  while (*s) {
    unsigned c = *s;
    int n;
    unsigned min;
    if (c < 0x80) { s++; continue; }
    else if ((c & 0xE0) == 0xC0) { n = 1; min = 0x80; c &= 0x1F; }
    else if ((c & 0xF0) == 0xE0) { n = 2; min = 0x800; c &= 0x0F; }
    else if ((c & 0xF8) == 0xF0) { n = 3; min = 0x10000; c &= 0x07; }
    else return false;
    s++;
    for (int i = 0; i < n; i++, s++) {
      if ((*s & 0xC0) != 0x80) return false;
      c = (c << 6) | (*s & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  }
  return true;
}

/* A key as it may appear in a message: printable ASCII only, bounded. */
static void Json_safeKey(const char *k, char *buf, size_t size) {
  size_t o = 0;
  for (; *k && o + 4 < size; k++)
    buf[o++] = ((unsigned char)*k >= 0x20 && (unsigned char)*k < 0x7f) ? *k : '?';
  if (*k) { buf[o++] = '.'; buf[o++] = '.'; buf[o++] = '.'; }
  buf[o] = '\0';
}

static int Json_cmpKeys(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Returns the first key that occurs twice among obj's members, or NULL. */
static const char *Json_duplicateKey(const cJSON *obj) {
  int n = cJSON_GetArraySize(obj);
  if (n < 2) return NULL;
  const char **keys = Util_xmalloc(sizeof(char *) * (size_t)n);
  int k = 0;
  for (const cJSON *c = obj->child; c; c = c->next) keys[k++] = c->string ? c->string : "";
  qsort(keys, (size_t)k, sizeof(char *), Json_cmpKeys);
  const char *dup = NULL;
  for (int i = 1; i < k && !dup; i++)
    if (strcmp(keys[i - 1], keys[i]) == 0) dup = keys[i];
  free(keys);
  return dup;
}

static bool Json_validateNode(const cJSON *node, char *path, size_t plen, size_t psize, char *err,
                              size_t errsize) {
  const char *shown = plen ? path : "(top level)";
  if (cJSON_IsString(node) && node->valuestring &&
      !Json_utf8Valid((const unsigned char *)node->valuestring)) {
    snprintf(err, errsize, "%s: invalid UTF-8 in string", shown);
    return false;
  }
  if (!cJSON_IsObject(node) && !cJSON_IsArray(node)) return true;
  if (cJSON_IsObject(node)) {
    const char *dup = Json_duplicateKey(node);
    if (dup) {
      char k[80];
      Json_safeKey(dup, k, sizeof k);
      snprintf(err, errsize, "%s: duplicate key \"%s\"", shown, k);
      return false;
    }
  }
  int i = 0;
  for (const cJSON *c = node->child; c; c = c->next, i++) {
    char seg[96];
    if (cJSON_IsObject(node)) {
      const char *key = c->string ? c->string : "";
      if (!Json_utf8Valid((const unsigned char *)key)) {
        snprintf(err, errsize, "%s: invalid UTF-8 in a key", shown);
        return false;
      }
      char k[80];
      Json_safeKey(key, k, sizeof k);
      snprintf(seg, sizeof seg, "%s%s", plen ? "." : "", k);
    } else {
      snprintf(seg, sizeof seg, "[%d]", i);
    }
    size_t sl = strlen(seg);
    if (plen + sl + 1 > psize) sl = 0; /* path too long to show more; keep the prefix */
    memcpy(path + plen, seg, sl);
    path[plen + sl] = '\0';
    bool ok = Json_validateNode(c, path, plen + sl, psize, err, errsize);
    path[plen] = '\0';
    if (!ok) return false;
  }
  return true;
}

bool Json_validateTree(const cJSON *root, char *err, size_t errsize) {
  char path[512] = "";
  return Json_validateNode(root, path, 0, sizeof path, err, errsize);
}
