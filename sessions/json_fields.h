/* Table-driven JSON fields: one description of a struct's scalar fields drives writing,
 * reading (with validation and field-path errors) and field-by-field comparison, so the
 * three can never disagree. Internal to sessions/. */
#ifndef BENCHTOP_JSON_FIELDS_H
#define BENCHTOP_JSON_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "kernels/shape.h"

typedef enum {
  JF_DOUBLE, /* finite number; NAN <-> null */
  JF_DOUBLE0, /* as JF_DOUBLE, left out when 0 (absent reads 0): an option added later */
  JF_INT,    /* integer in [-1, INT_MAX]; -1 <-> null */
  JF_INT64,  /* integer in [-1, 2^53]; -1 <-> null */
  JF_BOOL,   /* true / false */
  JF_STR,    /* char[size]; "" may be written as "" */
  JF_U64STR, /* uint64_t written as a decimal string (doubles cannot hold 64 bits) */
} JsonFieldKind;

typedef struct JsonField {
  const char *key;
  JsonFieldKind kind;
  size_t offset;
  size_t size; /* JF_STR: buffer size */
  bool required;
} JsonField;

#define JSON_FIELD(type, member, kind) {#member, kind, offsetof(type, member), sizeof(((type *)0)->member), false}
/* The number of entries of a field table (or of any array of static size). */
#define JSON_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* Largest integer a double holds exactly. */
#define JSON_MAX_EXACT_INT 9007199254740992.0

void JsonFields_write(cJSON *obj, const void *base, const JsonField *f, int n);
/* A new object holding the fields of base. */
cJSON *JsonFields_object(const void *base, const JsonField *f, int n);
/* Reads every field present; absent optional fields keep their value in base. */
bool JsonFields_read(const cJSON *obj, void *base, const JsonField *f, int n, const char *path,
                     char *err, size_t errsize);
/* First differing field: "path.key" in where. */
bool JsonFields_equal(const void *a, const void *b, const JsonField *f, int n, const char *path,
                      char *where, size_t wsize);

/* Single values, same rules as the tables (path.key is named in errors). */
bool Json_readDouble(const cJSON *v, double *out, const char *path, const char *key, char *err,
                     size_t errsize);
bool Json_readInt(const cJSON *v, int64_t lo, int64_t hi, int64_t *out, const char *path,
                  const char *key, char *err, size_t errsize);
bool Json_readStr(const cJSON *v, char *buf, size_t size, const char *path, const char *key,
                  char *err, size_t errsize);
/* False with "path: expected an object" in err unless j is one. */
bool Json_expectObject(const cJSON *j, const char *path, char *err, size_t errsize);
/* The required member key of obj, a shape's text, parsed into out; an error names path.key and
 * is one line (it may quote the text). */
bool Json_readShape(const cJSON *obj, const char *key, Shape *out, const char *path, char *err,
                    size_t errsize);
/* The member `key` of obj as the given type; NULL when absent. Wrong type: error, *ok false. */
const cJSON *Json_member(const cJSON *obj, const char *key, int cjson_type, bool required,
                         const char *path, bool *ok, char *err, size_t errsize);
bool Json_doubleEqual(double a, double b);
/* Shortest text that reads back to exactly d, with '.' ("null" for NAN/inf); size >= 32. */
void Json_formatDouble(char *buf, size_t size, double d);
/* A number item that prints with every bit kept (null for NAN/inf). */
cJSON *Json_number(double d);

/* Walks the whole tree: duplicate keys and invalid UTF-8 in keys or strings are errors. */
bool Json_validateTree(const cJSON *root, char *err, size_t errsize);
/* Parses text; on a syntax error writes "NAME:LINE:COL: what is wrong". */
cJSON *Json_parseText(const char *data, size_t len, const char *name, char *err, size_t errsize);
/* Control characters and invalid UTF-8 (from quoted input) become '?' (Text_sanitize): an error
 * stays one line and safe to print. */
void Json_oneLine(char *msg);
/* "path.key" (or "key" when path is empty) into buf. */
const char *Json_join(char *buf, size_t size, const char *path, const char *key);

#endif
