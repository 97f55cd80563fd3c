/* A session: the user's lab record. Metadata, the plan, the device, and every record, kept
 * in memory and saved as JSON ("schema": "benchtop.session/2", see docs/session-schema.md;
 * benchtop.session/1 files are read too). */
#ifndef BENCHTOP_SESSION_H
#define BENCHTOP_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sessions/plan.h"
#include "sessions/record.h"
#include "sessions/tune_summary.h"
#include "sessions/shard.h"

#define SESSION_SCHEMA "benchtop.session/2"
#define SESSION_SCHEMA_VERSION 2
#define SESSION_MAX_BYTES (256u << 20) /* a larger file is refused, not read */

typedef struct Session {
  char created[32];
  char host[128];
  char version[32];     /* benchtop version */
  char revision[32];    /* source revision */
  bool has_device;
  DeviceInfo device;
  Plan plan;
  ShardInfo shard;      /* a shard of a plan (run --shard): which, and of what (count 0: none) */
  int schema_version;   /* the N of the file's "benchtop.session/N"; 0 when not from a file */
  int nrecords, cap;
  Record *records;
  int ntune, noverall;    /* what `benchtop tune` found (optional; tune_summary.h) */
  TuneSummary *tune;
  TuneOverall *overall;
  char path[4096];      /* autosave target ("" = none) */
  bool dirty;           /* records not yet on disk */
  struct SafeFile *out; /* path, claimed for writing (locked) from the first save on */
  /* The file it was loaded from, as it was then: autosave replaces only that file. */
  bool has_origin;
  unsigned long long origin_dev, origin_ino;
  long long origin_size, origin_mtime_ns;
  char note[RECORD_REASON_MAX]; /* said once about loading it (a converted /1 plan), or "" */
} Session;

void Session_init(Session *s);         /* empty session, created/host/version filled in */
void Session_clear(Session *s);        /* empty and n/a everywhere, nothing filled in */
void Session_free(Session *s);         /* and lets go of its file */
void Session_releaseFile(Session *s);  /* lets go of the claimed autosave file (it stays) */
/* Appends a deep copy of r. */
void Session_add(Session *s, const Record *r);

/* Loads and validates. On failure returns false with one line in err:
 *   "FILE:LINE:COL: what is wrong" for malformed JSON,
 *   "FILE: field records[3].timing.p50: expected a number" for schema problems. */
bool Session_load(const char *path, Session *out, char *err, size_t errsize);
/* Same, from memory (for the fuzzer and tests); name is used in messages. */
bool Session_parse(const char *data, size_t len, const char *name, Session *out, char *err,
                   size_t errsize);
/* Writes s to path (atomically: common/safe_file.h). path must not exist or be a benchtop
 * session: any other file is refused, never replaced. */
bool Session_save(const Session *s, const char *path, char *err, size_t errsize);
/* Writes s to path and makes path its autosave target (the TUI's "save as"). An existing file
 * that is not a session is replaced only with replace_other (the user said yes). */
bool Session_saveAs(Session *s, const char *path, bool replace_other, char *err, size_t errsize);
/* Saves to s->path if set; clears dirty. The first save claims the file (locked until
 * Session_free): a new file, or the very file s was loaded from as it was then; anything else
 * is refused (another program wrote it, or it is some other file). */
bool Session_autosave(Session *s, char *err, size_t errsize);

/* How `run -o` and `replay -o` treat an existing file. */
typedef enum {
  SESSION_OUT_APPEND,   /* a session: its records stay, new ones go after them; else refused */
  SESSION_OUT_REPLACE,  /* any regular file: replaced (--force) */
  SESSION_OUT_NEW,      /* only a file that does not exist yet (tune's sessions) */
} SessionOutMode;
/* Makes path the autosave target of the new session s (before any record: a file that cannot be
 * written is found before any work is done); a new file is written at once. With SESSION_OUT_APPEND and an
 * existing session at path, its records, device and plan come into s first (*existing: how
 * many records; the caller's plan is merged in with Plan_merge). Links, devices, FIFOs and
 * directories are refused; a file another benchtop is writing is refused. One line in err. */
bool Session_openOutput(Session *s, const char *path, SessionOutMode mode, int *existing,
                        char *err, size_t errsize);
/* Removes the file Session_openOutput created, when nothing was recorded in it after all. */
void Session_discardOutput(Session *s);
/* A new file name under the sessions directory (creates the directory); false with the reason
 * in buf when there is no such directory. */
bool Session_defaultPath(char *buf, size_t size);
/* Same GPU (name and compute capability): records may go into one session. */
bool Device_sameGpu(const DeviceInfo *a, const DeviceInfo *b);
/* Whether records measured on d may join s: s holds none yet, or they came from the same GPU
 * (run -o and the TUI both ask this; a mixed session's medians compare different GPUs). */
bool Session_acceptsDevice(const Session *s, const DeviceInfo *d);

cJSON *Session_toJson(const Session *s);
cJSON *Record_toJson(const Record *r);
/* Parses one record object; path names it in errors ("records[3]"). */
bool Record_fromJson(const cJSON *j, Record *out, const char *path, char *err, size_t errsize);
/* A record from outside a session file (the worker's pipe): the same checks a session's records
 * pass (the tree first: duplicate keys, invalid UTF-8; then Record_fromJson). */
bool Record_validate(const cJSON *j, Record *out, const char *path, char *err, size_t errsize);
cJSON *Device_toJson(const DeviceInfo *d);
bool Device_fromJson(const cJSON *j, DeviceInfo *out, const char *path, char *err, size_t errsize);
cJSON *RunOptions_toJson(const RunOptions *o);
bool RunOptions_fromJson(const cJSON *j, RunOptions *out, const char *path, char *err,
                         size_t errsize);

/* Field-by-field equality; on a difference writes its path to where. */
bool Session_equal(const Session *a, const Session *b, char *where, size_t wsize);
/* The same for parts; path prefixes the field names written to where ("records[3]"). */
bool Record_equal(const Record *a, const Record *b, const char *path, char *where, size_t wsize);
bool Device_equal(const DeviceInfo *a, const DeviceInfo *b, const char *path, char *where,
                  size_t wsize);
bool RunOptions_equal(const RunOptions *a, const RunOptions *b, const char *path, char *where,
                      size_t wsize);

/* One record as a single JSON line (no newline inside; the worker pipe format); heap string. */
char *Record_toJsonLine(const Record *r);

/* The newest *.json in the sessions directory, else the bundled example; false if neither. */
bool Session_findDefault(char *buf, size_t size);

#endif
