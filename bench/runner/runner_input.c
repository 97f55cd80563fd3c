/* What the worker says, judged line by line (see bench/runner/runner.h for the rules): bounded reads,
 * bounded lines, one protocol message per line, for the request in flight only, records
 * checked like session records and against the request they answer. */
#include "bench/runner/runner_private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/text.h"
#include "common/util.h"
#include "sessions/session.h"

#define RUNNER_READ_CHUNK 65536
#define RUNNER_READ_BUDGET (4u << 20) /* bytes taken per Runner_poll, then the caller's turn */

static bool Runner_inFlight(const Runner *r) {
  return r->state == W_BUSY || r->state == W_CANCELLING;
}

/* A line that is not a valid message where the protocol stands: skipped and said. When a request
 * is in flight the line may have been its answer; the worker answers a ping only after it is done
 * with the request, so a pong that comes before a valid answer settles it (Runner_onPong). */
static void Runner_invalid(Runner *r, const char *what, const char *line, size_t len) {
  char ex[64] = "", tmp[64];
  if (line && len) {
    size_t n = len < 40 ? len : 40;
    memcpy(tmp, line, n);
    tmp[n] = '\0';
    Text_sanitize(ex, sizeof ex, tmp);
  }
  Runner_say(r, RUNNER_WARNING, "the worker sent %s%s%s%s; skipped", what, ex[0] ? " (\"" : "", ex,
             ex[0] ? (len > 40 ? "...\")" : "\")") : "");
  if (Runner_inFlight(r) && r->ping_id != r->inflight_id) {
    r->ping_id = r->inflight_id;
    Util_strlcpy(r->bad_line, what, sizeof r->bad_line);
    Runner_send(r, Util_asprintf("{\"op\":\"ping\",\"id\":%d}\n", r->inflight_id));
  }
}

/* After the answer to the request in flight: the next request, or the end of a cancel. */
static void Runner_answered(Runner *r, bool fatal) {
  if (fatal) {
    /* The worker's context is gone: a fresh worker takes the next entry. */
    bool cancelling = r->state == W_CANCELLING;
    Runner_stopWorker(r, true);
    if (cancelling || r->head >= r->nqueue) Runner_finish(r);
  } else if (r->state == W_CANCELLING) {
    r->state = W_IDLE;
    r->deadline = 0;
    r->building = false;
    Runner_finish(r);
  } else {
    Runner_sendNext(r);
  }
}

static int Runner_msgId(const cJSON *msg) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  if (!cJSON_IsNumber(id) || id->valuedouble != (double)(int)id->valuedouble) return -1;
  return (int)id->valuedouble;
}

/* A message about request id while it is not the one in flight: what to call it. */
static void Runner_notInFlight(Runner *r, const char *kind, int id) {
  char what[160];
  if (!Runner_inFlight(r))
    snprintf(what, sizeof what, "a %s for request %d while none is in flight", kind, id);
  else if (id == r->inflight_id)
    snprintf(what, sizeof what, "a %s for a %s request", kind, r->building ? "build" : "run");
  else if (id > 0 && id < r->inflight_id)
    snprintf(what, sizeof what, "a %s for request %d, already answered (request %d is in flight)",
             kind, id, r->inflight_id);
  else
    snprintf(what, sizeof what, "a %s for request id %d, not the one in flight (%d)", kind, id,
             r->inflight_id);
  Runner_invalid(r, what, NULL, 0);
}

/* A record carries the id of the request it answers; what it says it ran must be that request,
 * compared by value (knobs in any order, numbers as numbers). The record then keeps the
 * request's own knob text, so sessions hold one spelling of a setting. */
static bool Runner_checkIdentity(const Runner *r, Record *rec, char *err, size_t errsize) {
  char knobs[RECORD_KNOBS_MAX], got[64], want[64], why[256];
  const Variant *v = r->inflight.variant;
  Registry_formatKnobs(v, &r->inflight.knobs, knobs, sizeof knobs);
  KnobValues kv;
  Registry_defaults(v, &kv);
  bool same_knobs = Registry_applyKnobs(v, rec->knobs, &kv, false, why, sizeof why) &&
                    KnobValues_equal(v, &kv, &r->inflight.knobs);
  if (strcmp(rec->variant, v->name) == 0 && same_knobs && Shape_equal(&rec->shape, &r->inflight.shape)) {
    Util_strlcpy(rec->knobs, knobs, sizeof rec->knobs);
    return true;
  }
  Shape_format(&rec->shape, got, sizeof got);
  Shape_format(&r->inflight.shape, want, sizeof want);
  snprintf(err, errsize, "it answers for %.31s %.60s %.30s, not for the request (%.31s %.60s %.30s)",
           rec->variant, rec->knobs, got, r->inflight.variant->name, knobs, want);
  return false;
}

