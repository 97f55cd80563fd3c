/* Session files under folders (sessions/session_files.h). */
#include "sessions/session_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"

static int SessionFiles_cmpPath(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void SessionFiles_add(SessionFiles *f, const char *path) {
  f->paths = Util_xrealloc(f->paths, sizeof *f->paths * (size_t)(f->n + 1));
  f->paths[f->n++] = Util_xstrdup(path);
}

static bool SessionFiles_walkAt(SessionFiles *f, const char *dir, int depth, char *err,
                                size_t errsize) {
  DIR *d = opendir(dir);
  if (!d) {
    snprintf(err, errsize, "%s: %s", dir, strerror(errno));
    return false;
  }
  char **names = NULL;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    names = Util_xrealloc(names, sizeof *names * (size_t)(n + 1));
    names[n++] = Util_asprintf("%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, SessionFiles_cmpPath);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    struct stat st;
    size_t len = strlen(names[i]);
    if (lstat(names[i], &st) == 0 && S_ISDIR(st.st_mode) && depth < SESSION_FILES_DEPTH_MAX) {
      ok = SessionFiles_walkAt(f, names[i], depth + 1, err, errsize) && ok;
    } else if (lstat(names[i], &st) == 0 && S_ISREG(st.st_mode) && len > 5 &&
               strcmp(names[i] + len - 5, ".json") == 0 && f->n < SESSION_FILES_MAX) {
      f->paths = Util_xrealloc(f->paths, sizeof *f->paths * (size_t)(f->n + 1));
      f->paths[f->n++] = names[i];
      names[i] = NULL;
    }
    free(names[i]);
  }
  free(names);
  return ok;
}

bool SessionFiles_walk(SessionFiles *f, const char *dir, char *err, size_t errsize) {
  return SessionFiles_walkAt(f, dir, 0, err, errsize);
}

void SessionFiles_free(SessionFiles *f) {
  for (int i = 0; i < f->n; i++) free(f->paths[i]);
  free(f->paths);
  f->paths = NULL;
  f->n = 0;
}
