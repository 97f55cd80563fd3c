/* worker.log rotated per run and capped within one (see worker_log.h). */
#include "bench/runner/worker_log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safe_file.h"
#include "common/util.h"

static bool WorkerLog_begun, WorkerLog_noted;

int64_t WorkerLog_cap(void) {
  const char *env = getenv("BENCHTOP_WORKER_LOG_MAX");
  if (env && *env) {
    char *end;
    long long v = strtoll(env, &end, 10);
    if (*end == '\0' && v >= 4096) return v;
  }
  return WORKER_LOG_MAX_BYTES;
}

void WorkerLog_beginRun(const char *path) {
  if (WorkerLog_begun || !path[0]) return;
  WorkerLog_begun = true;
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1 || st.st_size == 0) return;
  char *old = Util_asprintf("%s.1", path);
  struct stat ost;
  /* path.1 is replaced only when it too is a plain file of ours (or absent). */
  if (lstat(old, &ost) != 0 ? errno == ENOENT : S_ISREG(ost.st_mode) && ost.st_nlink == 1)
    (void)rename(path, old);
  free(old);
}

void WorkerLog_limitChild(int64_t cap) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || (int64_t)rl.rlim_cur > cap)) {
    rl.rlim_cur = (rlim_t)cap;
    (void)setrlimit(RLIMIT_FSIZE, &rl);
  }
  signal(SIGXFSZ, SIG_IGN); /* kept across exec: a write past the cap fails, nothing dies */
}

void WorkerLog_noteIfFull(const char *path) {
  if (WorkerLog_noted || !path[0]) return;
  int64_t cap = WorkerLog_cap();
  char err[256];
  int fd = SafeFile_openLog(path, err, sizeof err);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size >= cap) {
    WorkerLog_noted = true;
    char line[200];
    int n = snprintf(line, sizeof line,
                     "\nbenchtop: worker.log reached its cap of %lld bytes in this run: what the "
                     "workers wrote after that was dropped (BENCHTOP_WORKER_LOG_MAX raises it)\n",
                     (long long)cap);
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
  }
  close(fd);
}
