/* One worker per GPU (see bench/runner/runner_pool.h): entries handed out one at a time, so a fast GPU
 * takes more of them and the plan ends when the last GPU finishes its last entry. */
#include "bench/runner/runner_pool.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/runner/runner_events.h"
#include "common/text.h"
#include "common/util.h"

typedef struct PoolSlot {
  Runner *r;
  int device;
  int entry; /* index of the entry in flight, -1 when idle */
  int fails; /* records lost in a row to a worker that died or hung */
  bool hello, dropped;
  bool batch; /* an entry was submitted and its Runner has not said FINISHED yet */
  DeviceInfo info;
  char why[512]; /* why it could not start, said once the others are up */
} PoolSlot;

struct RunnerPool {
  char *exe;
  bool pool, all, ready, hello_said, cancelled, finish_said;
  PoolSlot slots[RUNNER_POOL_MAX];
  int nslots, next_slot;
  PlanEntry *entries;
  int n;
  int *queue; /* entry indices still to hand out: queue[head..tail) */
  int head, tail;
  int answered;
  int devices; /* GPUs the machine has, as the workers' hello said (0: not said) */
  RunnerEvents pending; /* the pool's own events, said before the workers' */
};

int RunnerPool_parseDevices(const char *spec, int *indices, bool *all, char *err, size_t errsize) {
  *all = false;
  if (strcmp(spec, "all") == 0) {
    *all = true;
    return 0;
  }
  int n = 0;
  const char *p = spec;
  for (;;) {
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno || v < 0 || v >= RUNNER_POOL_MAX || (*end && *end != ',') || p[0] == '-' ||
        p[0] == '+' || p[0] == ' ') {
      snprintf(err, errsize, "--devices: expected all or GPU indices like 0,2,3 (each 0 to %d), "
               "not \"%.40s\"", RUNNER_POOL_MAX - 1, spec);
      return -1;
    }
    for (int i = 0; i < n; i++)
      if (indices[i] == (int)v) {
        snprintf(err, errsize, "--devices: GPU %ld named twice", v);
        return -1;
      }
    indices[n++] = (int)v;
    if (!*end) return n;
    p = end + 1;
  }
}

static PoolSlot *Pool_addSlot(RunnerPool *p, int device) {
  PoolSlot *s = &p->slots[p->nslots++];
  memset(s, 0, sizeof *s);
  s->r = Runner_new(p->exe);
  s->device = device;
  s->entry = -1;
  Device_init(&s->info);
  if (device >= 0) Runner_setDevice(s->r, device);
  return s;
}

RunnerPool *RunnerPool_new(const char *exe, const int *devices, int ndevices, bool all) {
  RunnerPool *p = Util_xcalloc(1, sizeof *p);
  p->exe = exe ? Util_xstrdup(exe) : NULL;
  p->pool = all || ndevices > 0;
  p->all = all;
  if (all) Pool_addSlot(p, 0);
  for (int i = 0; i < ndevices && i < RUNNER_POOL_MAX; i++) Pool_addSlot(p, devices[i]);
  if (!p->pool) Pool_addSlot(p, -1);
  return p;
}

void RunnerPool_free(RunnerPool *p) {
  if (!p) return;
  for (int i = 0; i < p->nslots; i++)
    if (!p->slots[i].dropped) Runner_free(p->slots[i].r);
  RunnerEvents_free(&p->pending);
  free(p->entries);
  free(p->queue);
  free(p->exe);
  free(p);
}

bool RunnerPool_isPool(const RunnerPool *p) { return p->pool; }

static RunnerEvent *Pool_push(RunnerPool *p, RunnerEventKind kind) {
  return RunnerEvents_push(&p->pending, kind, p->answered, p->n);
}

static void Pool_say(RunnerPool *p, RunnerEventKind kind, const char *fmt, ...) {
  RunnerEvent *ev = Pool_push(p, kind);
  va_list ap;
  va_start(ap, fmt);
  Text_vformat(ev->message, sizeof ev->message, fmt, ap); /* quotes GPU names and workers */
  va_end(ap);
}

static int Pool_live(const RunnerPool *p) {
  int live = 0;
  for (int i = 0; i < p->nslots; i++) live += !p->slots[i].dropped;
  return live;
}

static void Pool_requeue(RunnerPool *p, PoolSlot *s) {
  if (s->entry >= 0 && !p->cancelled) p->queue[--p->head] = s->entry; /* it was taken from here */
  s->entry = -1;
}

/* The GPU stops taking entries; the one in flight (if unanswered) goes to another GPU. */
static void Pool_drop(RunnerPool *p, PoolSlot *s, const char *why) {
  s->dropped = true;
  Runner_free(s->r);
  s->r = NULL;
  Pool_requeue(p, s);
  if (Pool_live(p) > 0) {
    Pool_say(p, RUNNER_WARNING, "GPU %d%s%s dropped: %s; the other GPUs go on", s->device,
             s->info.name[0] ? " " : "", s->info.name, why);
  } else if (p->head < p->tail) {
    Pool_say(p, RUNNER_FAILED, "every GPU of --devices was dropped (GPU %d: %s); %d entries "
             "not run", s->device, why, p->tail - p->head);
    p->head = p->tail;
  }
}

