#include "bench/tune/tune_prebuild.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "kernels/jit.h"

#define PREBUILD_MAX_JOBS 64

struct Prebuild {
  pid_t pids[PREBUILD_MAX_JOBS];
  int njobs, count;
};

int Prebuild_defaultJobs(void) {
  const char *w = getenv("BENCHTOP_WORKER");
  if (w && *w) return 0;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

/* A child: compiles every jobs-th build, starting at its own index, into the JIT cache. A
 * failure is the worker's to report (it compiles again, uncached, and says why). */
static void Prebuild_child(const PlanEntry *builds, int n, int cc, int first, int step) {
  for (int i = first; i < n; i += step) {
    char arch[16], err[512];
    Jit_archFor(cc, builds[i].variant->arch_specific, arch, sizeof arch);
    JitOutput out;
    Jit_compileVariantFor(builds[i].variant, &builds[i].knobs, builds[i].shape.D,
                          builds[i].shape.dtype, arch, true, &out, err, sizeof err);
    Jit_free(&out);
  }
  _exit(0);
}

Prebuild *Prebuild_start(const PlanEntry *entries, int n, int cc, int jobs) {
  if (jobs < 1 || n < 1) return NULL;
  /* One build per (variant, knobs, D, dtype): shapes of one head dim and dtype share a module. */
  PlanEntry *builds = Util_xmalloc(sizeof(PlanEntry) * (size_t)n);
  int nb = 0;
  for (int i = 0; i < n; i++) {
    bool dup = false;
    for (int j = 0; j < nb && !dup; j++)
      dup = builds[j].variant == entries[i].variant && builds[j].shape.D == entries[i].shape.D &&
            builds[j].shape.dtype == entries[i].shape.dtype &&
            KnobValues_equal(entries[i].variant, &builds[j].knobs, &entries[i].knobs);
    if (!dup) builds[nb++] = entries[i];
  }
  if (jobs > nb) jobs = nb;
  if (jobs > PREBUILD_MAX_JOBS) jobs = PREBUILD_MAX_JOBS;
  Prebuild *p = Util_xcalloc(1, sizeof *p);
  p->count = nb;
  for (int j = 0; j < jobs; j++) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      /* Ctrl-C reaches the parent, which decides (and ends its children by pid). */
      signal(SIGINT, SIG_IGN);
      Prebuild_child(builds, nb, cc, j, jobs);
    }
    if (pid < 0) break; /* fewer processes: the worker compiles the rest itself */
    p->pids[p->njobs++] = pid;
  }
  free(builds);
  return p;
}

bool Prebuild_done(Prebuild *p) {
  if (!p) return true;
  bool all = true;
  for (int j = 0; j < p->njobs; j++) {
    if (p->pids[j] <= 0) continue;
    int status;
    pid_t r = waitpid(p->pids[j], &status, WNOHANG);
    if (r == p->pids[j] || (r < 0 && errno == ECHILD)) p->pids[j] = 0;
    else all = false;
  }
  return all;
}

void Prebuild_cancel(Prebuild *p) {
  if (!p) return;
  for (int j = 0; j < p->njobs; j++)
    if (p->pids[j] > 0) {
      kill(p->pids[j], SIGKILL);
      waitpid(p->pids[j], NULL, 0);
      p->pids[j] = 0;
    }
}

void Prebuild_free(Prebuild *p) {
  Prebuild_cancel(p);
  free(p);
}

int Prebuild_count(const Prebuild *p) { return p ? p->count : 0; }
