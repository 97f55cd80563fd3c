/* ~ and $VAR in typed paths (common/expand.c) and the export format a file name asks for. */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/expand.h"
#include "sessions/export.h"
#include "tests/unit/check.h"

static bool Is(const char *in, const char *want) {
  char out[256], err[256] = "";
  bool ok = Expand_path(in, out, sizeof out, err, sizeof err);
  if (!ok || strcmp(out, want) != 0) fprintf(stderr, "'%s' -> '%s' (%s)\n", in, ok ? out : "", err);
  return ok && strcmp(out, want) == 0;
}

static bool Refused(const char *in, const char *says, size_t size) {
  char out[256], err[256] = "";
  bool ok = Expand_path(in, out, size, err, sizeof err);
  if (ok || !strstr(err, says)) fprintf(stderr, "'%s': '%s'\n", in, err);
  return !ok && strstr(err, says) != NULL;
}

int main(void) {
  setenv("HOME", "/home/tester", 1);
  setenv("OUT", "/data/out dir", 1);
  setenv("EMPTY", "", 1);
  unsetenv("NOT_SET_ANYWHERE");
  CHECK(Is("~", "/home/tester"));
  CHECK(Is("~/a.csv", "/home/tester/a.csv"));
  CHECK(Is("a~b/~c", "a~b/~c"));               /* only a leading ~ */
  CHECK(Is("$OUT/x.md", "/data/out dir/x.md")); /* spaces stay one path */
  CHECK(Is("${OUT}x.md", "/data/out dirx.md"));
  CHECK(Is("pre$EMPTY.json", "pre.json"));
  CHECK(Is("cost$", "cost$"));
  CHECK(Is("$5.json", "$5.json"));
  CHECK(Is("\\$OUT/\\~", "$OUT/~"));
  CHECK(Is("$(rm -rf x)", "$(rm -rf x)"));   /* no commands */
  CHECK(Is("*.json", "*.json"));             /* no globs */
  struct passwd *pw = getpwuid(getuid());
  if (pw && pw->pw_name && pw->pw_dir) {
    char in[300], want[300];
    snprintf(in, sizeof in, "~%s/s.json", pw->pw_name);
    snprintf(want, sizeof want, "%s/s.json", pw->pw_dir);
    CHECK(Is(in, want));
  }
  CHECK(Refused("$NOT_SET_ANYWHERE/a.json", "$NOT_SET_ANYWHERE is not set", 256));
  CHECK(Refused("${OUT", "closing brace", 256));
  CHECK(Refused("~no_such_user_hopefully/a", "~no_such_user_hopefully: no such user", 256));
  CHECK(Refused("~\x1b[2J/a", "not a user name", 256));
  CHECK(Refused("$OUT/$OUT/$OUT", "longer than 15 bytes", 16));
  /* The user and variable names' own buffers (256 bytes) refuse a longer name, never cut it. */
  char longname[400];
  memset(longname, 'u', sizeof longname);
  longname[0] = '~';
  longname[sizeof longname - 1] = '\0';
  CHECK(Refused(longname, "no user", 256));
  longname[0] = '$';
  CHECK(Refused(longname, "a variable name longer than 255", 256));
  unsetenv("HOME");
  if (!pw || !pw->pw_dir || !pw->pw_dir[0]) CHECK(Refused("~/a", "no home", 256));

  OutputFormat f;
  CHECK(Export_formatForPath("a/b.CSV", &f) && f == FMT_CSV);
  CHECK(Export_formatForPath("x.md", &f) && f == FMT_MD);
  CHECK(Export_formatForPath("x.json", &f) && f == FMT_JSON);
  CHECK(!Export_formatForPath("x.txt", &f));
  CHECK(!Export_formatForPath("dir.csv/x", &f));
  CHECK(!Export_formatForPath("csv", &f));
  return Check_done("expand");
}
