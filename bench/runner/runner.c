/* The parent's side of the worker protocol (see bench/runner/runner.h, bench/protocol.h): the worker's
 * life cycle, the queue of requests and the events. What the worker's lines say is judged in
 * runner_input.c; the deadlines are runner_watchdog.c's. */
#include "bench/runner/runner_private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/protocol.h"
#include "bench/runner/worker_log.h"
#include "common/safe_file.h"
#include "common/text.h"
#include "common/util.h"

#define RUNNER_CANCEL_TIMEOUT_MS 2000.0


Runner *Runner_new(const char *exe) {
  Runner *r = Util_xcalloc(1, sizeof *r);
  /* BENCHTOP_WORKER: another worker program speaking the same protocol (the tests use scripted
   * ones to drive live runs, and hostile ones, on machines without a GPU). */
  const char *env = getenv("BENCHTOP_WORKER");
  r->exe = Util_xstrdup(exe ? exe : env && *env ? env : "/proc/self/exe");
  r->pid = -1;
  r->to_fd = r->from_fd = -1;
  char dir[4096];
  if (Util_cacheDir(dir, sizeof dir)) snprintf(r->logpath, sizeof r->logpath, "%s/worker.log", dir);
  return r;
}

/* Waits a moment for a worker that closed its pipe, so its exit status can be named. */
void Runner_reap(Runner *r, char *why, size_t size) {
  int status = 0;
  pid_t w = 0;
  for (int i = 0; i < 40 && (w = waitpid(r->pid, &status, WNOHANG)) == 0; i++) usleep(5000);
  if (w != r->pid) return;
  r->pid = -1;
  if (WIFSIGNALED(status))
    snprintf(why, size, "the worker died (signal %d, %s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WIFEXITED(status))
    snprintf(why, size, "the worker exited (status %d)", WEXITSTATUS(status));
}

void Runner_stopWorker(Runner *r, bool kill_it) {
  if (r->pid > 0) {
    if (kill_it) kill(r->pid, SIGKILL);
    else if (r->to_fd >= 0) {
      ssize_t w = write(r->to_fd, "{\"op\":\"quit\"}\n", 14);
      (void)w;
    }
    if (r->to_fd >= 0) close(r->to_fd);
    r->to_fd = -1;
    int status;
    if (!kill_it) {
      /* Give a polite quit a moment, then insist. */
      for (int i = 0; i < 50 && waitpid(r->pid, &status, WNOHANG) == 0; i++) usleep(20000);
      kill(r->pid, SIGKILL);
    }
    waitpid(r->pid, &status, 0);
  }
  if (r->to_fd >= 0) close(r->to_fd);
  if (r->from_fd >= 0) close(r->from_fd);
  r->to_fd = r->from_fd = -1;
  r->pid = -1;
  r->state = W_NONE;
  r->len = 0;
  r->discarding = false;
  r->deadline = 0;
  r->ping_id = 0;
}

void Runner_free(Runner *r) {
  if (!r) return;
  Runner_stopWorker(r, false);
  WorkerLog_noteIfFull(r->logpath);
  RunnerEvents_free(&r->events);
  free(r->queue);
  free(r->builds);
  free(r->buf);
  free(r->exe);
  free(r);
}

RunnerEvent *Runner_push(Runner *r, RunnerEventKind kind) {
  RunnerEvent *last = r->events.n ? &r->events.items[r->events.n - 1] : NULL;
  if (last && last->kind == kind && kind == RUNNER_PROGRESS) {
    last->done = r->done; /* the newest word of progress replaces the one not yet read */
    last->total = r->total;
    return last;
  }
  if (last && last->kind == kind && kind == RUNNER_WARNING) {
    last->repeats++;
    return NULL; /* the first warning's words stand for the rest */
  }
  return RunnerEvents_push(&r->events, kind, r->done, r->total);
}

/* Warnings: at most one a second, the ones held back counted into the next (and said when the
 * batch ends), so a worker that writes nothing but garbage cannot flood the caller's output. */
static bool Runner_holdWarning(Runner *r, RunnerEventKind kind) {
  if (kind != RUNNER_WARNING) return false;
  double now = Util_nowMs();
  if (now < r->warn_next_ms) {
    r->warn_held++;
    return true;
  }
  r->warn_next_ms = now + 1000.0;
  return false;
}

static void Runner_flushWarnings(Runner *r) {
  if (r->warn_held == 0) return;
  RunnerEvent *ev = Runner_push(r, RUNNER_WARNING);
  if (!ev) return;
  snprintf(ev->message, sizeof ev->message, "the worker sent more invalid lines (skipped)");
  ev->repeats = r->warn_held - 1;
  r->warn_held = 0;
}

void Runner_say(Runner *r, RunnerEventKind kind, const char *fmt, ...) {
  if (Runner_holdWarning(r, kind)) return;
  RunnerEvent *ev = Runner_push(r, kind);
  if (!ev) return;
  if (kind == RUNNER_WARNING) {
    ev->repeats += r->warn_held; /* the ones held back since the last */
    r->warn_held = 0;
  }
  va_list ap;
  va_start(ap, fmt);
  Text_vformat(ev->message, sizeof ev->message, fmt, ap);
  va_end(ap);
}

/* A record the parent writes itself for the request in flight: the worker died, hung, sent an
 * invalid answer, or was cancelled. */
void Runner_failInflight(Runner *r, RecordStatus st, const char *why) {
  RunnerEvent *ev = Runner_push(r, RUNNER_RECORD);
  Record_init(&ev->record);
  ev->request = r->inflight_pos;
  const PlanEntry *e = &r->inflight;
  Util_strlcpy(ev->record.variant, e->variant->name, sizeof ev->record.variant);
  Registry_formatKnobs(e->variant, &e->knobs, ev->record.knobs, sizeof ev->record.knobs);
  ev->record.shape = e->shape;
  ev->record.opts = e->opts;
  if (r->have_device) ev->record.device = r->device;
  Util_isoTime(ev->record.created, sizeof ev->record.created);
  ev->record.status = st;
  Text_sanitize(ev->record.reason, sizeof ev->record.reason, why);
  r->done++;
  ev->done = r->done;
}

/* FINISHED closes a batch of runs; background builds alone never produce one. */
void Runner_finish(Runner *r) {
  if (!r->batch_active) return;
  Runner_flushWarnings(r);
  r->batch_active = false;
  Runner_push(r, RUNNER_FINISHED);
}

void Runner_builtEvent(Runner *r, bool ok, const char *detail) {
  char knobs[KNOB_TEXT_MAX], shape[64];
  Registry_formatKnobs(r->inflight.variant, &r->inflight.knobs, knobs, sizeof knobs);
  Shape_format(&r->inflight.shape, shape, sizeof shape);
  Runner_say(r, RUNNER_BUILT, "%s %s D=%d: %s%.300s", r->inflight.variant->name,
             knobs[0] ? knobs : "(no knobs)", r->inflight.shape.D, ok ? "" : "build failed: ", detail);
}

/* The rest of the plan cannot run: said once, then the batch ends. */
void Runner_abandon(Runner *r, const char *why) {
  Runner_say(r, RUNNER_FAILED, "%s", why);
  r->want_start = false;
  r->total -= r->nqueue - r->head;
  r->head = r->nqueue;
  r->nbuilds = 0;
  Runner_finish(r);
}

void Runner_send(Runner *r, char *line) {
  size_t n = strlen(line), off = 0;
  while (r->to_fd >= 0 && off < n) {
    ssize_t w = write(r->to_fd, line + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break; /* a dead worker: its pipe's end comes through the read side */
    off += (size_t)w;
  }
  free(line);
}

static bool Runner_spawn(Runner *r) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return false;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return false;
  }
  /* The log is opened here, not in the child: a planted link or a FIFO is refused, and a
   * failure is a line on the parent's side instead of a silent child. */
  int log = -1;
  char err[512] = "";
  if (r->logpath[0]) {
    char dir[4096];
    Util_strlcpy(dir, r->logpath, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    Util_mkdirs(dir);
    WorkerLog_beginRun(r->logpath);
    WorkerLog_noteIfFull(r->logpath); /* a worker before this one filled it */
    log = SafeFile_openLog(r->logpath, err, sizeof err);
    if (log < 0 && !r->log_warned) {
      r->log_warned = true;
      Runner_say(r, RUNNER_WARNING, "worker log: %s (the worker's messages are discarded)", err);
    }
  }
  int64_t log_cap = WorkerLog_cap();
  pid_t pid = fork();
  if (pid < 0) {
    if (log >= 0) close(log);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    return false;
  }
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    dup2(log >= 0 ? log : null, STDERR_FILENO);
    if (log >= 0) WorkerLog_limitChild(log_cap);
    setpgid(0, 0); /* Ctrl-C in the terminal goes to the parent, which decides */
    signal(SIGPIPE, SIG_DFL);
    if (r->device_env[0]) putenv(r->device_env); /* no allocation after fork */
    execl(r->exe, "benchtop", "worker", (char *)NULL);
    _exit(127);
  }
  if (log >= 0) close(log);
  close(in[0]);
  close(out[1]);
  r->pid = pid;
  r->to_fd = in[1];
  r->from_fd = out[0];
  fcntl(r->from_fd, F_SETFL, O_NONBLOCK);
  r->state = W_STARTING;
  r->deadline = Util_nowMs() + RUNNER_START_TIMEOUT_MS;
  r->drained = false;
  Util_strlcpy(r->phase, "starting", sizeof r->phase);
  return true;
}

