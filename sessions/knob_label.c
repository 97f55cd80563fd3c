/* Compact knob labels (see knob_label.h). */
#include "sessions/knob_label.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "kernels/knobs.h"

#define LABEL_KNOBS KNOB_MAX
#define LABEL_TEXT 48

typedef struct KnobList {
  int n;
  char name[LABEL_KNOBS][LABEL_TEXT];
  char value[LABEL_KNOBS][LABEL_TEXT];
} KnobList;

/* A setting's names and values; false when malformed (a sweep included) or too many. */
static bool KnobLabel_parse(const char *s, KnobList *out) {
  memset(out, 0, sizeof *out);
  KnobToken t = {0};
  int rc;
  for (const char *p = s ? s : ""; (rc = KnobText_next(&p, &t)) > 0;) {
    if (!t.first || out->n == LABEL_KNOBS || t.name_len >= LABEL_TEXT || t.value_len >= LABEL_TEXT)
      return false;
    memcpy(out->name[out->n], t.name, t.name_len);
    memcpy(out->value[out->n], t.value, t.value_len);
    out->n++;
  }
  return rc == 0;
}

/* The variant's knobs at their defaults; false when the variant is unknown here. */
static bool KnobLabel_defaults(const char *variant, KnobList *out) {
  const Variant *v = variant ? Registry_find(variant) : NULL;
  if (!v) return false;
  KnobValues kv;
  Registry_defaults(v, &kv);
  char defs[LABEL_KNOBS * 2 * LABEL_TEXT];
  Registry_formatKnobs(v, &kv, defs, sizeof defs);
  return KnobLabel_parse(defs, out);
}

/* Candidate short name of `name` at a level: 0 the initials of its words ("block_m" -> "bm"),
 * then the first word's first level+1 letters before the other initials ("stages" -> "st"),
 * and past the first word's length the name itself. */
static void KnobLabel_candidate(const char *name, int level, char *buf, size_t size) {
  size_t first = strcspn(name, "_");
  if ((size_t)level >= first) {
    Util_strlcpy(buf, name, size);
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i <= (size_t)level && n + 1 < size; i++) buf[n++] = name[i];
  for (const char *p = strchr(name, '_'); p && n + 1 < size; p = strchr(p + 1, '_'))
    if (p[1]) buf[n++] = p[1];
  buf[n] = '\0';
}

/* Short names for every knob: the lowest level at which no other knob's candidate at the same
 * level reads the same; any duplicate left (or a clash with another full name) keeps its
 * full name. */
static void KnobLabel_shortNames(const KnobList *k, char out[][LABEL_TEXT]) {
  for (int i = 0; i < k->n; i++) {
    for (int level = 0;; level++) {
      char mine[LABEL_TEXT], other[LABEL_TEXT];
      KnobLabel_candidate(k->name[i], level, mine, sizeof mine);
      bool clash = false;
      for (int j = 0; j < k->n && !clash; j++) {
        if (j == i) continue;
        KnobLabel_candidate(k->name[j], level, other, sizeof other);
        clash = strcmp(mine, other) == 0 || strcmp(mine, k->name[j]) == 0;
      }
      if (!clash || strcmp(mine, k->name[i]) == 0) {
        Util_strlcpy(out[i], mine, LABEL_TEXT);
        break;
      }
    }
  }
  for (int i = 0; i < k->n; i++)
    for (int j = 0; j < k->n; j++)
      if (i != j && strcmp(out[i], out[j]) == 0) Util_strlcpy(out[i], k->name[i], LABEL_TEXT);
}

void KnobLabel_shortName(const char *variant, const char *knob, char *buf, size_t size) {
  KnobList defs;
  char shorts[LABEL_KNOBS][LABEL_TEXT];
  Util_strlcpy(buf, knob, size);
  if (!KnobLabel_defaults(variant, &defs)) return;
  KnobLabel_shortNames(&defs, shorts);
  for (int i = 0; i < defs.n; i++)
    if (strcmp(defs.name[i], knob) == 0) Util_strlcpy(buf, shorts[i], size);
}

/* The compact label into buf; returns whether it abbreviates the setting (see the header). */
static bool KnobLabel_build(const char *variant, const char *knobs, char *buf, size_t size) {
  KnobList defs, set;
  if (!knobs || !knobs[0]) {
    Util_strlcpy(buf, "-", size);
    return true;
  }
  if (!KnobLabel_defaults(variant, &defs) || !KnobLabel_parse(knobs, &set)) {
    Util_strlcpy(buf, knobs, size);
    return false;
  }
  char shorts[LABEL_KNOBS][LABEL_TEXT];
  KnobLabel_shortNames(&defs, shorts);
  size_t used = 0;
  bool shortened = false;
  buf[0] = '\0';
  for (int i = 0; i < set.n; i++) {
    int d = 0;
    while (d < defs.n && strcmp(defs.name[d], set.name[i]) != 0) d++;
    if (d == defs.n) { /* a knob this build's variant lacks: say it all */
      Util_strlcpy(buf, knobs, size);
      return false;
    }
    if (KnobText_sameValue(defs.value[d], set.value[i])) {
      shortened = true; /* left out */
      continue;
    }
    shortened |= strcmp(shorts[d], set.name[i]) != 0;
    KnobText_append(buf, size, &used, shorts[d], strlen(shorts[d]), set.value[i], strlen(set.value[i]));
  }
  if (used == 0) Util_strlcpy(buf, defs.n ? KNOB_LABEL_DEFAULTS : "-", size);
  return shortened || used == 0;
}

void KnobLabel_compact(const char *variant, const char *knobs, char *buf, size_t size) {
  KnobLabel_build(variant, knobs, buf, size);
}

bool KnobLabel_abbreviates(const char *variant, const char *knobs) {
  char label[KNOB_TEXT_MAX * 2];
  return KnobLabel_build(variant, knobs, label, sizeof label);
}

void KnobLabel_legend(const char *variant, char *buf, size_t size) {
  KnobList defs;
  if (size) buf[0] = '\0';
  if (!KnobLabel_defaults(variant, &defs)) return;
  char shorts[LABEL_KNOBS][LABEL_TEXT];
  KnobLabel_shortNames(&defs, shorts);
  size_t used = 0;
  for (int i = 0; i < defs.n; i++) {
    if (strcmp(shorts[i], defs.name[i]) == 0) continue;
    int w = snprintf(buf + used, size > used ? size - used : 0, "%s%s %s", used ? ", " : "",
                     shorts[i], defs.name[i]);
    used += w > 0 ? (size_t)w : 0;
  }
}
