/* Pairing the records of two sessions (see diff_match.h). */
#include "sessions/diff_match.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/registry.h"

/* The value of knob `name` in a canonical "k=v,k=v" string; false when absent. */
static bool DiffMatch_knobValue(const char *knobs, const char *name, char *out, size_t size) {
  size_t len = strlen(name);
  for (const char *p = knobs; p && *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n > len && strncmp(p, name, len) == 0 && p[len] == '=') {
      size_t vlen = n - len - 1;
      if (vlen >= size) vlen = size - 1;
      memcpy(out, p + len + 1, vlen);
      out[vlen] = '\0';
      return true;
    }
    p = end ? end + 1 : NULL;
  }
  return false;
}

/* One selector from its words: a variant (or '*') then knob=value items, split at spaces and
 * commas. */
static bool DiffMatch_selector(char *text, MatchSelector *s, char *err, size_t errsize) {
  memset(s, 0, sizeof *s);
  bool have_variant = false;
  for (char *save = NULL, *w = strtok_r(text, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
    char *eq = strchr(w, '=');
    if (!have_variant) {
      if (eq) {
        snprintf(err, errsize, "--match: a selector starts with a variant name or '*', not '%.40s'", w);
        return false;
      }
      if (strlen(w) >= sizeof s->variant) {
        snprintf(err, errsize, "--match: variant name '%.40s' is too long", w);
        return false;
      }
      Util_strlcpy(s->variant, w, sizeof s->variant);
      have_variant = true;
      continue;
    }
    if (!eq || eq == w || !eq[1]) {
      snprintf(err, errsize, "--match: '%.40s' is not knob=value", w);
      return false;
    }
    if (s->nknobs == MATCH_KNOBS_MAX) {
      snprintf(err, errsize, "--match: more than %d knobs in one selector", MATCH_KNOBS_MAX);
      return false;
    }
    *eq = '\0';
    if (strlen(w) >= MATCH_TEXT_MAX || strlen(eq + 1) >= MATCH_TEXT_MAX) {
      snprintf(err, errsize, "--match: knob setting '%.40s' is too long (names and values at most %d "
               "characters)", w, MATCH_TEXT_MAX - 1);
      return false;
    }
    Util_strlcpy(s->knob[s->nknobs], w, MATCH_TEXT_MAX);
    Util_strlcpy(s->value[s->nknobs], eq + 1, MATCH_TEXT_MAX);
    s->nknobs++;
  }
  if (!have_variant) {
    snprintf(err, errsize, "--match: an empty selector (write 'VARIANT [knob=value ...] vs ...')");
    return false;
  }
  /* A typo in a knob name would silently select nothing: check what this build knows. */
  const Variant *v = strcmp(s->variant, "*") ? Registry_find(s->variant) : NULL;
  for (int i = 0; v && i < s->nknobs; i++) {
    char spec[2 * MATCH_TEXT_MAX + 2], why[256];
    snprintf(spec, sizeof spec, "%s=%s", s->knob[i], s->value[i]);
    KnobValues kv;
    Registry_defaults(v, &kv);
    if (!Registry_applyKnobs(v, spec, &kv, false, why, sizeof why)) {
      snprintf(err, errsize, "--match: %s: %.200s", s->variant, why);
      return false;
    }
  }
  return true;
}

/* The " vs " word that splits a pair spec, or NULL. */
static char *DiffMatch_findVs(char *text) {
  for (char *p = text; (p = strstr(p, "vs")) != NULL; p += 2) {
    bool before = p == text || isspace((unsigned char)p[-1]);
    bool after = p[2] == '\0' || isspace((unsigned char)p[2]);
    if (before && after) return p;
  }
  return NULL;
}

bool DiffMatch_parse(const char *spec, DiffMatch *m, char *err, size_t errsize) {
  memset(m, 0, sizeof *m);
  m->mode = MATCH_KEY;
  if (!spec || !spec[0]) return true;
  if (strcmp(spec, "variant") == 0) m->mode = MATCH_VARIANT;
  else if (strcmp(spec, "shape") == 0) m->mode = MATCH_SHAPE;
  else if (strcmp(spec, "key") == 0) m->mode = MATCH_KEY;
  if (m->mode != MATCH_KEY || strcmp(spec, "key") == 0) return true;
  if (strlen(spec) > 1000) {
    snprintf(err, errsize, "--match: the spec is too long");
    return false;
  }
  char *text = Util_xstrdup(spec);
  char *vs = DiffMatch_findVs(text);
  bool ok = false;
  if (!vs) {
    snprintf(err, errsize,
             "--match '%.60s': expected variant, shape, or 'SELECTOR vs SELECTOR' (e.g. 'mma "
             "block_m=64 vs mma block_m=128')", spec);
  } else {
    *vs = '\0';
    ok = DiffMatch_selector(text, &m->a, err, errsize) &&
         DiffMatch_selector(vs + 2, &m->b, err, errsize);
    m->mode = MATCH_PAIR;
  }
  free(text);
  if (!ok) m->mode = MATCH_KEY;
  return ok;
}

static void DiffMatch_describeSelector(const MatchSelector *s, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "%s", s->variant);
  for (int i = 0; i < s->nknobs && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", i ? "," : " ", s->knob[i],
                             s->value[i]);
}

