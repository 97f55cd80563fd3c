/* Which record of session A is compared with which of session B (diff, replay, --match).
 *
 *   (default)                    same variant, knobs and shape
 *   --match variant              same variant and shape, any knobs
 *   --match shape                same shape, any variant and knobs
 *   --match 'SEL vs SEL'         A's records that SEL selects against B's that the other selects,
 *                                same shape and same values of the knobs neither SEL names
 *
 * A selector is a variant name (or `*`, any) and knob settings: `mma block_m=64`,
 * `mma block_m=64,stages=3`, `* stages=2`. With one session file, A and B are the same session:
 * `diff sweep.json --match 'mma stages=2 vs mma stages=3'` is an A/B of two settings. Where
 * several records of B fit one of A, they pair in order. */
#ifndef BENCHTOP_DIFF_MATCH_H
#define BENCHTOP_DIFF_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "sessions/compare_stats.h"
#include "sessions/session.h"

#define MATCH_KNOBS_MAX 8
#define MATCH_TEXT_MAX 48

typedef enum { MATCH_KEY = 0, MATCH_VARIANT, MATCH_SHAPE, MATCH_PAIR } MatchMode;

typedef struct MatchSelector {
  char variant[RECORD_NAME_MAX]; /* "*": any */
  int nknobs;
  char knob[MATCH_KNOBS_MAX][MATCH_TEXT_MAX];
  char value[MATCH_KNOBS_MAX][MATCH_TEXT_MAX];
} MatchSelector;

typedef struct DiffMatch {
  MatchMode mode;
  MatchSelector a, b; /* MATCH_PAIR only */
} DiffMatch;

/* NULL or "" -> MATCH_KEY. False with one line in err for a malformed spec, or a knob that a
 * variant known to this build does not have. */
bool DiffMatch_parse(const char *spec, DiffMatch *m, char *err, size_t errsize);
/* How records are paired, for the summary line: "variant, knobs and shape", or the spec. */
void DiffMatch_describe(const DiffMatch *m, char *buf, size_t size);
/* Whether a selector takes a record. */
bool DiffMatch_selects(const MatchSelector *s, const Record *r);

/* One line of a diff: a matched pair, or a record only in A or only in B. */
typedef struct DiffPair {
  const Record *a, *b; /* either may be NULL: only in the other session */
  double p50a, p50b;   /* the p50s compared: by one clock on both sides */
  double dp50_pct;     /* (p50b - p50a) / p50a in percent */
  double drel;         /* rel L2 error b - a */
  bool by_events;      /* the records' clocks differ: compared by their CUDA-event p50s */
  Comparison cmp;      /* the p50 ratio's interval and verdict */
  bool regression, changed;
} DiffPair;

typedef struct DiffPairs {
  int n;
  DiffPair *pair; /* matched pairs in A's order, then the unmatched of A, then of B */
  int outside;    /* records neither selector of MATCH_PAIR takes */
} DiffPairs;

/* Pairs a's records with b's (a and b may be the same session). Comparisons are filled with
 * stats (NULL: the defaults); regression is set against fail_above_pct (NAN: none). */
void DiffPairs_make(DiffPairs *dp, const Session *a, const Session *b, const DiffMatch *m,
                    const CompareOptions *stats, double fail_above_pct);
void DiffPairs_free(DiffPairs *dp);

#endif
