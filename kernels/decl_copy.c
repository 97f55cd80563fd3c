/* Writing a declaration: the source `benchtop new` starts from, a variant's text with its name
 * line rewritten and builds_on naming the original (a bare kernel gets a declaration of its
 * defaults); and the names a new variant may take. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/decl_private.h"

bool Registry_reservedName(const char *name) {
  static const char *const words[] = {"all", "default", "auto", "none"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(name, words[i]) == 0) return true;
  return false;
}

bool Registry_validName(const char *name) {
  if (Registry_reservedName(name)) return false;
  size_t n = strlen(name);
  if (n == 0 || n >= VARIANT_NAME_MAX || isdigit((unsigned char)name[0])) return false;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)name[i]) || name[i] == '_') || (unsigned char)name[i] >= 0x80) return false;
  return true;
}

/* Line `line` (1-based) of text with the value after its directive word replaced by value. */
static void Decl_rewriteLine(char **lines, int line, const char *word, const char *value) {
  char *l = lines[line - 1];
  char *at = strstr(l, word);
  if (!at) return;
  size_t prefix = (size_t)(at - l) + strlen(word);
  while (l[prefix] == ' ' || l[prefix] == '\t') prefix++;
  char *out = Util_asprintf("%.*s%s", (int)prefix, l, value);
  free(l);
  lines[line - 1] = out;
}

char *Registry_copyAs(const Variant *v, const char *name) {
  if (v->bare || !v->decl->name_line)
    return Util_asprintf("/* benchtop\nname      %s\nsummary   a copy of %s\nbuilds_on %s\n"
                         "head_dims 64 128\narch      sm_80\ntolerance 2e-3\n"
                         "kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)\n*/\n%s",
                         name, v->name, v->name, v->text);
  /* Split into lines (the last one may have no newline), rewrite, join. */
  int n = 1;
  for (const char *q = v->text; *q; q++) n += *q == '\n';
  char **lines = Util_xcalloc((size_t)n + 1, sizeof(char *));
  const char *q = v->text;
  for (int i = 0; i < n; i++) {
    const char *eol = strchr(q, '\n');
    size_t len = eol ? (size_t)(eol - q) : strlen(q);
    lines[i] = Util_xmalloc(len + 1);
    memcpy(lines[i], q, len);
    lines[i][len] = '\0';
    q = eol ? eol + 1 : q + len;
  }
  const VariantDecl *d = v->decl;
  Decl_rewriteLine(lines, d->name_line, "name", name);
  char *extra = NULL; /* a builds_on line after the name line when there is none */
  if (d->builds_on_line) {
    Decl_rewriteLine(lines, d->builds_on_line, "builds_on", v->name);
  } else {
    const char *l = lines[d->name_line - 1], *at = strstr(l, "name");
    extra = Util_asprintf("%.*sbuilds_on %s", at ? (int)(at - l) : 0, l, v->name);
  }
  size_t total = 1 + (extra ? strlen(extra) + 1 : 0);
  for (int i = 0; i < n; i++) total += strlen(lines[i]) + 1;
  char *out = Util_xmalloc(total), *w = out;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(lines[i]);
    memcpy(w, lines[i], len);
    w += len;
    if (i + 1 < n) *w++ = '\n';
    if (extra && i + 1 == d->name_line) {
      w += sprintf(w, "%s\n", extra);
    }
    free(lines[i]);
  }
  *w = '\0';
  free(lines);
  free(extra);
  return out;
}
