/* Reading a kernel declaration: the comment block that opens with a line `/ * benchtop` (no
 * space) and ends at `* /`, one directive per line (docs/kernel-declarations.md). Every error
 * is one line naming the file and the line; the first one ends the parse. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kernels/decl_parser.h"

#define DECL_MAX_LINE 4096  /* a logical line, continuations joined */
#define DECL_MAX_LINES 2000 /* of the declaration block */

void *Decl_own(Variant *v, void *block) {
  VariantDecl *d = v->decl;
  d->owned = Util_xrealloc(d->owned, sizeof(void *) * (size_t)(d->nowned + 1));
  return d->owned[d->nowned++] = block;
}

char *Decl_keep(Variant *v, const char *s) { return Decl_own(v, Util_xstrdup(s)); }

/* ---- the block ---------------------------------------------------------------------------- */

/* The line after the opening "/ * benchtop" line (its number in *line), or NULL. */
static const char *Decl_findBlock(const char *text, int *line) {
  int n = 1;
  for (const char *p = text; *p; n++) {
    const char *q = p;
    Decl_space(&q);
    if (strncmp(q, "/* benchtop", 11) == 0) {
      q += 11;
      while (*q == ' ' || *q == '\t' || *q == '\r') q++;
      if (*q == '\n' || *q == '\0') {
        *line = n;
        return *q ? q + 1 : q;
      }
    }
    const char *eol = strchr(p, '\n');
    if (!eol) break;
    p = eol + 1;
  }
  return NULL;
}

/* Runs every directive of the block starting at body (the line after the opening one). */
static bool Decl_block(DeclParser *p, const char *body, int open_line, const char **after) {
  /* Without its closing the block would swallow the code below it as directives. */
  const char *end = strstr(body, "*/");
  int lines = 0;
  for (const char *q = body; end && q < end; q++) lines += *q == '\n';
  if (!end || lines >= DECL_MAX_LINES) {
    p->line = open_line;
    return Decl_fail(p, "the declaration opened here has no closing '*/' within %d lines", DECL_MAX_LINES);
  }
  char logical[DECL_MAX_LINE];
  size_t ll = 0;
  int logical_line = 0;
  const char *s = body;
  for (int line = open_line + 1; line - open_line <= DECL_MAX_LINES; line++) {
    p->line = line;
    if (!*s) break;
    const char *eol = strchr(s, '\n');
    size_t len = eol ? (size_t)(eol - s) : strlen(s);
    const char *close = NULL;
    for (size_t i = 0; i + 1 < len; i++)
      if (s[i] == '*' && s[i + 1] == '/') { close = s + i; break; }
    size_t n = close ? (size_t)(close - s) : len;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c == '\r' && i + 1 == n) break;
      if ((c < 0x20 && c != '\t') || c >= 0x7f)
        return Decl_fail(p, "byte 0x%02x: a declaration is plain printable ASCII", c);
    }
    const char *seg = s;
    while (n && (seg[n - 1] == ' ' || seg[n - 1] == '\t' || seg[n - 1] == '\r')) n--;
    size_t lead = 0;
    while (lead < n && (seg[lead] == ' ' || seg[lead] == '\t')) lead++;
    if (lead < n && seg[lead] == '*' && (lead + 1 == n || seg[lead + 1] == ' ')) lead++; /* " * " */
    seg += lead;
    n -= lead;
    bool more = n && seg[n - 1] == '\\';
    if (more) n--;
    if (ll == 0) logical_line = line;
    if (ll + n + 1 >= sizeof logical) return Decl_fail(p, "line longer than %d characters", DECL_MAX_LINE);
    if (ll) logical[ll++] = ' ';
    memcpy(logical + ll, seg, n);
    ll += n;
    logical[ll] = '\0';
    if (more && close) return Decl_fail(p, "'\\' continues a line past the end of the declaration");
    if (!more) {
      const char *t = logical;
      Decl_space(&t);
      p->line = logical_line;
      if (*t && *t != '#' && !Decl_directive(p, t)) return false;
      ll = 0;
    }
    if (close) {
      *after = close + 2;
      return true;
    }
    s = eol ? eol + 1 : s + len;
  }
  p->line = open_line;
  return Decl_fail(p, "the declaration opened here has no closing '*/' within %d lines", DECL_MAX_LINES);
}

