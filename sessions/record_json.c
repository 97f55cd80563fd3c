/* The JSON form of records, devices, options and plans ("benchtop.session/1", see
 * docs/session-schema.md). The worker sends the same record JSON, one line per record. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/floors.h"
#include "sessions/json_fields.h"
#include "sessions/record_replicates.h"
#include "sessions/session.h"

static const JsonField Device_fields[] = {
  JSON_FIELD(DeviceInfo, name, JF_STR),
  JSON_FIELD(DeviceInfo, cc_major, JF_INT),
  JSON_FIELD(DeviceInfo, cc_minor, JF_INT),
  JSON_FIELD(DeviceInfo, sm_count, JF_INT),
  JSON_FIELD(DeviceInfo, l2_bytes, JF_INT64),
  JSON_FIELD(DeviceInfo, mem_bytes, JF_INT64),
  JSON_FIELD(DeviceInfo, driver_version, JF_INT),
  JSON_FIELD(DeviceInfo, runtime_version, JF_INT),
  JSON_FIELD(DeviceInfo, nvrtc_major, JF_INT),
  JSON_FIELD(DeviceInfo, nvrtc_minor, JF_INT),
  JSON_FIELD(DeviceInfo, cupti_version, JF_INT),
  JSON_FIELD(DeviceInfo, peak_tflops, JF_DOUBLE),
  JSON_FIELD(DeviceInfo, peak_gbs, JF_DOUBLE),
  JSON_FIELD(DeviceInfo, launch_us, JF_DOUBLE),
  JSON_FIELD(DeviceInfo, index, JF_INT),
  JSON_FIELD(DeviceInfo, uuid, JF_STR),
};

static const JsonField Options_fields[] = {
  JSON_FIELD(RunOptions, reps, JF_INT),
  JSON_FIELD(RunOptions, warmup, JF_INT),
  JSON_FIELD(RunOptions, cold_l2, JF_BOOL),
  JSON_FIELD(RunOptions, graph, JF_BOOL),
  JSON_FIELD(RunOptions, event_timing, JF_BOOL),
  JSON_FIELD(RunOptions, seed, JF_U64STR),
  JSON_FIELD(RunOptions, watchdog_s, JF_DOUBLE),
  JSON_FIELD(RunOptions, l2_persist, JF_STR),
  JSON_FIELD(RunOptions, span_s, JF_DOUBLE0),
};

static const JsonField Timing_fields[] = {
  JSON_FIELD(Timing, p50, JF_DOUBLE),
  JSON_FIELD(Timing, p90, JF_DOUBLE),
  JSON_FIELD(Timing, p99, JF_DOUBLE),
  JSON_FIELD(Timing, min, JF_DOUBLE),
  JSON_FIELD(Timing, mean, JF_DOUBLE),
  JSON_FIELD(Timing, stddev, JF_DOUBLE),
  JSON_FIELD(Timing, tflops, JF_DOUBLE),
  JSON_FIELD(Timing, peak_frac, JF_DOUBLE),
  JSON_FIELD(Timing, nsamples, JF_INT),
  JSON_FIELD(Timing, source, JF_STR),
  JSON_FIELD(Timing, source_note, JF_STR),
  JSON_FIELD(Timing, event_p50, JF_DOUBLE),
};

static const JsonField Error_fields[] = {
  JSON_FIELD(ErrorStats, checked, JF_BOOL),
  JSON_FIELD(ErrorStats, max_abs, JF_DOUBLE),
  JSON_FIELD(ErrorStats, rel_l2, JF_DOUBLE),
  JSON_FIELD(ErrorStats, tolerance, JF_DOUBLE),
  JSON_FIELD(ErrorStats, nan_count, JF_INT64),
  JSON_FIELD(ErrorStats, inf_count, JF_INT64),
  JSON_FIELD(ErrorStats, unwritten, JF_INT64),
};

static const JsonField Build_fields[] = {
  JSON_FIELD(BuildInfo, regs, JF_INT),
  JSON_FIELD(BuildInfo, smem_static, JF_INT),
  JSON_FIELD(BuildInfo, smem_dynamic, JF_INT),
  JSON_FIELD(BuildInfo, stack_bytes, JF_INT),
  JSON_FIELD(BuildInfo, spill_stores, JF_INT),
  JSON_FIELD(BuildInfo, spill_loads, JF_INT),
  JSON_FIELD(BuildInfo, compile_ms, JF_DOUBLE),
  JSON_FIELD(BuildInfo, cache_hit, JF_BOOL),
  JSON_FIELD(BuildInfo, source_hash, JF_STR),
  JSON_FIELD(BuildInfo, source_path, JF_STR),
  JSON_FIELD(BuildInfo, arch, JF_STR),
};

static const JsonField Clocks_fields[] = {
  JSON_FIELD(Clocks, sm_mhz_before, JF_DOUBLE),
  JSON_FIELD(Clocks, sm_mhz_after, JF_DOUBLE),
  JSON_FIELD(Clocks, mem_mhz_before, JF_DOUBLE),
  JSON_FIELD(Clocks, mem_mhz_after, JF_DOUBLE),
  JSON_FIELD(Clocks, temp_c, JF_DOUBLE),
  JSON_FIELD(Clocks, power_w, JF_DOUBLE),
  JSON_FIELD(Clocks, throttle_reasons, JF_INT64),
};

static const JsonField Metric_fields[] = {
  {"name", JF_STR, offsetof(Metric, name), sizeof(((Metric *)0)->name), true},
  JSON_FIELD(Metric, value, JF_DOUBLE),
  JSON_FIELD(Metric, unit, JF_STR),
  JSON_FIELD(Metric, reason, JF_STR),
};

static const JsonField Kernel_fields[] = {
  {"name", JF_STR, offsetof(KernelSpan, name), sizeof(((KernelSpan *)0)->name), true},
  JSON_FIELD(KernelSpan, p50_us, JF_DOUBLE),
  JSON_FIELD(KernelSpan, gap_before_us, JF_DOUBLE),
  JSON_FIELD(KernelSpan, share, JF_DOUBLE),
  JSON_FIELD(KernelSpan, launches, JF_INT),
};

static const JsonField Record_fields[] = {
  {"variant", JF_STR, offsetof(Record, variant), RECORD_NAME_MAX, true},
  {"knobs", JF_STR, offsetof(Record, knobs), RECORD_KNOBS_MAX, true},
  JSON_FIELD(Record, reason, JF_STR),
  JSON_FIELD(Record, created, JF_STR),
  JSON_FIELD(Record, metric_passes, JF_INT),
  JSON_FIELD(Record, occupancy_theoretical, JF_DOUBLE),
  JSON_FIELD(Record, host, JF_STR),
  JSON_FIELD(Record, plan_index, JF_INT),
};

/* Optional, written only for records a tune ranked. */
static const JsonField Tune_fields[] = {
  JSON_FIELD(TuneMark, rank, JF_INT),
  JSON_FIELD(TuneMark, of, JF_INT),
  JSON_FIELD(TuneMark, winner, JF_BOOL),
  JSON_FIELD(TuneMark, tied, JF_BOOL),
};

