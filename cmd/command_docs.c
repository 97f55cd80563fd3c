/* The man page and the bash and zsh completions, written from the command table at build time
 * (`benchtop generate man|bash|zsh`, run by docs/meson.build), so they cannot drift from what
 * the parser accepts. Hidden commands and options appear in none of them. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"

/* The index of the next command after i (from -1: the first) that the docs show: hidden ones
 * are skipped, and with named_only the root command (the TUI, which has no name); -1 after the
 * last. */
static int Docs_next(int i, bool named_only) {
  for (i++; Command_table[i]; i++) {
    const Command *c = Command_table[i];
    if (!(c->flags & CMD_HIDDEN) && (!named_only || c->name[0])) return i;
  }
  return -1;
}

/* How each shell completes each kind of value: bash's text sets COMPREPLY for "$cur" (helpers
 * in bash_head); zsh's is the action of an _arguments spec, where {...} runs as written, without
 * the compadd options _arguments adds to a plain call. */
typedef struct ShellText {
  const char *bash, *zsh;
} ShellText;

static const ShellText completion_of[CMD_COMPLETE_KINDS] = {
  [CMD_COMPLETE_NONE] = {":", " "},
  [CMD_COMPLETE_FILE] = {"_benchtop_files \"\" \"$cur\"", "_files"},
  [CMD_COMPLETE_SESSION] = {"_benchtop_files json \"$cur\"", "_files -g \"*.json\""},
  [CMD_COMPLETE_DIR] = {"COMPREPLY=($(compgen -d -- \"$cur\")); compopt -o filenames 2>/dev/null",
                        "_files -/"},
  [CMD_COMPLETE_VARIANTS] = {"_benchtop_list variants \"$cur\" all",
                             "{_benchtop_list variants all}"},
  [CMD_COMPLETE_VARIANT] = {"_benchtop_list variants \"${cur##*,}\"", "{_benchtop_name variants}"},
  [CMD_COMPLETE_SHAPES] = {"_benchtop_list shapes \"$cur\"", "{_benchtop_list shapes}"},
  [CMD_COMPLETE_COMMAND] = {"COMPREPLY=($(compgen -W \"$_benchtop_commands\" -- \"$cur\"))",
                            "_benchtop_commands"},
  /* the choice words, space-separated, follow; then choices_close */
  [CMD_COMPLETE_CHOICES] = {"COMPREPLY=($(compgen -W \"", "("},
};
static const ShellText choices_close = {"\" -- \"$cur\"))", ")"};

static void Docs_complete(FILE *out, bool zsh, CommandComplete kind, const char *choices) {
  fputs(zsh ? completion_of[kind].zsh : completion_of[kind].bash, out);
  if (kind != CMD_COMPLETE_CHOICES) return;
  char w[64];
  for (int k = 0; Command_choiceWord(choices, k, w, sizeof w); k++)
    fprintf(out, "%s%s", k ? " " : "", w);
  fputs(zsh ? choices_close.zsh : choices_close.bash, out);
}

/* ---- man page (roff) ---- */

/* Text for roff: backslashes and hyphens escaped, a leading '.' or '\'' defused. */
static void Docs_roff(FILE *out, const char *text) {
  bool bol = true;
  for (const char *p = text; *p; p++) {
    if (bol && (*p == '.' || *p == '\'')) fputs("\\&", out);
    bol = *p == '\n';
    if (*p == '\\') fputs("\\e", out);
    else if (*p == '-') fputs("\\-", out);
    else fputc(*p, out);
  }
}

/* Paragraphs ("\n\n" between them) as roff paragraphs. */
static void Docs_roffParagraphs(FILE *out, const char *text) {
  const char *p = text;
  while (*p) {
    const char *end = strstr(p, "\n\n");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char buf[2048];
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    fputs(".PP\n", out);
    Docs_roff(out, buf);
    fputc('\n', out);
    p += n;
    while (*p == '\n') p++;
  }
}

