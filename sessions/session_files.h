/* The session files under folders, found recursively (benchtop best, the TUI's best-so-far
 * column): every *.json, in name order, links not followed (no loops, nothing outside). */
#ifndef BENCHTOP_SESSION_FILES_H
#define BENCHTOP_SESSION_FILES_H

#include <stdbool.h>
#include <stddef.h>

#define SESSION_FILES_MAX 10000
#define SESSION_FILES_DEPTH_MAX 16

typedef struct SessionFiles {
  int n;
  char **paths;
} SessionFiles;

/* Adds the *.json under dir to f (at most SESSION_FILES_MAX in all, SESSION_FILES_DEPTH_MAX
 * folders deep); false with one line in err when a folder could not be read (the others are
 * still added). */
bool SessionFiles_walk(SessionFiles *f, const char *dir, char *err, size_t errsize);
/* Adds one path as given. */
void SessionFiles_add(SessionFiles *f, const char *path);
void SessionFiles_free(SessionFiles *f);

#endif
