#include "common/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

static const char *SafeFile_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

static void SafeFile_notRegular(const char *path, mode_t m, char *err, size_t errsize) {
  const char *kind = SafeFile_kind(m);
  if (strcmp(kind, "not a regular file") == 0) snprintf(err, errsize, "%s: not a regular file", path);
  else snprintf(err, errsize, "%s: is %s, not a regular file", path, kind);
}

bool SafeFile_regularOrAbsent(const char *path, char *err, size_t errsize) {
  struct stat st;
  if (lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return true;
  SafeFile_notRegular(path, st.st_mode, err, errsize);
  return false;
}

int SafeFile_openRead(const char *path, size_t max_bytes, char *err, size_t errsize) {
  /* Non-blocking: opening a FIFO for reading would otherwise wait for a writer for ever. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    if (fstat(fd, &st) == 0) SafeFile_notRegular(path, st.st_mode, err, errsize);
    else snprintf(err, errsize, "%s: cannot inspect: %s", path, strerror(e));
    close(fd);
    errno = EINVAL;
    return -1;
  }
  if (max_bytes && (uintmax_t)st.st_size > max_bytes) {
    snprintf(err, errsize, "%s: %jd bytes, more than the %zu allowed", path, (intmax_t)st.st_size,
             max_bytes);
    close(fd);
    errno = EFBIG;
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

char *SafeFile_readFd(int fd, size_t max_bytes, size_t *len_out) {
  size_t cap = 1 << 16, len = 0;
  char *buf = Util_xmalloc(cap + 1);
  for (;;) {
    if (len == cap) {
      if (max_bytes && len >= max_bytes) {
        char c;
        ssize_t more = pread(fd, &c, 1, (off_t)len);
        if (more > 0) {
          free(buf);
          errno = EFBIG;
          return NULL;
        }
        break;
      }
      cap *= 2;
      if (max_bytes && cap > max_bytes) cap = max_bytes;
      buf = Util_xrealloc(buf, cap + 1);
    }
    ssize_t n = pread(fd, buf + len, cap - len, (off_t)len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      free(buf);
      errno = e;
      return NULL;
    }
    if (n == 0) break;
    len += (size_t)n;
  }
  buf[len] = '\0';
  if (len_out) *len_out = len;
  return buf;
}

char *SafeFile_read(const char *path, size_t max_bytes, size_t *len_out, char *err, size_t errsize) {
  int fd = SafeFile_openRead(path, max_bytes, err, errsize);
  if (fd < 0) return NULL;
  char *data = SafeFile_readFd(fd, max_bytes, len_out);
  if (!data) {
    if (errno == EFBIG) snprintf(err, errsize, "%s: more than the %zu bytes allowed", path, max_bytes);
    else snprintf(err, errsize, "%s: cannot read: %s", path, strerror(errno));
  }
  close(fd);
  return data;
}

int SafeFile_openLog(const char *path, char *err, size_t errsize) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
                0600);
  if (fd < 0) {
    if (errno == ELOOP) snprintf(err, errsize, "%s: is a symbolic link; not followed", path);
    else snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) {
    if (S_ISREG(st.st_mode)) snprintf(err, errsize, "%s: has other hard links; not written", path);
    else SafeFile_notRegular(path, st.st_mode, err, errsize);
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

/* The directory part of path ("." when there is none) and the last component. */
static void SafeFile_split(const char *path, char *dir, size_t dsize, const char **base) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    Util_strlcpy(dir, ".", dsize);
    *base = path;
  } else if (slash == path) {
    Util_strlcpy(dir, "/", dsize);
    *base = slash + 1;
  } else {
    size_t n = (size_t)(slash - path);
    if (n >= dsize) n = dsize - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    *base = slash + 1;
  }
}

