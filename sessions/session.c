/* Sessions in memory and on disk: lifecycle, the top-level JSON, load/validate/save, equality,
 * where sessions live. Records and plans have their JSON in record_json.c / plan_json.c. */
#include "sessions/session.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/revision.h"
#include "common/util.h"
#include "sessions/json_fields.h"

static const JsonField Session_fields[] = {
  JSON_FIELD(Session, created, JF_STR),
  JSON_FIELD(Session, host, JF_STR),
  JSON_FIELD(Session, version, JF_STR),
  JSON_FIELD(Session, revision, JF_STR),
};

static const JsonField Shard_fields[] = {
  {"index", JF_INT, offsetof(ShardInfo, spec.index), sizeof(int), true},
  {"count", JF_INT, offsetof(ShardInfo, spec.count), sizeof(int), true},
  {"plan_size", JF_INT, offsetof(ShardInfo, plan_size), sizeof(int), true},
  {"plan_hash", JF_STR, offsetof(ShardInfo, plan_hash), SHARD_HASH_LEN + 1, true},
};

static cJSON *Shard_toJson(const ShardInfo *sh) {
  return JsonFields_object(sh, Shard_fields, JSON_COUNT(Shard_fields));
}

/* A shard's numbers must describe a slice that exists: merge relies on them. */
static bool Shard_fromJson(const cJSON *j, ShardInfo *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  if (!JsonFields_read(j, out, Shard_fields, JSON_COUNT(Shard_fields), "shard", err, errsize))
    return false;
  if (out->spec.count < 1 || out->spec.count > SHARD_MAX || out->spec.index < 1 ||
      out->spec.index > out->spec.count) {
    snprintf(err, errsize, "shard: index %d of count %d is no shard (1 <= index <= count <= %d)",
             out->spec.index, out->spec.count, SHARD_MAX);
    return false;
  }
  if (out->plan_size < 0) {
    snprintf(err, errsize, "shard.plan_size: expected a count");
    return false;
  }
  bool hex = strlen(out->plan_hash) == SHARD_HASH_LEN;
  for (const char *c = out->plan_hash; hex && *c; c++) hex = strchr("0123456789abcdef", *c) != NULL;
  if (!hex) {
    snprintf(err, errsize, "shard.plan_hash: expected %d lower-case hex digits", SHARD_HASH_LEN);
    return false;
  }
  return true;
}

/* Empty and n/a everywhere, nothing filled in (what a file is parsed into). */
void Session_clear(Session *s) {
  memset(s, 0, sizeof *s);
  Device_init(&s->device);
  Plan_init(&s->plan);
}

void Session_init(Session *s) {
  Session_clear(s);
  Util_isoTime(s->created, sizeof s->created);
  if (gethostname(s->host, sizeof s->host) != 0) Util_strlcpy(s->host, "unknown", sizeof s->host);
  s->host[sizeof s->host - 1] = '\0';
  Util_strlcpy(s->version, BENCHTOP_VERSION, sizeof s->version);
  Util_strlcpy(s->revision, BENCHTOP_REVISION, sizeof s->revision);
}

void Session_free(Session *s) {
  Session_releaseFile(s);
  for (int i = 0; i < s->nrecords; i++) Record_free(&s->records[i]);
  free(s->records);
  s->records = NULL;
  s->nrecords = s->cap = 0;
  free(s->tune);
  free(s->overall);
  s->tune = NULL;
  s->overall = NULL;
  s->ntune = s->noverall = 0;
  Plan_free(&s->plan);
}

void Session_add(Session *s, const Record *r) {
  if (s->nrecords == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->records = Util_xrealloc(s->records, sizeof(Record) * (size_t)s->cap);
  }
  Record_copy(&s->records[s->nrecords++], r);
  s->dirty = true;
}

cJSON *Session_toJson(const Session *s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "schema", SESSION_SCHEMA);
  JsonFields_write(o, s, Session_fields, JSON_COUNT(Session_fields));
  if (s->has_device) cJSON_AddItemToObject(o, "device", Device_toJson(&s->device));
  cJSON_AddItemToObject(o, "plan", Plan_toJson(&s->plan));
  if (s->shard.spec.count > 0) cJSON_AddItemToObject(o, "shard", Shard_toJson(&s->shard));
  cJSON *recs = cJSON_AddArrayToObject(o, "records");
  for (int i = 0; i < s->nrecords; i++) cJSON_AddItemToArray(recs, Record_toJson(&s->records[i]));
  if (s->ntune > 0) {
    cJSON *t = cJSON_AddArrayToObject(o, "tune");
    for (int i = 0; i < s->ntune; i++) cJSON_AddItemToArray(t, TuneSummary_toJson(&s->tune[i]));
  }
  if (s->noverall > 0) {
    cJSON *t = cJSON_AddArrayToObject(o, "tune_overall");
    for (int i = 0; i < s->noverall; i++) cJSON_AddItemToArray(t, TuneOverall_toJson(&s->overall[i]));
  }
  return o;
}

