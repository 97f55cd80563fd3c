/* The runner's watchdog: how long the worker may go without a word in each phase (it scales
 * with the kernel's launch time once the worker has said it), and what the runner says when a
 * deadline passes (a hang, a worker that never started, a cancel that was not obeyed). */
#include "bench/runner/runner_private.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/util.h"

#define RUNNER_COMPILE_TIMEOUT_MS 120000.0
/* The first launch may take this many watchdogs: nothing is known of the kernel before it. */
#define RUNNER_FIRST_LAUNCH_FACTOR 6.0
/* Once one launch's time is known: silence of this many launches (plus a second's slack for
 * the checks around them) is a hang; profiling replays a launch once per pass. */
#define RUNNER_LAUNCHES_SILENT 4.0
#define RUNNER_PROFILE_LAUNCHES_SILENT 40.0

double Runner_watchdogMs(const Runner *r) {
  double s = r->inflight.opts.watchdog_s;
  return (isfinite(s) && s > 0 ? s : 10.0) * 1000.0;
}

/* How long the phase in flight may go without a word. A launch cannot speak while it runs, so
 * the limit scales with the kernel: the first launch (verifying) may take several watchdogs;
 * once the worker has said how long one launch takes, silence of a few launches' time is
 * allowed, and never less than the watchdog. */
static double Runner_silenceLimitMs(const Runner *r) {
  double wd = Runner_watchdogMs(r);
  if (r->building || strcmp(r->phase, "compiling") == 0) return RUNNER_COMPILE_TIMEOUT_MS;
  if (!(r->launch_ms > 0))
    return strcmp(r->phase, "verifying") == 0 ? wd * RUNNER_FIRST_LAUNCH_FACTOR : wd;
  double n = strcmp(r->phase, "profiling") == 0 ? RUNNER_PROFILE_LAUNCHES_SILENT : RUNNER_LAUNCHES_SILENT;
  double limit = n * r->launch_ms + 1000.0;
  return limit > wd ? limit : wd;
}

void Runner_setLaunchMs(Runner *r, double ms) {
  /* A launch cannot have taken longer than the first launch was allowed: a worker that says
   * more cannot hold the watchdog off for longer than that. */
  double cap = Runner_watchdogMs(r) * RUNNER_FIRST_LAUNCH_FACTOR;
  r->launch_ms = ms > cap ? cap : ms;
}

void Runner_armWatchdog(Runner *r) {
  r->last_armed = Util_nowMs();
  r->armed = true;
  r->deadline = r->last_armed + Runner_silenceLimitMs(r);
}

/* The watchdog, the start timeout and the cancel timeout. */
void Runner_checkDeadline(Runner *r) {
  if (r->deadline <= 0 || Util_nowMs() < r->deadline || r->pid <= 0) return;
  char why[200];
  if (r->state == W_STARTING) {
    Runner_stopWorker(r, true);
    snprintf(why, sizeof why, "the worker (%.100s) did not start within %.0f s (is the GPU hung?)",
             r->exe, RUNNER_START_TIMEOUT_MS / 1000);
    Runner_abandon(r, why);
    return;
  }
  double secs = (r->deadline - r->last_armed) / 1000;
  /* A worker that exited while another process (a child of its own) holds its output open
   * never reaches the end of its pipe: its exit is the diagnosis, not the silence. */
  char exited[160] = "";
  int status = 0;
  if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
    kill(-r->pid, SIGKILL); /* its process group (setpgid in Runner_spawn): what holds the pipe */
    r->pid = -1;
    if (WIFSIGNALED(status))
      snprintf(exited, sizeof exited, "the worker died (signal %d, %s)", WTERMSIG(status),
               strsignal(WTERMSIG(status)));
    else
      snprintf(exited, sizeof exited, "the worker exited (status %d)", WEXITSTATUS(status));
  }
  if (exited[0])
    snprintf(why, sizeof why, "%s; another process still held its output", exited);
  else if (r->state == W_CANCELLING)
    snprintf(why, sizeof why, "cancelled (the worker did not stop in time)");
  else if (r->ping_id == r->inflight_id)
    snprintf(why, sizeof why, "watchdog: no valid answer within %.0f s after the worker sent %.120s",
             secs, r->bad_line);
  else if (strcmp(r->phase, RUNNER_PHASE_SENT) == 0)
    snprintf(why, sizeof why, "watchdog: the worker did not take up the request within %.0f s", secs);
  else if (strcmp(r->phase, "verifying") == 0 && !(r->launch_ms > 0))
    snprintf(why, sizeof why, "watchdog: the first launch did not finish within %.0f s (%.0f x "
             "--watchdog): a hang, or a kernel slower than that (raise --watchdog to wait longer)", secs,
             RUNNER_FIRST_LAUNCH_FACTOR);
  else if (r->launch_ms > 0)
    snprintf(why, sizeof why, "watchdog: no progress for %.0f s, where one launch took %.3g s "
             "(kernel hang?)", secs, r->launch_ms / 1000.0);
  else
    snprintf(why, sizeof why, "watchdog: no progress for %.0f s (kernel hang?)", secs);
  Runner_workerGone(r, why);
}
