/* The worker process (`benchtop worker`): owns the CUDA context, stays warm between entries
 * (context, loaded modules, buffers, profiler), and answers each run request with a record.
 * A sticky CUDA error ends the process after its record is sent: the parent starts another. */
#include "bench/worker/worker.h"

#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/worker/gpu.h"
#include "bench/protocol.h"
#include "common/util.h"
#include "sessions/session.h"

static volatile int Worker_cancel; /* set by SIGUSR1: stop the entry in flight */
static FILE *Worker_out;           /* the protocol stream (stdout is pointed at stderr) */

/* A crash in a library (CUPTI, the driver) leaves its stack in worker.log for the bug report;
 * then the default action ends the process and the parent records the failure. */
static void Worker_onCrash(int sig) {
  void *frames[64];
  int n = backtrace(frames, 64);
  static const char head[] = "benchtop worker: crashed; stack:\n";
  ssize_t w = write(STDERR_FILENO, head, sizeof head - 1);
  (void)w;
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void Worker_onCancel(int sig) {
  (void)sig;
  Worker_cancel = 1;
}

static void Worker_send(cJSON *msg) {
  char *text = cJSON_PrintUnformatted(msg);
  fprintf(Worker_out, "%s\n", text);
  fflush(Worker_out);
  cJSON_free(text);
  cJSON_Delete(msg);
}

typedef struct { int id; } WorkerCtx;

static void Worker_progress(const char *phase, double launch_ms, void *user) {
  WorkerCtx *c = user;
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "type", "progress");
  cJSON_AddNumberToObject(m, "id", c->id);
  cJSON_AddStringToObject(m, "phase", phase);
  if (launch_ms > 0) cJSON_AddNumberToObject(m, "launch_ms", launch_ms);
  Worker_send(m);
}

/* A background build: compile through the JIT cache and load, so a later run starts warm. */
static void Worker_build(Gpu *g, const cJSON *msg) {
  PlanEntry e;
  int id = 0;
  char err[512], text[600];
  bool ok = Protocol_decodeEntry(msg, &e, &id, err, sizeof err);
  if (ok) {
    double t0 = Util_nowMs();
    GpuModule *m = Gpu_module(g, e.variant, &e.knobs, e.shape.D, e.shape.dtype, err, sizeof err);
    ok = m != NULL;
    if (ok)
      snprintf(text, sizeof text, "%s in %.0f ms, %d registers", m->build.cache_hit ? "ready (cached)" : "compiled",
               Util_nowMs() - t0, m->build.regs);
  }
  cJSON *out = cJSON_CreateObject();
  cJSON_AddStringToObject(out, "type", "built");
  cJSON_AddNumberToObject(out, "id", id);
  cJSON_AddBoolToObject(out, "ok", ok);
  cJSON_AddStringToObject(out, "message", ok ? text : err);
  Worker_send(out);
}

int Worker_main(void) {
  /* Libraries may print to stdout; keep the protocol on a private descriptor. */
  int proto = dup(STDOUT_FILENO);
  if (proto < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || !(Worker_out = fdopen(proto, "w"))) {
    fprintf(stderr, "benchtop worker: cannot set up the protocol stream\n");
    return BT_EXIT_FAILED;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = Worker_onCancel;
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGSEGV, Worker_onCrash);
  signal(SIGBUS, Worker_onCrash);
  signal(SIGABRT, Worker_onCrash);
  signal(SIGPIPE, SIG_IGN);

  Gpu g;
  char err[512];
  if (!Gpu_init(&g, err, sizeof err)) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "type", "nogpu");
    cJSON_AddStringToObject(m, "message", err);
    Worker_send(m);
    return BT_EXIT_NO_GPU;
  }
  cJSON *hello = cJSON_CreateObject();
  cJSON_AddStringToObject(hello, "type", "hello");
  cJSON_AddItemToObject(hello, "device", Device_toJson(&g.info));
  cJSON_AddNumberToObject(hello, "devices", g.ndevices);
  Worker_send(hello);

  char *line = NULL;
  size_t cap = 0;
  int rc = BT_EXIT_OK;
  while (getline(&line, &cap, stdin) > 0) {
    cJSON *msg = cJSON_Parse(line);
    const cJSON *op = msg ? cJSON_GetObjectItemCaseSensitive(msg, "op") : NULL;
    if (!cJSON_IsString(op)) {
      fprintf(stderr, "benchtop worker: ignoring a malformed request\n");
      cJSON_Delete(msg);
      continue;
    }
    if (strcmp(op->valuestring, "quit") == 0) {
      cJSON_Delete(msg);
      break;
    }
    if (strcmp(op->valuestring, "ping") == 0) {
      /* Answered in order: the parent learns that every earlier request is done. */
      cJSON *pong = cJSON_CreateObject();
      cJSON_AddStringToObject(pong, "type", "pong");
      cJSON_AddItemToObject(pong, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(msg, "id"), true));
      Worker_send(pong);
      cJSON_Delete(msg);
      continue;
    }
    if (strcmp(op->valuestring, "build") == 0) {
      Worker_build(&g, msg);
      cJSON_Delete(msg);
      continue;
    }
    if (strcmp(op->valuestring, "run") != 0) {
      cJSON_Delete(msg);
      continue;
    }
    PlanEntry e;
    WorkerCtx ctx = {0};
    Record rec;
    bool alive = true;
    Worker_cancel = 0;
    if (!Protocol_decodeEntry(msg, &e, &ctx.id, err, sizeof err)) {
      Protocol_requestRecord(msg, &rec); /* answers for the request as it was asked */
      rec.status = REC_NA;
      snprintf(rec.reason, sizeof rec.reason, "n/a: %.300s", err);
    } else {
      alive = Measure_entry(&g, &e, &rec, &Worker_cancel, Worker_progress, &ctx);
    }
    cJSON_Delete(msg);
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "type", "record");
    cJSON_AddNumberToObject(out, "id", ctx.id);
    cJSON_AddItemToObject(out, "record", Record_toJson(&rec));
    if (!alive) cJSON_AddBoolToObject(out, "fatal", true); /* no more requests to this worker */
    Worker_send(out);
    Record_free(&rec);
    if (!alive) {
      rc = BT_EXIT_FAILED; /* the context is gone; the parent starts a fresh worker */
      _exit(rc);
    }
  }
  free(line);
  Gpu_free(&g);
  return rc;
}
