/* A session: the user's lab record. Metadata, the plan, the device, and every record, kept
 * in memory and saved as JSON ("schema": "benchtop.session/1", see docs/session-schema.md). */
#ifndef BENCHTOP_SESSION_H
#define BENCHTOP_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sessions/record.h"
#include "sessions/tune_summary.h"

#define SESSION_SCHEMA "benchtop.session/1"
#define SESSION_MAX_BYTES (256u << 20) /* a larger file is refused, not read */

/* What the user asked for; replay re-runs exactly this. */
typedef struct Plan {
  int nvariants;
  char **variants;      /* names, as given (after expanding "all") */
  int nshapes;
  Shape *shapes;
  int nknobs;
  char **knobs;         /* "k=v1,v2" sweeps as typed with --knob */
  char metrics[512];    /* "default", "none" or "NAME,NAME" */
  RunOptions opts;
} Plan;

typedef struct Session {
  char created[32];
  char host[128];
  char version[32];     /* benchtop version */
  char revision[32];    /* source revision */
  bool has_device;
  DeviceInfo device;
  Plan plan;
  int nrecords, cap;
  Record *records;
  int ntune, noverall;    /* what `benchtop tune` found (optional; tune_summary.h) */
  TuneSummary *tune;
  TuneOverall *overall;
  char path[4096];      /* autosave target ("" = none) */
  bool dirty;           /* records not yet on disk */
} Session;

void Session_init(Session *s);         /* empty session, created/host/version filled in */
void Session_free(Session *s);
void Plan_free(Plan *p);
void Plan_copy(Plan *dst, const Plan *src);

/* Appends a deep copy of r. */
void Session_add(Session *s, const Record *r);

/* Loads and validates. On failure returns false with one line in err:
 *   "FILE:LINE:COL: what is wrong" for malformed JSON,
 *   "FILE: field records[3].timing.p50: expected a number" for schema problems. */
bool Session_load(const char *path, Session *out, char *err, size_t errsize);
/* Same, from memory (for the fuzzer and tests); name is used in messages. */
bool Session_parse(const char *data, size_t len, const char *name, Session *out, char *err,
                   size_t errsize);
/* Atomic save (temp file, fsync, rename). */
bool Session_save(const Session *s, const char *path, char *err, size_t errsize);
/* Saves to s->path if set; clears dirty. */
bool Session_autosave(Session *s, char *err, size_t errsize);
/* A new file name under the sessions directory (creates the directory). */
void Session_defaultPath(char *buf, size_t size);

cJSON *Session_toJson(const Session *s);
cJSON *Record_toJson(const Record *r);
/* Parses one record object; path names it in errors ("records[3]"). */
bool Record_fromJson(const cJSON *j, Record *out, const char *path, char *err, size_t errsize);
cJSON *Device_toJson(const DeviceInfo *d);
bool Device_fromJson(const cJSON *j, DeviceInfo *out, const char *path, char *err, size_t errsize);
cJSON *RunOptions_toJson(const RunOptions *o);
bool RunOptions_fromJson(const cJSON *j, RunOptions *out, const char *path, char *err,
                         size_t errsize);
cJSON *Plan_toJson(const Plan *p);
bool Plan_fromJson(const cJSON *j, Plan *out, const char *path, char *err, size_t errsize);

/* Field-by-field equality; on a difference writes its path to where. */
bool Session_equal(const Session *a, const Session *b, char *where, size_t wsize);
/* The same for parts; path prefixes the field names written to where ("records[3]"). */
bool Record_equal(const Record *a, const Record *b, const char *path, char *where, size_t wsize);
bool Device_equal(const DeviceInfo *a, const DeviceInfo *b, const char *path, char *where,
                  size_t wsize);
bool RunOptions_equal(const RunOptions *a, const RunOptions *b, const char *path, char *where,
                      size_t wsize);
bool Plan_equal(const Plan *a, const Plan *b, const char *path, char *where, size_t wsize);
void Plan_init(Plan *p);

/* One record as a single JSON line (no newline inside; the worker pipe format); heap string. */
char *Record_toJsonLine(const Record *r);

/* The newest *.json in the sessions directory, else the bundled example; false if neither. */
bool Session_findDefault(char *buf, size_t size);

#endif
