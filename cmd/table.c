/* The command table, `benchtop --help`, and `benchtop help [COMMAND]`. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/export.h"

const Command *const Command_table[] = {
  &Cmd_tui, &Cmd_run, &Cmd_tune, &Cmd_tuneTable, &Cmd_list, &Cmd_show, &Cmd_plot, &Cmd_diff, &Cmd_merge,
  &Cmd_replay, &Cmd_bundle, &Cmd_best, &Cmd_checkKernels, &Cmd_new, &Cmd_help, &Cmd_benchMetrics, &Cmd_worker,
  &Cmd_generate, NULL,
};

const CommandExitCode Command_exitCodes[] = {
  {"0", "all passed"},
  {"1", "a verification failed, a record errored, a diff passed its threshold, or a file was bad"},
  {"2", "usage error"},
  {"3", "no GPU (or a build without GPU support)"},
  {"130", "interrupted (the finished records are kept)"},
  {NULL, NULL},
};

const Command *Command_find(const char *name) {
  for (int i = 0; Command_table[i]; i++)
    if (Command_table[i]->name[0] && strcmp(Command_table[i]->name, name) == 0)
      return Command_table[i];
  return NULL;
}

void Command_kernelDirs(const CommandArgs *a, int opt) {
  for (int i = 0; i < CommandArgs_count(a, opt); i++) {
    const char *dir = CommandArgs_nth(a, opt, i);
    char abs[PATH_MAX];
    /* A directory that does not exist stays as typed: the loader says so, naming it. */
    const char *add = realpath(dir, abs) ? abs : dir; /* as typed, never cut */
    const char *old = getenv("BENCHTOP_KERNEL_PATH");
    char *path = old && *old ? Util_asprintf("%s:%s", old, add) : Util_xstrdup(add);
    setenv("BENCHTOP_KERNEL_PATH", path, 1);
    free(path);
  }
}

int Command_format(const CommandArgs *a, int opt) {
  OutputFormat fmt = FMT_TABLE;
  if (CommandArgs_has(a, opt)) Export_parseFormat(CommandArgs_text(a, opt, "table"), &fmt);
  return (int)fmt;
}

void Command_printOverview(void) {
  printf("benchtop %s - a terminal workbench for tuning CUDA attention kernels\n\nusage:\n",
         BENCHTOP_VERSION);
  for (int i = 0; Command_table[i]; i++) {
    const Command *c = Command_table[i];
    if (c->flags & CMD_HIDDEN) continue;
    char usage[512];
    Command_usage(c, usage, sizeof usage);
    printf("  %s\n      %s\n", usage, c->summary);
  }
  printf("\n'benchtop COMMAND --help' describes a command and its options; 'man benchtop' all of "
         "them.\nShapes are BxHq[/Hkv]xSq[/Skv]xD with optional :causal and :bf16, e.g. "
         "2x8x512x64:causal or 8x32/8x1/8192x128:bf16.\n\nexit "
         "codes:\n");
  for (int i = 0; Command_exitCodes[i].code; i++)
    printf("  %-4s %s\n", Command_exitCodes[i].code, Command_exitCodes[i].meaning);
}

static const CommandArg help_args[] = {
  {"COMMAND", "the command to describe", NULL, CMD_COMPLETE_COMMAND, CMD_ARG_OPTIONAL},
};

static int Help_exec(const CommandArgs *a) {
  if (a->npos == 0) {
    Command_printOverview();
    return BT_EXIT_OK;
  }
  const Command *c = Command_find(a->pos[0]);
  if (!c) return Command_usageError(&Cmd_help, "no command '%s'", a->pos[0]);
  Command_printHelp(c);
  return BT_EXIT_OK;
}

const Command Cmd_help = {
  .name = "help",
  .summary = "describe every command, or one",
  .description = "Prints the commands and what they do, or one command's usage and options "
                 "(the same as benchtop COMMAND --help).",
  .args = help_args, .nargs = CMD_COUNT(help_args),
  .exec = Help_exec,
};

void Command_l2Persist(const CommandArgs *a, int opt, RunOptions *o) {
  if (!CommandArgs_has(a, opt)) return;
  const char *w = CommandArgs_text(a, opt, "off");
  /* "off" is stored as "": what sessions without the option say */
  Util_strlcpy(o->l2_persist, strcmp(w, "off") == 0 ? "" : w, sizeof o->l2_persist);
}