/* With --devices 0,2,3, once every worker said hello (or could not start): every index must
 * exist; then the run begins. */
static void Pool_dropAll(RunnerPool *p) {
  for (int j = 0; j < p->nslots; j++)
    if (!p->slots[j].dropped) {
      p->slots[j].dropped = true;
      Runner_free(p->slots[j].r);
      p->slots[j].r = NULL;
    }
  p->head = p->tail;
}

/* With --devices 0,2,3, once every worker said hello (or could not start): every index must
 * exist (else one line and nothing runs); those that could not start are said; the run begins. */
static void Pool_checkReady(RunnerPool *p) {
  if (p->ready) return;
  PoolSlot *first = NULL;
  for (int i = 0; i < p->nslots; i++) {
    PoolSlot *s = &p->slots[i];
    if (!s->hello && !s->dropped) return;
    if (s->hello && !first) first = s;
  }
  p->ready = true;
  if (!first) return; /* no worker started: the last one's words were passed on */
  for (int i = 0; i < p->nslots; i++)
    if (p->devices > 0 && p->slots[i].device >= p->devices) {
      Pool_say(p, RUNNER_FAILED, "--devices: GPU %d does not exist (this machine has %d: 0 to %d)",
               p->slots[i].device, p->devices, p->devices - 1);
      Pool_dropAll(p);
      return;
    }
  RunnerEvent *ev = Pool_push(p, RUNNER_HELLO);
  ev->device = first->info;
  p->hello_said = true;
  for (int i = 0; i < p->nslots; i++)
    if (p->slots[i].why[0])
      Pool_say(p, RUNNER_WARNING, "GPU %d dropped: %s; the other GPUs go on", p->slots[i].device,
               p->slots[i].why);
}

static void Pool_dispatch(RunnerPool *p) {
  if (p->cancelled || (!p->all && !p->ready)) return;
  for (int i = 0; i < p->nslots && p->head < p->tail; i++) {
    PoolSlot *s = &p->slots[i];
    if (s->dropped || !s->hello || s->entry >= 0 || s->batch) continue;
    s->entry = p->queue[p->head++];
    s->batch = true;
    Runner_submit(s->r, &p->entries[s->entry], 1);
  }
}

static void Pool_onHello(RunnerPool *p, PoolSlot *s, RunnerEvent *ev) {
  s->hello = true;
  s->info = ev->device;
  s->info.index = s->device;
  PoolSlot *first = NULL;
  for (int i = 0; i < p->nslots && !first; i++)
    if (p->slots[i].hello && &p->slots[i] != s) first = &p->slots[i];
  if (first && strcmp(first->info.name, s->info.name) != 0)
    Pool_say(p, RUNNER_WARNING, "GPU %d is %s, GPU %d is %s: the plan runs on GPUs of different "
             "kinds (each record names its GPU; compare timings within one kind)", first->device,
             first->info.name, s->device, s->info.name);
  if (p->all && !p->hello_said) {
    int n = ev->devices > 0 ? ev->devices : 1;
    for (int d = 1; d < n && p->nslots < RUNNER_POOL_MAX; d++) Runner_start(Pool_addSlot(p, d)->r);
    RunnerEvent *h = Pool_push(p, RUNNER_HELLO);
    h->device = s->info;
    p->hello_said = true;
    p->ready = true;
    return;
  }
  if (ev->devices > p->devices) p->devices = ev->devices;
  Pool_checkReady(p);
}

/* One event of slot s; true when it goes to the caller (as ev). */
static bool Pool_handle(RunnerPool *p, PoolSlot *s, RunnerEvent *ev) {
  char why[600];
  switch (ev->kind) {
  case RUNNER_HELLO: Pool_onHello(p, s, ev); return false;
  case RUNNER_RECORD:
    ev->record.plan_index = s->entry;
    ev->request = s->entry;
    ev->record.device.index = s->device;
    if (!ev->record.device.uuid[0]) Util_strlcpy(ev->record.device.uuid, s->info.uuid, sizeof ev->record.device.uuid);
    if (!ev->record.device.name[0]) Util_strlcpy(ev->record.device.name, s->info.name, sizeof ev->record.device.name);
    s->fails = ev->record.status == REC_ERROR && strstr(ev->record.reason, "the worker was restarted")
                   ? s->fails + 1 : 0;
    s->entry = -1;
    p->answered++;
    if (s->fails >= RUNNER_POOL_DROP_AFTER) {
      snprintf(why, sizeof why, "its worker died or hung %d times in a row (last: %.400s)",
               s->fails, ev->record.reason);
      Pool_drop(p, s, why);
    }
    return true;
  case RUNNER_FINISHED:
    s->batch = false;
    Pool_requeue(p, s); /* an entry it never answered (cancelled before it ran) */
    return false;
  case RUNNER_NO_GPU:
  case RUNNER_FAILED:
    if (!p->ready && Pool_live(p) == 1 && !p->hello_said) { /* none started: say it as one GPU would */
      bool any_hello = false;
      for (int i = 0; i < p->nslots; i++) any_hello |= p->slots[i].hello;
      if (!any_hello) {
        Pool_dropAll(p);
        p->ready = true;
        return true;
      }
    }
    if (!p->ready && !p->all) { /* said once every worker is up, unless an index is wrong */
      Util_strlcpy(s->why, ev->message, sizeof s->why);
      s->dropped = true;
      Runner_free(s->r);
      s->r = NULL;
      Pool_requeue(p, s);
      Pool_checkReady(p);
      return false;
    }
    Pool_drop(p, s, ev->message);
    return false;
  case RUNNER_PROGRESS:
  case RUNNER_WARNING: {
    char msg[sizeof ev->message];
    snprintf(msg, sizeof msg, "GPU %d: %.480s", s->device, ev->message);
    Util_strlcpy(ev->message, msg, sizeof ev->message);
    ev->done = p->answered;
    ev->total = p->n;
    return true;
  }
  case RUNNER_NONE:
  case RUNNER_BUILT: return false;
  }
  return false;
}