void DiffMatch_describe(const DiffMatch *m, char *buf, size_t size) {
  char a[512], b[512];
  switch (m->mode) {
  case MATCH_KEY: snprintf(buf, size, "variant, knobs and shape"); return;
  case MATCH_VARIANT: snprintf(buf, size, "variant and shape (--match variant)"); return;
  case MATCH_SHAPE: snprintf(buf, size, "shape (--match shape)"); return;
  case MATCH_PAIR:
    DiffMatch_describeSelector(&m->a, a, sizeof a);
    DiffMatch_describeSelector(&m->b, b, sizeof b);
    snprintf(buf, size, "'%s' vs '%s' at the same shape", a, b);
    return;
  }
}

bool DiffMatch_selects(const MatchSelector *s, const Record *r) {
  if (strcmp(s->variant, "*") != 0 && strcmp(s->variant, r->variant) != 0) return false;
  char v[MATCH_TEXT_MAX];
  for (int i = 0; i < s->nknobs; i++)
    if (!DiffMatch_knobValue(r->knobs, s->knob[i], v, sizeof v) || strcmp(v, s->value[i]) != 0)
      return false;
  return true;
}

static bool DiffMatch_named(const DiffMatch *m, const char *knob, size_t len) {
  for (int i = 0; i < m->a.nknobs; i++)
    if (strlen(m->a.knob[i]) == len && strncmp(m->a.knob[i], knob, len) == 0) return true;
  for (int i = 0; i < m->b.nknobs; i++)
    if (strlen(m->b.knob[i]) == len && strncmp(m->b.knob[i], knob, len) == 0) return true;
  return false;
}

/* MATCH_PAIR: every knob of a that b has too and no selector names holds the same value. */
static bool DiffMatch_sameOtherKnobs(const DiffMatch *m, const Record *a, const Record *b) {
  for (const char *p = a->knobs; p && *p;) {
    const char *end = strchr(p, ',');
    const char *eq = strchr(p, '=');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (eq && eq < p + n) {
      char name[MATCH_TEXT_MAX], va[MATCH_TEXT_MAX], vb[MATCH_TEXT_MAX];
      size_t len = (size_t)(eq - p);
      if (len < sizeof name && !DiffMatch_named(m, p, len)) {
        memcpy(name, p, len);
        name[len] = '\0';
        if (DiffMatch_knobValue(a->knobs, name, va, sizeof va) &&
            DiffMatch_knobValue(b->knobs, name, vb, sizeof vb) && strcmp(va, vb) != 0)
          return false;
      }
    }
    p = end ? end + 1 : NULL;
  }
  return true;
}

static bool DiffMatch_pairs(const DiffMatch *m, const Record *a, const Record *b) {
  if (a == b || !Shape_equal(&a->shape, &b->shape)) return false;
  switch (m->mode) {
  case MATCH_KEY: return Record_sameKey(a, b);
  case MATCH_VARIANT: return strcmp(a->variant, b->variant) == 0;
  case MATCH_SHAPE: return true;
  case MATCH_PAIR:
    return DiffMatch_selects(&m->b, b) && DiffMatch_sameOtherKnobs(m, a, b);
  }
  return false;
}

static bool DiffMatch_same(double x, double y) { return x == y || (isnan(x) && isnan(y)); }

static void DiffPairs_compare(DiffPair *p, const CompareOptions *stats, double fail_above_pct) {
  const Record *a = p->a, *b = p->b;
  /* Kernel timestamps against events would show the launch latency as a change. */
  p->by_events = Record_comparableP50(a, b, &p->p50a, &p->p50b);
  p->dp50_pct = (p->p50a > 0 && !isnan(p->p50b)) ? (p->p50b - p->p50a) / p->p50a * 100.0 : NAN;
  p->drel = b->error.rel_l2 - a->error.rel_l2;
  CompareStats_records(a, b, stats, &p->cmp);
  bool lost = a->status == REC_PASS && b->status != REC_PASS;
  if (p->cmp.verdict != VERDICT_NA)
    p->changed = p->cmp.verdict != VERDICT_TIED;
  else /* no interval: the point delta against the margin */
    p->changed = !isnan(p->dp50_pct) && fabs(p->dp50_pct) > p->cmp.margin * 100 &&
                 !DiffMatch_same(p->p50a, p->p50b);
  p->changed = p->changed || a->status != b->status;
  if (isnan(fail_above_pct)) return;
  bool slower = p->cmp.verdict != VERDICT_NA ? CompareStats_above(&p->cmp, fail_above_pct)
                                             : !isnan(p->dp50_pct) && p->dp50_pct > fail_above_pct;
  p->regression = slower || lost;
}

