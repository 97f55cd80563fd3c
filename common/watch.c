#include "common/watch.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

#include "common/safe_file.h"
#include "common/util.h"

typedef struct WatchFile {
  char *path;
  bool exists;           /* stat() succeeded last time */
  struct timespec mtime;
  long long size;
  uint64_t hash;         /* of the content; 0 when unreadable */
} WatchFile;

struct Watch {
  WatchFile *files;
  int count;
  int fd;                /* inotify, or -1 */
  char **dirs;           /* the directories given to inotify */
  int ndirs;
  double next_poll_ms;   /* polling: when the files are looked at next */
};

/* The content's hash, 0 when it cannot be read (a FIFO is never opened for reading: the
 * safe reader refuses what is not a regular file). */
static uint64_t Watch_hash(const char *path) {
  char err[256];
  size_t n = 0;
  char *text = SafeFile_read(path, WATCH_MAX_FILE, &n, err, sizeof err);
  if (!text) return 0;
  uint64_t h = Util_hash64(text, n, 0);
  free(text);
  return h ? h : 1;
}

/* Looks at one file: true when its content changed since the last look. */
static bool Watch_look(WatchFile *f) {
  struct stat st;
  bool exists = stat(f->path, &st) == 0;
  if (!exists) {
    bool was = f->exists;
    f->exists = false;
    f->hash = 0;
    return was;
  }
  if (f->exists && st.st_mtim.tv_sec == f->mtime.tv_sec && st.st_mtim.tv_nsec == f->mtime.tv_nsec &&
      (long long)st.st_size == f->size)
    return false;
  f->exists = true;
  f->mtime = st.st_mtim;
  f->size = (long long)st.st_size;
  uint64_t h = Watch_hash(f->path);
  bool changed = h != f->hash;
  f->hash = h;
  return changed;
}

Watch *Watch_new(bool force_poll) {
  Watch *w = Util_xcalloc(1, sizeof *w);
  w->fd = -1;
  const char *env = getenv("BENCHTOP_WATCH");
  if (env && strcmp(env, "poll") == 0) force_poll = true;
#ifdef __linux__
  if (!force_poll) w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); /* -1: polling */
#endif
  w->next_poll_ms = Util_nowMs() + WATCH_POLL_MS;
  return w;
}

void Watch_free(Watch *w) {
  if (!w) return;
  if (w->fd >= 0) close(w->fd);
  for (int i = 0; i < w->count; i++) free(w->files[i].path);
  for (int i = 0; i < w->ndirs; i++) free(w->dirs[i]);
  free(w->files);
  free(w->dirs);
  free(w);
}

static void Watch_addDir(Watch *w, const char *path) {
#ifdef __linux__
  char dir[PATH_MAX];
  Util_strlcpy(dir, path, sizeof dir);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else Util_strlcpy(dir, ".", sizeof dir);
  for (int i = 0; i < w->ndirs; i++)
    if (strcmp(w->dirs[i], dir) == 0) return;
  /* Saves by rename, by truncate-and-write, new files and deletions all show in the directory. */
  uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVE_SELF |
                  IN_DELETE_SELF;
  if (inotify_add_watch(w->fd, dir, mask) < 0) { /* out of watches, or no such directory */
    close(w->fd);
    w->fd = -1; /* polling from now on: slower, never blind */
    return;
  }
  w->dirs = Util_xrealloc(w->dirs, sizeof(char *) * (size_t)(w->ndirs + 1));
  w->dirs[w->ndirs++] = Util_xstrdup(dir);
#else
  (void)w;
  (void)path;
#endif
}

int Watch_add(Watch *w, const char *path) {
  for (int i = 0; i < w->count; i++)
    if (strcmp(w->files[i].path, path) == 0) return i;
  w->files = Util_xrealloc(w->files, sizeof(WatchFile) * (size_t)(w->count + 1));
  WatchFile *f = &w->files[w->count];
  memset(f, 0, sizeof *f);
  f->path = Util_xstrdup(path);
  Watch_look(f);
  if (w->fd >= 0) Watch_addDir(w, path);
  return w->count++;
}

int Watch_count(const Watch *w) { return w->count; }
const char *Watch_path(const Watch *w, int i) { return i >= 0 && i < w->count ? w->files[i].path : NULL; }
bool Watch_usesInotify(const Watch *w) { return w->fd >= 0; }
int Watch_fd(const Watch *w) { return w->fd; }

int Watch_timeoutMs(const Watch *w) {
  if (w->fd >= 0 || w->count == 0) return -1;
  double left = w->next_poll_ms - Util_nowMs();
  return left <= 0 ? 0 : (int)left + 1;
}

int Watch_changes(Watch *w, int *changed, int max) {
  bool look = false;
  if (w->fd >= 0) {
    /* Which file an event names matters little: a handful of files are all looked at. */
    char buf[4096] __attribute__((aligned(__alignof__(uint32_t))));
    for (;;) {
      ssize_t n = read(w->fd, buf, sizeof buf);
      if (n > 0) {
        look = true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break; /* EAGAIN: drained */
    }
  } else if (Util_nowMs() >= w->next_poll_ms) {
    look = true;
    w->next_poll_ms = Util_nowMs() + WATCH_POLL_MS;
  }
  int n = 0;
  for (int i = 0; look && i < w->count; i++)
    if (Watch_look(&w->files[i]) && n < max) changed[n++] = i;
  return n;
}
