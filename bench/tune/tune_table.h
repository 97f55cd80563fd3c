/* The tuned table: the best knobs `benchtop tune` found, per device and kernel source, kept in
 * $XDG_CACHE_HOME/benchtop/tuned.json and read by `--knob auto`. An entry is keyed by the
 * device (name, compute capability, driver), the variant and its source hash (a kernel or
 * header edit invalidates it), the shape and the conditions it was timed under (cold L2,
 * graph replay). Writers take a lock and replace the file atomically; a malformed file is
 * moved aside, never overwritten. The tables shipped with benchtop (kernels/tuned/CHIP.json,
 * made by `benchtop tune-table`) are keyed by chip instead and are the defaults of a variant
 * given no knob. A shape with no entry takes the nearest tuned shape's knobs (TunedTable_distance).
 * docs/tuning.md describes the format. */
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
  char chip[16];       /* "GH100": the chip the device name maps to (cupti/chips.h); "" unknown */
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
  int picked_of;       /* 0: a search's winner; N: the fastest of N tuned neighbours' knobs,
                          measured at this problem by a plain run (cmd/run_pick.c) */
  /* Filled by TunedTable_lookup (not written, not read back): */
  bool shipped;        /* found in a table shipped with benchtop */
  bool stale;          /* shipped, tuned for an older source of the kernel (still the default) */
  char table[64];      /* the table's file name ("GH100.json", "tuned.json") */
  double distance;     /* TunedTable_distance from the shape asked for (0: tuned there) */
  int protocol_distance; /* conditions (cold L2, graph replay) unlike those asked for: 0 none */
  char passed_over[64];  /* a nearer tuned shape whose tiles fit the problem worse ("" none) */
} TunedEntry;

/* A table's header (benchtop tune-table writes it; optional in the user's table). */
typedef struct TunedTableInfo {
  char chip[16];
  char device[96];
  char created[32];    /* when the table was made */
  char revision[32];   /* the benchtop commit the measurements ran on */
  char generator[32];  /* the benchtop commit that made the table */
} TunedTableInfo;

/* Note prefix of a record whose knobs came from a tuned table (Record.knobs_auto); the other
 * notes start "defaults: " and say why none applied. */
#define TUNED_NOTE_PREFIX "auto from table "
bool TunedTable_noteIsTuned(const char *note);
/* How far apart two shapes are for borrowing tuned knobs: log2 ratios of the batch x heads,
 * the sequence length and (weighted 2) the head dimension, plus a half for causal against
 * not. 0: the same shape. */
double TunedTable_distance(const Shape *a, const Shape *b);
/* The distance given another problem that the transfer rule cannot tell apart from the one
 * asked for (its features equal): above 0, which means tuned at this very problem. */
#define TUNED_SAME_FEATURES 1e-9
/* The chip of a device name ("NVIDIA H100 80GB HBM3" -> "GH100"); false when it is unknown. */
bool TunedTable_chipOf(const char *device, char *chip, size_t size);

/* Where the table lives (TUNED_PATH_ENV overrides, for tests). */
#define TUNED_PATH_ENV "BENCHTOP_TUNED_TABLE"
/* The folder of the tables shipped with benchtop: kernels/tuned/ in the source tree,
 * <prefix>/share/benchtop/tuned installed (TUNED_SHIPPED_ENV overrides, for tests and a build
 * carried to another machine). False when there is none. */
#define TUNED_SHIPPED_ENV "BENCHTOP_SHIPPED_TUNED"
bool TunedTable_shippedDir(char *dir, size_t size);
/* The user's table: TUNED_PATH_ENV, else tuned.json in the cache directory. False (buf empty)
 * when the name does not fit in size. */
bool TunedTable_path(char *buf, size_t size);

/* Adds or replaces entries (same device, cc, variant, shape and conditions: the older one
 * goes, whatever its driver or source). note gets one line when something needed saying (a
 * malformed table moved aside). False with one line in err when nothing could be written. */
bool TunedTable_store(const TunedEntry *entries, int n, char *note, size_t notesize, char *err,
                      size_t errsize);
/* The entry for this device, variant, shape and options: the one at the nearest shape whose
 * knobs the variant accepts there, from the user's own table (this device, driver and kernel
 * source) or a table shipped for this device's chip (any driver; an older source still
 * counts, out->stale); at equal distance the user's. 1: found; 0: none (why says so in words:
 * nothing tuned, the chip unknown, tuned for another source/driver); -1: the user's table
 * could not be read (why says why). */
int TunedTable_lookup(const DeviceInfo *d, const Variant *v, const Shape *s, const RunOptions *o,
                      TunedEntry *out, char *why, size_t whysize);

/* The k nearest tuned entries whose knobs differ (each fitting s; those tuned under the
 * conditions nearest to o's), nearest first, from the tables TunedTable_lookup reads: the
 * candidates of a plain run's pick (cmd/run_pick.c). Returns how many (0 to k). */
#define TUNED_NEIGHBOURS_MAX 32
int TunedTable_neighbours(const DeviceInfo *d, const Variant *v, const Shape *s, const RunOptions *o,
                          int k, TunedEntry *out);

/* Builds a shipped table from exhaustive tune sessions: one entry per variant and shape a
 * session tuned (its winner; a later session's replaces an earlier one's), the table's header
 * from the sessions (one chip for all of them). warn gets one line per thing worth saying (an
 * incomplete search). Written atomically to out_path. False with one line in err. */
bool TunedTable_build(const char *const *sessions, int nsessions, const char *out_path,
                      TunedTableInfo *info, int *nentries, char *warn, size_t warnsize, char *err,
                      size_t errsize);
/* Checks the tables shipped in dir: each entry names a variant, knobs it accepts and a shape
 * they can run (a malformed file or entry: -1, one line in err); *stale counts the entries
 * whose kernel source changed since (they are ignored until re-tuned). Returns the entries. */
int TunedTable_checkShipped(const char *dir, int *stale, char *err, size_t errsize);
/* Whether any tuned table exists (the user's or a shipped one): without one, run needs not
 * wait for the worker's device to choose knobs. */
bool TunedTable_exists(void);
/* Whether a plain run's entry whose knobs were left alone has them chosen once the device is
 * known (PLAN_AUTO_IF_TUNED): where some tuned table exists (tables: TunedTable_exists()), or
 * where its defaults refuse its problem (TunedTable_resolve then takes a setting that runs it). */
bool TunedTable_choosesKnobs(const PlanEntry *e, bool tables);
/* --knob auto (PLAN_AUTO_ASKED): entries of variants with knobs take the tuned knobs for their
 * shape (knobs the user set with --knob k=v stay as given) or keep the defaults; notes[i] says
 * which, for the record and the one-line message. PLAN_AUTO_IF_TUNED entries take the tuned
 * knobs when there are some and are left alone (note "") when not. */
void TunedTable_resolve(PlanEntry *entries, int n, const DeviceInfo *d, char (*notes)[RECORD_AUTO_NOTE_MAX]);
/* A record that came back from resolved entries: its knobs_auto gets the note of the first
 * unused entry of the same variant, knobs (by value) and shape (used[] marks it). A caller that
 * knows the record's request copies that entry's note instead. */
void TunedTable_markRecord(Record *r, const PlanEntry *entries, char (*notes)[RECORD_AUTO_NOTE_MAX], bool *used,
                           int n);

#endif
