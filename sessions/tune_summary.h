/* What a `benchtop tune` found, as the session keeps it (optional fields of the session,
 * docs/session-schema.md): per variant and shape the space searched, what was refused before
 * any launch, the winning record and how sure the win is; per variant over several shapes the
 * one configuration that is best over all of them (geometric mean) and what each shape loses
 * with it. Records carry their own rank (Record.tune). */
#ifndef BENCHTOP_TUNE_SUMMARY_H
#define BENCHTOP_TUNE_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "sessions/record.h"

#define TUNE_SHAPES_MAX 32

typedef struct TuneSummary {
  char variant[RECORD_NAME_MAX];
  Shape shape;
  char strategy[16];
  int budget;          /* measurements allowed (re-measurements included); -1 none */
  int space;           /* knob combinations before refusals */
  int refused;         /* dropped before any launch */
  int configs;         /* configurations measured */
  int measured;        /* records (re-measurements included) */
  int failed;          /* records that failed verification or errored */
  int remeasured;      /* leaders measured a second time */
  int cross;           /* of the records, those measuring other shapes' winners here */
  int winner;          /* index of the winning record in the session, -1 none */
  char winner_knobs[RECORD_KNOBS_MAX];
  double winner_p50;   /* us: the winner's score (mean p50 of its records) */
  char runner_up[RECORD_KNOBS_MAX];
  double runner_up_p50;
  /* The winner's lead: runner-up p50 / winner p50 - 1 (fraction) with its confidence
   * interval from the samples; NAN when there is no runner-up or no statistics. */
  double lead, lead_lo, lead_hi;
  char verdict[8];     /* the winner against the runner-up: "faster", "tied" or "n/a" */
  int tied;            /* configurations the data cannot separate from the winner */
  bool complete;       /* the search ran to its budget (not cancelled, not out of time) */
  char note[200];      /* why it stopped early, or what went wrong */
} TuneSummary;

typedef struct TuneOverall {
  char variant[RECORD_NAME_MAX];
  char knobs[RECORD_KNOBS_MAX]; /* best by geometric mean of p50 over every shape */
  double geomean;               /* us */
  int nshapes;
  Shape shapes[TUNE_SHAPES_MAX];
  double p50[TUNE_SHAPES_MAX];  /* this configuration's p50 at each shape */
  double loss[TUNE_SHAPES_MAX]; /* against that shape's own winner (fraction, >= 0 mostly) */
} TuneOverall;

void TuneSummary_init(TuneSummary *t);
cJSON *TuneSummary_toJson(const TuneSummary *t);
/* Reads a summary; its winner must be one of records (of its variant and shape), else false
 * with one line in err. */
bool TuneSummary_fromJson(const cJSON *j, TuneSummary *out, const Record *records, int nrecords,
                          const char *path, char *err, size_t errsize);
bool TuneSummary_equal(const TuneSummary *a, const TuneSummary *b, const char *path, char *where,
                       size_t wsize);
cJSON *TuneOverall_toJson(const TuneOverall *o);
bool TuneOverall_fromJson(const cJSON *j, TuneOverall *out, const char *path, char *err,
                          size_t errsize);
bool TuneOverall_equal(const TuneOverall *a, const TuneOverall *b, const char *path, char *where,
                       size_t wsize);

/* The human summary `benchtop tune` ends with and `benchtop show --best` repeats. */
void TuneSummary_print(FILE *out, const TuneSummary *t, int n, const TuneOverall *o, int no);

#endif
