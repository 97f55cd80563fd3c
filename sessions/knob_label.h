/* Knob settings as people read them in tables: only the knobs that differ from the variant's
 * defaults, each under a short name unique within its variant ("block_m=128,stages=3" at mma's
 * defaults of 64 and 2 reads "bm=128,st=3"). Two settings of one variant always get different
 * labels; tables widen their column rather than cut one. The full setting stays in the record
 * (CSV, JSON, the detail view). Works from the registry's public API, so a variant this build
 * does not know keeps its full setting. */
#ifndef BENCHTOP_KNOB_LABEL_H
#define BENCHTOP_KNOB_LABEL_H

#include <stdbool.h>
#include <stddef.h>

/* The label written where a record's knobs are all at their defaults. */
#define KNOB_LABEL_DEFAULTS "defaults"

/* "bm=128,st=3"; KNOB_LABEL_DEFAULTS when every knob is at its default; "-" for a variant
 * without knobs (or an empty setting); the setting itself when the variant is unknown here or
 * the setting names a knob the variant does not have. */
void KnobLabel_compact(const char *variant, const char *knobs, char *buf, size_t size);
/* Whether KnobLabel_compact says the setting in other words than the setting itself: knobs at
 * their defaults left out, or names shortened ("defaults" and "-" included); false where the
 * label is the full setting (a variant or knob unknown here). */
bool KnobLabel_abbreviates(const char *variant, const char *knobs);
/* A knob's short name within its variant ("block_m" -> "bm"); the name itself when unknown. */
void KnobLabel_shortName(const char *variant, const char *knob, char *buf, size_t size);
/* A legend for a variant's short names: "bm block_m, bn block_n, ..."; "" without knobs. */
void KnobLabel_legend(const char *variant, char *buf, size_t size);

#endif
