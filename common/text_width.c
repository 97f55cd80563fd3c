/* Display width of UTF-8 text (see text_width.h). */
#include "common/text_width.h"

#include <locale.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>

/* The columns of one character at s, of at most max bytes (its length in *len); -1 for none. */
static int Text_charWidth(const char *s, size_t max, size_t *len, locale_t utf8) {
  if (max == 0 || !*s) return -1;
  if ((unsigned char)*s < 0x80) {
    *len = 1;
    return 1;
  }
  mbstate_t st;
  memset(&st, 0, sizeof st);
  wchar_t wc;
  locale_t old = utf8 ? uselocale(utf8) : (locale_t)0;
  size_t n = mbrtowc(&wc, s, max, &st);
  int w = 1;
  if (n == (size_t)-1 || n == (size_t)-2 || n == 0) n = 1;
  else {
    w = wcwidth(wc);
    if (w < 0) w = 1;
  }
  if (utf8) uselocale(old);
  *len = n;
  return w;
}

static locale_t Text_utf8Locale(void) {
  static locale_t loc;
  static bool tried;
  if (!tried) {
    tried = true;
    loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (!loc) loc = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
  }
  return loc;
}

int Text_widthN(const char *s, size_t n) {
  locale_t utf8 = Text_utf8Locale();
  int cols = 0;
  size_t len;
  for (int w; (w = Text_charWidth(s, n, &len, utf8)) >= 0; s += len, n -= len) cols += w;
  return cols;
}

int Text_width(const char *s) { return Text_widthN(s, strlen(s)); }

size_t Text_prefixFor(const char *s, int cols) {
  locale_t utf8 = Text_utf8Locale();
  size_t at = 0, len;
  int used = 0;
  size_t max = strlen(s);
  for (int w; (w = Text_charWidth(s + at, max - at, &len, utf8)) >= 0 && used + w <= cols; at += len)
    used += w;
  return at;
}