static bool Pool_idle(const RunnerPool *p) {
  if (p->head < p->tail) return false;
  for (int i = 0; i < p->nslots; i++)
    if (!p->slots[i].dropped && (p->slots[i].entry >= 0 || p->slots[i].batch)) return false;
  return true;
}

bool RunnerPool_poll(RunnerPool *p, RunnerEvent *ev) {
  if (!p->pool) return Runner_poll(p->slots[0].r, ev);
  for (;;) {
    if (RunnerEvents_take(&p->pending, ev)) return true;
    bool got = false;
    for (int k = 0; k < p->nslots && !got; k++) {
      int i = (p->next_slot + k) % p->nslots;
      PoolSlot *s = &p->slots[i];
      if (s->dropped) continue;
      if (Runner_poll(s->r, ev)) {
        got = true;
        p->next_slot = (i + 1) % p->nslots;
        bool pass = Pool_handle(p, s, ev);
        Pool_dispatch(p);
        if (pass) return true;
      }
    }
    if (got) continue;
    if (p->n > 0 && !p->finish_said && (p->ready || Pool_live(p) == 0) && Pool_idle(p)) {
      p->finish_said = true;
      Pool_push(p, RUNNER_FINISHED);
      continue;
    }
    return false;
  }
}

void RunnerPool_start(RunnerPool *p) {
  for (int i = 0; i < p->nslots; i++)
    if (!p->slots[i].dropped) Runner_start(p->slots[i].r);
}

void RunnerPool_submit(RunnerPool *p, const PlanEntry *entries, int count) {
  if (!p->pool) {
    Runner_submit(p->slots[0].r, entries, count);
    return;
  }
  p->entries = Util_xrealloc(p->entries, sizeof *p->entries * (size_t)(p->n + count + 1));
  memcpy(p->entries + p->n, entries, sizeof *entries * (size_t)count);
  int *q = Util_xcalloc((size_t)(p->n + count + 1), sizeof *q);
  int live = p->tail - p->head;
  memcpy(q, p->queue ? p->queue + p->head : q, sizeof *q * (size_t)live);
  for (int i = 0; i < count; i++) q[live + i] = p->n + i;
  free(p->queue);
  p->queue = q;
  p->head = 0;
  p->tail = live + count;
  p->n += count;
  p->finish_said = false;
  RunnerPool_start(p);
  Pool_dispatch(p);
}

void RunnerPool_cancel(RunnerPool *p) {
  if (!p->pool) {
    Runner_cancel(p->slots[0].r);
    return;
  }
  p->cancelled = true;
  p->head = p->tail;
  for (int i = 0; i < p->nslots; i++)
    if (!p->slots[i].dropped && p->slots[i].entry >= 0) Runner_cancel(p->slots[i].r);
  if (p->n == 0 && !p->finish_said) { /* nothing was submitted: the caller still waits for an end */
    p->finish_said = true;
    Pool_push(p, RUNNER_FINISHED);
  }
}

void RunnerPool_wait(const RunnerPool *p, int max_ms) {
  if (!p->pool) {
    Runner_wait(p->slots[0].r, max_ms);
    return;
  }
  if (p->pending.n > 0) return;
  struct pollfd fds[RUNNER_POOL_MAX];
  int nfds = 0, timeout = max_ms;
  for (int i = 0; i < p->nslots; i++) {
    const PoolSlot *s = &p->slots[i];
    if (s->dropped) continue;
    int t = Runner_timeoutMs(s->r);
    if (t >= 0 && t < timeout) timeout = t;
    if (Runner_fd(s->r) >= 0) fds[nfds++] = (struct pollfd){.fd = Runner_fd(s->r), .events = POLLIN};
  }
  if (timeout <= 0) return;
  poll(fds, (nfds_t)nfds, timeout);
}
