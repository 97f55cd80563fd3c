#include "cmd/bundle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/revision.h"
#include "common/safe_file.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "kernels/registry.h"

#define BUNDLE_SOURCE_MAX (16u << 20) /* as the JIT's own bound on a kernel source */

static void Bundle_hashText(const BundleContents *c, const char *text, char *buf, size_t size) {
  snprintf(buf, size, "%016llx",
           (unsigned long long)Jit_hashSources(text, (const char *const *)c->headers));
}

/* A candidate source for record r: kept when its hash is the recorded one. */
static bool Bundle_try(BundleContents *c, const Record *r, char *text, bool builtin,
                       const char *from, char *seen, size_t seensize) {
  if (!text) return false;
  char h[20];
  Bundle_hashText(c, text, h, sizeof h);
  if (strcmp(h, r->build.source_hash) != 0) {
    if (!seen[0]) snprintf(seen, seensize, "%s has changed since it ran (source hash now %s, recorded %s)", from, h, r->build.source_hash);
    free(text);
    return false;
  }
  c->kernels = Util_xrealloc(c->kernels, sizeof *c->kernels * (size_t)(c->nkernels + 1));
  BundleKernel *k = &c->kernels[c->nkernels++];
  memset(k, 0, sizeof *k);
  Util_strlcpy(k->variant, r->variant, sizeof k->variant);
  k->builtin = builtin;
  const char *base = strrchr(from, '/');
  base = base ? base + 1 : from;
  if (builtin) snprintf(k->member, sizeof k->member, "kernels/builtin/%s", base);
  else snprintf(k->member, sizeof k->member, "kernels/user/%s/%s", r->variant, base);
  Util_strlcpy(k->source_path, r->build.source_path[0] ? r->build.source_path : from, sizeof k->source_path);
  Util_strlcpy(k->hash, h, sizeof k->hash);
  k->text = text;
  k->nrecords = 1;
  return true;
}

static void Bundle_leaveOut(BundleContents *c, const Session *s, int i, const char *why) {
  const Record *r = &s->records[i];
  char shape[96];
  Shape_format(&r->shape, shape, sizeof shape);
  c->left = Util_xrealloc(c->left, sizeof *c->left * (size_t)(c->nleft + 1));
  BundleLeftOut *l = &c->left[c->nleft++];
  l->record = i;
  snprintf(l->why, sizeof l->why, "records[%d] %s %s %s: %s", i, r->variant, r->knobs, shape, why);
}

/* Record i's source, by the file it names, then by its variant on today's kernel path. */
static void Bundle_find(BundleContents *c, const Session *s, int i) {
  const Record *r = &s->records[i];
  char seen[600] = "", err[512];
  const char *sp = r->build.source_path;
  if (strchr(sp, '/')) { /* a user kernel's file */
    char *text = SafeFile_read(sp, BUNDLE_SOURCE_MAX, NULL, err, sizeof err);
    if (!text) snprintf(seen, sizeof seen, "its source cannot be read: %.500s", err);
    if (Bundle_try(c, r, text, false, sp, seen, sizeof seen)) return;
  } else if (sp[0]) { /* a built-in: the embedded copy or BENCHTOP_KERNEL_DIR's */
    if (Bundle_try(c, r, Jit_loadSource(sp, err, sizeof err), true, sp, seen, sizeof seen)) return;
  }
  const Variant *v = Registry_find(r->variant);
  if (v && v->text) {
    bool builtin = v->origin == 0;
    const char *from = builtin ? v->source : v->path ? v->path : v->source;
    if (Bundle_try(c, r, Util_xstrdup(v->text), builtin, from, seen, sizeof seen)) return;
  }
  Bundle_leaveOut(c, s, i, seen[0] ? seen : "no kernel of that name on the kernel path");
}

