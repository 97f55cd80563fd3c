#include "cmd/bundle_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

#if BENCHTOP_ARCHIVE
#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#endif

/* A file name inside the layout: letters, digits, '_', '-', '.', not starting with '.'. */
static bool BundleArchive_validPart(const char *s, size_t len, bool dots) {
  if (len == 0 || len > 128 || s[0] == '.') return false;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || (dots && c == '.');
    if (!ok) return false;
  }
  return true;
}

bool BundleArchive_validName(const char *name) {
  if (strcmp(name, "session.json") == 0 || strcmp(name, "manifest.json") == 0 ||
      strcmp(name, "README.md") == 0)
    return true;
  if (Util_startsWith(name, "kernels/builtin/"))
    return BundleArchive_validPart(name + 16, strlen(name + 16), true);
  if (Util_startsWith(name, "kernels/user/")) {
    const char *v = name + 13, *slash = strchr(v, '/');
    return slash && BundleArchive_validPart(v, (size_t)(slash - v), false) &&
           BundleArchive_validPart(slash + 1, strlen(slash + 1), true);
  }
  return false;
}

#if BENCHTOP_ARCHIVE
/* The folders the layout has ("kernels", "kernels/user/mine"), with or without a final '/'. */
static bool BundleArchive_validDir(const char *name) {
  char d[300];
  if (Util_strlcpy(d, name, sizeof d) >= sizeof d) return false;
  size_t n = strlen(d);
  if (n && d[n - 1] == '/') d[--n] = '\0';
  if (n == 0 || strcmp(d, "kernels") == 0 || strcmp(d, "kernels/builtin") == 0 ||
      strcmp(d, "kernels/user") == 0)
    return true;
  return Util_startsWith(d, "kernels/user/") && BundleArchive_validPart(d + 13, strlen(d + 13), false);
}
#endif

bool BundleArchive_looksLike(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  unsigned char b[263];
  ssize_t n = read(fd, b, sizeof b);
  close(fd);
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b) return true;
  return n >= 262 && memcmp(b + 257, "ustar", 5) == 0;
}