/* Sub-objects of a record: key, field table, offset. */
typedef struct SubObject {
  const char *key;
  const JsonField *fields;
  int nfields;
  size_t offset;
} SubObject;

static const SubObject Record_subs[] = {
  {"options", Options_fields, JSON_COUNT(Options_fields), offsetof(Record, opts)},
  {"timing", Timing_fields, JSON_COUNT(Timing_fields), offsetof(Record, timing)},
  {"error", Error_fields, JSON_COUNT(Error_fields), offsetof(Record, error)},
  {"build", Build_fields, JSON_COUNT(Build_fields), offsetof(Record, build)},
  {"clocks", Clocks_fields, JSON_COUNT(Clocks_fields), offsetof(Record, clocks)},
};

static void Record_initMetric(void *m) {
  ((Metric *)m)->value = NAN;
}

static void Record_initKernel(void *p) {
  KernelSpan *k = p;
  k->p50_us = k->gap_before_us = k->share = NAN;
  k->launches = -1;
}

/* An array of objects of a record (its metrics or kernels): key, element size, the most it may
 * hold (< 0: no limit), the n/a values of a new element, and the element's fields. */
typedef struct ObjectArray {
  const char *key;
  size_t size;
  int max;
  void (*init)(void *);
  const JsonField *fields;
  int nfields;
} ObjectArray;

