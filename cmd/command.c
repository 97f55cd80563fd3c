/* Parsing, checking and help for every command, from its declaration (cmd/commands.h): the
 * one place that turns argv into CommandArgs and the one place usage errors are worded. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/gpu_build.h"
#include "common/text.h"
#include "common/util.h"

enum { CMD_LONG_BASE = 256, CMD_HELP = 'h' };

static const char *Command_display(const Command *c) { return c->name[0] ? c->name : NULL; }

/* "benchtop run" or "benchtop" */
static void Command_prog(const Command *c, char *buf, size_t size) {
  snprintf(buf, size, "benchtop%s%s", Command_display(c) ? " " : "", c->name);
}

int Command_usageError(const Command *c, const char *fmt, ...) {
  char prog[64];
  Command_prog(c, prog, sizeof prog);
  /* The message quotes what the user typed (a value, a name): sanitised, so that an escape
   * sequence in an argument reaches the terminal as '?', and never cut. */
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = Util_xmalloc(len > 0 ? (size_t)len + 1 : 1);
  msg[0] = '\0';
  va_start(ap, fmt);
  if (len > 0) vsnprintf(msg, (size_t)len + 1, fmt, ap);
  va_end(ap);
  Text_sanitize(msg, strlen(msg) + 1, msg);
  fprintf(stderr, "%s: %s; see %s --help\n", prog, msg, prog);
  free(msg);
  return BT_EXIT_USAGE;
}

int Command_needsGpuBuild(const Command *c) {
  char prog[64];
  Command_prog(c, prog, sizeof prog);
  fprintf(stderr, "%s: %s\n", prog, GPU_BUILD_MISSING);
  return BT_EXIT_NO_GPU;
}

int Command_execNeedsGpuBuild(const CommandArgs *a) { return Command_needsGpuBuild(a->cmd); }

bool Command_choiceWord(const char *choices, int i, char *buf, int size) {
  if (!choices) return false;
  const char *p = choices;
  for (; i > 0; i--) {
    p = strchr(p, '|');
    if (!p) return false;
    p++;
  }
  size_t n = strcspn(p, "|");
  if ((int)n >= size) n = (size_t)size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return true;
}

static int Command_findChoice(const char *choices, const char *word) {
  char w[64];
  for (int i = 0; Command_choiceWord(choices, i, w, sizeof w); i++)
    if (strcmp(w, word) == 0) return i;
  return -1;
}

/* "table, json, csv or md" */
static void Command_choiceList(const char *choices, char *buf, size_t size) {
  char w[64];
  int n = 0;
  while (Command_choiceWord(choices, n, w, sizeof w)) n++;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    Command_choiceWord(choices, i, w, sizeof w);
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", w);
  }
}

/* --name (-x) as the user may have typed it */
static void Command_optName(const CommandOption *o, char *buf, size_t size) {
  snprintf(buf, size, "--%s", o->name);
}

/* The value of option i checked against its declaration into a; false after the error. */
static bool Command_setValue(const Command *c, CommandArgs *a, int i, const char *val) {
  const CommandOption *o = &c->options[i];
  char name[64];
  Command_optName(o, name, sizeof name);
  a->count[i]++;
  a->text[i] = val;
  if ((o->flags & CMD_OPT_REPEAT) && val) {
    a->all[i] = Util_xrealloc(a->all[i], sizeof(char *) * (size_t)a->count[i]);
    a->all[i][a->count[i] - 1] = val;
  }
  char *end = NULL;
  errno = 0;
  switch (o->value) {
  case CMD_FLAG:
  case CMD_TEXT: return true;
  case CMD_INT: {
    long long v = strtoll(val, &end, 10);
    if (*val == '\0' || *end || errno || v < (long long)o->lo || v > (long long)o->hi) {
      Command_usageError(c, "%s must be a whole number from %.0f to %.0f, not '%s'", name, o->lo,
                         o->hi, val);
      return false;
    }
    a->ivalue[i] = v;
    return true;
  }
  case CMD_UINT64: {
    unsigned long long v = strtoull(val, &end, 10);
    if (*val < '0' || *val > '9' || *end || errno) {
      Command_usageError(c, "%s must be a whole number from 0 to 18446744073709551615, not '%s'",
                         name, val);
      return false;
    }
    a->uvalue[i] = (uint64_t)v;
    return true;
  }
  case CMD_NUMBER: {
    double v = strtod(val, &end);
    /* Decimal only: strtod also reads hex (0x10 is 16), inf and nan. */
    bool decimal = val[strspn(val, "0123456789.eE+-")] == '\0';
    if (*val == '\0' || *end || !decimal || !isfinite(v) || v < o->lo || v > o->hi) {
      Command_usageError(c, "%s must be a decimal number from %g to %g, not '%s'", name, o->lo, o->hi, val);
      return false;
    }
    a->dvalue[i] = v;
    return true;
  }
  case CMD_CHOICE: {
    int k = Command_findChoice(o->choices, val);
    if (k < 0) {
      char list[256];
      Command_choiceList(o->choices, list, sizeof list);
      Command_usageError(c, "%s must be %s, not '%s'", name, list, val);
      return false;
    }
    a->ivalue[i] = k;
    return true;
  }
  }
  return true;
}

