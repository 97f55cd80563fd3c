/* Round trips of records and sessions through their JSON form, field by field. The checks
 * below list every field by hand (not through the tables the code uses), so a field missing
 * from the writer or the reader fails here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "sessions/session.h"

static int failures;

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);          \
      failures++;                                                                       \
    }                                                                                   \
  } while (0)

static bool same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void fill_device(DeviceInfo *d, int k) {
  snprintf(d->name, sizeof d->name, "NVIDIA H200 #%d \xc3\xa9", k);
  d->cc_major = 9; d->cc_minor = 0; d->sm_count = 132;
  d->l2_bytes = 52428800; d->mem_bytes = 150121086976LL;
  d->driver_version = 13000; d->runtime_version = 13000;
  d->nvrtc_major = 13; d->nvrtc_minor = 0; d->cupti_version = 26;
  d->peak_tflops = 656.123456789012345 + k;
  d->peak_gbs = k % 2 ? 4270.5 : NAN;
  d->launch_us = k % 2 ? 1.875 : NAN;
}

static void fill_record(Record *r, int k) {
  Record_init(r);
  snprintf(r->variant, sizeof r->variant, "mma%d", k);
  snprintf(r->knobs, sizeof r->knobs, "bm=64,bn=%d,stages=2", 32 + k);
  char err[200];
  if (!Shape_parse(k % 2 ? "2x8x512x64:causal" : "4x16x2048x128", &r->shape, err, sizeof err))
    fprintf(stderr, "%s\n", err), failures++;
  r->opts = (RunOptions){.reps = 100, .warmup = 10, .cold_l2 = true, .graph = k % 2,
                         .event_timing = k % 3 == 1,
                         .seed = 18446744073709551615ULL - (uint64_t)k, .watchdog_s = 10.5};
  r->status = k % 2 ? REC_FAIL : REC_PASS;
  snprintf(r->reason, sizeof r->reason, "rel_l2 \"%d\" > tol\n\ttab", k);
  snprintf(r->created, sizeof r->created, "2026-11-22T01:34:5%dZ", k % 10);
  Timing *t = &r->timing;
  t->p50 = 4.123456789012345 + k; t->p90 = 4.9; t->p99 = 5.1e-300; t->min = 0.1 + 0.2;
  t->mean = 1.0 / 3.0; t->stddev = 1e300; t->tflops = 123.456; t->peak_frac = 0.18818;
  t->nsamples = 5;
  snprintf(t->source, sizeof t->source, "%s", k % 2 ? "events" : "kernel");
  snprintf(t->source_note, sizeof t->source_note, k % 2 ? "cuptiActivityEnable failed: \"x\" (%d)" : "", k);
  t->event_p50 = k % 3 ? 6.25 + k : NAN;
  t->samples = malloc(5 * sizeof(double));
  for (int i = 0; i < 5; i++) t->samples[i] = 4.0 + i / 7.0;
  r->error = (ErrorStats){.max_abs = 0.0009765625, .rel_l2 = 3.3e-4, .tolerance = 1e-2,
                          .nan_count = 0, .inf_count = 2, .unwritten = 4194304LL * 1024,
                          .checked = true};
  r->build = (BuildInfo){.regs = 128, .smem_static = 0, .smem_dynamic = 49152, .stack_bytes = 8,
                         .spill_stores = 1, .spill_loads = 2, .compile_ms = 812.25,
                         .cache_hit = true};
  snprintf(r->build.source_hash, sizeof r->build.source_hash, "0123456789abcdef");
  snprintf(r->build.arch, sizeof r->build.arch, "sm_90a");
  r->clocks = (Clocks){.sm_mhz_before = 1980, .sm_mhz_after = 1755, .mem_mhz_before = 2619,
                       .mem_mhz_after = 2619, .temp_c = 41, .power_w = 312.5,
                       .throttle_reasons = 4};
  fill_device(&r->device, k);
  r->nmetrics = 2;
  r->metrics = calloc(2, sizeof(Metric));
  snprintf(r->metrics[0].name, METRIC_NAME_MAX, "lts__t_sector_hit_rate.pct");
  r->metrics[0].value = 100.67;
  snprintf(r->metrics[0].unit, sizeof r->metrics[0].unit, "%%");
  snprintf(r->metrics[1].name, METRIC_NAME_MAX, "sm__warps_active.avg.pct_of_peak_sustained_active");
  r->metrics[1].value = NAN;
  snprintf(r->metrics[1].reason, sizeof r->metrics[1].reason, "not supported on this chip");
  r->metric_passes = 2;
  r->occupancy_theoretical = 50;
  if (k % 2 == 0) { /* a split-KV launch: two kernels and the gap between them */
    r->nkernels = 2;
    r->kernels = calloc(2, sizeof(KernelSpan));
    snprintf(r->kernels[0].name, KERNEL_NAME_MAX, "attn_fwd");
    snprintf(r->kernels[1].name, KERNEL_NAME_MAX, "_Z7combineP6__halfi\"q\"");
    r->kernels[0] = (KernelSpan){"attn_fwd", 7.25, NAN, 0.86, 100};
    r->kernels[1].p50_us = 0.875;
    r->kernels[1].gap_before_us = 0.3;
    r->kernels[1].share = 0.104;
    r->kernels[1].launches = 100;
  }
}

