/* Shard sessions into one (see merge.h). The checks run in order of what they make
 * meaningless: schema and plan first (records of different plans cannot be compared), then
 * which shards are there, then each shard's records. */
#include "sessions/merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/util.h"

void MergeReport_add(MergeReport *r, bool problem, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  Text_vformat(line, sizeof line, fmt, ap); /* file names and device names come from outside */
  va_end(ap);
  char ***list = problem ? &r->problems : &r->notes;
  int *n = problem ? &r->nproblems : &r->nnotes;
  *list = Util_xrealloc(*list, sizeof(char *) * (size_t)(*n + 1));
  (*list)[(*n)++] = Util_xstrdup(line);
}

void MergeReport_free(MergeReport *r) {
  for (int i = 0; i < r->nproblems; i++) free(r->problems[i]);
  for (int i = 0; i < r->nnotes; i++) free(r->notes[i]);
  free(r->problems);
  free(r->notes);
  memset(r, 0, sizeof *r);
}

static bool Merge_samePlan(const Session *a, const Session *b) {
  return a->shard.plan_size == b->shard.plan_size &&
         strcmp(a->shard.plan_hash, b->shard.plan_hash) == 0;
}

/* Schema, shard fields, one plan, each shard once. Returns the first shard (the reference). */
static int Merge_checkShards(const Session *sh, const char *const *names, int n, int *owner,
                             MergeReport *rep) {
  for (int i = 1; i < n; i++)
    if (sh[i].schema_version != sh[0].schema_version) {
      MergeReport_add(rep, true, "%s is benchtop.session/%d but %s is benchtop.session/%d: merge "
                      "shards written by one benchtop version (run the older shards again)",
                      names[i], sh[i].schema_version, names[0], sh[0].schema_version);
      return -1;
    }
  /* The reference is the plan most files share: the odd file out is the one named. */
  int ref = -1, ref_votes = 0;
  for (int i = 0; i < n; i++) {
    if (sh[i].shard.spec.count == 0) {
      MergeReport_add(rep, true, "%s is not a shard session (no \"shard\" field): write shards "
                      "with benchtop run --shard I/N", names[i]);
      continue;
    }
    int votes = 0;
    for (int j = 0; j < n; j++)
      votes += sh[j].shard.spec.count == sh[i].shard.spec.count && Merge_samePlan(&sh[i], &sh[j]);
    if (votes > ref_votes) {
      ref = i;
      ref_votes = votes;
    }
  }
  if (ref < 0) return -1;
  const ShardInfo *r = &sh[ref].shard;
  for (int i = 0; i < n; i++) {
    const ShardInfo *s = &sh[i].shard;
    if (s->spec.count == 0 || i == ref) continue;
    if (s->spec.count != r->spec.count) {
      MergeReport_add(rep, true, "%s is shard %d/%d but %s is shard %d/%d: the shards of one "
                      "plan share their N", names[i], s->spec.index, s->spec.count, names[ref],
                      r->spec.index, r->spec.count);
    } else if (!Merge_samePlan(&sh[i], &sh[ref])) {
      char where[256] = "";
      char why[400];
      if (!Plan_equal(&sh[i].plan, &sh[ref].plan, "plan", where, sizeof where))
        snprintf(why, sizeof why, "%s differs", where);
      else
        snprintf(why, sizeof why, "the same command line expanded to other entries: benchtop "
                 "%s vs %s?", sh[i].version, sh[ref].version);
      MergeReport_add(rep, true, "%s (shard %d/%d) comes from another plan than %s (plan %s of "
                      "%d entries vs %s of %d; %s)", names[i], s->spec.index, s->spec.count,
                      names[ref], s->plan_hash, s->plan_size, r->plan_hash, r->plan_size, why);
    }
  }
  if (rep->nproblems > 0) return -1;
  for (int i = 0; i < n; i++) {
    if (sh[i].shard.spec.count == 0) continue;
    int idx = sh[i].shard.spec.index - 1;
    if (owner[idx] >= 0)
      MergeReport_add(rep, true, "%s and %s are both shard %d/%d (overlapping shards: give each "
                      "shard once)", names[owner[idx]], names[i], idx + 1, r->spec.count);
    else owner[idx] = i;
  }
  return rep->nproblems > 0 ? -1 : ref;
}