/* An unknown or ambiguous long option (getopt_long accepts unique prefixes). */
static int Command_unknownLong(const Command *c, const char *typed) {
  char text[128];
  Util_strlcpy(text, typed, sizeof text);
  text[strcspn(text, "=")] = '\0';
  char candidates[256] = "";
  int n = 0;
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    if ((o->flags & CMD_OPT_HIDDEN) || !Util_startsWith(o->name, text + 2)) continue;
    size_t len = strlen(candidates);
    snprintf(candidates + len, sizeof candidates - len, "%s--%s", n++ ? ", " : "", o->name);
  }
  if (n > 1) return Command_usageError(c, "ambiguous option %s (%s)", text, candidates);
  return Command_usageError(c, "unknown option %s", text);
}

static int Command_optionOf(const Command *c, int got) {
  if (got >= CMD_LONG_BASE && got < CMD_LONG_BASE + c->noptions) return got - CMD_LONG_BASE;
  for (int i = 0; i < c->noptions; i++)
    if (c->options[i].short_name && c->options[i].short_name == got) return i;
  return -1;
}

static void CommandArgs_free(CommandArgs *a) {
  for (int i = 0; i < CMD_MAX_OPTIONS; i++) free(a->all[i]);
}

/* Checks the positional arguments and the required options; returns BT_EXIT_OK or the error. */
static int Command_checkRest(const Command *c, CommandArgs *a) {
  int need = 0;
  bool repeat = c->nargs > 0 && (c->args[c->nargs - 1].flags & CMD_ARG_REPEAT);
  for (int k = 0; k < c->nargs; k++)
    if (!(c->args[k].flags & CMD_ARG_OPTIONAL)) need = k + 1;
  if (a->npos > c->nargs && !repeat)
    return Command_usageError(c, "unexpected argument '%s'", a->pos[c->nargs]);
  if (a->npos < need) {
    const CommandArg *g = &c->args[a->npos];
    return Command_usageError(c, "missing %s", g->name);
  }
  for (int k = 0; k < a->npos && k < c->nargs; k++) {
    const CommandArg *g = &c->args[k];
    if (g->choices && Command_findChoice(g->choices, a->pos[k]) < 0) {
      char list[256];
      Command_choiceList(g->choices, list, sizeof list);
      return Command_usageError(c, "'%s' is not %s", a->pos[k], list);
    }
  }
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    if ((o->flags & CMD_OPT_REQUIRED) && a->count[i] == 0) {
      if (o->short_name)
        return Command_usageError(c, "missing -%c %s (--%s)", o->short_name, o->arg, o->name);
      return Command_usageError(c, "missing --%s %s", o->name, o->arg);
    }
  }
  return BT_EXIT_OK;
}

