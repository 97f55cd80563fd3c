/* The parent's side of the worker protocol (see bench/runner.h, bench/protocol.h). */
#include "bench/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/protocol.h"
#include "common/util.h"
#include "sessions/session.h"

#define RUNNER_START_TIMEOUT_MS 120000.0 /* context creation + the first JIT builds */
#define RUNNER_COMPILE_TIMEOUT_MS 120000.0
#define RUNNER_EVENTS_MAX 8

typedef enum { W_NONE, W_STARTING, W_IDLE, W_BUSY, W_CANCELLING } WorkerState;

struct Runner {
  char *exe;
  pid_t pid;
  int to_fd, from_fd;
  WorkerState state;
  char phase[32];
  double deadline;          /* Util_nowMs() value; 0 = none */
  char *buf;
  size_t len, cap;
  PlanEntry *queue;
  int nqueue, head, next_id, done, total;
  PlanEntry inflight;
  int inflight_id;
  bool building;            /* the request in flight is a background build */
  bool batch_active;        /* runs were submitted and FINISHED has not been said yet */
  PlanEntry *builds;
  int nbuilds;
  bool have_device, no_gpu;
  char no_gpu_why[512];     /* the worker's words, repeated to every later run */
  DeviceInfo device;
  RunnerEvent events[RUNNER_EVENTS_MAX];
  int nevents;
};

static void Runner_sendNext(Runner *r);
static RunnerEvent *Runner_push(Runner *r, RunnerEventKind kind);
static void Runner_finish(Runner *r);
static bool Runner_spawn(Runner *r);

Runner *Runner_new(const char *exe) {
  Runner *r = Util_xcalloc(1, sizeof *r);
  /* BENCHTOP_WORKER: another worker program speaking the same protocol (the TUI tests use a
   * scripted one to drive live runs on machines without a GPU). */
  const char *env = getenv("BENCHTOP_WORKER");
  r->exe = Util_xstrdup(exe ? exe : env && *env ? env : "/proc/self/exe");
  r->pid = -1;
  r->to_fd = r->from_fd = -1;
  return r;
}

static void Runner_stopWorker(Runner *r, bool kill_it) {
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
  r->deadline = 0;
}

void Runner_free(Runner *r) {
  if (!r) return;
  Runner_stopWorker(r, false);
  free(r->queue);
  free(r->builds);
  free(r->buf);
  free(r->exe);
  free(r);
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
  if (r->no_gpu) {
    /* A worker already found no GPU (say, for a background build): say so again, at once. */
    r->head = r->nqueue;
    RunnerEvent *ev = Runner_push(r, RUNNER_NO_GPU);
    if (ev) Util_strlcpy(ev->message, r->no_gpu_why, sizeof ev->message);
    Runner_finish(r);
    return;
  }
  if (r->state == W_IDLE) Runner_sendNext(r); /* a warm worker waits for no poll */
}

void Runner_start(Runner *r) {
  if (r->state != W_NONE || r->no_gpu) return;
  if (!Runner_spawn(r)) {
    r->no_gpu = true;
    snprintf(r->no_gpu_why, sizeof r->no_gpu_why, "cannot start the worker (%s): %s", r->exe,
             strerror(errno));
    RunnerEvent *ev = Runner_push(r, RUNNER_NO_GPU);
    if (ev) Util_strlcpy(ev->message, r->no_gpu_why, sizeof ev->message);
  }
}

bool Runner_busy(const Runner *r) {
  return r->head < r->nqueue || r->nbuilds > 0 || r->state == W_BUSY || r->state == W_CANCELLING ||
         (r->state == W_STARTING && r->head < r->nqueue);
}

int Runner_fd(const Runner *r) { return r->from_fd; }

int Runner_timeoutMs(const Runner *r) {
  if (r->deadline <= 0)
    return (r->state == W_NONE && (r->head < r->nqueue || r->nbuilds > 0) && !r->no_gpu) ? 0 : -1;
  double left = r->deadline - Util_nowMs();
  return left <= 0 ? 0 : (int)ceil(left);
}

void Runner_wait(const Runner *r, int max_ms) {
  struct pollfd pfd = {Runner_fd(r), POLLIN, 0};
  int timeout = Runner_timeoutMs(r);
  if (timeout < 0 || timeout > max_ms) timeout = max_ms;
  poll(&pfd, pfd.fd >= 0 ? 1 : 0, timeout); /* EINTR: the caller looks at its flags anyway */
}