static void Docs_manOption(FILE *out, const CommandOption *o) {
  fputs(".TP\n", out);
  if (o->short_name) fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
  fputs("\\fB\\-\\-", out);
  Docs_roff(out, o->name);
  fputs("\\fR", out);
  if (o->value != CMD_FLAG) {
    fputs(" \\fI", out);
    Docs_roff(out, o->arg);
    fputs("\\fR", out);
  }
  fputc('\n', out);
  Docs_roff(out, o->help);
  if (o->value == CMD_CHOICE) {
    fputs(": ", out);
    char w[64];
    for (int k = 0; Command_choiceWord(o->choices, k, w, sizeof w); k++) {
      fputs(k ? ", " : "", out);
      Docs_roff(out, w);
    }
  }
  if (o->flags & CMD_OPT_REPEAT) fputs(" (may be repeated)", out);
  fputs(".\n", out);
}

void CommandDocs_man(FILE *out) {
  fprintf(out, ".\\\" The benchtop manual, generated from its command table (benchtop generate man).\n"
               ".TH BENCHTOP 1 \"\" \"benchtop %s\" \"User Commands\"\n"
               ".SH NAME\nbenchtop \\- a terminal workbench for tuning CUDA attention kernels\n"
               ".SH SYNOPSIS\n.nf\n", BENCHTOP_VERSION);
  for (int i = -1; (i = Docs_next(i, false)) >= 0;) {
    char usage[512];
    Command_usage(Command_table[i], usage, sizeof usage);
    Docs_roff(out, usage);
    fputc('\n', out);
  }
  fputs(".fi\n.SH DESCRIPTION\n", out);
  Docs_roffParagraphs(out,
    "benchtop times, verifies and profiles CUDA attention kernels: variants, their knobs and "
    "problem shapes run in a worker process that owns the GPU; every result lands in a JSON "
    "session that can be reopened, shown, compared and replayed, with or without a GPU.\n\n"
    "Shapes are BxHq[/Hkv]xSq[/Skv]xD with optional :causal and :bf16 (query heads over "
    "key/value heads, queries over cached keys), e.g. 2x8x512x64:causal or 8x32/8x1/8192x128:bf16. "
    "Without a command, "
    "benchtop opens the TUI. Every command takes -h (--help): its usage and options.");
  fputs(".SH COMMANDS\n", out);
  for (int i = -1; (i = Docs_next(i, false)) >= 0;) {
    const Command *c = Command_table[i];
    char usage[512];
    Command_usage(c, usage, sizeof usage);
    fputs(".SS \"", out);
    Docs_roff(out, usage);
    fputs("\"\n", out);
    Docs_roffParagraphs(out, c->description);
    if (c->flags & CMD_NEEDS_GPU) Docs_roffParagraphs(out, "Needs a CUDA GPU and a build with GPU support.");
    for (int k = 0; k < c->nargs; k++) {
      fputs(".TP\n\\fI", out);
      Docs_roff(out, c->args[k].name);
      fputs("\\fR\n", out);
      Docs_roff(out, c->args[k].help);
      fputs(".\n", out);
    }
    for (int k = 0; k < c->noptions; k++)
      if (!(c->options[k].flags & CMD_OPT_HIDDEN)) Docs_manOption(out, &c->options[k]);
  }
  fputs(".SH EXIT STATUS\n", out);
  for (int i = 0; Command_exitCodes[i].code; i++) {
    fprintf(out, ".TP\n%s\n", Command_exitCodes[i].code);
    Docs_roff(out, Command_exitCodes[i].meaning);
    fputs(".\n", out);
  }
  fputs(".SH FILES\n.TP\n\\fI$XDG_DATA_HOME/benchtop/sessions\\fR\n"
        "Sessions saved without \\fB\\-o\\fR (default \\fI~/.local/share/benchtop/sessions\\fR).\n"
        ".TP\n\\fI$XDG_CACHE_HOME/benchtop/jit\\fR\n"
        "Compiled kernels, and the worker's log (default \\fI~/.cache/benchtop\\fR).\n"
        ".TP\n\\fI$XDG_CONFIG_HOME/benchtop/themes\\fR\n"
        "Your colour themes, beside the installed ones.\n"
        ".SH SEE ALSO\nThe README.md of the source distribution; \\fBncu\\fR(1).\n", out);
}