void Runner_sendNext(Runner *r) {
  r->building = false;
  r->ping_id = 0;
  if (r->head >= r->nqueue && r->nbuilds > 0) {
    r->inflight = r->builds[0];
    r->inflight_pos = -1;
    memmove(r->builds, r->builds + 1, sizeof(PlanEntry) * (size_t)(r->nbuilds - 1));
    r->nbuilds--;
    r->inflight_id = ++r->next_id;
    r->building = true;
    r->state = W_BUSY;
    Util_strlcpy(r->phase, "compiling", sizeof r->phase);
    Runner_armWatchdog(r);
    Runner_send(r, Protocol_encodeBuild(&r->inflight, r->inflight_id));
    return;
  }
  if (r->head >= r->nqueue) {
    r->state = W_IDLE;
    r->deadline = 0;
    Runner_finish(r);
    return;
  }
  r->inflight_pos = r->head;
  r->inflight = r->queue[r->head++];
  r->inflight_id = ++r->next_id;
  r->launch_ms = NAN;
  r->state = W_BUSY;
  /* The watchdog holds from the request on: a worker that takes it and says nothing is hung. */
  Util_strlcpy(r->phase, RUNNER_PHASE_SENT, sizeof r->phase);
  Runner_armWatchdog(r);
  char shape[64];
  Shape_format(&r->inflight.shape, shape, sizeof shape);
  Runner_say(r, RUNNER_PROGRESS, "%s %s: starting", r->inflight.variant->name, shape);
  Runner_send(r, Protocol_encodeEntry(&r->inflight, r->inflight_id));
}