int Command_run(const Command *c, int argc, char **argv) {
  if (c->noptions > CMD_MAX_OPTIONS) {
    fprintf(stderr, "benchtop %s: %d options declared, %d at most\n", c->name, c->noptions,
            CMD_MAX_OPTIONS);
    return BT_EXIT_USAGE;
  }
  struct option longopts[CMD_MAX_OPTIONS + 2];
  char shortopts[3 * CMD_MAX_OPTIONS + 8] = ":h"; /* ':' first: a missing value returns ':' */
  size_t ns = strlen(shortopts);
  int nl = 0;
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    longopts[nl++] = (struct option){o->name, o->value == CMD_FLAG ? no_argument : required_argument,
                                     NULL, CMD_LONG_BASE + i};
    if (o->short_name) {
      shortopts[ns++] = o->short_name;
      if (o->value != CMD_FLAG) shortopts[ns++] = ':';
    }
  }
  shortopts[ns] = '\0';
  longopts[nl++] = (struct option){"help", no_argument, NULL, CMD_HELP};
  longopts[nl] = (struct option){NULL, 0, NULL, 0};

  /* --help anywhere before "--" wins over whatever else is on the line, which was perhaps
   * typed in the hope the help would tell how to finish it. */
  bool help = false;
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    help |= strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
  CommandArgs a;
  memset(&a, 0, sizeof a);
  a.cmd = c;
  int rc = BT_EXIT_OK;
  opterr = 0;
  optind = 0; /* glibc: a full reset, so the parser can run more than once in a process */
  int got;
  while (!help && rc == BT_EXIT_OK && (got = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
    const char *typed = argv[optind - 1];
    if (got == CMD_HELP) {
      help = true; /* an abbreviation: --he */
    } else if (got == ':') {
      int i = Command_optionOf(c, optopt);
      if (i < 0) rc = Command_usageError(c, "option %s needs a value", typed);
      else if (optopt >= CMD_LONG_BASE)
        rc = Command_usageError(c, "option --%s needs %s", c->options[i].name, c->options[i].arg);
      else rc = Command_usageError(c, "option -%c needs %s", optopt, c->options[i].arg);
    } else if (got == '?') {
      int i = optopt ? Command_optionOf(c, optopt) : -1;
      if (i >= 0 && optopt >= CMD_LONG_BASE)
        rc = Command_usageError(c, "option --%s takes no value", c->options[i].name);
      else if (optopt && optopt < CMD_LONG_BASE)
        rc = Command_usageError(c, "unknown option -%c", optopt);
      else
        rc = Command_unknownLong(c, typed);
    } else {
      int i = Command_optionOf(c, got);
      if (i < 0) rc = Command_usageError(c, "unknown option %s", typed);
      else if (!Command_setValue(c, &a, i, c->options[i].value == CMD_FLAG ? NULL : optarg))
        rc = BT_EXIT_USAGE;
    }
  }
  if (help) {
    rc = BT_EXIT_OK;
    if (c->name[0]) Command_printHelp(c);
    else Command_printOverview(); /* benchtop --help: every command */
  } else if (rc == BT_EXIT_OK) {
    a.npos = argc - optind;
    a.pos = argv + optind;
    rc = Command_checkRest(c, &a);
    if (rc == BT_EXIT_OK) rc = c->exec(&a);
  }
  CommandArgs_free(&a);
  return rc;
}

bool CommandArgs_has(const CommandArgs *a, int opt) { return a->count[opt] > 0; }

const char *CommandArgs_text(const CommandArgs *a, int opt, const char *fallback) {
  return a->count[opt] > 0 && a->text[opt] ? a->text[opt] : fallback;
}

long long CommandArgs_int(const CommandArgs *a, int opt, long long fallback) {
  return a->count[opt] > 0 ? a->ivalue[opt] : fallback;
}

uint64_t CommandArgs_uint64(const CommandArgs *a, int opt, uint64_t fallback) {
  return a->count[opt] > 0 ? a->uvalue[opt] : fallback;
}

double CommandArgs_number(const CommandArgs *a, int opt, double fallback) {
  return a->count[opt] > 0 ? a->dvalue[opt] : fallback;
}

int CommandArgs_choice(const CommandArgs *a, int opt, int fallback) {
  return a->count[opt] > 0 ? (int)a->ivalue[opt] : fallback;
}

int CommandArgs_count(const CommandArgs *a, int opt) { return a->count[opt]; }