static void Runner_onRecord(Runner *r, const cJSON *msg) {
  int id = Runner_msgId(msg);
  if (!Runner_inFlight(r) || r->building || id != r->inflight_id) {
    Runner_notInFlight(r, "record", id);
    return;
  }
  char err[RECORD_REASON_MAX];
  Record rec;
  bool ok = Record_validate(cJSON_GetObjectItemCaseSensitive(msg, "record"), &rec, "record", err,
                            sizeof err);
  if (ok && !Runner_checkIdentity(r, &rec, err, sizeof err)) {
    Record_free(&rec);
    ok = false;
  }
  if (ok) {
    r->done++;
    RunnerEvent *ev = Runner_push(r, RUNNER_RECORD);
    ev->record = rec; /* the caller of Runner_poll owns it */
    ev->request = r->inflight_pos; /* matched by the request's id, above */
  } else {
    char why[RECORD_REASON_MAX];
    snprintf(why, sizeof why, "the worker sent an invalid record: %.270s", err);
    Runner_failInflight(r, REC_ERROR, why);
  }
  Runner_answered(r, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "fatal")));
}

static void Runner_onProgress(Runner *r, const cJSON *msg) {
  int id = Runner_msgId(msg);
  const cJSON *ph = cJSON_GetObjectItemCaseSensitive(msg, "phase");
  if (!Runner_inFlight(r) || id != r->inflight_id) {
    Runner_notInFlight(r, "progress message", id);
    return;
  }
  if (!cJSON_IsString(ph) || strlen(ph->valuestring) >= sizeof r->phase) {
    Runner_invalid(r, "a progress message without a short \"phase\"", NULL, 0);
    return;
  }
  const cJSON *lm = cJSON_GetObjectItemCaseSensitive(msg, "launch_ms");
  if (lm && !(cJSON_IsNumber(lm) && isfinite(lm->valuedouble) && lm->valuedouble > 0)) {
    Runner_invalid(r, "a progress message whose \"launch_ms\" is not a positive number", NULL, 0);
    return;
  }
  if (r->state == W_CANCELLING) return; /* the cancel's own deadline stands */
  if (lm) Runner_setLaunchMs(r, lm->valuedouble);
  Text_sanitize(r->phase, sizeof r->phase, ph->valuestring);
  Runner_armWatchdog(r);
  char shape[64];
  Shape_format(&r->inflight.shape, shape, sizeof shape);
  Runner_say(r, RUNNER_PROGRESS, "%s %s: %s", r->inflight.variant->name, shape, r->phase);
}

static void Runner_onBuilt(Runner *r, const cJSON *msg) {
  int id = Runner_msgId(msg);
  if (!Runner_inFlight(r) || !r->building || id != r->inflight_id) {
    Runner_notInFlight(r, "build answer", id);
    return;
  }
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "message");
  Runner_builtEvent(r, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(msg, "ok")),
                    cJSON_IsString(m) ? m->valuestring : "");
  Runner_answered(r, false);
}

/* The worker took the ping, so it is done with request id: if no valid answer came, the
 * invalid line was the answer. */
static void Runner_onPong(Runner *r, const cJSON *msg) {
  int id = Runner_msgId(msg);
  if (id <= 0 || id != r->ping_id) {
    Runner_invalid(r, "a pong nobody asked for", NULL, 0);
    return;
  }
  r->ping_id = 0;
  if (!Runner_inFlight(r) || id != r->inflight_id) return; /* the answer came after all */
  char why[RECORD_REASON_MAX];
  snprintf(why, sizeof why, "the worker sent no valid %s for this request (it sent %s)",
           r->building ? "build answer" : "record", r->bad_line);
  if (r->building) Runner_builtEvent(r, false, why);
  else Runner_failInflight(r, r->state == W_CANCELLING ? REC_CANCELLED : REC_ERROR, why);
  Runner_answered(r, false);
}

static void Runner_onHello(Runner *r, const cJSON *msg) {
  if (r->state != W_STARTING) {
    Runner_invalid(r, "a second hello", NULL, 0);
    return;
  }
  char err[300];
  r->have_device = Device_fromJson(cJSON_GetObjectItemCaseSensitive(msg, "device"), &r->device,
                                   "device", err, sizeof err);
  if (!r->have_device) {
    Device_init(&r->device);
    Runner_say(r, RUNNER_WARNING, "the worker's hello describes no valid device (%s)", err);
  }
  r->start_failures = 0;
  r->want_start = false;
  RunnerEvent *ev = Runner_push(r, RUNNER_HELLO);
  ev->device = r->device;
  const cJSON *nd = cJSON_GetObjectItemCaseSensitive(msg, "devices");
  ev->devices = cJSON_IsNumber(nd) && nd->valuedouble >= 1 && nd->valuedouble <= 1024 ? (int)nd->valuedouble : 0;
  Runner_sendNext(r);
}

