/* A session's repro bundle (`benchtop bundle`, `benchtop replay BUNDLE`): the session, the exact
 * source text of every kernel its records ran (matched by source hash: the .cu with the shared
 * headers NVRTC may include, kernels/jit_source.h), a manifest and a README. The archive itself
 * is cmd/bundle_archive.h's. */
#ifndef BENCHTOP_BUNDLE_H
#define BENCHTOP_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernels/jit_source.h"
#include "sessions/session.h"

typedef struct BundleKernel {
  char variant[RECORD_NAME_MAX];
  bool builtin;          /* replayed through BENCHTOP_KERNEL_DIR; else a user kernel's folder */
  char member[300];      /* its name in the archive */
  char source_path[512]; /* as the records say (the file it came from) */
  char hash[20];
  char *text;            /* owned */
  int nrecords;
} BundleKernel;

typedef struct BundleLeftOut {
  int record;            /* index in the session */
  char why[700];         /* "records[3] mine 2x8x512x64: ..." */
} BundleLeftOut;

typedef struct BundleContents {
  int nkernels, nleft;
  BundleKernel *kernels;
  BundleLeftOut *left;   /* records whose source could not be found as it ran */
  char *headers[JIT_HEADERS]; /* the shared headers the hashes include; owned */
} BundleContents;

/* Finds the source of every record that ran a kernel: the file its record names, else the
 * variant of that name on the kernel path (BENCHTOP_KERNEL_DIR's or the embedded copy for a
 * built-in), taken only when its hash (with today's headers) is the recorded one. The records
 * whose source is gone or changed are in c->left. False only when a header cannot be read. */
bool Bundle_collect(const Session *s, BundleContents *c, char *err, size_t errsize);
void Bundle_free(BundleContents *c);
/* The manifest (JSON) and the README, heap strings. */
char *Bundle_manifest(const Session *s, const char *session_file, const char *archive,
                      const BundleContents *c, bool partial);
char *Bundle_readme(const Session *s, const char *archive, const BundleContents *c, bool partial);

/* A bundle unpacked for replay: its private folder, its session, and its kernels. */
typedef struct BundleOpened {
  char dir[4096];
  char session_path[4200];
  int nkernels;
  BundleKernel *kernels; /* text NULL: variant, member, hash only */
  bool partial;
} BundleOpened;

/* Unpacks path into a new private folder under $TMPDIR, checks the manifest and that every
 * kernel's text still has its recorded hash, and points this process's kernel path at the
 * bundle alone (BENCHTOP_KERNEL_DIR for the built-ins and headers, BENCHTOP_KERNEL_PATH for the
 * user kernels, no user configuration folder): the worker started afterwards inherits it. */
bool Bundle_open(const char *path, BundleOpened *b, char *err, size_t errsize);
/* The bundle's hash of a variant, or NULL when it holds none. */
const char *Bundle_hashOf(const BundleOpened *b, const char *variant);
/* Removes the folder. */
void Bundle_close(BundleOpened *b);

/* replay's side (cmd/replay_bundle.c). Drops from p the variants the bundle holds no source
 * for (left out of a partial bundle, or never run), saying so on stderr. */
void ReplayBundle_keepBundled(Plan *p, const BundleOpened *b, const char *name);
/* Whether every new record that compiled a kernel ran the bundle's source (its hash); says on
 * out how many did, and on stderr each that did not. */
bool ReplayBundle_checkSources(FILE *out, const BundleOpened *b, const Session *now);
/* "recorded on GPU (UUID) at HOST; replayed on ...": which device each side ran on. */
void ReplayBundle_devices(FILE *out, const Session *old, const Session *now);

#endif