static const ObjectArray Metric_array = {"metrics", sizeof(Metric), -1, Record_initMetric,
                                         Metric_fields, JSON_COUNT(Metric_fields)};
static const ObjectArray Kernel_array = {"kernels", sizeof(KernelSpan), RECORD_KERNELS_MAX,
                                         Record_initKernel, Kernel_fields,
                                         JSON_COUNT(Kernel_fields)};

static void Record_writeObjects(cJSON *o, const void *items, int n, const ObjectArray *a) {
  cJSON *arr = cJSON_AddArrayToObject(o, a->key);
  for (int i = 0; i < n; i++) {
    cJSON_AddItemToArray(arr, JsonFields_object((const char *)items + (size_t)i * a->size,
                                                a->fields, a->nfields));
  }
}

/* The count first ("path.key" in where), then element by element ("path.key[i].field"). */
static bool Record_equalObjects(const void *a, int na, const void *b, int nb, const ObjectArray *arr,
                                const char *path, char *where, size_t wsize) {
  if (na != nb) {
    Json_join(where, wsize, path, arr->key);
    return false;
  }
  for (int i = 0; i < na; i++) {
    char p[320];
    snprintf(p, sizeof p, "%s.%s[%d]", path, arr->key, i);
    size_t at = (size_t)i * arr->size;
    if (!JsonFields_equal((const char *)a + at, (const char *)b + at, arr->fields, arr->nfields, p,
                          where, wsize))
      return false;
  }
  return true;
}

cJSON *Device_toJson(const DeviceInfo *d) {
  return JsonFields_object(d, Device_fields, JSON_COUNT(Device_fields));
}

bool Device_fromJson(const cJSON *j, DeviceInfo *out, const char *path, char *err,
                     size_t errsize) {
  Device_init(out);
  return Json_expectObject(j, path, err, errsize) &&
         JsonFields_read(j, out, Device_fields, JSON_COUNT(Device_fields), path, err, errsize);
}

bool Device_equal(const DeviceInfo *a, const DeviceInfo *b, const char *path, char *where,
                  size_t wsize) {
  return JsonFields_equal(a, b, Device_fields, JSON_COUNT(Device_fields), path, where, wsize);
}

cJSON *RunOptions_toJson(const RunOptions *o) {
  return JsonFields_object(o, Options_fields, JSON_COUNT(Options_fields));
}

bool RunOptions_fromJson(const cJSON *j, RunOptions *out, const char *path, char *err,
                         size_t errsize) {
  RunOptions_init(out);
  return JsonFields_read(j, out, Options_fields, JSON_COUNT(Options_fields), path, err, errsize);
}

bool RunOptions_equal(const RunOptions *a, const RunOptions *b, const char *path, char *where,
                      size_t wsize) {
  return JsonFields_equal(a, b, Options_fields, JSON_COUNT(Options_fields), path, where, wsize);
}

static bool Device_isUnset(const DeviceInfo *d) {
  DeviceInfo blank;
  Device_init(&blank);
  char where[8];
  return Device_equal(d, &blank, "", where, sizeof where);
}