bool Bundle_collect(const Session *s, BundleContents *c, char *err, size_t errsize) {
  memset(c, 0, sizeof *c);
  for (int h = 0; h < JIT_HEADERS; h++) {
    c->headers[h] = Jit_loadSource(Jit_headerNames[h], err, errsize);
    if (!c->headers[h]) return false;
  }
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    if (!r->build.source_hash[0]) {
      /* n/a, cancelled and errored records may have run nothing; one that was verified did */
      if (r->status == REC_PASS || r->status == REC_FAIL)
        Bundle_leaveOut(c, s, i, "the record has no source hash (made before records kept one)");
      continue;
    }
    int k = 0;
    while (k < c->nkernels && strcmp(c->kernels[k].variant, r->variant) != 0) k++;
    if (k < c->nkernels) {
      if (strcmp(c->kernels[k].hash, r->build.source_hash) == 0) c->kernels[k].nrecords++;
      else {
        char why[300];
        snprintf(why, sizeof why, "it ran source hash %s, another version than the other records of "
                 "%s (%s): a bundle holds one source per variant", r->build.source_hash, r->variant,
                 c->kernels[k].hash);
        Bundle_leaveOut(c, s, i, why);
      }
      continue;
    }
    Bundle_find(c, s, i);
  }
  return true;
}

void Bundle_free(BundleContents *c) {
  for (int k = 0; k < c->nkernels; k++) free(c->kernels[k].text);
  for (int h = 0; h < JIT_HEADERS; h++) free(c->headers[h]);
  free(c->kernels);
  free(c->left);
  memset(c, 0, sizeof *c);
}

/* The clocks the records saw, min and max over before/after (NAN where none). */
static void Bundle_clockRange(const Session *s, bool mem, double *lo, double *hi) {
  *lo = NAN;
  *hi = NAN;
  for (int i = 0; i < s->nrecords; i++) {
    const Clocks *k = &s->records[i].clocks;
    double v[2] = {mem ? k->mem_mhz_before : k->sm_mhz_before, mem ? k->mem_mhz_after : k->sm_mhz_after};
    for (int j = 0; j < 2; j++) {
      if (isnan(v[j])) continue;
      if (isnan(*lo) || v[j] < *lo) *lo = v[j];
      if (isnan(*hi) || v[j] > *hi) *hi = v[j];
    }
  }
}

static void Bundle_addNumber(cJSON *o, const char *name, double v) {
  if (isnan(v)) cJSON_AddNullToObject(o, name);
  else cJSON_AddNumberToObject(o, name, v);
}

static cJSON *Bundle_deviceJson(const Session *s) {
  const DeviceInfo *d = s->has_device ? &s->device : s->nrecords ? &s->records[0].device : NULL;
  cJSON *o = cJSON_CreateObject();
  if (!d || !d->name[0]) {
    cJSON_AddStringToObject(o, "note", "the session recorded no device");
    return o;
  }
  char cc[16], v[32];
  cJSON_AddStringToObject(o, "gpu", d->name);
  cJSON_AddStringToObject(o, "uuid", d->uuid[0] ? d->uuid : "not recorded");
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  cJSON_AddStringToObject(o, "compute_capability", cc);
  snprintf(v, sizeof v, "%d.%d", d->driver_version / 1000, d->driver_version % 1000 / 10);
  cJSON_AddStringToObject(o, "driver_cuda_version", d->driver_version > 0 ? v : "not recorded");
  snprintf(v, sizeof v, "%d.%d", d->runtime_version / 1000, d->runtime_version % 1000 / 10);
  cJSON_AddStringToObject(o, "toolkit", d->runtime_version > 0 ? v : "not recorded");
  snprintf(v, sizeof v, "%d.%d", d->nvrtc_major, d->nvrtc_minor);
  cJSON_AddStringToObject(o, "nvrtc", d->nvrtc_major > 0 ? v : "not recorded");
  Bundle_addNumber(o, "cupti_api_version", d->cupti_version >= 0 ? d->cupti_version : NAN);
  Bundle_addNumber(o, "sm_count", d->sm_count >= 0 ? d->sm_count : NAN);
  Bundle_addNumber(o, "l2_bytes", d->l2_bytes >= 0 ? (double)d->l2_bytes : NAN);
  double lo, hi;
  Bundle_clockRange(s, false, &lo, &hi);
  Bundle_addNumber(o, "sm_mhz_min", lo);
  Bundle_addNumber(o, "sm_mhz_max", hi);
  Bundle_clockRange(s, true, &lo, &hi);
  Bundle_addNumber(o, "mem_mhz_min", lo);
  Bundle_addNumber(o, "mem_mhz_max", hi);
  bool cudnn = false;
  for (int i = 0; i < s->nrecords; i++) cudnn = cudnn || strstr(s->records[i].variant, "cudnn");
  if (cudnn) cJSON_AddStringToObject(o, "cudnn", "used; its version is not in the session's records");
  return o;
}