void Runner_workerGone(Runner *r, const char *why) {
  bool starting = r->state == W_STARTING;
  bool was_busy = r->state == W_BUSY || r->state == W_CANCELLING;
  bool cancelling = r->state == W_CANCELLING;
  Runner_stopWorker(r, true);
  if (starting && (r->head < r->nqueue || r->nbuilds > 0 || r->want_start)) {
    /* Not one request was taken: retry after a pause that doubles, then give up. */
    if (++r->start_failures >= RUNNER_START_FAILURES_MAX) {
      char msg[1200];
      snprintf(msg, sizeof msg, "the worker (%.300s) ended before it was ready %d times in a row "
               "(last: %.200s); nothing more can run%s%.300s", r->exe, r->start_failures, why,
               r->logpath[0] ? "; its messages are in " : "", r->logpath);
      r->start_failures = 0;
      Runner_abandon(r, msg);
      return;
    }
    r->respawn_at = Util_nowMs() + 100.0 * (1 << (r->start_failures - 1));
  } else if (was_busy && r->building) {
    r->building = false;
    Runner_builtEvent(r, false, why);
  } else if (was_busy) {
    char reason[RECORD_REASON_MAX];
    snprintf(reason, sizeof reason, "%s while %s; the worker was restarted%s%.160s%s", why,
             r->phase, r->logpath[0] ? " (log: " : "", r->logpath, r->logpath[0] ? ")" : "");
    Runner_failInflight(r, cancelling ? REC_CANCELLED : REC_ERROR, reason);
  }
  if (r->head >= r->nqueue) Runner_finish(r);
}