/* The optional tune summaries (after the records: a summary names its winner by index). */
static bool Session_tuneFromJson(const cJSON *root, Session *out, char *err, size_t errsize) {
  bool ok = true;
  const cJSON *t = Json_member(root, "tune", cJSON_Array, false, "", &ok, err, errsize);
  if (!ok) return false;
  int n = t ? cJSON_GetArraySize(t) : 0;
  if (n > 0) out->tune = Util_xcalloc((size_t)n, sizeof(TuneSummary));
  for (const cJSON *e = t ? t->child : NULL; e; e = e->next) {
    char path[32];
    snprintf(path, sizeof path, "tune[%d]", out->ntune);
    if (!TuneSummary_fromJson(e, &out->tune[out->ntune], out->records, out->nrecords, path, err,
                              errsize))
      return false;
    out->ntune++;
  }
  t = Json_member(root, "tune_overall", cJSON_Array, false, "", &ok, err, errsize);
  if (!ok) return false;
  n = t ? cJSON_GetArraySize(t) : 0;
  if (n > 0) out->overall = Util_xcalloc((size_t)n, sizeof(TuneOverall));
  for (const cJSON *e = t ? t->child : NULL; e; e = e->next) {
    char path[40];
    snprintf(path, sizeof path, "tune_overall[%d]", out->noverall);
    if (!TuneOverall_fromJson(e, &out->overall[out->noverall], path, err, errsize)) return false;
    out->noverall++;
  }
  return true;
}

char *Record_toJsonLine(const Record *r) {
  cJSON *j = Record_toJson(r);
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  if (!text) return NULL;
  char *copy = Util_xstrdup(text); /* callers free() it; cJSON may use another allocator */
  cJSON_free(text);
  return copy;
}

/* "benchtop.session/N": 1 and 2 are read, a larger N is newer than we read; anything else is
 * not ours. The version read goes to *version. */
static bool Session_checkSchema(const cJSON *root, int *version, char *err, size_t errsize) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema");
  if (!v) {
    snprintf(err, errsize, "schema: missing (required; expected \"%s\")", SESSION_SCHEMA);
    return false;
  }
  if (!cJSON_IsString(v)) {
    snprintf(err, errsize, "schema: expected a string (\"%s\")", SESSION_SCHEMA);
    return false;
  }
  const char *prefix = "benchtop.session/";
  char shown[64];
  snprintf(shown, sizeof shown, "%.40s%s", v->valuestring, strlen(v->valuestring) > 40 ? "..." : "");
  Json_oneLine(shown);
  if (Util_startsWith(v->valuestring, prefix)) {
    const char *num = v->valuestring + strlen(prefix);
    char *end;
    errno = 0;
    long ver = strtol(num, &end, 10);
    if (errno == 0 && *end == '\0' && end != num && num[0] >= '1' && num[0] <= '9') {
      if (ver >= 1 && ver <= SESSION_SCHEMA_VERSION) {
        *version = (int)ver;
        return true;
      }
      snprintf(err, errsize,
               "schema: \"%s\" is newer than this benchtop reads (%s); upgrade benchtop", shown,
               SESSION_SCHEMA);
      return false;
    }
  }
  snprintf(err, errsize, "schema: unknown schema \"%s\" (expected \"%s\")", shown, SESSION_SCHEMA);
  return false;
}