/* ---- shared by the completions ---- */

/* "-v --variants" (or "--timing") */
static void Docs_optWords(FILE *out, const CommandOption *o, const char *sep) {
  if (o->short_name) fprintf(out, "-%c%s", o->short_name, sep);
  fprintf(out, "--%s", o->name);
}

/* ---- bash ---- */

static const char bash_head[] =
  "# bash completion for benchtop, generated from its command table (benchtop generate bash).\n"
  "# Words come from COMP_LINE split at blanks, so ':' in shapes and '=' in --opt=value stay\n"
  "# inside their word; bash replaces only what follows the last ':' or '=' of the word\n"
  "# (COMP_WORDBREAKS), hence _benchtop_ltrim.\n"
  "_benchtop_ltrim() {\n"
  "  local pre i\n"
  "  [[ $1 == *[:=]* ]] || return 0\n"
  "  pre=${1%\"${1##*[:=]}\"}\n"
  "  for i in \"${!COMPREPLY[@]}\"; do COMPREPLY[i]=${COMPREPLY[i]#\"$pre\"}; done\n"
  "}\n"
  "# KIND CUR [EXTRA...]: comma-separated names from `benchtop list KIND --names`.\n"
  "_benchtop_list() {\n"
  "  local kind=$1 cur=$2 prefix=\"\" names\n"
  "  shift 2\n"
  "  case $cur in *,*) prefix=${cur%,*},; cur=${cur##*,} ;; esac\n"
  "  names=\"$* $(\"$_benchtop_bin\" list \"$kind\" --names 2>/dev/null)\"\n"
  "  COMPREPLY=($(compgen -P \"$prefix\" -W \"$names\" -- \"$cur\"))\n"
  "}\n"
  "# EXT CUR: files ending in .EXT (any file when EXT is empty) and directories.\n"
  "_benchtop_files() {\n"
  "  local IFS=$'\\n'\n"
  "  if [ -n \"$1\" ]; then\n"
  "    COMPREPLY+=($(compgen -f -X \"!*.$1\" -- \"$2\") $(compgen -d -- \"$2\"))\n"
  "  else\n"
  "    COMPREPLY+=($(compgen -f -- \"$2\"))\n"
  "  fi\n"
  "  compopt -o filenames 2>/dev/null || true\n"
  "}\n";

static CommandComplete Docs_optComplete(const CommandOption *o) {
  return o->value == CMD_CHOICE ? CMD_COMPLETE_CHOICES : o->complete;
}

static void Docs_bashCommand(FILE *out, const Command *c) {
  fprintf(out, "  %s)\n    vopts=\"", c->name[0] ? c->name : "\"\"");
  bool first = true;
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    if (o->value == CMD_FLAG) continue;
    fputs(first ? "" : " ", out);
    Docs_optWords(out, o, " ");
    first = false;
  }
  fputs("\"\n    opts=\"", out);
  for (int i = 0; i < c->noptions; i++)
    if (!(c->options[i].flags & CMD_OPT_HIDDEN)) {
      Docs_optWords(out, &c->options[i], " ");
      fputc(' ', out);
    }
  fputs("-h --help\"\n    case $prev in\n", out);
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    if (o->value == CMD_FLAG || (o->flags & CMD_OPT_HIDDEN)) continue;
    fputs("    ", out);
    Docs_optWords(out, o, "|");
    fputs(") ", out);
    Docs_complete(out, false, Docs_optComplete(o), o->choices);
    fputs("; return 0 ;;\n", out);
  }
  fputs("    esac\n    [[ $cur == -* ]] && { COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); return 0; }\n"
        "    _benchtop_position\n    case $pos in\n", out);
  for (int k = 0; k < c->nargs; k++) {
    const CommandArg *g = &c->args[k];
    bool last = k == c->nargs - 1 && (g->flags & CMD_ARG_REPEAT);
    fprintf(out, "    %d%s) ", k, last ? "|*" : "");
    if (!c->name[0] && k == 0) fputs("COMPREPLY=($(compgen -W \"$_benchtop_commands\" -- \"$cur\")); ", out);
    Docs_complete(out, false, g->choices ? CMD_COMPLETE_CHOICES : g->complete, g->choices);
    fputs(" ;;\n", out);
  }
  fputs("    esac ;;\n", out);
}