static bool SafeFile_checkTarget(const char *path, struct stat *st, bool *exists, char *err,
                                 size_t errsize) {
  if (lstat(path, st) != 0) {
    if (errno != ENOENT) {
      snprintf(err, errsize, "%s: cannot inspect: %s", path, strerror(errno));
      return false;
    }
    *exists = false;
    char dir[4096];
    const char *base;
    SafeFile_split(path, dir, sizeof dir, &base);
    struct stat ds;
    if (stat(dir, &ds) != 0) {
      snprintf(err, errsize, "%s: cannot write there: directory %s: %s", path, dir, strerror(errno));
      return false;
    }
    if (!S_ISDIR(ds.st_mode)) {
      snprintf(err, errsize, "%s: cannot write there: %s is not a directory", path, dir);
      return false;
    }
    return true;
  }
  *exists = true;
  if (S_ISLNK(st->st_mode)) {
    snprintf(err, errsize, "%s: is a symbolic link; benchtop replaces only regular files (name the "
             "file it points to)", path);
    return false;
  }
  if (!S_ISREG(st->st_mode)) {
    SafeFile_notRegular(path, st->st_mode, err, errsize);
    return false;
  }
  return true;
}

static bool SafeFile_sameInode(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Opens the file st describes and locks it while its name still leads to it: 1 (*fd, *fs),
 * 0 when it changed under us (look again), -1 with err. */
static int SafeFile_openLocked(const char *path, const struct stat *st, int *fd_out,
                               struct stat *fs, char *err, size_t errsize) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ELOOP) return 0;
    snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (fstat(fd, fs) != 0 || !SafeFile_sameInode(fs, st)) goto changed;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(fd);
    if (e == EWOULDBLOCK)
      snprintf(err, errsize, "%s: in use by another benchtop process (it is writing this file)", path);
    else
      snprintf(err, errsize, "%s: cannot lock: %s", path, strerror(e));
    return -1;
  }
  /* Locked, but is it still the file the name leads to? (The holder may have just replaced it.) */
  struct stat now;
  if (lstat(path, &now) != 0 || !SafeFile_sameInode(&now, fs)) goto changed;
  *fd_out = fd;
  return 1;
changed:
  close(fd);
  return 0;
}

bool SafeFile_claim(SafeFile *f, const char *path, char *err, size_t errsize) {
  memset(f, 0, sizeof *f);
  f->fd = -1;
  if (!path[0]) {
    snprintf(err, errsize, "an empty file name");
    return false;
  }
  if (Util_strlcpy(f->path, path, sizeof f->path) >= sizeof f->path) {
    snprintf(err, errsize, "%.200s...: file name too long", path);
    return false;
  }
  for (int attempt = 0; attempt < 5; attempt++) {
    struct stat st;
    bool exists;
    if (!SafeFile_checkTarget(path, &st, &exists, err, errsize)) return false;
    if (!exists) {
      mode_t um = umask(0);
      umask(um);
      f->mode = 0666 & ~um;
      f->claimed = true;
      return true;
    }
    int fd;
    struct stat fs;
    int got = SafeFile_openLocked(path, &st, &fd, &fs, err, errsize);
    if (got < 0) return false;
    if (got == 0) continue; /* it changed under us: look again */
    f->fd = fd;
    f->dev = fs.st_dev;
    f->ino = fs.st_ino;
    f->mode = fs.st_mode & 07777;
    f->uid = fs.st_uid;
    f->gid = fs.st_gid;
    f->claimed = true;
    return true;
  }
  snprintf(err, errsize, "%s: keeps changing (another program is writing it)", path);
  return false;
}

bool SafeFile_exists(const SafeFile *f) { return f->claimed && f->fd >= 0; }

char *SafeFile_content(const SafeFile *f, size_t max_bytes, size_t *len_out, char *err,
                       size_t errsize) {
  if (f->fd < 0) {
    snprintf(err, errsize, "%s: does not exist", f->path);
    return NULL;
  }
  char *data = SafeFile_readFd(f->fd, max_bytes, len_out);
  if (!data) {
    if (errno == EFBIG) snprintf(err, errsize, "%s: more than the %zu bytes allowed", f->path, max_bytes);
    else snprintf(err, errsize, "%s: cannot read: %s", f->path, strerror(errno));
  }
  return data;
}

