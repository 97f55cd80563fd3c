/* Terminal columns of UTF-8 text, for tables that align by what the eye sees: é is one column,
 * a CJK character or an emoji two, a combining mark none. Independent of the process's locale
 * (a C.UTF-8 locale is used for the question alone). */
#ifndef BENCHTOP_TEXT_WIDTH_H
#define BENCHTOP_TEXT_WIDTH_H

#include <stddef.h>

/* Columns of s (an invalid byte or an unprintable character counts one, as '?' would). */
int Text_width(const char *s);
/* Columns of the first n bytes of s. */
int Text_widthN(const char *s, size_t n);
/* Bytes of s's longest prefix of at most cols columns, never inside a character. */
size_t Text_prefixFor(const char *s, int cols);

#endif