static void check_device(const DeviceInfo *a, const DeviceInfo *b) {
  CHECK(strcmp(a->name, b->name) == 0);
  CHECK(a->cc_major == b->cc_major && a->cc_minor == b->cc_minor && a->sm_count == b->sm_count);
  CHECK(a->l2_bytes == b->l2_bytes && a->mem_bytes == b->mem_bytes);
  CHECK(a->driver_version == b->driver_version && a->runtime_version == b->runtime_version);
  CHECK(a->nvrtc_major == b->nvrtc_major && a->nvrtc_minor == b->nvrtc_minor);
  CHECK(a->cupti_version == b->cupti_version && same(a->peak_tflops, b->peak_tflops));
  CHECK(same(a->peak_gbs, b->peak_gbs) && same(a->launch_us, b->launch_us));
}

static void check_record(const Record *a, const Record *b) {
  CHECK(strcmp(a->variant, b->variant) == 0 && strcmp(a->knobs, b->knobs) == 0);
  CHECK(Shape_equal(&a->shape, &b->shape));
  CHECK(a->opts.reps == b->opts.reps && a->opts.warmup == b->opts.warmup);
  CHECK(a->opts.cold_l2 == b->opts.cold_l2 && a->opts.graph == b->opts.graph);
  CHECK(a->opts.event_timing == b->opts.event_timing);
  CHECK(a->opts.seed == b->opts.seed && same(a->opts.watchdog_s, b->opts.watchdog_s));
  CHECK(a->status == b->status && strcmp(a->reason, b->reason) == 0);
  CHECK(strcmp(a->created, b->created) == 0);
  const Timing *x = &a->timing, *y = &b->timing;
  CHECK(same(x->p50, y->p50) && same(x->p90, y->p90) && same(x->p99, y->p99));
  CHECK(same(x->min, y->min) && same(x->mean, y->mean) && same(x->stddev, y->stddev));
  CHECK(same(x->tflops, y->tflops) && same(x->peak_frac, y->peak_frac));
  CHECK(strcmp(x->source, y->source) == 0 && strcmp(x->source_note, y->source_note) == 0);
  CHECK(same(x->event_p50, y->event_p50));
  CHECK(x->nsamples == y->nsamples);
  for (int i = 0; i < x->nsamples && x->samples && y->samples; i++)
    CHECK(same(x->samples[i], y->samples[i]));
  CHECK((x->samples == NULL) == (y->samples == NULL));
  CHECK(same(a->error.max_abs, b->error.max_abs) && same(a->error.rel_l2, b->error.rel_l2));
  CHECK(same(a->error.tolerance, b->error.tolerance) && a->error.checked == b->error.checked);
  CHECK(a->error.nan_count == b->error.nan_count && a->error.inf_count == b->error.inf_count);
  CHECK(a->error.unwritten == b->error.unwritten);
  const BuildInfo *p = &a->build, *q = &b->build;
  CHECK(p->regs == q->regs && p->smem_static == q->smem_static);
  CHECK(p->smem_dynamic == q->smem_dynamic && p->stack_bytes == q->stack_bytes);
  CHECK(p->spill_stores == q->spill_stores && p->spill_loads == q->spill_loads);
  CHECK(same(p->compile_ms, q->compile_ms) && p->cache_hit == q->cache_hit);
  CHECK(strcmp(p->source_hash, q->source_hash) == 0 && strcmp(p->arch, q->arch) == 0);
  const Clocks *c = &a->clocks, *d = &b->clocks;
  CHECK(same(c->sm_mhz_before, d->sm_mhz_before) && same(c->sm_mhz_after, d->sm_mhz_after));
  CHECK(same(c->mem_mhz_before, d->mem_mhz_before) && same(c->mem_mhz_after, d->mem_mhz_after));
  CHECK(same(c->temp_c, d->temp_c) && same(c->power_w, d->power_w));
  CHECK(c->throttle_reasons == d->throttle_reasons);
  check_device(&a->device, &b->device);
  CHECK(a->nmetrics == b->nmetrics);
  for (int i = 0; i < a->nmetrics && i < b->nmetrics; i++) {
    CHECK(strcmp(a->metrics[i].name, b->metrics[i].name) == 0);
    CHECK(same(a->metrics[i].value, b->metrics[i].value));
    CHECK(strcmp(a->metrics[i].unit, b->metrics[i].unit) == 0);
    CHECK(strcmp(a->metrics[i].reason, b->metrics[i].reason) == 0);
  }
  CHECK(a->metric_passes == b->metric_passes);
  CHECK(same(a->occupancy_theoretical, b->occupancy_theoretical));
  CHECK(a->nkernels == b->nkernels);
  for (int i = 0; i < a->nkernels && i < b->nkernels; i++) {
    CHECK(strcmp(a->kernels[i].name, b->kernels[i].name) == 0);
    CHECK(same(a->kernels[i].p50_us, b->kernels[i].p50_us));
    CHECK(same(a->kernels[i].gap_before_us, b->kernels[i].gap_before_us));
    CHECK(same(a->kernels[i].share, b->kernels[i].share) && a->kernels[i].launches == b->kernels[i].launches);
  }
  char where[256] = "";
  CHECK(Record_equal(a, b, "r", where, sizeof where));
}