/* What every declaration must state, and presets that name real knob values. */
static bool Decl_finish(DeclParser *p, int open_line) {
  Variant *v = p->v;
  p->line = open_line;
  if (!v->name) return Decl_fail(p, "the declaration needs a name");
  if (!v->head_dims[0]) return Decl_fail(p, "the declaration needs head_dims (e.g. head_dims 64 128)");
  if (!v->min_cc) return Decl_fail(p, "the declaration needs arch (e.g. arch sm_80)");
  if (!(v->tolerance > 0)) return Decl_fail(p, "the declaration needs tolerance (e.g. tolerance 2e-3)");
  if (v->nsteps == 0) return Decl_fail(p, "the declaration launches nothing: add a kernel line");
  if (!v->summary) v->summary = "";
  if (!v->dtypes) v->dtypes = 1u << SHAPE_FP16; /* today's kernels: fp16 */
  v->knobs = p->d->knobs;
  /* The longest setting must fit where every setting is written, else two cut alike. */
  size_t longest = 0;
  for (int k = 0; k < v->nknobs; k++) {
    size_t value = 0;
    for (int j = 0; j < v->knobs[k].nvalues; j++)
      if (strlen(v->knobs[k].values[j]) > value) value = strlen(v->knobs[k].values[j]);
    longest += (k ? 1 : 0) + strlen(v->knobs[k].name) + 1 + value;
  }
  if (longest >= KNOB_TEXT_MAX)
    return Decl_fail(p, "the knobs' longest setting (name=value,...) is %zu characters; at most %d "
                     "(shorten knob names or values)", longest, KNOB_TEXT_MAX - 1);
  if (p->npresets == 0) {
    p->presets = Util_xcalloc(2, sizeof(char *));
    p->presets[0] = "";
    p->npresets = 1;
    p->preset_lines = Util_xcalloc(1, sizeof(int));
    p->preset_lines[0] = open_line;
  }
  v->presets = Decl_own(v, p->presets);
  v->npresets = p->npresets;
  p->d->preset_lines = Decl_own(v, p->preset_lines);
  p->presets = NULL;
  p->preset_lines = NULL;
  for (int i = 0; i < v->npresets; i++) {
    KnobValues kv;
    char why[300];
    Registry_defaults(v, &kv);
    p->line = p->d->preset_lines[i];
    if (!Registry_applyKnobs(v, v->presets[i], &kv, false, why, sizeof why))
      return Decl_fail(p, "preset: %s", why);
  }
  return true;
}

/* Whether name occurs as an identifier in code: outside comments, strings and the block. */
static bool Decl_inCode(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *q = text; *q;) {
    if (q[0] == '/' && q[1] == '/') {
      while (*q && *q != '\n') q++;
    } else if (q[0] == '/' && q[1] == '*') {
      const char *e = strstr(q + 2, "*/");
      q = e ? e + 2 : q + strlen(q);
    } else if (*q == '"' || *q == '\'') {
      char quote = *q++;
      while (*q && *q != quote && *q != '\n') q += (*q == '\\' && q[1]) ? 2 : 1;
      if (*q == quote) q++;
    } else if (isalpha((unsigned char)*q) || *q == '_') {
      const char *start = q;
      while (isalnum((unsigned char)*q) || *q == '_') q++;
      if ((size_t)(q - start) == n && strncmp(start, name, n) == 0) return true;
    } else {
      q++;
    }
  }
  return false;
}

/* The entry points exist in the source's code (a typo is caught here, not by a launch that
 * finds no kernel). */
static bool Decl_entriesExist(DeclParser *p, const char *text) {
  for (int i = 0; i < p->v->nsteps; i++) {
    const KernelStep *st = &p->v->steps[i];
    if (st->hook != HOOK_NONE || Decl_inCode(text, st->entry)) continue;
    p->line = st->line;
    return Decl_fail(p, "kernel %s: no such function in the file", st->entry);
  }
  return true;
}

static Variant *Decl_new(const char *source) {
  Variant *v = Util_xcalloc(1, sizeof *v);
  VariantDecl *d = Util_xcalloc(1, sizeof *d);
  v->decl = d;
  ExprPool_init(&d->pool);
  d->splits_let = -1;
  for (int i = 0; i < SCRATCH_COUNT; i++) d->scratch[i].expr = -1;
  for (int i = 0; i < 4; i++) d->tma[i].expr = -1;
  v->source = Decl_keep(v, source);
  return v;
}

static Variant *Decl_run(const char *source, const char *text, const char *body, int open_line,
                         bool check_entries, char *err, size_t errsize) {
  Variant *v = Decl_new(source);
  DeclParser p = {.v = v, .d = v->decl, .source = v->source, .err = err, .errsize = errsize};
  const char *after = body;
  bool ok = Decl_block(&p, body, open_line, &after);
  int second = 0;
  if (ok && Decl_findBlock(after, &second)) {
    int base = 1;
    for (const char *q = text; q < after; q++) base += *q == '\n';
    p.line = base + second - 1;
    ok = Decl_fail(&p, "a second declaration (the first opens at line %d)", open_line);
  }
  ok = ok && Decl_finish(&p, open_line) && (!check_entries || Decl_entriesExist(&p, text));
  free(p.presets);
  free(p.preset_lines);
  if (!ok) {
    Decl_free(v);
    return NULL;
  }
  v->decl->decl_line = open_line;
  return v;
}

Variant *Decl_parse(const char *source, const char *text, bool *bare, char *err, size_t errsize) {
  int open_line = 0;
  const char *body = Decl_findBlock(text, &open_line);
  *bare = body == NULL;
  if (!body) {
    snprintf(err, errsize, "%s: no declaration (a comment block opening with '/* benchtop')", source);
    return NULL;
  }
  return Decl_run(source, text, body, open_line, true, err, errsize);
}

Variant *Decl_bare(const char *name, const char *source, const char *file_text) {
  char text[512], err[300];
  if (!Decl_inCode(file_text, "attn_fwd")) return NULL;
  snprintf(text, sizeof text,
           "name %s\nsummary bare kernel (no declaration): attn_fwd, one thread per query row\n"
           "head_dims 64 128\narch sm_80\ntolerance 2e-3\n"
           "kernel attn_fwd grid(cdiv(S, 128), B * H) block(128)\n*/\n", name);
  Variant *v = Decl_run(source, text, text, 0, false, err, sizeof err);
  if (v) v->bare = true;
  return v;
}

void Decl_free(Variant *v) {
  if (!v) return;
  VariantDecl *d = v->decl;
  if (d) {
    for (int i = 0; i < d->nowned; i++) free(d->owned[i]);
    free(d->owned);
    ExprPool_free(&d->pool);
    free(d);
  }
  free(v);
}