const char *CommandArgs_nth(const CommandArgs *a, int opt, int i) {
  if (i < 0 || i >= a->count[opt]) return NULL;
  return a->all[opt] ? a->all[opt][i] : a->text[opt];
}

/* ---- help ---- */

static void Command_append(char *buf, int size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void Command_append(char *buf, int size, const char *fmt, ...) {
  size_t len = strlen(buf);
  if ((int)len >= size - 1) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, (size_t)size - len, fmt, ap);
  va_end(ap);
}

void Command_usage(const Command *c, char *buf, int size) {
  buf[0] = '\0';
  Command_append(buf, size, "benchtop%s%s", c->name[0] ? " " : "", c->name);
  bool others = false;
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    if (o->flags & CMD_OPT_HIDDEN) continue;
    if (!(o->flags & CMD_OPT_REQUIRED)) {
      others = true;
      continue;
    }
    if (o->short_name) Command_append(buf, size, " -%c %s", o->short_name, o->arg);
    else Command_append(buf, size, " --%s %s", o->name, o->arg);
  }
  if (others) Command_append(buf, size, " [options]");
  for (int k = 0; k < c->nargs; k++) {
    const CommandArg *g = &c->args[k];
    bool opt = g->flags & CMD_ARG_OPTIONAL;
    Command_append(buf, size, " %s%s%s%s", opt ? "[" : "", g->name,
                   (g->flags & CMD_ARG_REPEAT) ? "..." : "", opt ? "]" : "");
  }
}

/* Text wrapped to width, continuation lines indented; col is where the cursor already is. */
static void Command_wrap(FILE *out, const char *text, int indent, int width, int col) {
  bool fresh = true; /* no word on this line yet */
  for (const char *p = text; *p;) {
    if (*p == '\n') {
      fputc('\n', out);
      col = 0;
      fresh = true;
      p++;
      continue;
    }
    size_t n = strcspn(p, " \n");
    if (!fresh && col + 1 + (int)n > width) {
      fputc('\n', out);
      col = 0;
      fresh = true;
    }
    if (col < indent) col += fprintf(out, "%*s", indent - col, "");
    if (!fresh) col += fprintf(out, " ");
    col += fprintf(out, "%.*s", (int)n, p);
    fresh = false;
    p += n;
    while (*p == ' ') p++;
  }
  fputc('\n', out);
}

/* "-v, --variants VARIANTS" */
static void Command_optionLabel(const CommandOption *o, char *buf, int size) {
  buf[0] = '\0';
  if (o->short_name) Command_append(buf, size, "-%c, ", o->short_name);
  else Command_append(buf, size, "    ");
  Command_append(buf, size, "--%s", o->name);
  if (o->value != CMD_FLAG) Command_append(buf, size, " %s", o->arg);
}

void Command_printHelp(const Command *c) {
  char usage[512];
  Command_usage(c, usage, sizeof usage);
  printf("usage: %s\n\n", usage);
  Command_wrap(stdout, c->description, 0, 78, 0);
  if (c->nargs > 0) printf("\narguments:\n");
  for (int k = 0; k < c->nargs; k++) {
    int col = printf("  %s", c->args[k].name);
    if (col > 26) {
      printf("\n");
      col = 0;
    }
    Command_wrap(stdout, c->args[k].help, 28, 78, col);
  }
  printf("\noptions:\n");
  for (int i = 0; i <= c->noptions; i++) {
    static const CommandOption help = {"help", 'h', CMD_FLAG, NULL, "print this help and exit",
                                       NULL, 0, 0, CMD_COMPLETE_NONE, 0};
    const CommandOption *o = i < c->noptions ? &c->options[i] : &help;
    if (o->flags & CMD_OPT_HIDDEN) continue;
    char label[128], text[512];
    Command_optionLabel(o, label, sizeof label);
    snprintf(text, sizeof text, "%s%s", o->help, (o->flags & CMD_OPT_REPEAT) ? " (repeatable)" : "");
    if (o->value == CMD_CHOICE) Command_append(text, sizeof text, " (%s)", o->choices);
    int col = printf("  %s", label);
    if (col > 26) {
      printf("\n");
      col = 0;
    }
    Command_wrap(stdout, text, 28, 78, col);
  }
}