/* Record -> one JSON line -> Record. */
static void roundtrip_record(const Record *r) {
  char *line = Record_toJsonLine(r);
  CHECK(line && !strchr(line, '\n'));
  cJSON *j = cJSON_Parse(line);
  CHECK(j != NULL);
  Record back;
  char err[512] = "";
  bool ok = Record_fromJson(j, &back, "r", err, sizeof err);
  if (!ok) fprintf(stderr, "Record_fromJson: %s\n", err);
  CHECK(ok);
  if (ok) {
    check_record(r, &back);
    Record_free(&back);
  }
  cJSON_Delete(j);
  free(line);
}

/* Doubles from random bit patterns survive printing and parsing bit for bit. */
static void roundtrip_doubles(void) {
  uint64_t x = 88172645463325252ULL;
  int bad = 0;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    double d;
    memcpy(&d, &x, sizeof d);
    if (!isfinite(d) || d == 0) continue;
    Record r;
    Record_init(&r);
    snprintf(r.variant, sizeof r.variant, "v");
    r.shape = (Shape){.B = 1, .H = 1, .S = 16, .D = 64, .causal = false};
    r.timing.p50 = d;
    char *line = Record_toJsonLine(&r);
    cJSON *j = cJSON_Parse(line);
    Record back;
    char err[256];
    if (!j || !Record_fromJson(j, &back, "r", err, sizeof err)) {
      bad++;
    } else {
      if (memcmp(&back.timing.p50, &d, sizeof d) != 0) bad++;
      Record_free(&back);
    }
    cJSON_Delete(j);
    free(line);
  }
  if (bad) fprintf(stderr, "%d doubles did not round-trip bit-exactly\n", bad);
  CHECK(bad == 0);
}

static void test_na_record(void) {
  Record r;
  Record_init(&r);
  snprintf(r.variant, sizeof r.variant, "fp8");
  r.knobs[0] = '\0';
  r.shape = (Shape){.B = 2, .H = 8, .S = 512, .D = 64, .causal = true};
  r.status = REC_NA;
  snprintf(r.reason, sizeof r.reason, "n/a: needs sm_89");
  CHECK(isnan(r.timing.p50) && r.build.regs == -1 && r.timing.nsamples == -1);
  char *line = Record_toJsonLine(&r);
  CHECK(strstr(line, "\"p50\":null") != NULL);
  CHECK(strstr(line, "\"regs\":null") != NULL);
  CHECK(strstr(line, "\"status\":\"n/a\"") != NULL);
  free(line);
  roundtrip_record(&r);
  Record_free(&r);
}

