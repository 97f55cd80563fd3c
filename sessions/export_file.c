/* A session written to a file in the format its name asks for (see export.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "sessions/export.h"

bool Export_formatForPath(const char *path, OutputFormat *out) {
  static const struct { const char *ext; OutputFormat fmt; } known[] = {
    {".json", FMT_JSON}, {".csv", FMT_CSV}, {".md", FMT_MD}, {".markdown", FMT_MD},
  };
  const char *base = strrchr(path, '/');
  const char *dot = strrchr(base ? base : path, '.');
  for (size_t i = 0; dot && i < sizeof known / sizeof known[0]; i++)
    if (strcasecmp(dot, known[i].ext) == 0) {
      *out = known[i].fmt;
      return true;
    }
  return false;
}

bool Export_toFile(const char *path, const Session *s, const Record *const *recs, int n,
                   char *err, size_t errsize) {
  OutputFormat fmt;
  if (!Export_formatForPath(path, &fmt)) {
    snprintf(err, errsize, "%.3000s: unknown extension: .json saves the session, .csv and .md "
             "export the table", path);
    return false;
  }
  if (fmt == FMT_JSON) return Session_save(s, path, err, errsize);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    snprintf(err, errsize, "cannot export %.3000s: out of memory", path);
    return false;
  }
  Export_session(f, fmt, s, recs, n, true); /* a file: every metric */
  bool ok = fclose(f) == 0;
  if (!ok) snprintf(err, errsize, "cannot export %.3000s: out of memory", path);
  else ok = Util_writeFileAtomic(path, text, len, err, errsize);
  free(text);
  return ok;
}
