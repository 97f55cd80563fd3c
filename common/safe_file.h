/* Every file benchtop opens by a name it was given, or creates, goes through here.
 *
 * Reading: the name must be a regular file (a FIFO, a directory or a device is a one-line
 * error, never a hang: opened non-blocking and checked before a byte is read), within a size.
 *
 * Writing (SafeFile): the new content goes to a fresh temporary file beside the target (random
 * name, O_EXCL, so a planted file or link there is never followed), is flushed, and replaces the
 * target by rename: a reader sees the old file or the new one, never half. The target must be a
 * regular file or not exist: a symbolic link, a device (/dev/null), a FIFO or a directory is
 * refused, never replaced. The file's mode is kept (a 0600 file stays 0600). While claimed, the
 * target is held with an exclusive lock (flock on its current inode, passed on to each new
 * inode before it replaces the old one), so two benchtop processes never write one file at
 * once: the second is refused with a message. A file changed by someone else since it was
 * claimed is not replaced.
 *
 * Logs: appended to, never through a symbolic link, created 0600, regular files only. */
#ifndef BENCHTOP_SAFE_FILE_H
#define BENCHTOP_SAFE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* True when path is a regular file (not followed if a link) or does not exist; else false with
 * one line in err ("PATH: is a FIFO, not a regular file"). */
bool SafeFile_regularOrAbsent(const char *path, char *err, size_t errsize);
/* A file descriptor for reading path, or -1 with one line in err ("PATH: is a FIFO, not a
 * regular file"). max_bytes: a larger file is refused (0: no bound). */
int SafeFile_openRead(const char *path, size_t max_bytes, char *err, size_t errsize);
/* The whole file, NUL-terminated, on the heap; NULL with one line in err. */
char *SafeFile_read(const char *path, size_t max_bytes, size_t *len_out, char *err, size_t errsize);
/* Reads what fd holds from its start (at most max_bytes: more is EFBIG). */
char *SafeFile_readFd(int fd, size_t max_bytes, size_t *len_out);
/* A log file to append to (created 0600 when missing), or -1 with one line in err. */
int SafeFile_openLog(const char *path, char *err, size_t errsize);

typedef struct SafeFile {
  char path[4096];
  int fd;          /* the claimed file's current inode, locked; -1 while it does not exist */
  bool claimed;
  bool created;    /* this process created the file (SafeFile_discard may remove it) */
  mode_t mode;     /* for the next version */
  uid_t uid;       /* the owner, kept when root rewrites the file */
  gid_t gid;
  dev_t dev;
  ino_t ino;
} SafeFile;

/* Claims path for writing: checks what is there now, locks it. The file need not exist (its
 * directory must). False with one line in err (the file is not claimed). */
bool SafeFile_claim(SafeFile *f, const char *path, char *err, size_t errsize);
/* True when the claimed path exists (its content is SafeFile_content's). */
bool SafeFile_exists(const SafeFile *f);
/* The claimed file's content (at most max_bytes), NUL-terminated, on the heap. */
char *SafeFile_content(const SafeFile *f, size_t max_bytes, size_t *len_out, char *err,
                       size_t errsize);
/* Writes data as the file's new version (atomically, see above). */
bool SafeFile_replace(SafeFile *f, const char *data, size_t len, char *err, size_t errsize);
/* Whether a new version could be written (a file can be created beside it), writing nothing. */
bool SafeFile_probe(const SafeFile *f, char *err, size_t errsize);
/* Removes the file if this process created it and nothing replaced it since; releases it. */
void SafeFile_discard(SafeFile *f);
/* Lets go of the lock (the file stays). */
void SafeFile_release(SafeFile *f);
/* True when a and b name the same file (after following links), false when either does not
 * exist. */
bool SafeFile_same(const char *a, const char *b);

#endif
