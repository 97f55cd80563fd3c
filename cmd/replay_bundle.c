/* `benchtop replay BUNDLE`'s own steps around the replay of a session (cmd/bundle.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/bundle.h"
#include "common/text.h"

void ReplayBundle_keepBundled(Plan *p, const BundleOpened *b, const char *name) {
  for (int i = p->nvariants - 1; i >= 0; i--) {
    if (Bundle_hashOf(b, p->variants[i].name)) continue;
    fprintf(stderr, "benchtop replay: ");
    Text_print(stderr, name);
    fprintf(stderr, " holds no source for variant ");
    Text_print(stderr, p->variants[i].name);
    fprintf(stderr, "%s: not replayed\n", b->partial ? " (left out of this partial bundle)" : "");
    Plan_removeVariant(p, i);
  }
}

bool ReplayBundle_checkSources(FILE *out, const BundleOpened *b, const Session *now) {
  int same = 0, other = 0;
  for (int i = 0; i < now->nrecords; i++) {
    const Record *r = &now->records[i];
    const char *want = Bundle_hashOf(b, r->variant);
    if (!r->build.source_hash[0] || !want) continue;
    if (strcmp(want, r->build.source_hash) == 0) {
      same++;
      continue;
    }
    other++;
    fprintf(stderr, "benchtop replay: records[%d] ", i);
    Text_print(stderr, r->variant);
    fprintf(stderr, " ran source hash ");
    Text_print(stderr, r->build.source_hash);
    fprintf(stderr, ", not the bundle's %s\n", want);
  }
  fprintf(out, "sources: %d record(s) ran the bundle's kernel sources (hash as recorded)", same);
  if (other) fprintf(out, ", %d did not", other);
  fprintf(out, "\n");
  return other == 0;
}

static void ReplayBundle_device(FILE *out, const Session *s) {
  const DeviceInfo *d = s->has_device ? &s->device : s->nrecords ? &s->records[0].device : NULL;
  if (!d || !d->name[0]) {
    fprintf(out, "an unrecorded device");
  } else {
    Text_print(out, d->name);
    if (d->uuid[0]) {
      fprintf(out, " (");
      Text_print(out, d->uuid);
      fprintf(out, ")");
    }
  }
  fprintf(out, " at ");
  Text_print(out, s->host[0] ? s->host : "an unrecorded host");
}

void ReplayBundle_devices(FILE *out, const Session *old, const Session *now) {
  fprintf(out, "recorded on ");
  ReplayBundle_device(out, old);
  fprintf(out, "; replayed on ");
  ReplayBundle_device(out, now);
  fprintf(out, "\n");
}
