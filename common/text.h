/* Untrusted text on its way to a terminal: session fields, worker messages, file names, error
 * lines that quote input. One sanitiser for every printer and the TUI, so that no escape
 * sequence (ESC, OSC, CSI in either encoding), bell, carriage return or other control byte
 * from a file or a worker ever reaches the terminal raw. */
#ifndef BENCHTOP_TEXT_H
#define BENCHTOP_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Copies src into dst (always terminated, never cut inside a UTF-8 character), replacing each
 * control character (C0, DEL, C1 U+0080-U+009F), each bidirectional override (U+202A-U+202E,
 * U+2066-U+2069) and each byte that is not valid UTF-8 with '?'; a tab becomes a space.
 * Returns dst. dst and src may not overlap, except dst == src (sanitised in place). */
char *Text_sanitize(char *dst, size_t size, const char *src);
/* vsnprintf into dst, then Text_sanitize in place: a message that quotes outside text, formatted
 * and made safe in one step. Returns dst. */
char *Text_vformat(char *dst, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* The same, written to out (no length limit). */
void Text_print(FILE *out, const char *src);
/* True when Text_sanitize would change nothing. */
bool Text_isClean(const char *src);
/* JSON text (as cJSON prints it) with DEL, C1 controls and bidirectional overrides inside its
 * strings written as \uXXXX escapes: the same JSON value, safe to print. Heap string. */
char *Text_jsonForTerminal(const char *json);

#endif
