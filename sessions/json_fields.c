/* Table-driven JSON fields, tree validation and syntax-error positions (see json_fields.h). */
#include "sessions/json_fields.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/util.h"

const char *Json_join(char *buf, size_t size, const char *path, const char *key) {
  if (!path || !path[0]) snprintf(buf, size, "%s", key);
  else snprintf(buf, size, "%s.%s", path, key);
  return buf;
}

void Json_oneLine(char *msg) { Text_sanitize(msg, strlen(msg) + 1, msg); }

static void Json_fail(char *err, size_t errsize, const char *path, const char *key,
                      const char *what) {
  char p[512];
  snprintf(err, errsize, "%s: %s", Json_join(p, sizeof p, path, key), what);
}

void Json_formatDouble(char *buf, size_t size, double d) {
  if (!isfinite(d)) {
    snprintf(buf, size, "null");
    return;
  }
  /* cJSON 1.7.15 prints 15 digits whenever they come back within an epsilon, which loses the
   * last bits; the shortest of 15..17 digits that reads back exactly keeps every bit. */
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) break;
  }
  /* JSON wants '.', whatever LC_NUMERIC the TUI set. */
  const char *dp = localeconv()->decimal_point;
  size_t dl = dp ? strlen(dp) : 0;
  char *at = (dl && strcmp(dp, ".") != 0) ? strstr(buf, dp) : NULL;
  if (at) {
    *at = '.';
    memmove(at + 1, at + dl, strlen(at + dl) + 1);
  }
}

cJSON *Json_number(double d) {
  if (!isfinite(d)) return cJSON_CreateNull();
  char buf[40];
  Json_formatDouble(buf, sizeof buf, d);
  return cJSON_CreateRaw(buf);
}

bool Json_doubleEqual(double a, double b) {
  return a == b || (isnan(a) && isnan(b));
}

bool Json_readDouble(const cJSON *v, double *out, const char *path, const char *key, char *err,
                     size_t errsize) {
  if (cJSON_IsNull(v)) {
    *out = NAN;
    return true;
  }
  if (!cJSON_IsNumber(v)) {
    Json_fail(err, errsize, path, key, "expected a number or null");
    return false;
  }
  if (!isfinite(v->valuedouble)) {
    Json_fail(err, errsize, path, key, "number out of range (write null for n/a)");
    return false;
  }
  *out = v->valuedouble;
  return true;
}

bool Json_readInt(const cJSON *v, int64_t lo, int64_t hi, int64_t *out, const char *path,
                  const char *key, char *err, size_t errsize) {
  if (cJSON_IsNull(v)) {
    *out = -1;
    return true;
  }
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  /* The range test comes first so the cast below is always defined. */
  if (!cJSON_IsNumber(v) || !(d >= (double)lo && d <= (double)hi) || d != floor(d)) {
    char what[128];
    snprintf(what, sizeof what, "expected an integer in [%" PRId64 ", %" PRId64 "] or null", lo,
             hi);
    Json_fail(err, errsize, path, key, what);
    return false;
  }
  *out = (int64_t)d;
  return true;
}

bool Json_readStr(const cJSON *v, char *buf, size_t size, const char *path, const char *key,
                  char *err, size_t errsize) {
  if (cJSON_IsNull(v)) {
    buf[0] = '\0';
    return true;
  }
  if (!cJSON_IsString(v) || !v->valuestring) {
    Json_fail(err, errsize, path, key, "expected a string");
    return false;
  }
  size_t n = strlen(v->valuestring);
  if (n >= size) {
    char what[128];
    snprintf(what, sizeof what, "string too long (%zu bytes, at most %zu)", n, size - 1);
    Json_fail(err, errsize, path, key, what);
    return false;
  }
  memcpy(buf, v->valuestring, n + 1);
  return true;
}

static const char *Json_typeName(int type) {
  switch (type) {
  case cJSON_Object: return "an object";
  case cJSON_Array: return "an array";
  case cJSON_String: return "a string";
  case cJSON_Number: return "a number";
  default: return "a value";
  }
}

const cJSON *Json_member(const cJSON *obj, const char *key, int cjson_type, bool required,
                         const char *path, bool *ok, char *err, size_t errsize) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v || (cJSON_IsNull(v) && !required)) {
    if (required) {
      Json_fail(err, errsize, path, key, "missing (required)");
      *ok = false;
    }
    return NULL;
  }
  if ((v->type & 0xFF) != cjson_type) {
    char what[64];
    snprintf(what, sizeof what, "expected %s", Json_typeName(cjson_type));
    Json_fail(err, errsize, path, key, what);
    *ok = false;
    return NULL;
  }
  return v;
}

bool Json_expectObject(const cJSON *j, const char *path, char *err, size_t errsize) {
  if (cJSON_IsObject(j)) return true;
  snprintf(err, errsize, "%s: expected an object", path);
  return false;
}

bool Json_readShape(const cJSON *obj, const char *key, Shape *out, const char *path, char *err,
                    size_t errsize) {
  bool ok = true;
  char text[64], why[200];
  const cJSON *v = Json_member(obj, key, cJSON_String, true, path, &ok, err, errsize);
  if (!ok || !Json_readStr(v, text, sizeof text, path, key, err, errsize)) return false;
  if (!Shape_parse(text, out, why, sizeof why)) {
    snprintf(err, errsize, "%s.%s: %s", path, key, why);
    Json_oneLine(err);
    return false;
  }
  return true;
}

