/* Transfer rules: which tuned problem's knobs a problem that was never tuned takes. The tuned
 * table's lookup uses TRANSFER_RULE_DEFAULT; `benchtop tune --transfer-eval` replays every rule
 * on a grid session (leave one grid point out, transfer to it from the others, score the pick
 * with the p50s measured there), so the default can follow the data. docs/tuning.md has the
 * rules and how to read the replay. */
#ifndef BENCHTOP_TUNE_TRANSFER_H
#define BENCHTOP_TUNE_TRANSFER_H

#include <stdbool.h>
#include <stdio.h>

#include "kernels/device_props.h"
#include "kernels/registry.h"
#include "kernels/shape.h"
#include "sessions/session.h"

typedef enum TransferRule {
  TRANSFER_NEAREST,   /* the nearest tuned problem by TunedTable_distance (shape ratios) */
  TRANSFER_FEATURE,   /* the nearest in features: tiles per SM wave, S, D, causal, dtype, heads */
  TRANSFER_BEST_OF_K, /* of the winners of the k nearest problems, the best on average over them
                         (needs each problem's scores: a replay rule, not the table's) */
  TRANSFER_GUARDED,   /* of the TRANSFER_GUARD_K nearest (NEAREST's distance), the nearest whose
                         tiles fit the problem as well as they fit their own (Transfer_tilesFit) */
  TRANSFER_PICK,      /* of the winners of the TRANSFER_PICK_K nearest problems (distinct knobs),
                         the fastest at the problem itself: a plain run's pick, which measures
                         them there (cmd/run_pick.c); the replay scores those measured there */
  TRANSFER_PICK_FIT,  /* PICK's candidates and, for the WAVEFIT_FROM nearest, the setting that
                         fills fewer rounds of waves (bench/tune/tune_wavefit.h): what a plain
                         run's pick measured before dissent */
  TRANSFER_PICK_DISSENT, /* PICK_FIT's candidates and up to DISSENT_MAX farther winners unlike all
                            the nearest in a knob they agree on (bench/tune/tune_dissent.h):
                            what a plain run's pick measures */
  TRANSFER_NRULES
} TransferRule;

/* What the tuned table's lookup uses (NEAREST, FEATURE or GUARDED). */
#define TRANSFER_RULE_DEFAULT TRANSFER_GUARDED
#define TRANSFER_K_DEFAULT 3
#define TRANSFER_GUARD_K 3
#define TRANSFER_PICK_K 8 /* a plain run's candidates: where the held-out replay stopped gaining */
#define TRANSFER_SMS_DEFAULT 132 /* SMs assumed when the device does not say (an H100 SXM) */

const char *TransferRule_name(TransferRule r);
/* "nearest", "feature", "best-of-k", "guarded"; false when none matches. */
bool TransferRule_parse(const char *name, TransferRule *out);

/* How far apart two problems are under a distance rule (BEST_OF_K ranks by NEAREST's): 0 the
 * same problem. sms: the device's SM count (<= 0: TRANSFER_SMS_DEFAULT). */
double Transfer_distance(TransferRule r, const Shape *a, const Shape *b, int sms);

/* Whether v's setting knobs, tuned at `from`, fits problem `to` about as well: its query blocks
 * (the knob named block_m, where v has one) pad `to`'s queries at most 5 % more than they padded
 * `from`'s, and its blocks (the largest grid of its launch) fill the first wave of dev's SMs at
 * least 3/4 as well as there. A neighbour's knobs that fail it are the usual transfer losses
 * (128-row blocks at S = 192; a key split chosen where the grid was small). True when either
 * launch cannot be planned (nothing to judge by). */
bool Transfer_tilesFit(const Variant *v, const char *knobs, const Shape *from, const Shape *to,
                       const DeviceProps *dev);
/* dev for Transfer_tilesFit from what a session or worker reports (cc x10, SMs; <= 0 unknown). */
void Transfer_device(DeviceProps *dev, int cc, int sms);

/* The leave-one-out replay of rules on a grid session (tune --grid, every search complete): for
 * each variant, each grid point in turn is held out and given the knobs a rule picks from the
 * others (only knobs the variant accepts there), and its loss is that setting's recorded p50
 * there against the best recorded there; a setting never measured there is counted apart.
 * rules: a bit per TransferRule; k for BEST_OF_K; variant NULL: every variant. Prints a line
 * per point and rule when verbose, then a summary per variant and rule. False with one line
 * in err when the session holds no grid to replay. */
bool Transfer_replay(const Session *s, unsigned rules, int k, const char *variant, bool verbose,
                     FILE *out, char *err, size_t errsize);
/* The same rules trained on every grid point of s and scored on problems off the grid: the
 * complete searches of the nheld sessions in held (tune sessions at other problems, each
 * search's recorded p50s as the judge). False with one line in err when no variant has points
 * on both sides. */
bool Transfer_replayHeldout(const Session *s, const Session *held, int nheld, unsigned rules, int k,
                            const char *variant, bool verbose, FILE *out, char *err, size_t errsize);

#endif
