/* The bundled examples were recorded by the kernels of this tree: every record's
 * build.source_hash equals the hash of the source its variant would be compiled from now
 * (kernel file and shared headers, Jit_sourceHash). A kernel edit without re-recording the
 * examples on a GPU (tools/record-examples.sh) fails here, so the README's screens and the
 * shipped sessions never show numbers of code that is gone. Skipped (77) while there are none. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/jit.h"
#include "kernels/registry.h"
#include "sessions/session.h"

static int check_one(const char *path) {
  Session s;
  char err[1024];
  if (!Session_load(path, &s, err, sizeof err)) {
    fprintf(stderr, "FAIL load: %s\n", err);
    return 1;
  }
  int stale = 0, checked = 0;
  for (int i = 0; i < s.nrecords; i++) {
    const Record *r = &s.records[i];
    const Variant *v = Registry_find(r->variant);
    char now[32];
    if (!v) {
      fprintf(stderr, "FAIL %s: record %d names variant '%s', which this tree does not have\n",
              path, i, r->variant);
      stale++;
      continue;
    }
    if (!Jit_sourceHash(v, now, sizeof now)) continue; /* no source to compile (none today) */
    /* Refused before anything was built (decode at a shape it does not take): no source ran. */
    if (r->status == REC_NA && !r->build.source_hash[0]) continue;
    checked++;
    if (strcmp(now, r->build.source_hash) != 0) {
      char shape[64];
      Shape_format(&r->shape, shape, sizeof shape);
      fprintf(stderr, "FAIL %s: record %d (%s at %s) was recorded by kernel source %s, this "
              "tree's is %s: re-record the examples on a GPU with tools/record-examples.sh\n",
              path, i, r->variant, shape, r->build.source_hash[0] ? r->build.source_hash : "(none)",
              now);
      stale++;
    }
  }
  printf("%s: %d records, %d with a kernel source, %d stale; recorded on %s, %s\n", path,
         s.nrecords, checked, stale, s.has_device ? s.device.name : "(no device)", s.created);
  if (checked == 0) {
    fprintf(stderr, "FAIL %s: no record names a kernel source to check\n", path);
    stale++;
  }
  Session_free(&s);
  return stale;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "sessions/examples";
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "examples_fresh: cannot open %s\n", dir);
    return 1;
  }
  int files = 0, bad = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    files++;
    bad += check_one(path);
  }
  closedir(d);
  if (files == 0) return 77;
  printf("examples_fresh: %d files, %d stale records\n", files, bad);
  return bad ? 1 : 0;
}