void CommandDocs_bash(FILE *out) {
  fputs(bash_head, out);
  fputs("_benchtop_commands=\"", out);
  bool first = true;
  for (int i = -1; (i = Docs_next(i, true)) >= 0;) {
    fprintf(out, "%s%s", first ? "" : " ", Command_table[i]->name);
    first = false;
  }
  fputs("\"\n"
        "# How many positional arguments precede the word being completed (options and the\n"
        "# values of the options in $vopts skipped).\n"
        "_benchtop_position() {\n"
        "  local i skip=0\n"
        "  pos=0\n"
        "  for ((i = ci + 1; i < cword; i++)); do\n"
        "    if ((skip)); then skip=0; continue; fi\n"
        "    case \" $vopts \" in *\" ${words[i]} \"*) skip=1; continue ;; esac\n"
        "    [[ ${words[i]} == -* ]] || pos=$((pos + 1))\n"
        "  done\n"
        "}\n"
        "# The candidates for $cur, by the command found in $words.\n"
        "_benchtop_reply() {\n"
        "  case $cmd in\n", out);
  for (int i = -1; (i = Docs_next(i, false)) >= 0;) Docs_bashCommand(out, Command_table[i]);
  fputs("  esac\n"
        "}\n"
        "_benchtop() {\n"
        "  local line=${COMP_LINE:0:COMP_POINT} words cword cur prev cmd=\"\" ci=0 i vopts opts pos\n"
        "  read -ra words <<< \"$line\"\n"
        "  [[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]] && words+=(\"\")\n"
        "  cword=$((${#words[@]} - 1))\n"
        "  cur=${words[cword]}\n"
        "  prev=\"\"\n"
        "  ((cword > 0)) && prev=${words[cword - 1]}\n"
        "  local word=$cur\n"
        "  if [[ $cur == --*=* ]]; then prev=${cur%%=*}; cur=${cur#*=}; fi\n"
        "  _benchtop_bin=${words[0]/#\\~/$HOME}\n"
        "  COMPREPLY=()\n"
        "  for ((i = 1; i < cword; i++)); do\n"
        "    case \" $_benchtop_commands \" in *\" ${words[i]} \"*) cmd=${words[i]}; ci=$i; break ;; esac\n"
        "  done\n"
        "  _benchtop_reply\n"
        "  _benchtop_ltrim \"$word\"\n"
        "  return 0\n"
        "}\n"
        "complete -F _benchtop benchtop\n", out);
}

/* ---- zsh ---- */

/* Text inside a single-quoted _arguments spec: ' closed and reopened, [ ] : escaped. */
static void Docs_zshText(FILE *out, const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '\'') fputs("'\\''", out);
    else if (*p == '[' || *p == ']' || *p == ':' || *p == '\\') fprintf(out, "\\%c", *p);
    else fputc(*p, out);
  }
}

