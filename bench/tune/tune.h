/* The tune engine: for each variant and shape, a search over its knob space (refusals dropped
 * before any launch), the leaders re-measured, then each shape's winner measured at the other
 * shapes so one configuration can be named best over all of them. It only decides what to
 * measure next and what the records mean; the caller (benchtop tune, the TUI) owns the runner
 * and the session, so the engine never blocks:
 *
 *   Tuner_begin(device) -> loop { Tuner_next -> submit; each record -> Session_add, Tuner_take }
 *   -> Tuner_finish(session) -> TunedTable_store(Tuner_tunedEntries(...))
 *
 * docs/tuning.md describes the search, the budget and the ranking. */
#ifndef BENCHTOP_TUNE_H
#define BENCHTOP_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/plan.h"
#include "bench/tune/tune_strategy.h"
#include "bench/tune/tune_table.h"
#include "sessions/session.h"

#define TUNE_LEADERS 3 /* configurations re-measured at the end of each search */

typedef struct TuneRequest {
  Plan plan;             /* variants, shapes, --knob restrictions, metrics, run options */
  StrategyKind strategy;
  int budget;            /* measurements per variant and shape (re-measurements included);
                            0: the whole space for exhaustive, a quarter (>= 20) otherwise */
  double budget_pct;     /* > 0: the budget is this percentage of each space ... */
  int min_budget;        /* ... but at least this many (or the whole space when smaller) */
  double time_s;         /* > 0: stop searching after this many seconds (shared evenly) */
} TuneRequest;

typedef struct TuneProgress {
  char variant[RECORD_NAME_MAX];
  Shape shape;
  int pair, npairs;      /* which variant x shape, of how many */
  const char *phase;     /* "searching", "re-measuring the leaders", "across shapes", "done" */
  int measured, budget, refused, configs;
  char best_knobs[RECORD_KNOBS_MAX];
  double best_p50;       /* NAN until something passed */
} TuneProgress;

typedef struct Tuner Tuner;

Tuner *Tuner_new(const TuneRequest *req);
void Tuner_free(Tuner *t);
/* Builds every variant x shape space for this device. A pair with nothing to search (no knobs,
 * every combination refused, a budget of 0) is skipped with one line in Tuner_notes; false
 * with one line in err when no pair is left. */
bool Tuner_begin(Tuner *t, const DeviceInfo *d, char *err, size_t errsize);
/* Lines worth telling the user (skipped pairs), one per element; count in *n. */
const char *const *Tuner_notes(const Tuner *t, int *n);
/* Up to max entries to measure next; 0 while earlier ones are still out (the caller submits
 * a batch and asks again when every record of it came back) or when the tune is over. */
int Tuner_next(Tuner *t, PlanEntry *out, int max);
/* A finished record (in any order). */
void Tuner_take(Tuner *t, const Record *r);
/* Nothing more to measure. */
bool Tuner_done(const Tuner *t);
/* Stops asking (cancelled): Tuner_finish then ranks what finished. */
void Tuner_stop(Tuner *t);
void Tuner_progress(const Tuner *t, TuneProgress *p);
/* Ranks every measured configuration, marks each record's rank and the winners, and adds the
 * summaries (per variant and shape, and over all shapes) to the session. */
void Tuner_finish(Tuner *t, Session *s);
/* Tuned-table entries for the pairs that searched to the end and have a winner (caller
 * frees *out); their source hashes are the ones read at Tuner_begin. */
int Tuner_tunedEntries(const Tuner *t, const Session *s, TunedEntry **out);

/* The budget of one variant and shape with n configurations: --budget N, or N % of n, or the
 * default (the whole space and the leaders when exhaustive, a quarter of it, at least 20,
 * otherwise); of it, *reserve measurements are kept to re-measure the leaders. STRATEGY_AUTO
 * becomes exhaustive when the space fits the budget, else local. */
void Tune_budgetFor(const TuneRequest *req, int n, StrategyKind *kind, int *budget, int *reserve);
/* Each configuration's score in a session (the median of its pooled samples; +inf when it
 * failed or has no record), for the configurations of sp; returns how many have one. */
int Tune_scores(const Session *s, const TuneSpace *sp, double *scores);

/* From the session's records alone (bench/tune/tune_rank.c): ranks one variant at one shape, marks
 * its records and fills the summary's outcome (winner, runner-up, lead, counts); returns the
 * configurations ranked. */
int Tune_rankPair(Session *s, const char *variant, const Shape *shape, TuneSummary *sum);
/* Ranks every summary's pair (their search facts filled in: strategy, budget, space, refused,
 * complete, note), stores the summaries in the session (replacing the same variant and shape)
 * and, for variants tuned at several shapes, the best configuration over all of them. */
void Tune_finishSession(Session *s, const TuneSummary *base, int n);
/* Tuned-table entries for the complete summaries with a winner: keys give the device, the
 * source hash, the variant, shape and conditions; the winner's record the rest. */
int Tune_tunedEntries(const Session *s, const TunedEntry *keys, int nkeys, TunedEntry **out);

#endif
