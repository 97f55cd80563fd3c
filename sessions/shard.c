/* Shards of a plan: parsing I/N, Slurm job arrays, the round-robin slicing, the plan hash. */
#include "sessions/shard.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* A whole decimal number, digits only (no sign, no spaces): what a shard index or a Slurm
 * variable must be. */
static bool Shard_number(const char *text, size_t len, long *out) {
  if (len == 0 || len > 9) return false;
  long v = 0;
  for (size_t i = 0; i < len; i++) {
    if (!isdigit((unsigned char)text[i])) return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = v;
  return true;
}

bool Shard_parse(const char *text, ShardSpec *out, char *err, size_t errsize) {
  const char *slash = strchr(text, '/');
  long i = 0, n = 0;
  if (!slash || !Shard_number(text, (size_t)(slash - text), &i) ||
      !Shard_number(slash + 1, strlen(slash + 1), &n)) {
    snprintf(err, errsize, "--shard expects I/N (shard I of N, from 1/N to N/N) or slurm");
    return false;
  }
  if (n < 1 || n > SHARD_MAX) {
    snprintf(err, errsize, "--shard %ld/%ld: N must be from 1 to %d", i, n, SHARD_MAX);
    return false;
  }
  if (i < 1 || i > n) {
    snprintf(err, errsize, "--shard %ld/%ld: shards are numbered 1 to %ld", i, n, n);
    return false;
  }
  out->index = (int)i;
  out->count = (int)n;
  return true;
}

/* One Slurm variable as a number; missing is false with *present false. */
static bool Shard_env(const char *name, long *out, bool *present, char *err, size_t errsize) {
  const char *v = getenv(name);
  *present = v && *v;
  if (!*present) return false;
  if (!Shard_number(v, strlen(v), out)) {
    snprintf(err, errsize, "--shard slurm: %s is not a whole number", name);
    return false;
  }
  return true;
}

bool Shard_fromSlurm(ShardSpec *out, char *err, size_t errsize) {
  long id = 0, min = 0, step = 1, count = 0, max = 0;
  bool has_id, has_min, has_step, has_count, has_max;
  err[0] = '\0';
  if (!Shard_env("SLURM_ARRAY_TASK_ID", &id, &has_id, err, errsize)) {
    if (!err[0])
      snprintf(err, errsize, "--shard slurm: SLURM_ARRAY_TASK_ID is not set (not a task of a "
                             "Slurm job array? give --shard I/N instead)");
    return false;
  }
  if ((!Shard_env("SLURM_ARRAY_TASK_MIN", &min, &has_min, err, errsize) && has_min) ||
      (!Shard_env("SLURM_ARRAY_TASK_STEP", &step, &has_step, err, errsize) && has_step) ||
      (!Shard_env("SLURM_ARRAY_TASK_COUNT", &count, &has_count, err, errsize) && has_count) ||
      (!Shard_env("SLURM_ARRAY_TASK_MAX", &max, &has_max, err, errsize) && has_max))
    return false;
  if (!has_min) min = 0;
  if (!has_step || step < 1) step = 1;
  if (!has_count && has_max && max >= min) count = (max - min) / step + 1;
  if (count < 1) {
    snprintf(err, errsize, "--shard slurm: neither SLURM_ARRAY_TASK_COUNT nor "
                           "SLURM_ARRAY_TASK_MAX is set: give --shard I/N instead");
    return false;
  }
  if (count > SHARD_MAX) {
    snprintf(err, errsize, "--shard slurm: %ld array tasks, more than the %d shards a plan may "
                           "have", count, SHARD_MAX);
    return false;
  }
  long k = (id - min) / step;
  if (id < min || (id - min) % step != 0 || k >= count) {
    snprintf(err, errsize, "--shard slurm: task %ld is not one of %ld evenly spaced tasks from "
                           "%ld (step %ld): submit --array=0-%ld, or give --shard I/N",
             id, count, min, step, count - 1);
    return false;
  }
  out->index = (int)k + 1;
  out->count = (int)count;
  return true;
}

bool Shard_owns(const ShardSpec *s, int k) {
  return s->count <= 0 || k % s->count == s->index - 1;
}

int Shard_size(const ShardSpec *s, int total) {
  if (s->count <= 0) return total;
  int first = s->index - 1;
  return first >= total ? 0 : (total - first + s->count - 1) / s->count;
}

void Shard_format(const ShardSpec *s, char *buf, size_t size) {
  if (s->count <= 0) snprintf(buf, size, "all");
  else snprintf(buf, size, "%d/%d", s->index, s->count);
}

uint64_t Shard_hashEntry(uint64_t h, const char *variant, const char *knobs, const Shape *shape,
                         const RunOptions *o, const char *metrics) {
  char shape_text[64];
  Shape_format(shape, shape_text, sizeof shape_text);
  /* Fields apart by a unit separator, entries by a record separator: no two different plans
   * write the same text. */
  char *text = Util_asprintf("%s\x1f%s\x1f%s\x1f%d\x1f%d\x1f%d\x1f%d\x1f%d\x1f%" PRIu64
                             "\x1f%.17g\x1f%s\x1e",
                             variant, knobs, shape_text, o->reps, o->warmup, o->cold_l2,
                             o->graph, o->event_timing, o->seed, o->watchdog_s, metrics);
  h = Util_hash64(text, strlen(text), h);
  free(text);
  return h;
}

void Shard_formatHash(uint64_t h, char *buf, size_t size) {
  snprintf(buf, size, "%016" PRIx64, h);
}