const DeviceInfo *Runner_device(const Runner *r) { return r->have_device ? &r->device : NULL; }

static RunnerEvent *Runner_push(Runner *r, RunnerEventKind kind) {
  if (r->nevents == RUNNER_EVENTS_MAX) return NULL;
  RunnerEvent *ev = &r->events[r->nevents++];
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->done = r->done;
  ev->total = r->total;
  return ev;
}

/* A record the parent writes itself: the worker died, hung, or could not start. */
static void Runner_failInflight(Runner *r, RecordStatus st, const char *why) {
  RunnerEvent *ev = Runner_push(r, RUNNER_RECORD);
  if (!ev) return;
  Record_init(&ev->record);
  const PlanEntry *e = &r->inflight;
  Util_strlcpy(ev->record.variant, e->variant->name, sizeof ev->record.variant);
  Registry_formatKnobs(e->variant, &e->knobs, ev->record.knobs, sizeof ev->record.knobs);
  ev->record.shape = e->shape;
  ev->record.opts = e->opts;
  if (r->have_device) ev->record.device = r->device;
  Util_isoTime(ev->record.created, sizeof ev->record.created);
  ev->record.status = st;
  Util_strlcpy(ev->record.reason, why, sizeof ev->record.reason);
  r->done++;
  ev->done = r->done;
}

/* FINISHED closes a batch of runs; background builds alone never produce one. */
static void Runner_finish(Runner *r) {
  if (!r->batch_active) return;
  r->batch_active = false;
  Runner_push(r, RUNNER_FINISHED);
}

static void Runner_writeLine(Runner *r, char *line) {
  size_t n = strlen(line), off = 0;
  while (off < n) {
    ssize_t w = write(r->to_fd, line + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  free(line);
}

static void Runner_builtEvent(Runner *r, bool ok, const char *detail) {
  RunnerEvent *ev = Runner_push(r, RUNNER_BUILT);
  if (!ev) return;
  char knobs[160], shape[64];
  Registry_formatKnobs(r->inflight.variant, &r->inflight.knobs, knobs, sizeof knobs);
  Shape_format(&r->inflight.shape, shape, sizeof shape);
  snprintf(ev->message, sizeof ev->message, "%s %s D=%d: %s%.300s", r->inflight.variant->name,
           knobs[0] ? knobs : "(no knobs)", r->inflight.shape.D, ok ? "" : "build failed: ", detail);
}

static bool Runner_spawn(Runner *r) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return false;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return false;
  }
  char logdir[4096], logpath[4200];
  Util_cacheDir(logdir, sizeof logdir);
  Util_mkdirs(logdir);
  snprintf(logpath, sizeof logpath, "%s/worker.log", logdir);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    int log = open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) dup2(log, STDERR_FILENO);
    setpgid(0, 0); /* Ctrl-C in the terminal goes to the parent, which decides */
    execl(r->exe, "benchtop", "worker", (char *)NULL);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  r->pid = pid;
  r->to_fd = in[1];
  r->from_fd = out[0];
  fcntl(r->from_fd, F_SETFL, O_NONBLOCK);
  r->state = W_STARTING;
  r->deadline = Util_nowMs() + RUNNER_START_TIMEOUT_MS;
  Util_strlcpy(r->phase, "starting", sizeof r->phase);
  return true;
}

static void Runner_sendNext(Runner *r) {
  r->building = false;
  if (r->head >= r->nqueue && r->nbuilds > 0) {
    r->inflight = r->builds[0];
    memmove(r->builds, r->builds + 1, sizeof(PlanEntry) * (size_t)(r->nbuilds - 1));
    r->nbuilds--;
    r->inflight_id = ++r->next_id;
    Runner_writeLine(r, Protocol_encodeBuild(&r->inflight, r->inflight_id));
    r->building = true;
    r->state = W_BUSY;
    Util_strlcpy(r->phase, "compiling", sizeof r->phase);
    r->deadline = Util_nowMs() + RUNNER_COMPILE_TIMEOUT_MS;
    return;
  }
  if (r->head >= r->nqueue) {
    r->state = W_IDLE;
    r->deadline = 0;
    Runner_finish(r);
    return;
  }
  r->inflight = r->queue[r->head++];
  r->inflight_id = ++r->next_id;
  Runner_writeLine(r, Protocol_encodeEntry(&r->inflight, r->inflight_id));
  r->state = W_BUSY;
  Util_strlcpy(r->phase, "compiling", sizeof r->phase);
  r->deadline = Util_nowMs() + RUNNER_COMPILE_TIMEOUT_MS;
  RunnerEvent *ev = Runner_push(r, RUNNER_PROGRESS);
  if (ev) {
    char shape[64];
    Shape_format(&r->inflight.shape, shape, sizeof shape);
    snprintf(ev->message, sizeof ev->message, "%s %s: compiling", r->inflight.variant->name, shape);
  }
}

