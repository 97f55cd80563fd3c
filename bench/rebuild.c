#include "bench/rebuild.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/text.h"
#include "common/util.h"
#include "kernels/jit.h"

struct Rebuild {
  pid_t pid;
  int fd;
  char buf[1024];
  size_t len;
};

static void Rebuild_child(int fd, const Variant *v, const KnobValues *kv, int D, int cc) {
  char arch[16], err[900] = "", line[1024];
  Jit_archFor(cc ? cc : v->min_cc, v->arch_specific, arch, sizeof arch);
  JitOutput out;
  bool ok = Jit_compileVariant(v, kv, D, arch, true, &out, err, sizeof err);
  if (ok) {
    const BuildInfo *b = &out.build;
    snprintf(line, sizeof line, "1 compiled in %.0f ms%s, %d regs, %d spills (%s)\n", b->compile_ms,
             b->cache_hit ? " (cached)" : "", b->regs, b->spill_stores + b->spill_loads, arch);
  } else {
    snprintf(line, sizeof line, "0 %s\n", err[0] ? err : "the compiler failed without a message");
  }
  Jit_free(&out);
  size_t n = strlen(line), off = 0;
  while (off < n) {
    ssize_t w = write(fd, line + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  _exit(0);
}

Rebuild *Rebuild_start(const Variant *v, const KnobValues *kv, int D, int cc, char *err,
                       size_t errsize) {
  int p[2];
  if (pipe(p) != 0) {
    snprintf(err, errsize, "cannot compile %s in the background: pipe: %s", v->name, strerror(errno));
    return NULL;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(err, errsize, "cannot compile %s in the background: fork: %s", v->name, strerror(errno));
    close(p[0]);
    close(p[1]);
    return NULL;
  }
  if (pid == 0) {
    close(p[0]);
    signal(SIGINT, SIG_IGN); /* Ctrl-C is the parent's to decide */
    Rebuild_child(p[1], v, kv, D, cc);
  }
  close(p[1]);
  Rebuild *r = Util_xcalloc(1, sizeof *r);
  r->pid = pid;
  r->fd = p[0];
  return r;
}

int Rebuild_fd(const Rebuild *r) { return r ? r->fd : -1; }

bool Rebuild_result(Rebuild *r, bool *ok, char *msg, size_t size) {
  for (;;) {
    ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - 1 - r->len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false; /* nothing yet */
    r->len += (size_t)n;
    if (n > 0 && r->len < sizeof r->buf - 1 && !memchr(r->buf, '\n', r->len)) continue;
    break; /* end of file, a whole line, or a full buffer */
  }
  r->buf[r->len] = '\0';
  char *nl = strchr(r->buf, '\n');
  if (nl) *nl = '\0';
  *ok = r->buf[0] == '1';
  if (r->len >= 2 && (r->buf[0] == '0' || r->buf[0] == '1')) Text_sanitize(msg, size, r->buf + 2);
  else snprintf(msg, size, "the compiler process ended without a result (it crashed?)");
  waitpid(r->pid, NULL, 0);
  r->pid = 0;
  return true;
}

void Rebuild_free(Rebuild *r) {
  if (!r) return;
  if (r->pid > 0) {
    kill(r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
  }
  close(r->fd);
  free(r);
}