cJSON *Record_toJson(const Record *r) {
  cJSON *o = cJSON_CreateObject();
  char shape[64];
  Shape_format(&r->shape, shape, sizeof shape);
  cJSON_AddStringToObject(o, "variant", r->variant);
  cJSON_AddStringToObject(o, "knobs", r->knobs);
  cJSON_AddStringToObject(o, "shape", shape);
  cJSON_AddStringToObject(o, "status", Record_statusName(r->status));
  JsonFields_write(o, r, Record_fields + 2, JSON_COUNT(Record_fields) - 2);
  for (int i = 0; i < JSON_COUNT(Record_subs); i++) {
    cJSON *sub = cJSON_AddObjectToObject(o, Record_subs[i].key);
    JsonFields_write(sub, (const char *)r + Record_subs[i].offset, Record_subs[i].fields,
                     Record_subs[i].nfields);
    if (i == 1) { /* timing: the samples themselves */
      if (r->timing.samples && r->timing.nsamples > 0) {
        cJSON *a = cJSON_AddArrayToObject(sub, "samples");
        for (int k = 0; k < r->timing.nsamples; k++)
          cJSON_AddItemToArray(a, Json_number(r->timing.samples[k]));
      } else
        cJSON_AddNullToObject(sub, "samples");
      Replicates_write(sub, &r->timing);
    }
  }
  if (!Device_isUnset(&r->device)) cJSON_AddItemToObject(o, "device", Device_toJson(&r->device));
  if (r->knobs_auto[0]) cJSON_AddStringToObject(o, "knobs_auto", r->knobs_auto);
  if (r->tune.rank > 0)
    JsonFields_write(cJSON_AddObjectToObject(o, "tune"), &r->tune, Tune_fields,
                     JSON_COUNT(Tune_fields));
  if (r->nkernels > 0) /* optional: absent when not measured */
    Record_writeObjects(o, r->kernels, r->nkernels, &Kernel_array);
  Floors f; /* derived from the shape, p50 and device ceilings: written for readers, not read */
  Floors_compute(r, &f);
  if (f.bound) {
    cJSON *fo = cJSON_AddObjectToObject(o, "floors");
    cJSON_AddItemToObject(fo, "flop_us", Json_number(f.flop_us));
    cJSON_AddItemToObject(fo, "rate_tflops", Json_number(f.rate_tflops));
    cJSON_AddItemToObject(fo, "fp8_flops", Json_number(f.fp8_flops));
    cJSON_AddItemToObject(fo, "byte_us", Json_number(f.byte_us));
    cJSON_AddItemToObject(fo, "launch_us", Json_number(f.launch_us));
    cJSON_AddStringToObject(fo, "bound", f.bound);
    cJSON_AddItemToObject(fo, "x_floor", Json_number(f.x_floor));
    cJSON_AddItemToObject(fo, "achieved_gbs", Json_number(f.achieved_gbs));
    cJSON_AddItemToObject(fo, "declared_tflops", Json_number(f.declared_tflops));
    cJSON_AddItemToObject(fo, "declared_gbs", Json_number(f.declared_gbs));
  }
  Record_writeObjects(o, r->metrics, r->nmetrics, &Metric_array);
  return o;
}

static bool Record_readSamples(const cJSON *arr, Record *out, const char *path, char *err,
                               size_t errsize) {
  int n = cJSON_GetArraySize(arr);
  if (out->timing.nsamples >= 0 && out->timing.nsamples != n) {
    snprintf(err, errsize, "%s.timing.samples: %d samples but nsamples is %d", path, n,
             out->timing.nsamples);
    return false;
  }
  out->timing.nsamples = n;
  if (n == 0) return true;
  out->timing.samples = Util_xmalloc(sizeof(double) * (size_t)n);
  int i = 0;
  for (const cJSON *v = arr->child; v; v = v->next, i++) {
    if (cJSON_IsNull(v)) { /* a NAN sample was written as null; keep it loadable */
      out->timing.samples[i] = NAN;
      continue;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
      snprintf(err, errsize, "%s.timing.samples[%d]: expected a number or null", path, i);
      return false;
    }
    out->timing.samples[i] = v->valuedouble;
  }
  return true;
}