/* The whole problem (KV heads, key length, dtype) survives a record's JSON, written canonically. */
static void test_wide_problems(void) {
  const char *problems[] = {"8x32/8x1/8192x128:bf16", "2x32/8x512/4096x128:causal:bf16",
                            "2x16/1x1024x64", "4x32/8x2048x128:causal:bf16"};
  for (int i = 0; i < 4; i++) {
    Record r;
    fill_record(&r, i);
    char err[200], want[120];
    CHECK(Shape_parse(problems[i], &r.shape, err, sizeof err));
    char *line = Record_toJsonLine(&r);
    snprintf(want, sizeof want, "\"shape\":\"%s\"", problems[i]);
    CHECK(line && strstr(line, want));
    free(line);
    roundtrip_record(&r);
    Record_free(&r);
  }
}

static void build_session(Session *s) {
  Session_init(s);
  s->has_device = true;
  fill_device(&s->device, 7);
  Plan *p = &s->plan;
  Plan_addVariant(p, "mma");
  Plan_addVariant(p, "swizzle");
  PlanVariant_setKnob(&p->variants[0], "stages=1,2");
  p->nshapes = 2;
  p->shapes = malloc(2 * sizeof(Shape));
  p->shapes[0] = (Shape){.B = 2, .H = 8, .S = 512, .D = 64, .causal = false};
  p->shapes[1] = (Shape){.B = 2, .H = 8, .S = 512, .D = 64, .causal = true};
  snprintf(p->metrics, sizeof p->metrics, "default");
  p->opts = (RunOptions){.reps = 50, .warmup = 5, .seed = 42, .watchdog_s = 10};
  for (int k = 0; k < 3; k++) {
    Record r;
    fill_record(&r, k);
    Session_add(s, &r);
    Record_free(&r);
  }
  Record na;
  Record_init(&na);
  snprintf(na.variant, sizeof na.variant, "fp8");
  na.shape = p->shapes[0];
  Session_add(s, &na);
}

static void test_session(const char *dir) {
  Session s, back;
  build_session(&s);
  CHECK(s.nrecords == 4 && s.dirty);
  char path[4096], err[1024] = "", where[256] = "";
  snprintf(path, sizeof path, "%s/roundtrip.json", dir);
  Util_strlcpy(s.path, path, sizeof s.path);
  bool ok = Session_autosave(&s, err, sizeof err);
  if (!ok) fprintf(stderr, "autosave: %s\n", err);
  CHECK(ok && !s.dirty);
  ok = Session_load(path, &back, err, sizeof err);
  if (!ok) fprintf(stderr, "load: %s\n", err);
  CHECK(ok);
  if (ok) {
    CHECK(strcmp(s.created, back.created) == 0 && strcmp(s.host, back.host) == 0);
    CHECK(strcmp(s.version, back.version) == 0 && strcmp(s.revision, back.revision) == 0);
    CHECK(back.has_device);
    check_device(&s.device, &back.device);
    CHECK(back.plan.nvariants == 2 && strcmp(back.plan.variants[1].name, "swizzle") == 0);
    CHECK(back.plan.nshapes == 2 && back.plan.shapes[1].causal && !back.plan.shapes[0].causal);
    CHECK(back.plan.variants[0].nknobs == 1 && strcmp(back.plan.variants[0].knobs[0], "stages=1,2") == 0);
    CHECK(back.plan.variants[1].nknobs == 0);
    CHECK(strcmp(back.plan.metrics, "default") == 0 && back.plan.opts.seed == 42);
    CHECK(back.plan.opts.reps == 50 && back.plan.opts.warmup == 5);
    CHECK(back.nrecords == s.nrecords);
    for (int i = 0; i < s.nrecords && i < back.nrecords; i++)
      check_record(&s.records[i], &back.records[i]);
    bool eq = Session_equal(&s, &back, where, sizeof where);
    if (!eq) fprintf(stderr, "sessions differ at %s\n", where);
    CHECK(eq);
    /* Session_equal must notice a change deep inside. */
    back.records[2].timing.samples[3] += 1e-9;
    CHECK(!Session_equal(&s, &back, where, sizeof where));
    CHECK(strcmp(where, "records[2].timing.samples[3]") == 0);
    Session_free(&back);
  }
  /* Plan_copy is deep. */
  Plan copy;
  Plan_copy(&copy, &s.plan);
  CHECK(Plan_equal(&copy, &s.plan, "plan", where, sizeof where));
  CHECK(copy.variants != s.plan.variants && copy.shapes != s.plan.shapes);
  Plan_free(&copy);
  Session_free(&s);
  unlink(path);
}

