/* ~ and $VAR in typed paths (see expand.h). */
#include "common/expand.h"

#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Out {
  char *buf;
  size_t size, len;
  bool full;
} Out;

static void Out_add(Out *o, const char *s, size_t n) {
  if (o->len + n >= o->size) {
    o->full = true;
    return;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
  o->buf[o->len] = 0;
}

/* The home of user (NULL or "": the current user: $HOME, else the password database). */
static const char *Expand_home(const char *user) {
  if (!user || !user[0]) {
    const char *home = getenv("HOME");
    if (home && home[0]) return home;
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : NULL;
  }
  struct passwd *pw = getpwnam(user);
  return pw && pw->pw_dir && pw->pw_dir[0] ? pw->pw_dir : NULL;
}

bool Expand_path(const char *in, char *out, size_t size, char *err, size_t errsize) {
  Out o = {out, size, 0, size == 0};
  if (size) out[0] = 0;
  const char *p = in;
  if (p[0] == '~') {
    size_t n = strcspn(p + 1, "/");
    char user[256];
    if (n >= sizeof user) {
      snprintf(err, errsize, "no user '%.40s...'", p + 1);
      return false;
    }
    memcpy(user, p + 1, n);
    user[n] = 0;
    bool plain = true;
    for (size_t i = 0; i < n; i++)
      plain &= isalnum((unsigned char)user[i]) || strchr("._-", user[i]) != NULL;
    const char *home = plain ? Expand_home(user) : NULL;
    if (!home) {
      if (n == 0) snprintf(err, errsize, "~: no home directory ($HOME is not set)");
      else if (plain) snprintf(err, errsize, "~%s: no such user", user);
      else snprintf(err, errsize, "~ is followed by something that is not a user name");
      return false;
    }
    Out_add(&o, home, strlen(home));
    p += 1 + n;
  }
  while (*p) {
    if (p[0] == '\\' && p[1]) {
      Out_add(&o, p + 1, 1);
      p += 2;
      continue;
    }
    if (p[0] != '$') {
      Out_add(&o, p, 1);
      p++;
      continue;
    }
    bool braced = p[1] == '{';
    const char *name = p + 1 + braced;
    size_t n = 0;
    while (isalnum((unsigned char)name[n]) || name[n] == '_') n++;
    if (n == 0 || isdigit((unsigned char)name[0]) || (braced && name[n] != '}')) {
      if (braced) {
        snprintf(err, errsize, "${...}: expected a variable name and a closing brace");
        return false;
      }
      Out_add(&o, p, 1); /* a lone $ is itself */
      p++;
      continue;
    }
    char var[256];
    if (n >= sizeof var) {
      snprintf(err, errsize, "a variable name longer than %zu characters", sizeof var - 1);
      return false;
    }
    memcpy(var, name, n);
    var[n] = 0;
    const char *val = getenv(var);
    if (!val) {
      snprintf(err, errsize, "$%s is not set", var);
      return false;
    }
    Out_add(&o, val, strlen(val));
    p = name + n + braced;
  }
  if (o.full) {
    snprintf(err, errsize, "the path is longer than %zu bytes", size ? size - 1 : 0);
    return false;
  }
  return true;
}
