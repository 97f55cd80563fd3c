/* The tuned table: the best knobs `benchtop tune` found, per device and kernel source, kept in
 * $XDG_CACHE_HOME/benchtop/tuned.json and read by `--knob auto`. An entry is keyed by the
 * device (name, compute capability, driver), the variant and its source hash (a kernel or
 * header edit invalidates it), the shape and the conditions it was timed under (cold L2,
 * graph replay). Writers take a lock and replace the file atomically; a malformed file is
 * moved aside, never overwritten. docs/tuning.md describes the format. */
#ifndef BENCHTOP_TUNE_TABLE_H
#define BENCHTOP_TUNE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/plan.h"
#include "sessions/record.h"

#define TUNED_SCHEMA "benchtop.tuned/1"
#define TUNED_MAX_BYTES (16u << 20)

typedef struct TunedEntry {
  char device[96];
  int cc;              /* x10 */
  int driver;          /* 1000*major + 10*minor */
  char variant[RECORD_NAME_MAX];
  char source_hash[20];
  Shape shape;
  bool cold_l2, graph;
  char knobs[RECORD_KNOBS_MAX];
  double p50;          /* us, the winner's re-measured p50 */
  char clock[8];       /* "kernel" or "events" */
  char created[32];
  char session[512];   /* the session that holds the measurements */
  bool shipped;        /* found in a table shipped with benchtop (not written, not read back) */
} TunedEntry;

/* Where the table lives (TUNED_PATH_ENV overrides, for tests). */
#define TUNED_PATH_ENV "BENCHTOP_TUNED_TABLE"
/* The folder of the tables shipped with benchtop: kernels/tuned/ in the source tree,
 * <prefix>/share/benchtop/tuned installed (TUNED_SHIPPED_ENV overrides, for tests and a build
 * carried to another machine). False when there is none. */
#define TUNED_SHIPPED_ENV "BENCHTOP_SHIPPED_TUNED"
bool TunedTable_shippedDir(char *dir, size_t size);
void TunedTable_path(char *buf, size_t size);

/* Adds or replaces entries (same device, cc, variant, shape and conditions: the older one
 * goes, whatever its driver or source). note gets one line when something needed saying (a
 * malformed table moved aside). False with one line in err when nothing could be written. */
bool TunedTable_store(const TunedEntry *entries, int n, char *note, size_t notesize, char *err,
                      size_t errsize);
/* The entry for this device, variant (at its current source), shape and options: the user's
 * own table first, then the tables shipped with benchtop (kernels/tuned/; any driver). 1:
 * found; 0: none (why says so in words: nothing tuned, or tuned for another source/driver);
 * -1: the user's table could not be read (why says why). */
int TunedTable_lookup(const DeviceInfo *d, const Variant *v, const Shape *s, const RunOptions *o,
                      TunedEntry *out, char *why, size_t whysize);

/* Checks the tables shipped in dir: each entry names a variant, knobs it accepts and a shape
 * they can run (a malformed file or entry: -1, one line in err); *stale counts the entries
 * whose kernel source changed since (they are ignored until re-tuned). Returns the entries. */
int TunedTable_checkShipped(const char *dir, int *stale, char *err, size_t errsize);
/* Whether any tuned table exists (the user's or a shipped one): without one, run needs not
 * wait for the worker's device to choose knobs. */
bool TunedTable_exists(void);
/* --knob auto (PLAN_AUTO_ASKED): entries of variants with knobs take the tuned knobs for their
 * shape (knobs the user set with --knob k=v stay as given) or keep the defaults; notes[i] says
 * which, for the record and the one-line message. PLAN_AUTO_IF_TUNED entries take the tuned
 * knobs when there are some and are left alone (note "") when not. */
void TunedTable_resolve(PlanEntry *entries, int n, const DeviceInfo *d, char (*notes)[160]);
/* A record that came back from resolved entries: its knobs_auto gets the note of the first
 * unused entry of the same variant, knobs and shape (used[] marks it). */
void TunedTable_markRecord(Record *r, const PlanEntry *entries, char (*notes)[160], bool *used,
                           int n);

#endif
