/* benchtop new NAME --from VARIANT [-o DIR]: a copy of a variant's .cu file, declaration and
 * all, under a new name: the start of a kernel of one's own. It goes to the user kernel
 * directory (on the kernel path) unless -o says where; an existing file is never overwritten.
 * Needs no GPU. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"
#include "kernels/registry.h"

enum { NEW_FROM, NEW_OUTPUT, NEW_KERNELS, NEW_NOPTS };

static const CommandOption new_options[] = {
  [NEW_FROM] = {.name = "from", .short_name = 'f', .value = CMD_TEXT, .arg = "VARIANT",
                .help = "the variant to copy (benchtop list variants)",
                .complete = CMD_COMPLETE_VARIANT, .flags = CMD_OPT_REQUIRED},
  [NEW_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "DIR",
                  .help = "the directory to write NAME.cu in (default: the user kernel "
                          "directory, ~/.config/benchtop/kernels)", .complete = CMD_COMPLETE_DIR},
  [NEW_KERNELS] = CMD_OPTION_KERNELS,
};

static const CommandArg new_args[] = {
  {"NAME", "the new variant's name: letters, digits and _", NULL, CMD_COMPLETE_NONE, 0},
};

/* data into path, all or nothing, and only if path does not exist yet: a temporary file in the
 * same directory, synced, then linked to its name (link fails rather than replace a file). */
static bool New_writeExclusive(const char *path, const char *data, char *err, size_t errsize) {
  char *tmp = Util_asprintf("%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errsize, "cannot create a file next to %s: %s", path, strerror(errno));
    free(tmp);
    return false;
  }
  /* mkstemp makes 0600; a source file is made as any other, under the user's umask. */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) {
    snprintf(err, errsize, "cannot set the mode of %s: %s", tmp, strerror(errno));
    close(fd);
    unlink(tmp);
    free(tmp);
    return false;
  }
  size_t len = strlen(data), done = 0;
  bool ok = true;
  while (ok && done < len) {
    ssize_t w = write(fd, data + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false;
    else done += (size_t)w;
  }
  if (ok && fsync(fd) != 0) ok = false;
  if (!ok) snprintf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
  if (close(fd) != 0 && ok) {
    snprintf(err, errsize, "cannot write %s: %s", tmp, strerror(errno));
    ok = false;
  }
  if (ok && link(tmp, path) != 0) {
    snprintf(err, errsize, errno == EEXIST ? "%s exists already (not overwritten; pick another "
             "name or remove it)" : "cannot create %s: %s", path, strerror(errno));
    ok = false;
  }
  unlink(tmp);
  free(tmp);
  return ok;
}

/* -o DIR: an existing directory, or a new one in an existing directory; a whole missing path
 * is refused (a typo would otherwise grow a tree of directories). Says why not on stderr. */
static bool New_makeOutputDir(const char *dir) {
  struct stat st;
  const char *why = NULL;
  if (stat(dir, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    why = "not a directory";
  } else if (errno != ENOENT) {
    why = strerror(errno);
  } else if (mkdir(dir, 0777) == 0) {
    return true;
  } else {
    why = errno == ENOENT ? "its parent directory does not exist (benchtop new creates one "
                            "directory, not a path)"
                          : strerror(errno);
  }
  fputs("benchtop new: -o ", stderr);
  Text_print(stderr, dir);
  fprintf(stderr, ": %s\n", why);
  return false;
}

/* Whether dir is one of the kernel path's directories (so the new file will be found). */
static bool New_onPath(const char *dir) {
  char a[4096], b[4096];
  if (!realpath(dir, a)) return false;
  for (int i = 0; i < Registry_dirCount(); i++)
    if (realpath(Registry_dir(i), b) && strcmp(a, b) == 0) return true;
  return false;
}

static int New_exec(const CommandArgs *a) {
  Command_kernelDirs(a, NEW_KERNELS);
  const char *name = a->pos[0], *from = CommandArgs_text(a, NEW_FROM, "");
  if (Registry_reservedName(name))
    return Command_usageError(&Cmd_new, "'%s' is a word of the command line (all, default, auto, "
                              "none), not a variant name; pick another name", name);
  if (!Registry_validName(name))
    return Command_usageError(&Cmd_new, "'%.40s' cannot name a variant (letters, digits and _, "
                              "not starting with a digit, at most %d)", name, VARIANT_NAME_MAX - 1);
  const Variant *v = Registry_find(from);
  if (!v) return Command_usageError(&Cmd_new, "unknown variant '%.40s' (benchtop list variants)", from);
  const Variant *taken = Registry_find(name);
  if (taken)
    return Command_usageError(&Cmd_new, "a variant called %s exists already (%s); pick another name",
                              name, taken->path ? taken->path : "built in");
  char dir[4096], err[600];
  if (CommandArgs_has(a, NEW_OUTPUT)) {
    const char *out = CommandArgs_text(a, NEW_OUTPUT, ".");
    if (Util_strlcpy(dir, out, sizeof dir) >= sizeof dir) /* cut, it would name another folder */
      return Command_usageError(&Cmd_new, "-o: the name is %zu bytes; at most %zu", strlen(out),
                                sizeof dir - 1);
  } else {
    char config[4000];
    Util_configDir(config, sizeof config);
    snprintf(dir, sizeof dir, "%s/kernels", config);
  }
  if (CommandArgs_has(a, NEW_OUTPUT) && !New_makeOutputDir(dir)) return BT_EXIT_FAILED;
  if (!CommandArgs_has(a, NEW_OUTPUT) && !Util_mkdirs(dir)) {
    fprintf(stderr, "benchtop new: cannot create the directory %s: %s\n", dir, strerror(errno));
    return BT_EXIT_FAILED;
  }
  char *text = Registry_copyAs(v, name);
  char *path = Util_asprintf("%s/%s.cu", dir, name);
  /* The copy must load as it is: check before writing. */
  Variant *check = Registry_parseFile(path, text, err, sizeof err);
  bool ok = check != NULL;
  if (!ok) fprintf(stderr, "benchtop new: the copy of %s does not load: %s\n", from, err);
  Registry_freeVariant(check);
  if (ok && !New_writeExclusive(path, text, err, sizeof err)) {
    fprintf(stderr, "benchtop new: %s\n", err);
    ok = false;
  }
  if (ok) {
    printf("wrote %s, a copy of %s (%s)\n", path, from, v->path ? v->path : "built in");
    if (!New_onPath(dir))
      printf("%s is not on the kernel path: add --kernels %s, or it to BENCHTOP_KERNEL_PATH\n",
             dir, dir);
    printf("next: edit it, then benchtop check-kernels --variant %s%s%s\n", name,
           New_onPath(dir) ? "" : " --kernels ", New_onPath(dir) ? "" : dir);
  }
  free(path);
  free(text);
  return ok ? BT_EXIT_OK : BT_EXIT_FAILED;
}

const Command Cmd_new = {
  .name = "new",
  .summary = "copy a variant's kernel file under a new name, ready to edit",
  .description = "Writes NAME.cu, a copy of VARIANT's .cu file (its declaration and code) with "
                 "the declaration's name set to NAME and builds_on to VARIANT, into the user "
                 "kernel directory (~/.config/benchtop/kernels, on the kernel path) or into -o "
                 "DIR. Never overwrites a file. docs/kernel-declarations.md describes the "
                 "declaration. Needs no GPU.",
  .options = new_options, .noptions = NEW_NOPTS,
  .args = new_args, .nargs = CMD_COUNT(new_args),
  .exec = New_exec,
};