static double Runner_watchdogMs(const Runner *r) {
  double s = r->inflight.opts.watchdog_s > 0 ? r->inflight.opts.watchdog_s : 10.0;
  return s * 1000.0;
}

static void Runner_handleLine(Runner *r, const char *line) {
  cJSON *msg = cJSON_Parse(line);
  const cJSON *type = msg ? cJSON_GetObjectItemCaseSensitive(msg, "type") : NULL;
  if (!cJSON_IsString(type)) {
    cJSON_Delete(msg);
    return;
  }
  const char *t = type->valuestring;
  char err[256];
  if (strcmp(t, "hello") == 0) {
    r->have_device = Device_fromJson(cJSON_GetObjectItemCaseSensitive(msg, "device"), &r->device,
                                     "device", err, sizeof err);
    RunnerEvent *ev = Runner_push(r, RUNNER_HELLO);
    if (ev) ev->device = r->device;
    Runner_sendNext(r);
  } else if (strcmp(t, "nogpu") == 0) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "message");
    r->no_gpu = true;
    Util_strlcpy(r->no_gpu_why, cJSON_IsString(m) ? m->valuestring : "no GPU", sizeof r->no_gpu_why);
    RunnerEvent *ev = Runner_push(r, RUNNER_NO_GPU);
    if (ev) Util_strlcpy(ev->message, r->no_gpu_why, sizeof ev->message);
    r->head = r->nqueue; /* nothing can run, nothing can be built */
    r->nbuilds = 0;
    Runner_stopWorker(r, false);
    Runner_finish(r);
  } else if (strcmp(t, "progress") == 0) {
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(msg, "phase");
    if (cJSON_IsString(ph)) Util_strlcpy(r->phase, ph->valuestring, sizeof r->phase);
    bool compiling = strcmp(r->phase, "compiling") == 0;
    r->deadline = Util_nowMs() + (compiling ? RUNNER_COMPILE_TIMEOUT_MS : Runner_watchdogMs(r));
    RunnerEvent *ev = Runner_push(r, RUNNER_PROGRESS);
    if (ev) {
      char shape[64];
      Shape_format(&r->inflight.shape, shape, sizeof shape);
      snprintf(ev->message, sizeof ev->message, "%s %s: %s", r->inflight.variant->name, shape, r->phase);
    }
  } else if (strcmp(t, "built") == 0 && r->building) {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "message");
    Runner_builtEvent(r, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "ok")),
                      cJSON_IsString(m) ? m->valuestring : "");
    if (r->state == W_CANCELLING) {
      r->state = W_IDLE;
      r->deadline = 0;
      r->building = false;
    } else {
      Runner_sendNext(r);
    }
  } else if (strcmp(t, "record") == 0) {
    RunnerEvent *ev = Runner_push(r, RUNNER_RECORD);
    if (ev) {
      if (!Record_fromJson(cJSON_GetObjectItemCaseSensitive(msg, "record"), &ev->record, "record",
                           err, sizeof err)) {
        Record_init(&ev->record);
        ev->record.status = REC_ERROR;
        snprintf(ev->record.reason, sizeof ev->record.reason, "worker sent a bad record: %s", err);
      }
      r->done++;
      ev->done = r->done;
    }
    bool fatal = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "fatal"));
    if (fatal) {
      /* The worker's context is gone: a fresh worker takes the next entry. */
      bool cancelling = r->state == W_CANCELLING;
      Runner_stopWorker(r, true);
      if (cancelling || r->head >= r->nqueue) Runner_finish(r);
    } else if (r->state == W_CANCELLING) {
      r->state = W_IDLE;
      r->deadline = 0;
      Runner_finish(r);
    } else {
      Runner_sendNext(r);
    }
  }
  cJSON_Delete(msg);
}