void JsonFields_write(cJSON *obj, const void *base, const JsonField *f, int n) {
  const char *b = base;
  for (int i = 0; i < n; i++) {
    const void *p = b + f[i].offset;
    double d;
    int64_t v;
    char num[32];
    switch (f[i].kind) {
    case JF_DOUBLE:
    case JF_DOUBLE0:
      memcpy(&d, p, sizeof d);
      if (f[i].kind == JF_DOUBLE0 && d == 0) break;
      cJSON_AddItemToObject(obj, f[i].key, Json_number(d));
      break;
    case JF_INT:
    case JF_INT64:
      if (f[i].kind == JF_INT) {
        int x;
        memcpy(&x, p, sizeof x);
        v = x;
      } else {
        memcpy(&v, p, sizeof v);
      }
      if (v < 0) cJSON_AddNullToObject(obj, f[i].key);
      else cJSON_AddItemToObject(obj, f[i].key, Json_number((double)v));
      break;
    case JF_BOOL:
      cJSON_AddBoolToObject(obj, f[i].key, *(const bool *)p);
      break;
    case JF_STR:
      cJSON_AddStringToObject(obj, f[i].key, (const char *)p);
      break;
    case JF_U64STR: {
      uint64_t u;
      memcpy(&u, p, sizeof u);
      snprintf(num, sizeof num, "%" PRIu64, u);
      cJSON_AddStringToObject(obj, f[i].key, num);
      break;
    }
    }
  }
}

cJSON *JsonFields_object(const void *base, const JsonField *f, int n) {
  cJSON *o = cJSON_CreateObject();
  JsonFields_write(o, base, f, n);
  return o;
}

static bool Json_readU64(const cJSON *v, uint64_t *out, const char *path, const char *key,
                         char *err, size_t errsize) {
  if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= JSON_MAX_EXACT_INT &&
      v->valuedouble == floor(v->valuedouble)) {
    *out = (uint64_t)v->valuedouble;
    return true;
  }
  const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
  bool digits = s && s[0] && strlen(s) <= 20;
  for (const char *c = s; digits && *c; c++) digits = isdigit((unsigned char)*c);
  if (digits) {
    errno = 0;
    unsigned long long u = strtoull(s, NULL, 10);
    if (errno == 0) {
      *out = (uint64_t)u;
      return true;
    }
  }
  Json_fail(err, errsize, path, key, "expected an unsigned 64-bit integer as a decimal string");
  return false;
}

bool JsonFields_read(const cJSON *obj, void *base, const JsonField *f, int n, const char *path,
                     char *err, size_t errsize) {
  char *b = base;
  for (int i = 0; i < n; i++) {
    void *p = b + f[i].offset;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, f[i].key);
    if (!v) {
      if (f[i].required) {
        Json_fail(err, errsize, path, f[i].key, "missing (required)");
        return false;
      }
      continue;
    }
    int64_t x;
    double d;
    switch (f[i].kind) {
    case JF_DOUBLE:
    case JF_DOUBLE0:
      if (!Json_readDouble(v, &d, path, f[i].key, err, errsize)) return false;
      memcpy(p, &d, sizeof d);
      break;
    case JF_INT:
      if (!Json_readInt(v, -1, INT_MAX, &x, path, f[i].key, err, errsize)) return false;
      *(int *)p = (int)x;
      break;
    case JF_INT64:
      if (!Json_readInt(v, -1, (int64_t)JSON_MAX_EXACT_INT, &x, path, f[i].key, err, errsize))
        return false;
      memcpy(p, &x, sizeof x);
      break;
    case JF_BOOL:
      if (!cJSON_IsBool(v)) {
        Json_fail(err, errsize, path, f[i].key, "expected true or false");
        return false;
      }
      *(bool *)p = cJSON_IsTrue(v);
      break;
    case JF_STR:
      if (!Json_readStr(v, p, f[i].size, path, f[i].key, err, errsize)) return false;
      break;
    case JF_U64STR: {
      uint64_t u;
      if (!Json_readU64(v, &u, path, f[i].key, err, errsize)) return false;
      memcpy(p, &u, sizeof u);
      break;
    }
    }
  }
  return true;
}

bool JsonFields_equal(const void *a, const void *b, const JsonField *f, int n, const char *path,
                      char *where, size_t wsize) {
  const char *pa = a, *pb = b;
  for (int i = 0; i < n; i++) {
    const char *x = pa + f[i].offset, *y = pb + f[i].offset;
    bool same;
    if (f[i].kind == JF_DOUBLE || f[i].kind == JF_DOUBLE0) {
      double da, db;
      memcpy(&da, x, sizeof da);
      memcpy(&db, y, sizeof db);
      same = Json_doubleEqual(da, db);
    } else if (f[i].kind == JF_STR) {
      same = strcmp(x, y) == 0;
    } else if (f[i].kind == JF_BOOL) {
      same = *(const bool *)x == *(const bool *)y;
    } else {
      same = memcmp(x, y, f[i].size) == 0;
    }
    if (!same) {
      Json_join(where, wsize, path, f[i].key);
      return false;
    }
  }
  return true;
}