/* Newest session in $XDG_DATA_HOME/benchtop/sessions; else the first example alphabetically
 * from $BENCHTOP_EXAMPLES. */
static void test_find_default(const char *dir) {
  char data[512], sdir[1024], exdir[1024], path[4096], got[4096];
  snprintf(data, sizeof data, "%s/data", dir);
  snprintf(sdir, sizeof sdir, "%s/benchtop/sessions", data);
  snprintf(exdir, sizeof exdir, "%s/examples", dir);
  setenv("XDG_DATA_HOME", data, 1);
  setenv("BENCHTOP_EXAMPLES", exdir, 1);
  CHECK(Util_mkdirs(sdir) && Util_mkdirs(exdir));
  const char *ex[] = {"b.json", "a.json", "c.txt"};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", exdir, ex[i]);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
  }
  /* An empty sessions directory falls back to the examples. */
  CHECK(Session_findDefault(got, sizeof got));
  snprintf(path, sizeof path, "%s/a.json", exdir);
  CHECK(strcmp(got, path) == 0);
  const char *mine[] = {"zzz-old.json", "aaa-new.json"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", sdir, mine[i]);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    struct timespec times[2] = {{1000000 + i * 100, 0}, {1000000 + i * 100, 0}};
    utimensat(AT_FDCWD, path, times, 0);
  }
  CHECK(Session_findDefault(got, sizeof got));
  snprintf(path, sizeof path, "%s/aaa-new.json", sdir);
  if (strcmp(got, path) != 0) fprintf(stderr, "findDefault gave %s\n", got);
  CHECK(strcmp(got, path) == 0);
  /* Session_defaultPath lands in the sessions directory and does not clobber a file. */
  Session_defaultPath(got, sizeof got);
  CHECK(strncmp(got, sdir, strlen(sdir)) == 0 && strstr(got, ".json") != NULL);
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", data, exdir);
  CHECK(system(cmd) == 0);
  unsetenv("XDG_DATA_HOME");
  unsetenv("BENCHTOP_EXAMPLES");
}

/* --write PATH: save the session built in code (a fixture for the diff and show tests). */
static int write_fixture(const char *path) {
  Session s;
  build_session(&s);
  char err[1024];
  bool ok = Session_save(&s, path, err, sizeof err);
  if (!ok) fprintf(stderr, "%s\n", err);
  Session_free(&s);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_fixture(argv[2]);
  char dir[] = "/tmp/benchtop-test-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_wide_problems();
  for (int k = 0; k < 4; k++) {
    Record r;
    fill_record(&r, k);
    roundtrip_record(&r);
    Record copy;
    Record_copy(&copy, &r);
    check_record(&r, &copy);
    CHECK(copy.metrics != r.metrics && copy.timing.samples != r.timing.samples);
    CHECK(Record_sameKey(&r, &copy));
    copy.knobs[0] = 'X';
    CHECK(!Record_sameKey(&r, &copy));
    CHECK(Record_metric(&r, "lts__t_sector_hit_rate.pct")->value == 100.67);
    CHECK(Record_metric(&r, "nope") == NULL);
    Record_free(&copy);
    Record_free(&r);
  }
  test_na_record();
  roundtrip_doubles();
  test_session(dir);
  test_find_default(dir);
  RecordStatus st;
  for (int i = REC_PASS; i <= REC_CANCELLED; i++)
    CHECK(Record_statusParse(Record_statusName((RecordStatus)i), &st) && st == (RecordStatus)i);
  CHECK(!Record_statusParse("PASS", &st));
  rmdir(dir);
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("session JSON round trips: ok\n");
  return 0;
}