static void Runner_workerGone(Runner *r, const char *why) {
  bool was_busy = r->state == W_BUSY || r->state == W_CANCELLING;
  bool cancelling = r->state == W_CANCELLING;
  /* Started with nothing queued (Runner_start) and gone before its hello: whoever waits for
   * the device hears why, once, instead of waiting forever. */
  bool idle_start = r->state == W_STARTING && r->head >= r->nqueue && r->nbuilds == 0;
  Runner_stopWorker(r, true);
  if (idle_start) {
    r->no_gpu = true;
    Util_strlcpy(r->no_gpu_why, why, sizeof r->no_gpu_why);
    RunnerEvent *ev = Runner_push(r, RUNNER_NO_GPU);
    if (ev) Util_strlcpy(ev->message, why, sizeof ev->message);
  }
  if (was_busy && r->building) {
    r->building = false;
    Runner_builtEvent(r, false, why);
  } else if (was_busy) {
    char reason[RECORD_REASON_MAX];
    snprintf(reason, sizeof reason, "%s while %s; the worker was restarted (log: ~/.cache/benchtop/worker.log)",
             why, r->phase);
    Runner_failInflight(r, cancelling ? REC_CANCELLED : REC_ERROR, reason);
  }
  if (r->head >= r->nqueue) Runner_finish(r);
}

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
  if (r->state == W_BUSY && r->pid > 0) {
    kill(r->pid, SIGUSR1);
    r->state = W_CANCELLING;
    r->deadline = Util_nowMs() + 2000.0;
  } else if (r->state == W_STARTING) {
    Runner_stopWorker(r, true);
    Runner_finish(r);
  }
}

bool Runner_poll(Runner *r, RunnerEvent *ev) {
  if (r->nevents == 0) {
    if (r->state == W_NONE && (r->head < r->nqueue || r->nbuilds > 0) && !r->no_gpu) {
      if (!Runner_spawn(r)) {
        RunnerEvent *e = Runner_push(r, RUNNER_NO_GPU);
        if (e) snprintf(e->message, sizeof e->message, "cannot start the worker (%s): %s", r->exe,
                        strerror(errno));
        r->head = r->nqueue;
        r->nbuilds = 0;
      }
    }
    if (r->from_fd >= 0) {
      for (;;) {
        if (r->cap - r->len < 65536) r->buf = Util_xrealloc(r->buf, r->cap = r->cap * 2 + 65536);
        ssize_t n = read(r->from_fd, r->buf + r->len, r->cap - r->len - 1);
        if (n > 0) {
          r->len += (size_t)n;
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        bool eof = n == 0;
        /* Complete lines first, so a record sent just before exit is never lost. */
        r->buf[r->len] = '\0';
        char *start = r->buf, *nl;
        while (r->from_fd >= 0 && (nl = strchr(start, '\n')) != NULL) {
          *nl = '\0';
          Runner_handleLine(r, start);
          start = nl + 1;
        }
        if (r->from_fd >= 0 || r->len) {
          size_t rest = r->len - (size_t)(start - r->buf);
          memmove(r->buf, start, rest);
          r->len = rest;
        }
        if (eof && r->from_fd >= 0) {
          int status = 0;
          char why[128];
          if (waitpid(r->pid, &status, WNOHANG) == r->pid && WIFSIGNALED(status))
            snprintf(why, sizeof why, "the worker died (signal %d)", WTERMSIG(status));
          else
            snprintf(why, sizeof why, "the worker exited (a sticky CUDA error or crash)");
          Runner_workerGone(r, why);
        }
        break;
      }
    }
    if (r->deadline > 0 && Util_nowMs() >= r->deadline && r->pid > 0) {
      char why[160];
      if (r->state == W_CANCELLING)
        snprintf(why, sizeof why, "cancelled (the worker did not stop in time)");
      else if (r->state == W_STARTING)
        snprintf(why, sizeof why, "the worker did not start within %.0f s", RUNNER_START_TIMEOUT_MS / 1000);
      else
        snprintf(why, sizeof why, "watchdog: no progress for %.0f s (kernel hang?)",
                 (strcmp(r->phase, "compiling") == 0 ? RUNNER_COMPILE_TIMEOUT_MS : Runner_watchdogMs(r)) / 1000);
      if (r->state == W_STARTING && r->head < r->nqueue) {
        r->inflight = r->queue[r->head];
        r->head++;
        r->state = W_BUSY;
      }
      Runner_workerGone(r, why);
    }
  }
  if (r->nevents == 0) return false;
  *ev = r->events[0];
  memmove(r->events, r->events + 1, sizeof(RunnerEvent) * (size_t)(r->nevents - 1));
  r->nevents--;
  return true;
}