/* The optional array member a->key of obj (a record's metrics or kernels) into *items, each
 * element zeroed, given its n/a values by init and read by fields; *count counts those begun,
 * so that the caller's free sees them whatever failed. */
static bool Record_readObjects(const cJSON *obj, const ObjectArray *a, void **items, int *count,
                               const char *path, char *err, size_t errsize) {
  bool ok = true;
  const cJSON *arr = Json_member(obj, a->key, cJSON_Array, false, path, &ok, err, errsize);
  if (!arr) return ok;
  int n = cJSON_GetArraySize(arr);
  if (a->max >= 0 && n > a->max) {
    snprintf(err, errsize, "%s.%s: %d %s, at most %d", path, a->key, n, a->key, a->max);
    return false;
  }
  if (n == 0) return true;
  *items = Util_xcalloc((size_t)n, a->size);
  int i = 0;
  for (const cJSON *v = arr->child; v; v = v->next, i++) {
    char ipath[320];
    snprintf(ipath, sizeof ipath, "%s.%s[%d]", path, a->key, i);
    if (!Json_expectObject(v, ipath, err, errsize)) return false;
    void *item = (char *)*items + (size_t)i * a->size;
    a->init(item);
    *count = i + 1;
    if (!JsonFields_read(v, item, a->fields, a->nfields, ipath, err, errsize)) return false;
  }
  return true;
}

/* A record's metrics, then its kernels (typed pointers set through void * temporaries). */
static bool Record_readArrays(const cJSON *j, Record *out, const char *path, char *err,
                              size_t errsize) {
  void *metrics = NULL, *kernels = NULL;
  bool ok = Record_readObjects(j, &Metric_array, &metrics, &out->nmetrics, path, err, errsize);
  out->metrics = metrics;
  if (!ok) return false;
  ok = Record_readObjects(j, &Kernel_array, &kernels, &out->nkernels, path, err, errsize);
  out->kernels = kernels;
  return ok;
}

bool Record_fromJson(const cJSON *j, Record *out, const char *path, char *err, size_t errsize) {
  Record_init(out);
  bool ok = true;
  if (!Json_expectObject(j, path, err, errsize) ||
      !JsonFields_read(j, out, Record_fields, JSON_COUNT(Record_fields), path, err, errsize) ||
      !Json_readShape(j, "shape", &out->shape, path, err, errsize))
    return false;
  char status[16];
  const cJSON *v = Json_member(j, "status", cJSON_String, true, path, &ok, err, errsize);
  if (!ok) return false;
  if (!Json_readStr(v, status, sizeof status, path, "status", err, errsize) ||
      !Record_statusParse(status, &out->status)) {
    snprintf(err, errsize, "%s.status: expected one of pass, fail, error, n/a, cancelled", path);
    return false;
  }
  for (int i = 0; i < JSON_COUNT(Record_subs); i++) {
    char sp[320];
    Json_join(sp, sizeof sp, path, Record_subs[i].key);
    const cJSON *sub = Json_member(j, Record_subs[i].key, cJSON_Object, false, path, &ok, err,
                                   errsize);
    if (!ok) goto fail;
    if (sub && !JsonFields_read(sub, (char *)out + Record_subs[i].offset, Record_subs[i].fields,
                                Record_subs[i].nfields, sp, err, errsize))
      goto fail;
    if (i == 1 && sub) {
      const cJSON *s = Json_member(sub, "samples", cJSON_Array, false, sp, &ok, err, errsize);
      if (!ok) goto fail;
      if (s && !Record_readSamples(s, out, path, err, errsize)) goto fail;
      if (!Replicates_read(sub, &out->timing, sp, err, errsize)) goto fail;
    }
  }
  char dp[320];
  v = Json_member(j, "device", cJSON_Object, false, path, &ok, err, errsize);
  if (!ok || (v && !Device_fromJson(v, &out->device, Json_join(dp, sizeof dp, path, "device"),
                                    err, errsize)))
    goto fail;
  if (!Record_readArrays(j, out, path, err, errsize)) goto fail;
  v = Json_member(j, "knobs_auto", cJSON_String, false, path, &ok, err, errsize);
  if (!ok || (v && !Json_readStr(v, out->knobs_auto, sizeof out->knobs_auto, path, "knobs_auto",
                                 err, errsize)))
    goto fail;
  v = Json_member(j, "tune", cJSON_Object, false, path, &ok, err, errsize);
  if (!ok || (v && !JsonFields_read(v, &out->tune, Tune_fields, JSON_COUNT(Tune_fields),
                                    Json_join(dp, sizeof dp, path, "tune"), err, errsize)))
    goto fail;
  return true;
fail:
  Record_free(out);
  Json_oneLine(err);
  return false;
}

