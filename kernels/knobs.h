/* Knob settings and sweeps, as values and as text. This module holds benchtop's only parser and
 * only formatter of knob text ("k=v,k=v" settings, "k=v1,v2" sweeps): the command line's --knob,
 * the TUI, plan JSON, the worker protocol, records, diff selectors, tuned tables and tune all
 * call it. Nothing else splits knob text at '=' or ',', and nothing compares two settings by
 * their formatted text: settings are equal when their values are (KnobValues, or KnobText_same
 * for the text of a variant this build may not know).
 *
 * The typed forms: KnobValues (kernels/registry.h) is a variant's setting, one index per knob
 * into the values its declaration allows (a number or a word); KnobSweep is, per knob, the list
 * of values to run. The variant gives both their meaning. */
#ifndef BENCHTOP_KNOBS_H
#define BENCHTOP_KNOBS_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/registry.h"

/* ---- text, for any variant (a session's records may name variants this build lacks) ---- */

/* One value of knob text with its knob's name: slices of the text, not NUL-terminated. first:
 * the knob's first value (a sweep "k=v1,v2" gives k=v1 first, then k=v2 not first). */
typedef struct KnobToken {
  const char *name, *value;
  size_t name_len, value_len;
  bool first;
} KnobToken;

/* Steps through knob text: 1 with *tok set, 0 at its end, -1 for text that is not
 * "name=value[,value...][,name=value...]" (a value before any name, an empty name or value).
 * *cursor starts at the text; tok->name carries over between calls for a sweep's values. */
int KnobText_next(const char **cursor, KnobToken *tok);
/* The value of knob name in a setting, copied into out; false when absent, malformed or longer
 * than size - 1. */
bool KnobText_value(const char *text, const char *name, char *out, size_t size);
/* Two settings (or sweeps) hold the same knobs, in any order, each with the same values in the
 * same order (a sweep's order is its runs' order); numbers compare by value ("064" is 64).
 * Malformed text is the same only as identical text. */
bool KnobText_same(const char *a, const char *b);
/* Two values of one knob are the same: numbers by value, words by text. */
bool KnobText_sameValue(const char *a, const char *b);
/* Orders settings by their values, knob by knob (numbers numerically): for stable sorts. */
int KnobText_compare(const char *a, const char *b);
/* Length of the knob name a setting or sweep "k=..." starts with (the whole text without '='). */
size_t KnobText_nameLen(const char *spec);
/* Appends "name=value" (after a ',' unless it is the first item) to buf at *used; the only
 * place knob text is written. *used grows by what the item needs even when buf is too small,
 * so a caller can tell (and refuse) a cut. name_len/value_len: bytes of name and value. */
void KnobText_append(char *buf, size_t size, size_t *used, const char *name, size_t name_len,
                     const char *value, size_t value_len);

/* Appends ",value" to a sweep's text in buf at *used (as KnobText_append counts). */
void KnobText_appendValue(char *buf, size_t size, size_t *used, const char *value, size_t value_len);
/* A sweep's text with one more value: spec + ",value", a heap string the caller frees. */
char *KnobText_withValue(const char *spec, const char *value, size_t value_len);

/* ---- typed, for a variant this build knows ---------------------------------------------- */

/* Two settings of v are the same: every knob of v at the same value. */
bool KnobValues_equal(const Variant *v, const KnobValues *a, const KnobValues *b);
/* Default knob values. */
void Registry_defaults(const Variant *v, KnobValues *kv);
/* How many values knob k allows. */
int Registry_knobValueCount(const KnobDesc *k);
/* Index of the knob called name, or -1. */
int Registry_knobIndex(const Variant *v, const char *name);
/* What expressions see for knob k at kv (a number, or a word's macro value). */
long long Registry_knobNumber(const Variant *v, const KnobValues *kv, int k);
/* Applies a setting "k=v,k=v"; unknown knobs or values give one line in err. ignore_unknown skips knobs
 * the variant does not have (a plan-wide --knob applies to the variants that have it). */
bool Registry_applyKnobs(const Variant *v, const char *spec, KnobValues *kv, bool ignore_unknown,
                         char *err, size_t errsize);
/* Settings tried at most by Registry_fittingKnobs beyond the presets. */
#define KNOB_FIT_SEARCH_MAX 100000L
/* A setting of v that runs s (dev NULL: any device), keeping the knobs in fixed (bit k) at kv's
 * values: 0 kv itself runs it; 1 the first declared preset that does was put in kv; 2 the first
 * other setting that does (knob 0 varying fastest; at most KNOB_FIT_SEARCH_MAX tried); -1 none
 * found, kv unchanged. A plain run takes it where the defaults refuse a problem (D = 256 on a
 * kernel whose defaults do not fit its registers there). */
int Registry_fittingKnobs(const Variant *v, const Shape *s, unsigned fixed, const DeviceProps *dev,
                          KnobValues *kv);
/* Index of value text in knob k's list, or -1 (numbers compare by value: "064" is 64). */
int Registry_knobValueIndex(const KnobDesc *k, const char *text);
/* "k=v,k=v" for all knobs. */
void Registry_formatKnobs(const Variant *v, const KnobValues *kv, char *buf, size_t size);
/* "64|128|32" or "16..128 step 16": what knob k allows, for messages and listings. */
void Registry_formatAllowed(const KnobDesc *k, char *buf, size_t size);


/* Per knob of a variant, the values to run (indexes into its KnobDesc.values, in the order
 * given, without repeats); nvalues[k] == 0: knob k is not swept (it keeps its default). The
 * knobs in the order they were given (the expansion's order: the first one varies fastest). */
typedef struct KnobSweep {
  int nknobs, order[KNOB_MAX];
  int nvalues[KNOB_MAX];
  int idx[KNOB_MAX][KNOB_MAX_VALUES];
} KnobSweep;

/* Adds the knobs of text ("k=v1,v2" or "k=v,k2=w") to *sw. A knob the sweep already holds, an
 * unknown knob or a value the knob does not allow give one line in err. ignore_unknown skips
 * knobs the variant does not have. */
bool KnobSweep_add(const Variant *v, const char *text, KnobSweep *sw, bool ignore_unknown,
                   char *err, size_t errsize);
/* An empty sweep (every knob at its default). */
void KnobSweep_init(KnobSweep *sw);
/* "k=v1,v2" for knob k of the sweep: a heap string the caller frees. */
char *KnobSweep_format(const Variant *v, const KnobSweep *sw, int k);
/* Combinations the sweep expands to (each knob not swept counts once). */
double KnobSweep_count(const Variant *v, const KnobSweep *sw);
/* Combination number i (0 <= i < KnobSweep_count) as a setting, the first knob given fastest;
 * the knobs not swept at their defaults. */
void KnobSweep_at(const Variant *v, const KnobSweep *sw, long long i, KnobValues *kv);

#endif