static void Runner_onNoGpu(Runner *r, const cJSON *msg) {
  if (r->state != W_STARTING) {
    Runner_invalid(r, "\"nogpu\" after hello", NULL, 0);
    return;
  }
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "message");
  r->no_gpu = true;
  Text_sanitize(r->no_gpu_why, sizeof r->no_gpu_why, cJSON_IsString(m) ? m->valuestring : "no GPU");
  Runner_say(r, RUNNER_NO_GPU, "%s", r->no_gpu_why);
  r->head = r->nqueue; /* nothing can run, nothing can be built */
  r->nbuilds = 0;
  r->want_start = false;
  Runner_stopWorker(r, false);
  Runner_finish(r);
}

static void Runner_line(Runner *r, const char *line, size_t len) {
  if (len == 0) return;
  if (memchr(line, '\0', len)) {
    Runner_invalid(r, "a line with a NUL byte", line, len);
    return;
  }
  cJSON *msg = cJSON_ParseWithLength(line, len);
  const cJSON *type = cJSON_IsObject(msg) ? cJSON_GetObjectItemCaseSensitive(msg, "type") : NULL;
  if (!msg) Runner_invalid(r, "a line that is not valid JSON (NaN, Infinity or a syntax error)", line, len);
  else if (!cJSON_IsString(type)) Runner_invalid(r, "a line that is not a message (no \"type\")", line, len);
  else if (strcmp(type->valuestring, "record") == 0) Runner_onRecord(r, msg);
  else if (strcmp(type->valuestring, "progress") == 0) Runner_onProgress(r, msg);
  else if (strcmp(type->valuestring, "built") == 0) Runner_onBuilt(r, msg);
  else if (strcmp(type->valuestring, "pong") == 0) Runner_onPong(r, msg);
  else if (strcmp(type->valuestring, "hello") == 0) Runner_onHello(r, msg);
  else if (strcmp(type->valuestring, "nogpu") == 0) Runner_onNoGpu(r, msg);
  else Runner_invalid(r, "a message of an unknown type", line, len);
  cJSON_Delete(msg);
}

/* The n bytes just read at buf + len: every complete line handled, the rest kept. */
static void Runner_scan(Runner *r, size_t n) {
  size_t start = 0, from = r->len, end = r->len + n;
  r->len = end;
  char *nl;
  while ((nl = memchr(r->buf + from, '\n', end - from)) != NULL) {
    size_t at = (size_t)(nl - r->buf);
    if (r->discarding) {
      r->discarding = false;
      char what[64];
      snprintf(what, sizeof what, "a line longer than %u MiB", RUNNER_LINE_MAX >> 20);
      Runner_invalid(r, what, NULL, 0);
    } else {
      Runner_line(r, r->buf + start, at - start);
    }
    if (r->from_fd < 0) return; /* the worker was stopped: what it said after is moot */
    start = from = at + 1;
  }
  if (r->discarding) {
    r->len = 0;
    return;
  }
  memmove(r->buf, r->buf + start, end - start);
  r->len = end - start;
  if (r->len > RUNNER_LINE_MAX) { /* no newline in sight: drop it as it comes */
    r->discarding = true;
    r->len = 0;
  }
}

void Runner_read(Runner *r) {
  size_t budget = RUNNER_READ_BUDGET;
  r->drained = false;
  r->armed = false;
  while (r->from_fd >= 0 && budget > 0) {
    if (r->cap < r->len + RUNNER_READ_CHUNK + 1) {
      size_t cap = r->cap ? r->cap * 2 : RUNNER_READ_CHUNK * 2;
      if (cap > RUNNER_LINE_MAX + RUNNER_READ_CHUNK + 1) cap = RUNNER_LINE_MAX + RUNNER_READ_CHUNK + 1;
      r->buf = Util_xrealloc(r->buf, r->cap = cap);
    }
    ssize_t n = read(r->from_fd, r->buf + r->len, RUNNER_READ_CHUNK);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      r->drained = true;
      return;
    }
    if (n <= 0) {
      /* Its output closed: it exited (Runner_reap names how), or it lives on without a way to
       * answer, and is stopped. */
      char why[160] = "the worker closed its output without exiting, and was stopped";
      Runner_reap(r, why, sizeof why);
      Runner_workerGone(r, why);
      return;
    }
    budget -= (size_t)n < budget ? (size_t)n : budget;
    Runner_scan(r, (size_t)n);
  }
}