char *Bundle_manifest(const Session *s, const char *session_file, const char *archive,
                      const BundleContents *c, bool partial) {
  cJSON *m = cJSON_CreateObject();
  char now[32], host[128];
  Util_isoTime(now, sizeof now);
  if (gethostname(host, sizeof host) != 0) Util_strlcpy(host, "unknown", sizeof host);
  host[sizeof host - 1] = '\0';
  cJSON_AddStringToObject(m, "schema", "benchtop.bundle/1");
  cJSON_AddStringToObject(m, "bundled", now);
  cJSON_AddStringToObject(m, "bundled_on", host);
  cJSON_AddStringToObject(m, "bundled_by", BENCHTOP_VERSION);
  cJSON_AddStringToObject(m, "bundled_by_revision", BENCHTOP_REVISION);
  cJSON *se = cJSON_AddObjectToObject(m, "session");
  cJSON_AddStringToObject(se, "file", session_file);
  cJSON_AddStringToObject(se, "created", s->created);
  cJSON_AddStringToObject(se, "host", s->host);
  cJSON_AddStringToObject(se, "benchtop_version", s->version);
  cJSON_AddStringToObject(se, "benchtop_revision", s->revision);
  cJSON_AddNumberToObject(se, "records", s->nrecords);
  cJSON_AddItemToObject(m, "device", Bundle_deviceJson(s));
  cJSON *ks = cJSON_AddArrayToObject(m, "kernels");
  for (int k = 0; k < c->nkernels; k++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "variant", c->kernels[k].variant);
    cJSON_AddStringToObject(o, "kind", c->kernels[k].builtin ? "built-in" : "user");
    cJSON_AddStringToObject(o, "member", c->kernels[k].member);
    cJSON_AddStringToObject(o, "source_path", c->kernels[k].source_path);
    cJSON_AddStringToObject(o, "source_hash", c->kernels[k].hash);
    cJSON_AddNumberToObject(o, "records", c->kernels[k].nrecords);
    cJSON_AddItemToArray(ks, o);
  }
  cJSON *hs = cJSON_AddArrayToObject(m, "headers");
  for (int h = 0; h < JIT_HEADERS; h++) cJSON_AddItemToArray(hs, cJSON_CreateString(Jit_headerNames[h]));
  cJSON_AddBoolToObject(m, "partial", partial && c->nleft > 0);
  cJSON *lo = cJSON_AddArrayToObject(m, "left_out");
  for (int i = 0; i < c->nleft; i++) cJSON_AddItemToArray(lo, cJSON_CreateString(c->left[i].why));
  char *replay = Util_asprintf("benchtop replay %s", archive);
  cJSON_AddStringToObject(m, "replay", replay);
  free(replay);
  char *text = cJSON_Print(m);
  cJSON_Delete(m);
  return text;
}

char *Bundle_readme(const Session *s, const char *archive, const BundleContents *c, bool partial) {
  const char *gpu = s->has_device ? s->device.name : s->nrecords ? s->records[0].device.name : "";
  char *left = Util_xstrdup("");
  if (partial && c->nleft > 0) {
    free(left);
    left = Util_asprintf("\nPartial: %d record(s) whose kernel source could not be found as it ran are "
                         "not replayed (manifest.json, \"left_out\", says which and why).\n", c->nleft);
  }
  char *text = Util_asprintf(
      "# benchtop bundle\n\n"
      "A session recorded on %s (%s, %s; benchtop %s) with the exact source of every kernel its\n"
      "records ran (%d kernel(s), and the shared headers their source hashes cover).\n\n"
      "Replay it, on any GPU machine with benchtop:\n\n"
      "    benchtop replay %s\n\n"
      "The replay unpacks this archive into a private folder, compiles the bundle's own sources\n"
      "(never files of the same names on the machine), writes a new session and prints each\n"
      "record's verdict against the recorded one (tied, faster or slower, with its interval).\n"
      "The fp32 reference the records are verified against is the replaying benchtop's own.\n\n"
      "Layout: session.json (the session as it was), manifest.json (versions, device, clocks,\n"
      "each kernel's source hash), kernels/builtin/ (built-in kernels and the shared headers),\n"
      "kernels/user/VARIANT/ (the user's kernels).\n%s",
      gpu[0] ? gpu : "an unrecorded device", s->host[0] ? s->host : "unknown host", s->created,
      s->revision[0] ? s->revision : "unknown revision", c->nkernels, archive, left);
  free(left);
  return text;
}