static void Docs_zshCommand(FILE *out, const Command *c, bool root) {
  fprintf(out, "  _arguments -s -S%s \\\n", root ? " -C" : "");
  for (int i = 0; i < c->noptions; i++) {
    const CommandOption *o = &c->options[i];
    if (o->flags & CMD_OPT_HIDDEN) continue;
    fputs("    '", out);
    if (o->flags & CMD_OPT_REPEAT) fputc('*', out);
    else if (o->short_name) fprintf(out, "(-%c --%s)", o->short_name, o->name);
    fputs("'", out);
    /* --name=: the value as the next word or after '=' */
    const char *eq = o->value == CMD_FLAG ? "" : "=";
    if (o->short_name) fprintf(out, "{-%c,--%s%s}", o->short_name, o->name, eq);
    else fprintf(out, "--%s%s", o->name, eq);
    fputs("'[", out);
    Docs_zshText(out, o->help);
    fputs("]", out);
    if (o->value != CMD_FLAG) {
      fputs(":", out);
      Docs_zshText(out, o->arg);
      fputs(":", out);
      Docs_complete(out, true, Docs_optComplete(o), o->choices);
    }
    fputs("' \\\n", out);
  }
  fputs("    '(- *)'{-h,--help}'[print the help and exit]' \\\n", out);
  if (root) {
    fputs("    '1: :->first' '*:: :->args'\n", out);
    return;
  }
  for (int k = 0; k < c->nargs; k++) {
    const CommandArg *g = &c->args[k];
    if (k == c->nargs - 1 && (g->flags & CMD_ARG_REPEAT)) fputs("    '*:", out);
    else fprintf(out, "    '%d:%s", k + 1, (g->flags & CMD_ARG_OPTIONAL) ? ":" : "");
    Docs_zshText(out, g->name);
    fputs(":", out);
    Docs_complete(out, true, g->choices ? CMD_COMPLETE_CHOICES : g->complete, g->choices);
    fputs("' \\\n", out);
  }
  fputs("    && return 0\n", out);
}

void CommandDocs_zsh(FILE *out) {
  fputs("#compdef benchtop\n"
        "# zsh completion for benchtop, generated from its command table (benchtop generate zsh).\n"
        "# KIND [EXTRA...]: comma-separated names from `benchtop list KIND --names`.\n"
        "_benchtop_list() {\n"
        "  local -a names\n"
        "  names=(${@:2} ${(f)\"$(${~_benchtop_bin} list $1 --names 2>/dev/null)\"})\n"
        "  _values -s , $1 ${names//:/\\\\:}\n"
        "}\n"
        "# KIND: one name from `benchtop list KIND --names`.\n"
        "_benchtop_name() {\n"
        "  local -a names\n"
        "  names=(${(f)\"$(${~_benchtop_bin} list $1 --names 2>/dev/null)\"})\n"
        "  compadd -a names\n"
        "}\n"
        "_benchtop_commands() {\n"
        "  local -a cmds\n"
        "  cmds=(\n", out);
  for (int i = -1; (i = Docs_next(i, true)) >= 0;) {
    const Command *c = Command_table[i];
    fprintf(out, "    '%s:", c->name);
    for (const char *p = c->summary; *p; p++) { /* _describe: only ':' is special */
      if (*p == '\'') fputs("'\\''", out);
      else if (*p == ':') fputs("\\:", out);
      else fputc(*p, out);
    }
    fputs("'\n", out);
  }
  fputs("  )\n"
        "  _describe -t commands 'benchtop command' cmds\n"
        "}\n"
        "_benchtop() {\n"
        "  local curcontext=$curcontext state line _benchtop_bin=$words[1]\n"
        "  typeset -A opt_args\n", out);
  Docs_zshCommand(out, &Cmd_tui, true);
  fputs("  case $state in\n"
        "  first) _alternative 'commands:command:_benchtop_commands' "
        "'sessions:session:_files -g \"*.json\"' ;;\n"
        "  args)\n"
        "    curcontext=${curcontext%:*}-$words[1]:\n"
        "    case $words[1] in\n", out);
  for (int i = -1; (i = Docs_next(i, true)) >= 0;) {
    const Command *c = Command_table[i];
    fprintf(out, "    %s)\n", c->name);
    Docs_zshCommand(out, c, false);
    fputs("      ;;\n", out);
  }
  fputs("    esac ;;\n"
        "  esac\n"
        "}\n"
        "_benchtop \"$@\"\n", out);
}