static int BundleArchive_removeOne(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st; (void)f;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

void BundleArchive_removeTree(const char *dir) {
  nftw(dir, BundleArchive_removeOne, 16, FTW_DEPTH | FTW_PHYS);
}

#if !BENCHTOP_ARCHIVE

#define NO_ARCHIVE "this benchtop was built without libarchive (libarchive-dev): bundles are unavailable; install it and rebuild"

bool BundleArchive_available(char *err, size_t errsize) {
  snprintf(err, errsize, "%s", NO_ARCHIVE);
  return false;
}

bool BundleArchive_write(const char *path, const BundleMember *m, int n, bool replace, char *err,
                         size_t errsize) {
  (void)path; (void)m; (void)n; (void)replace;
  return BundleArchive_available(err, errsize);
}

bool BundleArchive_extract(const char *path, const char *dir, char *err, size_t errsize) {
  (void)path; (void)dir;
  return BundleArchive_available(err, errsize);
}

#else

/* libarchive is loaded when a bundle is first made or read, not linked: a binary carried to a
 * machine without it (or without a library it needs) starts, and only bundles say why not.
 * tools/build-for-gpu.sh puts libarchive.so.13 beside the binary ($ORIGIN is on its path). */
#define LA_FUNCTIONS(X)                                                                       \
  X(archive_entry_filetype) X(archive_entry_free) X(archive_entry_hardlink) X(archive_entry_new) \
  X(archive_entry_pathname) X(archive_entry_set_filetype) X(archive_entry_set_mtime)          \
  X(archive_entry_set_pathname) X(archive_entry_set_perm) X(archive_entry_set_size)           \
  X(archive_entry_size) X(archive_entry_size_is_set) X(archive_entry_symlink)                 \
  X(archive_error_string) X(archive_read_data) X(archive_read_free) X(archive_read_new)       \
  X(archive_read_next_header) X(archive_read_open_fd) X(archive_read_support_filter_gzip)    \
  X(archive_read_support_format_tar) X(archive_write_add_filter_gzip) X(archive_write_close) \
  X(archive_write_data) X(archive_write_free) X(archive_write_header) X(archive_write_new)    \
  X(archive_write_open_fd) X(archive_write_set_format_pax_restricted)
#define LA_POINTER(f) __typeof__(f) *f;
static struct {
  LA_FUNCTIONS(LA_POINTER)
} la;
static char la_error[400];
static int la_state; /* 0 not tried, 1 loaded, -1 failed (la_error says why) */

bool BundleArchive_available(char *err, size_t errsize) {
  if (la_state == 0) {
    /* BENCHTOP_SIMULATE_NO_LIBARCHIVE=1: a machine without it (tests) */
    const char *name = getenv("BENCHTOP_SIMULATE_NO_LIBARCHIVE") ? "libbenchtop-simulated-missing.so.13"
                                                                 : "libarchive.so.13";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    la_state = h ? 1 : -1;
    if (!h) snprintf(la_error, sizeof la_error, "cannot load libarchive (bundles need it: install "
                     "libarchive13, or carry libarchive.so.13 beside benchtop): %s", dlerror());
#define LA_LOAD(f)                                                                            \
    if (la_state == 1 && !(*(void **)&la.f = dlsym(h, #f))) {                                 \
      la_state = -1;                                                                          \
      snprintf(la_error, sizeof la_error, "libarchive.so.13 has no %s: too old for bundles", #f); \
    }
    LA_FUNCTIONS(LA_LOAD)
  }
  if (la_state < 0) snprintf(err, errsize, "%s", la_error);
  return la_state > 0;
}
/* From here on, every libarchive call goes through the loaded pointers. */
#define LA_REDIRECT_NOTE
#include "cmd/bundle_archive_calls.h"

/* Checks what path is now: absent, or a regular file that may be replaced. */
static bool BundleArchive_targetOk(const char *path, bool replace, char *err, size_t errsize) {
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return true;
    snprintf(err, errsize, "%s: %s", path, strerror(errno));
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errsize, "%s exists and is not a regular file (%s): refused, nothing written", path,
             S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory"
             : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket");
    return false;
  }
  if (!replace) {
    snprintf(err, errsize, "%s exists: give --force to replace it", path);
    return false;
  }
  return true;
}

static bool BundleArchive_writeMembers(struct archive *a, const BundleMember *m, int n, char *err,
                                       size_t errsize) {
  time_t now = time(NULL);
  for (int i = 0; i < n; i++) {
    struct archive_entry *e = archive_entry_new();
    char name[600];
    snprintf(name, sizeof name, "%s%s", BUNDLE_TOP, m[i].name);
    archive_entry_set_pathname(e, name);
    archive_entry_set_size(e, (la_int64_t)m[i].len);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_mtime(e, now, 0);
    bool ok = archive_write_header(a, e) == ARCHIVE_OK &&
              (m[i].len == 0 || archive_write_data(a, m[i].data, m[i].len) == (la_ssize_t)m[i].len);
    archive_entry_free(e);
    if (!ok) {
      snprintf(err, errsize, "could not write %s into the archive: %s", m[i].name, archive_error_string(a));
      return false;
    }
  }
  return true;
}

bool BundleArchive_write(const char *path, const BundleMember *m, int n, bool replace, char *err,
                         size_t errsize) {
  if (!BundleArchive_available(err, errsize) || !BundleArchive_targetOk(path, replace, err, errsize))
    return false;
  char tmp[4200];
  const char *slash = strrchr(path, '/');
  if (slash) snprintf(tmp, sizeof tmp, "%.*s/.bundle-XXXXXX", (int)(slash - path), path);
  else snprintf(tmp, sizeof tmp, ".bundle-XXXXXX");
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errsize, "cannot create a file beside %s: %s", path, strerror(errno));
    return false;
  }
  fchmod(fd, 0644);
  struct archive *a = archive_write_new();
  bool ok = archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
            archive_write_add_filter_gzip(a) == ARCHIVE_OK && archive_write_open_fd(a, fd) == ARCHIVE_OK;
  if (!ok) snprintf(err, errsize, "cannot start a gzip'd tar: %s", archive_error_string(a));
  ok = ok && BundleArchive_writeMembers(a, m, n, err, errsize);
  if (archive_write_close(a) != ARCHIVE_OK && ok) {
    snprintf(err, errsize, "could not finish %s: %s", path, archive_error_string(a));
    ok = false;
  }
  archive_write_free(a);
  if (ok && fsync(fd) != 0) {
    snprintf(err, errsize, "could not write %s: %s", path, strerror(errno));
    ok = false;
  }
  close(fd);
  /* Checked again just before the rename: something may have appeared there meanwhile. */
  if (ok && !BundleArchive_targetOk(path, replace, err, errsize)) ok = false;
  if (ok && rename(tmp, path) != 0) {
    snprintf(err, errsize, "could not rename the new archive to %s: %s", path, strerror(errno));
    ok = false;
  }
  if (!ok) unlink(tmp);
  return ok;
}

/* One member's bytes into dir/name (created here, never through a link), counting against the
 * bounds as they arrive: the header's size is not trusted. */
static bool BundleArchive_extractFile(struct archive *a, const char *dir, const char *name,
                                      size_t *total, char *err, size_t errsize) {
  char path[4600];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  /* the folders of the layout, made on the way */
  for (char *p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    struct stat st;
    if (mkdir(path, 0700) != 0 && (errno != EEXIST || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
      snprintf(err, errsize, "cannot make %s: %s", path, strerror(errno));
      return false;
    }
    *p = '/';
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    snprintf(err, errsize, "member %s: %s", name, errno == EEXIST ? "given twice" : strerror(errno));
    return false;
  }
  size_t mine = 0;
  char buf[65536];
  bool ok = true;
  for (;;) {
    la_ssize_t got = archive_read_data(a, buf, sizeof buf);
    if (got == 0) break;
    if (got < 0) {
      snprintf(err, errsize, "member %s: %s", name, archive_error_string(a));
      ok = false;
      break;
    }
    mine += (size_t)got;
    *total += (size_t)got;
    if (mine > BUNDLE_MEMBER_MAX || *total > BUNDLE_TOTAL_MAX) {
      snprintf(err, errsize, "member %s is too large (a member may hold %u MiB, the bundle %u MiB): refused",
               name, BUNDLE_MEMBER_MAX >> 20, BUNDLE_TOTAL_MAX >> 20);
      ok = false;
      break;
    }
    if (write(fd, buf, (size_t)got) != got) {
      snprintf(err, errsize, "cannot write %s: %s", path, strerror(errno));
      ok = false;
      break;
    }
  }
  close(fd);
  return ok;
}

/* Why an entry is refused ("" when it is fine); its name relative to BUNDLE_TOP in *rel. */
static const char *BundleArchive_refuse(struct archive_entry *e, const char **rel, bool *is_dir) {
  const char *name = archive_entry_pathname(e);
  *is_dir = false;
  if (!name || !*name) return "a member has no name";
  if (name[0] == '/') return "an absolute path";
  if (strstr(name, "..")) return "a path with '..'";
  if (archive_entry_hardlink(e)) return "a hard link";
  if (archive_entry_symlink(e) || archive_entry_filetype(e) == AE_IFLNK) return "a symbolic link";
  if (!Util_startsWith(name, BUNDLE_TOP) && strcmp(name, "bundle") != 0) return "outside bundle/";
  *rel = name + (strcmp(name, "bundle") == 0 ? 6 : strlen(BUNDLE_TOP));
  if (archive_entry_filetype(e) == AE_IFDIR) {
    *is_dir = true;
    return BundleArchive_validDir(*rel) ? "" : "a folder the bundle layout does not have";
  }
  if (archive_entry_filetype(e) != AE_IFREG) return "not a regular file (a device, FIFO or socket)";
  if (archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)BUNDLE_MEMBER_MAX)
    return "too large";
  if (!BundleArchive_validName(*rel)) return "a name the bundle layout does not have";
  return "";
}

bool BundleArchive_extract(const char *path, const char *dir, char *err, size_t errsize) {
  if (!BundleArchive_available(err, errsize)) return false;
  struct archive *a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, errsize, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0) close(fd);
    archive_read_free(a);
    return false;
  }
  bool ok = archive_read_open_fd(a, fd, 65536) == ARCHIVE_OK;
  if (!ok) snprintf(err, errsize, "%s: not a bundle (%s)", path, archive_error_string(a));
  size_t total = 0;
  int members = 0;
  struct archive_entry *e;
  while (ok) {
    int r = archive_read_next_header(a, &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) {
      snprintf(err, errsize, "%s: a damaged archive: %s", path, archive_error_string(a));
      ok = false;
      break;
    }
    if (++members > BUNDLE_MEMBERS_MAX) {
      snprintf(err, errsize, "%s: more than %d members: refused", path, BUNDLE_MEMBERS_MAX);
      ok = false;
      break;
    }
    const char *rel = NULL;
    bool is_dir;
    const char *why = BundleArchive_refuse(e, &rel, &is_dir);
    if (*why) {
      char shown[200];
      Util_strlcpy(shown, archive_entry_pathname(e) ? archive_entry_pathname(e) : "", sizeof shown);
      for (char *p = shown; *p; p++) /* the name is the archive's: no control bytes to the terminal */
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
      snprintf(err, errsize, "%s: member \"%s\" refused: %s", path, shown, why);
      ok = false;
      break;
    }
    if (is_dir || !*rel) continue;
    ok = BundleArchive_extractFile(a, dir, rel, &total, err, errsize);
  }
  archive_read_free(a);
  close(fd);
  return ok;
}

#endif