static bool Session_fromJson(const cJSON *root, Session *out, char *err, size_t errsize) {
  if (!cJSON_IsObject(root)) {
    snprintf(err, errsize, "(top level): expected a JSON object (a benchtop session)");
    return false;
  }
  if (!Json_validateTree(root, err, errsize) ||
      !Session_checkSchema(root, &out->schema_version, err, errsize))
    return false;
  if (!JsonFields_read(root, out, Session_fields, JSON_COUNT(Session_fields), "", err, errsize))
    return false;
  bool ok = true;
  const cJSON *v = Json_member(root, "device", cJSON_Object, false, "", &ok, err, errsize);
  if (!ok) return false;
  if (v) {
    if (!Device_fromJson(v, &out->device, "device", err, errsize)) return false;
    out->has_device = true;
  }
  v = Json_member(root, "shard", cJSON_Object, false, "", &ok, err, errsize);
  if (!ok || (v && !Shard_fromJson(v, &out->shard, err, errsize))) return false;
  char **flat = NULL;
  int nflat = 0;
  v = Json_member(root, "plan", cJSON_Object, false, "", &ok, err, errsize);
  if (!ok || (v && !Plan_fromJson(v, out->schema_version, &out->plan, &flat, &nflat, "plan", err,
                                  errsize)))
    return false;
  const cJSON *recs = Json_member(root, "records", cJSON_Array, true, "", &ok, err, errsize);
  int n = ok ? cJSON_GetArraySize(recs) : 0;
  out->records = Util_xcalloc(n > 0 ? (size_t)n : 1, sizeof(Record));
  out->cap = n > 0 ? n : 1;
  for (const cJSON *r = ok ? recs->child : NULL; r && ok; r = r->next) {
    char path[32];
    snprintf(path, sizeof path, "records[%d]", out->nrecords);
    ok = Record_fromJson(r, &out->records[out->nrecords], path, err, errsize);
    if (ok) out->nrecords++;
  }
  if (ok) Plan_upgradeV1(&out->plan, flat, nflat, out->records, out->nrecords, out->note, sizeof out->note);
  for (int i = 0; i < nflat; i++) free(flat[i]);
  free(flat);
  return ok && Session_tuneFromJson(root, out, err, errsize);
}

static bool Session_parseText(const char *data, size_t len, const char *name, Session *out,
                              char *err, size_t errsize) {
  Session_clear(out);
  if (len > SESSION_MAX_BYTES) {
    snprintf(err, errsize, "%s: %zu bytes, larger than the %u MiB a session may have", name, len,
             SESSION_MAX_BYTES >> 20);
    return false;
  }
  char inner[1024];
  cJSON *root = Json_parseText(data, len, name, err, errsize);
  if (!root) return false;
  bool ok = Session_fromJson(root, out, inner, sizeof inner);
  cJSON_Delete(root);
  if (!ok) {
    snprintf(err, errsize, "%s: %s", name, inner);
    Json_oneLine(err);
    Session_free(out);
    Session_clear(out);
    return false;
  }
  out->dirty = false;
  return true;
}

/* Messages quote input (and the file name): keep them one line whatever they hold. */
bool Session_parse(const char *data, size_t len, const char *name, Session *out, char *err,
                   size_t errsize) {
  bool ok = Session_parseText(data, len, name, out, err, errsize);
  if (!ok) Json_oneLine(err);
  return ok;
}

bool Session_equal(const Session *a, const Session *b, char *where, size_t wsize) {
  if (!JsonFields_equal(a, b, Session_fields, JSON_COUNT(Session_fields), "", where, wsize))
    return false;
  if (a->has_device != b->has_device) {
    snprintf(where, wsize, "device");
    return false;
  }
  if (a->has_device && !Device_equal(&a->device, &b->device, "device", where, wsize))
    return false;
  if (!Plan_equal(&a->plan, &b->plan, "plan", where, wsize)) return false;
  if (a->shard.spec.count != b->shard.spec.count ||
      (a->shard.spec.count > 0 &&
       !JsonFields_equal(&a->shard, &b->shard, Shard_fields, JSON_COUNT(Shard_fields), "shard",
                         where, wsize))) {
    if (a->shard.spec.count != b->shard.spec.count) snprintf(where, wsize, "shard");
    return false;
  }
  if (a->nrecords != b->nrecords) {
    snprintf(where, wsize, "records (%d vs %d)", a->nrecords, b->nrecords);
    return false;
  }
  for (int i = 0; i < a->nrecords; i++) {
    char path[32];
    snprintf(path, sizeof path, "records[%d]", i);
    if (!Record_equal(&a->records[i], &b->records[i], path, where, wsize)) return false;
  }
  if (a->ntune != b->ntune || a->noverall != b->noverall) {
    snprintf(where, wsize, "tune (%d/%d vs %d/%d)", a->ntune, a->noverall, b->ntune, b->noverall);
    return false;
  }
  for (int i = 0; i < a->ntune; i++) {
    char path[32];
    snprintf(path, sizeof path, "tune[%d]", i);
    if (!TuneSummary_equal(&a->tune[i], &b->tune[i], path, where, wsize)) return false;
  }
  for (int i = 0; i < a->noverall; i++) {
    char path[40];
    snprintf(path, sizeof path, "tune_overall[%d]", i);
    if (!TuneOverall_equal(&a->overall[i], &b->overall[i], path, where, wsize)) return false;
  }
  return true;
}