static void SafeFile_syncDir(const char *path) {
  char dir[4096];
  const char *base;
  SafeFile_split(path, dir, sizeof dir, &base);
  int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    fsync(d); /* the rename itself survives a crash */
    close(d);
  }
}

static bool SafeFile_writeAll(int fd, const char *data, size_t len) {
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += (size_t)w;
  }
  return true;
}

bool SafeFile_replace(SafeFile *f, const char *data, size_t len, char *err, size_t errsize) {
  if (!f->claimed) {
    snprintf(err, errsize, "%s: not claimed for writing", f->path);
    return false;
  }
  struct stat st;
  bool here = lstat(f->path, &st) == 0;
  if (f->fd >= 0 ? !here || st.st_dev != f->dev || st.st_ino != f->ino : here) {
    snprintf(err, errsize, "%s: changed on disk since benchtop opened it (another program wrote "
             "it); not replaced", f->path);
    return false;
  }
  char dir[4096], tmp[4400];
  const char *base;
  SafeFile_split(f->path, dir, sizeof dir, &base);
  if (snprintf(tmp, sizeof tmp, "%s/.%.200s.XXXXXX", dir, base) >= (int)sizeof tmp) {
    snprintf(err, errsize, "%s: file name too long", f->path);
    return false;
  }
  /* mkostemp: a fresh random name, O_EXCL, mode 0600 until the fchmod below. */
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errsize, "%s: cannot create a file in %s: %s", f->path, dir, strerror(errno));
    return false;
  }
  const char *what = NULL;
  /* root rewriting someone's file gives it back to them, as it was */
  if (f->fd >= 0 && geteuid() == 0 && fchown(fd, f->uid, f->gid) != 0) what = "set the owner of";
  else if (fchmod(fd, f->mode) != 0) what = "set the mode of";
  else if (flock(fd, LOCK_EX | LOCK_NB) != 0) what = "lock";
  else if (!SafeFile_writeAll(fd, data, len)) what = "write";
  else if (fsync(fd) != 0) what = "flush";
  else if (f->fd >= 0 ? rename(tmp, f->path) != 0 : link(tmp, f->path) != 0) what = "put in place";
  if (what) {
    if (errno == EEXIST) snprintf(err, errsize, "%s: was created by another program meanwhile; not replaced", f->path);
    else snprintf(err, errsize, "%s: cannot %s the new version: %s", f->path, what, strerror(errno));
    unlink(tmp);
    close(fd);
    return false;
  }
  if (f->fd < 0) {
    unlink(tmp); /* link() made the name; the temporary name goes */
    f->created = true;
  }
  SafeFile_syncDir(f->path);
  struct stat fs;
  fstat(fd, &fs);
  if (f->fd >= 0) close(f->fd); /* the old inode's lock goes with it; the new one is held */
  f->fd = fd;
  f->dev = fs.st_dev;
  f->ino = fs.st_ino;
  return true;
}

bool SafeFile_probe(const SafeFile *f, char *err, size_t errsize) {
  char dir[4096], tmp[4400];
  const char *base;
  SafeFile_split(f->path, dir, sizeof dir, &base);
  snprintf(tmp, sizeof tmp, "%s/.%.200s.XXXXXX", dir, base);
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errsize, "%s: cannot create a file in %s: %s", f->path, dir, strerror(errno));
    return false;
  }
  close(fd);
  unlink(tmp);
  return true;
}

void SafeFile_discard(SafeFile *f) {
  struct stat st;
  if (f->claimed && f->created && f->fd >= 0 && lstat(f->path, &st) == 0 && st.st_dev == f->dev &&
      st.st_ino == f->ino)
    unlink(f->path);
  SafeFile_release(f);
}

void SafeFile_release(SafeFile *f) {
  if (f->fd >= 0) close(f->fd);
  f->fd = -1;
  f->claimed = false;
}

bool SafeFile_same(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && SafeFile_sameInode(&sa, &sb);
}
