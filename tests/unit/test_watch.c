/* common/watch: with inotify and polling alike, a file counts as changed only when its content
 * did (a touch, or the same text written again, is not a change); a save by rename, a write in
 * place, a deletion and a file that comes back are; files of two directories; a FIFO never
 * blocks the look. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "common/util.h"
#include "common/watch.h"

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* Changes seen within a second (inotify is immediate; polling looks every WATCH_POLL_MS). */
static int changes(Watch *w, int *out) {
  for (int i = 0; i < 50; i++) {
    int n = Watch_changes(w, out, 8);
    if (n) return n;
    usleep(20 * 1000);
  }
  return 0;
}

static void test_mode(const char *dir, bool poll) {
  char a[4200], b[4200], sub[4096], tmp[4300];
  snprintf(a, sizeof a, "%s/a.cu", dir);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  snprintf(b, sizeof b, "%s/b.cu", sub);
  mkdir(sub, 0755);
  write_text(a, "one\n");
  write_text(b, "two\n");
  Watch *w = Watch_new(poll);
  CHECK(Watch_usesInotify(w) == !poll);
  int ia = Watch_add(w, a), ib = Watch_add(w, b);
  CHECK(Watch_add(w, a) == ia && ia != ib && Watch_count(w) == 2);
  CHECK(poll ? Watch_fd(w) < 0 && Watch_timeoutMs(w) >= 0 : Watch_fd(w) >= 0 && Watch_timeoutMs(w) == -1);
  int got[8];
  CHECK(changes(w, got) == 0); /* nothing happened */

  write_text(a, "one, edited\n"); /* in place */
  CHECKF(changes(w, got) == 1 && got[0] == ia, "%s", poll ? "poll" : "inotify");
  /* A touch, then the same text written again (new mtimes): no change. */
  struct timespec later[2] = {{0, UTIME_NOW}, {time(NULL) + 5, 0}};
  utimensat(AT_FDCWD, a, later, 0);
  write_text(a, "one, edited\n");
  CHECK(changes(w, got) == 0);

  snprintf(tmp, sizeof tmp, "%s.tmp", b); /* an editor's save: a new file renamed over */
  write_text(tmp, "two, saved\n");
  CHECK(rename(tmp, b) == 0);
  CHECK(changes(w, got) == 1 && got[0] == ib);

  CHECK(unlink(a) == 0); /* gone: a change */
  CHECK(changes(w, got) == 1 && got[0] == ia);
  write_text(a, "one, back\n"); /* back again: a change */
  CHECK(changes(w, got) == 1 && got[0] == ia);

  /* A FIFO in place of a file: a change (unreadable), and the look does not block. */
  CHECK(unlink(a) == 0 && mkfifo(a, 0600) == 0);
  CHECK(changes(w, got) == 1 && got[0] == ia);
  unlink(a);
  unlink(b);
  rmdir(sub);
  Watch_free(w);
}

int main(void) {
  char dir[] = "/tmp/benchtop-watch-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  unsetenv("BENCHTOP_WATCH");
  test_mode(dir, false);
  test_mode(dir, true);
  setenv("BENCHTOP_WATCH", "poll", 1); /* forces polling */
  Watch *w = Watch_new(false);
  CHECK(!Watch_usesInotify(w));
  Watch_free(w);
  rmdir(dir);
  return Check_done("watch");
}