void Runner_submit(Runner *r, const PlanEntry *entries, int count) {
  if (r->head == r->nqueue) { /* a fresh batch */
    r->head = r->nqueue = 0;
    r->done = r->total = 0;
  }
  r->queue = Util_xrealloc(r->queue, sizeof(PlanEntry) * (size_t)(r->nqueue + count));
  memcpy(r->queue + r->nqueue, entries, sizeof(PlanEntry) * (size_t)count);
  r->nqueue += count;
  r->total += count;
  r->batch_active = true;
  r->start_failures = 0;
  r->respawn_at = 0;
  if (r->no_gpu) {
    /* A worker already found no GPU (say, for a background build): say so again, at once. */
    r->head = r->nqueue;
    Runner_say(r, RUNNER_NO_GPU, "%s", r->no_gpu_why);
    Runner_finish(r);
    return;
  }
  if (r->state == W_IDLE) Runner_sendNext(r); /* a warm worker waits for no poll */
}

void Runner_setDevice(Runner *r, int index) {
  snprintf(r->device_env, sizeof r->device_env, "BENCHTOP_DEVICE=%d", index);
}

void Runner_start(Runner *r) {
  if (r->state == W_NONE && !r->no_gpu) r->want_start = true; /* Runner_poll spawns it */
}

bool Runner_busy(const Runner *r) {
  return r->head < r->nqueue || r->nbuilds > 0 || r->state == W_BUSY || r->state == W_CANCELLING;
}

int Runner_fd(const Runner *r) { return r->from_fd; }

static bool Runner_wantsWorker(const Runner *r) {
  return r->state == W_NONE && (r->head < r->nqueue || r->nbuilds > 0 || r->want_start) && !r->no_gpu;
}

int Runner_timeoutMs(const Runner *r) {
  double now = Util_nowMs(), due = -1;
  if (r->events.n > 0) return 0;
  if (Runner_wantsWorker(r)) due = r->respawn_at;
  else if (r->deadline > 0) due = r->deadline;
  if (due < 0) return -1;
  return due <= now ? 0 : (int)ceil(due - now);
}

void Runner_wait(const Runner *r, int max_ms) {
  struct pollfd pfd = {Runner_fd(r), POLLIN, 0};
  int timeout = Runner_timeoutMs(r);
  if (timeout < 0 || timeout > max_ms) timeout = max_ms;
  poll(&pfd, pfd.fd >= 0 ? 1 : 0, timeout); /* EINTR: the caller looks at its flags anyway */
}

const DeviceInfo *Runner_device(const Runner *r) { return r->have_device ? &r->device : NULL; }

void Runner_prebuild(Runner *r, const PlanEntry *e) {
  if (r->no_gpu) return;
  for (int i = 0; i < r->nbuilds; i++)
    if (r->builds[i].variant == e->variant && r->builds[i].shape.D == e->shape.D) {
      r->builds[i] = *e; /* the newer knob setting replaces one still waiting */
      return;
    }
  r->builds = Util_xrealloc(r->builds, sizeof(PlanEntry) * (size_t)(r->nbuilds + 1));
  r->builds[r->nbuilds++] = *e;
  if (r->state == W_IDLE) Runner_sendNext(r);
}

void Runner_cancel(Runner *r) {
  r->total -= r->nqueue - r->head;
  r->head = r->nqueue;
  r->nbuilds = 0;
  switch (r->state) {
  case W_BUSY:
    if (r->pid > 0) kill(r->pid, SIGUSR1);
    r->state = W_CANCELLING;
    r->deadline = Util_nowMs() + RUNNER_CANCEL_TIMEOUT_MS;
    break;
  case W_CANCELLING: /* asked twice: no more waiting */
    Runner_workerGone(r, "cancelled (the worker was stopped)");
    break;
  case W_STARTING:
    Runner_stopWorker(r, true);
    Runner_finish(r);
    break;
  case W_NONE: case W_IDLE: Runner_finish(r); break;
  }
}

bool Runner_poll(Runner *r, RunnerEvent *ev) {
  if (r->events.n == 0) {
    if (Runner_wantsWorker(r) && Util_nowMs() >= r->respawn_at && !Runner_spawn(r)) {
      char why[300];
      snprintf(why, sizeof why, "cannot start the worker (%.200s): %s", r->exe, strerror(errno));
      Runner_abandon(r, why);
    }
    if (r->from_fd >= 0) Runner_read(r);
    /* The watchdog waits for the pipe to be drained: after a stop (Ctrl-Z) the deadline has
     * passed, but the words of progress that would have moved it may still sit in the pipe.
     * Input that held none (a flood of garbage) or a cancel (whose deadline nothing moves)
     * cannot hold it off. */
    if (r->from_fd < 0 || r->drained || !r->armed || r->state == W_CANCELLING)
      Runner_checkDeadline(r);
  }
  return RunnerEvents_take(&r->events, ev);
}