typedef struct KeyIndex {
  const Record *r;
  int idx;
} KeyIndex;

static int DiffPairs_cmpShape(const Record *x, const Record *y) {
  const Shape *a = &x->shape, *b = &y->shape;
  const int kx[8] = {a->B, a->H, a->S, a->D, a->causal, Shape_hkv(a), Shape_skv(a), (int)a->dtype};
  const int ky[8] = {b->B, b->H, b->S, b->D, b->causal, Shape_hkv(b), Shape_skv(b), (int)b->dtype};
  for (int i = 0; i < 8; i++)
    if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
  return 0;
}

static int DiffPairs_cmpIndex(const void *p, const void *q) {
  const KeyIndex *x = p, *y = q;
  int c = DiffPairs_cmpShape(x->r, y->r);
  return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

void DiffPairs_make(DiffPairs *dp, const Session *a, const Session *b, const DiffMatch *m,
                    const CompareOptions *stats, double fail_above_pct) {
  memset(dp, 0, sizeof *dp);
  /* B's records sorted by shape (then file order): each of A's looks at its shape's run only. */
  KeyIndex *idx = Util_xcalloc((size_t)b->nrecords + 1, sizeof(KeyIndex));
  bool *used = Util_xcalloc((size_t)b->nrecords + 1, sizeof(bool));
  bool *in_a = Util_xcalloc((size_t)b->nrecords + 1, sizeof(bool));
  for (int i = 0; i < b->nrecords; i++) idx[i] = (KeyIndex){&b->records[i], i};
  qsort(idx, (size_t)b->nrecords, sizeof(KeyIndex), DiffPairs_cmpIndex);
  dp->pair = Util_xcalloc((size_t)a->nrecords + (size_t)b->nrecords + 1, sizeof(DiffPair));
  bool pair_mode = m->mode == MATCH_PAIR;
  const bool same_session = a == b;
  int nunmatched_a = 0;
  int *unmatched_a = Util_xcalloc((size_t)a->nrecords + 1, sizeof(int));
  for (int i = 0; i < a->nrecords; i++) {
    const Record *ra = &a->records[i];
    if (pair_mode && !DiffMatch_selects(&m->a, ra)) continue;
    if (same_session) in_a[i] = true; /* an A record is never also a B-only one */
    int lo = 0, hi = b->nrecords;
    while (lo < hi) { /* first entry of ra's shape */
      int mid = lo + (hi - lo) / 2;
      if (DiffPairs_cmpShape(idx[mid].r, ra) < 0) lo = mid + 1;
      else hi = mid;
    }
    int found = -1;
    for (int k = lo; k < b->nrecords && DiffPairs_cmpShape(idx[k].r, ra) == 0; k++)
      if (!used[idx[k].idx] && DiffMatch_pairs(m, ra, idx[k].r)) {
        found = k;
        break;
      }
    if (found < 0) {
      unmatched_a[nunmatched_a++] = i;
      continue;
    }
    used[idx[found].idx] = true;
    DiffPair *p = &dp->pair[dp->n++];
    p->a = ra;
    p->b = idx[found].r;
    DiffPairs_compare(p, stats, fail_above_pct);
  }
  for (int i = 0; i < nunmatched_a; i++) dp->pair[dp->n++].a = &a->records[unmatched_a[i]];
  for (int i = 0; i < b->nrecords; i++) {
    const Record *rb = &b->records[i];
    if (used[i]) continue;
    if (pair_mode && !DiffMatch_selects(&m->b, rb)) {
      if (!(same_session && in_a[i])) dp->outside++;
      continue;
    }
    if (same_session && in_a[i]) continue;
    dp->pair[dp->n++].b = rb;
  }
  if (pair_mode && !same_session)
    for (int i = 0; i < a->nrecords; i++) dp->outside += !DiffMatch_selects(&m->a, &a->records[i]);
  free(unmatched_a);
  free(in_a);
  free(idx);
  free(used);
}

void DiffPairs_free(DiffPairs *dp) {
  free(dp->pair);
  memset(dp, 0, sizeof *dp);
}
