/* The bundle's archive (a gzip'd tar, through libarchive): written atomically beside its target,
 * read back into a private directory with every member checked first. A build without libarchive
 * has these functions too: they fail, saying why. */
#ifndef BENCHTOP_BUNDLE_ARCHIVE_H
#define BENCHTOP_BUNDLE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>

/* Every member sits under this folder in the archive, so unpacking it by hand makes one folder. */
#define BUNDLE_TOP "bundle/"
#define BUNDLE_MEMBERS_MAX 512              /* more members: refused */
#define BUNDLE_MEMBER_MAX (256u << 20)      /* one member's bytes (the session's bound) */
#define BUNDLE_TOTAL_MAX (512u << 20)       /* all members' bytes together */

typedef struct BundleMember {
  const char *name; /* relative to BUNDLE_TOP: "session.json", "kernels/user/mine/mine.cu" */
  const char *data;
  size_t len;
} BundleMember;

/* Whether this build can write and read bundles; false with why in err. */
bool BundleArchive_available(char *err, size_t errsize);
/* Writes the members to path: a temporary file beside it (O_EXCL), then a rename. An existing
 * path that is not a regular file (a link, a FIFO, a device, a directory) is refused; a regular
 * one only with replace. One line in err. */
bool BundleArchive_write(const char *path, const BundleMember *m, int n, bool replace, char *err,
                         size_t errsize);
/* Whether a member name is one the bundle layout allows (see bundle_archive.c). */
bool BundleArchive_validName(const char *name);
/* Unpacks path into dir (which must exist, empty, private): every member must be a regular file
 * (or a folder) under BUNDLE_TOP with a name BundleArchive_validName accepts and within the
 * bounds above; anything else (a link, an absolute path, "..", a device, a huge member) is
 * refused with one line naming it, and what was written is removed by the caller's cleanup. */
bool BundleArchive_extract(const char *path, const char *dir, char *err, size_t errsize);
/* True when the file starts like a gzip stream or a tar (a bundle, not a session's JSON). */
bool BundleArchive_looksLike(const char *path);
/* Removes dir and what BundleArchive_extract put in it (the layout's files and folders only). */
void BundleArchive_removeTree(const char *dir);

#endif
