/* benchtop bundle: a session with the exact source of every kernel its records ran, a manifest
 * and a README, in one archive that `benchtop replay` runs anywhere (cmd/bundle.h). No GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/bundle.h"
#include "cmd/bundle_archive.h"
#include "cmd/commands.h"
#include "common/safe_file.h"
#include "common/text.h"
#include "common/util.h"

enum { BUNDLE_OUTPUT, BUNDLE_PARTIAL, BUNDLE_FORCE, BUNDLE_NOPTS };

static const CommandOption bundle_options[] = {
  [BUNDLE_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "FILE",
                     .help = "the archive to write (default: benchtop-bundle-REVISION-TIME.tar.gz here)",
                     .complete = CMD_COMPLETE_FILE},
  [BUNDLE_PARTIAL] = {.name = "partial", .value = CMD_FLAG,
                      .help = "leave out the records whose kernel source cannot be found as it ran "
                              "(the manifest says which) instead of failing"},
  [BUNDLE_FORCE] = {.name = "force", .value = CMD_FLAG, .help = "replace an existing archive file"},
};

static const CommandArg bundle_args[] = {
  {"SESSION.json", "the session to bundle (only read)", NULL, CMD_COMPLETE_SESSION, 0},
};

/* "benchtop-bundle-<revision>-<UTC time>.tar.gz": named by commit and time. */
static void Bundle_defaultName(const Session *s, char *buf, size_t size) {
  char rev[40], when[32];
  Util_strlcpy(rev, s->revision[0] ? s->revision : "unknown", sizeof rev);
  for (char *p = rev; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
      *p = '_';
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
  snprintf(buf, size, "benchtop-bundle-%s-%s.tar.gz", rev, when);
}

static int Bundle_exec(const CommandArgs *a) {
  char err[1024];
  if (!BundleArchive_available(err, sizeof err)) {
    fprintf(stderr, "benchtop bundle: %s\n", err);
    return BT_EXIT_FAILED;
  }
  const char *in = a->pos[0];
  bool partial = CommandArgs_has(a, BUNDLE_PARTIAL);
  const char *out = CommandArgs_text(a, BUNDLE_OUTPUT, NULL);
  if (out && !out[0]) return Command_usageError(&Cmd_bundle, "-o needs a file name");
  if (out && SafeFile_same(out, in)) return Command_usageError(&Cmd_bundle, "-o names the session itself");
  size_t len = 0;
  char *raw = SafeFile_read(in, SESSION_MAX_BYTES, &len, err, sizeof err);
  Session s;
  if (!raw || !Session_parse(raw, len, in, &s, err, sizeof err)) {
    fprintf(stderr, "benchtop bundle: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    free(raw);
    return BT_EXIT_FAILED;
  }
  char name[600];
  if (out) Util_strlcpy(name, out, sizeof name);
  else Bundle_defaultName(&s, name, sizeof name);
  BundleContents c;
  int rc = BT_EXIT_OK;
  if (!Bundle_collect(&s, &c, err, sizeof err)) {
    fprintf(stderr, "benchtop bundle: a shared header cannot be read: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    rc = BT_EXIT_FAILED;
    goto done;
  }
  for (int i = 0; i < c.nleft; i++) {
    fprintf(stderr, "benchtop bundle: %s", partial ? "left out: " : "");
    Text_print(stderr, c.left[i].why);
    fputc('\n', stderr);
  }
  if (c.nleft > 0 && !partial) {
    fprintf(stderr, "benchtop bundle: %d record(s) cannot be bundled with the source they ran: nothing "
            "written (--partial leaves them out)\n", c.nleft);
    rc = BT_EXIT_FAILED;
    goto done;
  }
  const char *base = strrchr(in, '/');
  base = base ? base + 1 : in;
  char *manifest = Bundle_manifest(&s, base, name, &c, partial);
  char *readme = Bundle_readme(&s, name, &c, partial);
  int nm = 0;
  BundleMember *m = Util_xcalloc((size_t)(3 + JIT_HEADERS + c.nkernels), sizeof *m);
  m[nm++] = (BundleMember){"README.md", readme, strlen(readme)};
  m[nm++] = (BundleMember){"manifest.json", manifest, strlen(manifest)};
  m[nm++] = (BundleMember){"session.json", raw, len};
  char hdr_names[JIT_HEADERS][64];
  for (int h = 0; h < JIT_HEADERS; h++) {
    snprintf(hdr_names[h], sizeof hdr_names[h], "kernels/builtin/%s", Jit_headerNames[h]);
    m[nm++] = (BundleMember){hdr_names[h], c.headers[h], strlen(c.headers[h])};
  }
  for (int k = 0; k < c.nkernels; k++)
    m[nm++] = (BundleMember){c.kernels[k].member, c.kernels[k].text, strlen(c.kernels[k].text)};
  if (!BundleArchive_write(name, m, nm, CommandArgs_has(a, BUNDLE_FORCE), err, sizeof err)) {
    fprintf(stderr, "benchtop bundle: ");
    Text_print(stderr, err);
    fputc('\n', stderr);
    rc = BT_EXIT_FAILED;
  } else {
    printf("bundled %d record(s), %d kernel source(s)%s into ", s.nrecords - c.nleft, c.nkernels,
           c.nleft ? " (partial: see manifest.json)" : "");
    Text_print(stdout, name);
    printf("\nreplay: benchtop replay ");
    Text_print(stdout, name);
    printf("\n");
  }
  free(m);
  free(manifest);
  free(readme);
done:
  Bundle_free(&c);
  Session_free(&s);
  free(raw);
  return rc;
}

const Command Cmd_bundle = {
  .name = "bundle",
  .summary = "pack a session with the exact source of its kernels into one archive to replay anywhere",
  .description = "Writes one archive (a gzip'd tar) holding the session, the source text of every "
                 "kernel its records ran (built-in and user kernels, with the shared headers, each "
                 "matched by its recorded source hash), a manifest (benchtop revision, toolkit, "
                 "NVRTC, CUPTI, driver, GPU name, UUID, clocks, host, date) and a README with the "
                 "command that replays it: benchtop replay FILE. A record whose source cannot be "
                 "found, or whose file changed since it ran, is named and nothing is written "
                 "(exit 1); --partial leaves such records out and says so in the manifest. The "
                 "archive is written beside its name and renamed into place; an existing file is "
                 "replaced only with --force, and never one that is not a regular file.",
  .options = bundle_options, .noptions = BUNDLE_NOPTS,
  .args = bundle_args, .nargs = CMD_COUNT(bundle_args),
  .exec = Bundle_exec,
};
