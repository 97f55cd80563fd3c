/* Paths as a shell user types them: a leading ~ or ~user, and $VAR or ${VAR} anywhere; a
 * backslash takes the next character as it is (\$HOME stays "$HOME"). Nothing else (no globs,
 * no commands, no word splitting): a path with spaces stays one path. */
#ifndef BENCHTOP_EXPAND_H
#define BENCHTOP_EXPAND_H

#include <stdbool.h>
#include <stddef.h>

/* Expands in into out; false with one line in err ("$SCRATCH is not set", "no user 'bob'",
 * "the path is longer than N bytes"), out then undefined. */
bool Expand_path(const char *in, char *out, size_t size, char *err, size_t errsize);

#endif
