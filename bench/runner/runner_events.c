#include "bench/runner/runner_events.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

RunnerEvent *RunnerEvents_push(RunnerEvents *q, RunnerEventKind kind, int done, int total) {
  if (q->n == q->cap) {
    q->cap = q->cap ? q->cap * 2 : 16;
    q->items = Util_xrealloc(q->items, sizeof(RunnerEvent) * (size_t)q->cap);
  }
  RunnerEvent *ev = &q->items[q->n++];
  memset(ev, 0, sizeof *ev);
  ev->kind = kind;
  ev->done = done;
  ev->total = total;
  return ev;
}

bool RunnerEvents_take(RunnerEvents *q, RunnerEvent *ev) {
  if (q->n == 0) return false;
  *ev = q->items[0];
  memmove(q->items, q->items + 1, sizeof(RunnerEvent) * (size_t)(q->n - 1));
  q->n--;
  return true;
}

void RunnerEvents_free(RunnerEvents *q) {
  for (int i = 0; i < q->n; i++)
    if (q->items[i].kind == RUNNER_RECORD) Record_free(&q->items[i].record);
  free(q->items);
  memset(q, 0, sizeof *q);
}