bool Record_validate(const cJSON *j, Record *out, const char *path, char *err, size_t errsize) {
  Record_init(out);
  if (!j) {
    snprintf(err, errsize, "%s: missing", path);
    return false;
  }
  char inner[RECORD_REASON_MAX];
  if (!Json_validateTree(j, inner, sizeof inner)) {
    snprintf(err, errsize, "%s: %s", path, inner);
    Json_oneLine(err);
    return false;
  }
  return Record_fromJson(j, out, path, err, errsize);
}

bool Record_equal(const Record *a, const Record *b, const char *path, char *where, size_t wsize) {
  char p[320];
  if (!JsonFields_equal(a, b, Record_fields, JSON_COUNT(Record_fields), path, where, wsize))
    return false;
  if (!Shape_equal(&a->shape, &b->shape)) {
    Json_join(where, wsize, path, "shape");
    return false;
  }
  if (a->status != b->status) {
    Json_join(where, wsize, path, "status");
    return false;
  }
  for (int i = 0; i < JSON_COUNT(Record_subs); i++) {
    if (!JsonFields_equal((const char *)a + Record_subs[i].offset,
                          (const char *)b + Record_subs[i].offset, Record_subs[i].fields,
                          Record_subs[i].nfields, Json_join(p, sizeof p, path, Record_subs[i].key),
                          where, wsize))
      return false;
  }
  bool sa = a->timing.samples != NULL && a->timing.nsamples > 0;
  bool sb = b->timing.samples != NULL && b->timing.nsamples > 0;
  if (sa != sb) {
    Json_join(where, wsize, path, "timing.samples");
    return false;
  }
  for (int i = 0; sa && i < a->timing.nsamples; i++) {
    if (!Json_doubleEqual(a->timing.samples[i], b->timing.samples[i])) {
      snprintf(where, wsize, "%s.timing.samples[%d]", path, i);
      return false;
    }
  }
  if (!Replicates_equal(&a->timing, &b->timing, path, where, wsize)) return false;
  if (!Device_equal(&a->device, &b->device, Json_join(p, sizeof p, path, "device"), where, wsize))
    return false;
  if (strcmp(a->knobs_auto, b->knobs_auto) != 0) {
    Json_join(where, wsize, path, "knobs_auto");
    return false;
  }
  if (!JsonFields_equal(&a->tune, &b->tune, Tune_fields, JSON_COUNT(Tune_fields),
                        Json_join(p, sizeof p, path, "tune"), where, wsize))
    return false;
  return Record_equalObjects(a->kernels, a->nkernels, b->kernels, b->nkernels, &Kernel_array, path,
                             where, wsize) &&
         Record_equalObjects(a->metrics, a->nmetrics, b->metrics, b->nmetrics, &Metric_array, path,
                             where, wsize);
}