/* Every record of shard file i answers an entry of its slice, once, and finished; the slice
 * is whole. The first problem of a file is said (the rest follow from it). */
static void Merge_checkRecords(const Session *s, int file, const char *name, const Record **slot,
                               int *src, MergeReport *rep) {
  const ShardInfo *sh = &s->shard;
  int good = 0;
  for (int k = 0; k < s->nrecords; k++) {
    const Record *rec = &s->records[k];
    int pi = rec->plan_index;
    char what[80];
    snprintf(what, sizeof what, "%s: records[%d] (%.32s)", name, k, rec->variant);
    if (pi < 0) {
      MergeReport_add(rep, true, "%s has no plan_index: not written by benchtop run --shard",
                      what);
      return;
    }
    if (pi >= sh->plan_size) {
      MergeReport_add(rep, true, "%s is plan entry %d, past the plan's %d entries", what, pi,
                      sh->plan_size);
      return;
    }
    if (!Shard_owns(&sh->spec, pi)) {
      MergeReport_add(rep, true, "%s is plan entry %d, which belongs to shard %d/%d, not %d/%d",
                      what, pi, pi % sh->spec.count + 1, sh->spec.count, sh->spec.index,
                      sh->spec.count);
      return;
    }
    if (slot[pi]) {
      MergeReport_add(rep, true, "%s repeats plan entry %d (a record twice in one shard)", what,
                      pi);
      return;
    }
    if (rec->status == REC_CANCELLED) {
      MergeReport_add(rep, true, "%s was cancelled: the job was stopped; run shard %d/%d again",
                      what, sh->spec.index, sh->spec.count);
      return;
    }
    slot[pi] = rec;
    src[pi] = file;
    good++;
  }
  int want = Shard_size(&sh->spec, sh->plan_size);
  if (good != want)
    MergeReport_add(rep, true, "%s (shard %d/%d) holds %d of its %d records: the job stopped "
                    "early (killed, timed out or interrupted); run shard %d/%d again", name,
                    sh->spec.index, sh->spec.count, good, want, sh->spec.index, sh->spec.count);
}

/* "3/4, 4/4" (the first few, then how many more) */
static void Merge_missing(const int *owner, const ShardInfo *ref, MergeReport *rep) {
  char list[512] = "";
  int nmissing = 0, entries = 0;
  for (int i = 0; i < ref->spec.count; i++) {
    if (owner[i] >= 0) continue;
    ShardSpec sp = {i + 1, ref->spec.count};
    entries += Shard_size(&sp, ref->plan_size);
    if (nmissing++ < 8) {
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%d/%d", len ? ", " : "", i + 1, ref->spec.count);
    } else if (nmissing == 9) {
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, ", ...");
    }
  }
  if (nmissing > 0)
    MergeReport_add(rep, true, "%s %s missing (%d of the plan's %d entries): no file given "
                    "holds %s", nmissing == 1 ? "shard" : "shards", list, entries,
                    ref->plan_size, nmissing == 1 ? "it" : "them");
}

/* host names joined with ", " into buf, "... (+N)" when they do not fit. */
static void Merge_addHost(char *buf, size_t size, const char *host, int *nhosts, int *dropped) {
  if (!host[0]) return;
  size_t hl = strlen(host), len = strlen(buf);
  for (const char *p = buf; (p = strstr(p, host)) != NULL; p += hl)
    if ((p == buf || p[-1] == ' ') && (p[hl] == ',' || p[hl] == '\0')) return;
  (*nhosts)++;
  if (len + hl + 2 + 12 < size) snprintf(buf + len, size - len, "%s%s", len ? ", " : "", host);
  else (*dropped)++;
}

