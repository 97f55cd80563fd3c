#include "common/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* Length of the valid UTF-8 character at s (1-4) with its code point in *cp, or 0 when the
 * bytes there are not one (overlong forms, surrogates and values past U+10FFFF included). */
static size_t Text_decode(const unsigned char *s, uint32_t *cp) {
  unsigned char c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t n;
  uint32_t v, min;
  if (c >= 0xc2 && c <= 0xdf) n = 2, v = c & 0x1fu, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) n = 3, v = c & 0x0fu, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) n = 4, v = c & 0x07u, min = 0x10000;
  else return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    v = v << 6 | (s[i] & 0x3fu);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

static bool Text_unsafe(uint32_t cp) {
  return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

/* Calls emit for each piece of the sanitised text: a run of safe bytes, or a replacement. */
static void Text_walk(const char *src, void (*emit)(const char *p, size_t n, void *u), void *u) {
  const unsigned char *s = (const unsigned char *)src;
  while (*s) {
    const unsigned char *run = s;
    uint32_t cp = 0;
    size_t n;
    while (*s && (n = Text_decode(s, &cp)) != 0 && !Text_unsafe(cp)) s += n;
    if (s > run) emit((const char *)run, (size_t)(s - run), u);
    if (!*s) break;
    n = Text_decode(s, &cp);
    emit(n && cp == '\t' ? " " : "?", 1, u);
    s += n ? n : 1;
  }
}

typedef struct {
  char *dst;
  size_t size, len;
  bool full;
} TextBuf;

static void Text_append(const char *p, size_t n, void *u) {
  TextBuf *b = u;
  if (b->full) return;
  if (b->len + n >= b->size) {
    /* Keep whole characters only: back off to the start of the one that does not fit. */
    n = b->size - 1 - b->len;
    while (n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80) n--;
    b->full = true;
  }
  memmove(b->dst + b->len, p, n);
  b->len += n;
}

char *Text_sanitize(char *dst, size_t size, const char *src) {
  if (size == 0) return dst;
  /* In place works because the output is never longer than the input read so far. */
  TextBuf b = {dst, size, 0, false};
  Text_walk(src, Text_append, &b);
  dst[b.len] = '\0';
  return dst;
}

static void Text_write(const char *p, size_t n, void *u) { fwrite(p, 1, n, (FILE *)u); }

char *Text_vformat(char *dst, size_t size, const char *fmt, va_list ap) {
  vsnprintf(dst, size, fmt, ap);
  return Text_sanitize(dst, size, dst);
}

void Text_print(FILE *out, const char *src) { Text_walk(src, Text_write, out); }

bool Text_isClean(const char *src) {
  const unsigned char *s = (const unsigned char *)src;
  uint32_t cp;
  size_t n;
  while (*s) {
    if ((n = Text_decode(s, &cp)) == 0 || Text_unsafe(cp)) return false;
    s += n;
  }
  return true;
}

char *Text_jsonForTerminal(const char *json) {
  size_t len = strlen(json);
  char *out = Util_xmalloc(len * 6 + 1), *o = out;
  const unsigned char *s = (const unsigned char *)json;
  while (*s) {
    uint32_t cp;
    size_t n = Text_decode(s, &cp);
    if (n == 0) { /* cJSON passes invalid UTF-8 through: U+FFFD keeps the JSON valid */
      memcpy(o, "\\ufffd", 6);
      o += 6;
      s++;
    } else if (Text_unsafe(cp) && cp != '\n' && cp != '\t' && cp != '\r') {
      /* Whitespace between tokens stays; cJSON escapes C0 controls inside strings itself. */
      snprintf(o, 7, "\\u%04x", (unsigned)cp);
      o += 6;
      s += n;
    } else {
      memcpy(o, s, n);
      o += n;
      s += n;
    }
  }
  *o = '\0';
  return out;
}