/* Kinds of GPU the records ran on, said when there is more than one; returns how many. */
static int Merge_deviceNote(const Session *out, MergeReport *rep) {
  enum { KINDS_MAX = 8 };
  const DeviceInfo *kind[KINDS_MAX];
  int count[KINDS_MAX], nkinds = 0, more = 0;
  for (int k = 0; k < out->nrecords; k++) {
    const DeviceInfo *d = &out->records[k].device;
    if (!d->name[0]) continue;
    int j = 0;
    while (j < nkinds && !(strcmp(kind[j]->name, d->name) == 0 &&
                           kind[j]->cc_major == d->cc_major && kind[j]->cc_minor == d->cc_minor))
      j++;
    if (j == nkinds) {
      if (nkinds == KINDS_MAX) {
        more++;
        continue;
      }
      kind[nkinds] = d;
      count[nkinds++] = 0;
    }
    count[j]++;
  }
  if (nkinds < 2) return nkinds;
  char list[640] = "";
  for (int j = 0; j < nkinds; j++) {
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%d on %.60s (sm_%d%d)", j ? ", " : "", count[j],
             kind[j]->name, kind[j]->cc_major, kind[j]->cc_minor);
  }
  MergeReport_add(rep, false, "the records ran on %d kinds of GPU%s: %s; compare timings "
                  "within one kind", nkinds + more, more ? " (and more)" : "", list);
  return nkinds + more;
}

bool Merge_shards(const Session *sh, const char *const *names, int n, Session *out,
                  MergeReport *rep) {
  if (n <= 0) {
    MergeReport_add(rep, true, "no shard files given");
    return false;
  }
  int count = 0;
  for (int i = 0; i < n; i++)
    if (sh[i].shard.spec.count > count) count = sh[i].shard.spec.count;
  int *owner = Util_xmalloc(sizeof(int) * (size_t)(count > 0 ? count : 1));
  for (int i = 0; i < count; i++) owner[i] = -1;
  int ref = Merge_checkShards(sh, names, n, owner, rep);
  const Record **slot = NULL;
  int *src = NULL;
  if (ref >= 0) {
    const ShardInfo *r = &sh[ref].shard;
    size_t size = (size_t)(r->plan_size > 0 ? r->plan_size : 1);
    slot = Util_xcalloc(size, sizeof *slot);
    src = Util_xcalloc(size, sizeof *src);
    for (int i = 0; i < n; i++) Merge_checkRecords(&sh[i], i, names[i], slot, src, rep);
    Merge_missing(owner, r, rep);
  }
  bool ok = ref >= 0 && rep->nproblems == 0;
  if (ok) {
    const Session *r = &sh[ref];
    Session_init(out);
    Util_strlcpy(out->version, r->version, sizeof out->version);
    Util_strlcpy(out->revision, r->revision, sizeof out->revision);
    Plan_free(&out->plan);
    Plan_copy(&out->plan, &r->plan);
    out->host[0] = '\0';
    int nhosts = 0, dropped = 0;
    for (int k = 0; k < r->shard.plan_size; k++) {
      const Session *from = &sh[src[k]];
      Session_add(out, slot[k]);
      Record *copy = &out->records[out->nrecords - 1];
      if (!copy->host[0]) Util_strlcpy(copy->host, from->host, sizeof copy->host);
      if (!copy->device.name[0] && from->has_device) copy->device = from->device;
      Merge_addHost(out->host, sizeof out->host, copy->host, &nhosts, &dropped);
    }
    if (dropped > 0) {
      size_t len = strlen(out->host);
      snprintf(out->host + len, sizeof out->host - len, ", ... (+%d)", dropped);
    }
    bool one_kind = Merge_deviceNote(out, rep) <= 1;
    for (int i = 0; i < n && one_kind; i++)
      one_kind = sh[i].has_device && strcmp(sh[i].device.name, r->device.name) == 0;
    out->has_device = one_kind;
    if (one_kind) out->device = r->device;
    if (nhosts > 1)
      MergeReport_add(rep, false, "%d records from %d hosts (%s); each record keeps its host",
                      out->nrecords, nhosts, out->host);
  }
  free(slot);
  free(src);
  free(owner);
  return ok;
}
