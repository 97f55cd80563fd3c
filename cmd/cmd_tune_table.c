/* benchtop tune-table SESSION.json... -o FILE: the tuned table benchtop ships for a chip
 * (kernels/tuned/CHIP.json), made from exhaustive tune sessions measured on it, so that the
 * shipped table can be made again from the data it came from. Needs no GPU. */
#include <stdio.h>
#include <string.h>

#include "bench/tune/tune_table.h"
#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"

enum { TABLE_OUTPUT, TABLE_NOPTS };

static const CommandOption table_options[] = {
  [TABLE_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "FILE",
                    .help = "the table to write (kernels/tuned/CHIP.json to ship it)",
                    .complete = CMD_COMPLETE_FILE, .flags = CMD_OPT_REQUIRED},
};

static const CommandArg table_args[] = {
  {"SESSION.json", "an exhaustive tune session (benchtop tune --strategy exhaustive -o), or a "
   "table made before (its entries, those of this build's kernel sources); several: a later one's "
   "winner replaces an earlier one's for the same variant and shape",
   NULL, CMD_COMPLETE_SESSION, CMD_ARG_REPEAT},
};

static int TuneTable_exec(const CommandArgs *a) {
  const char *out = CommandArgs_text(a, TABLE_OUTPUT, "");
  if (!out[0]) return Command_usageError(&Cmd_tuneTable, "-o needs a file name");
  for (int i = 0; i < a->npos; i++)
    if (strcmp(a->pos[i], out) == 0)
      return Command_usageError(&Cmd_tuneTable, "-o %s is one of the sessions read", out);
  TunedTableInfo info;
  int n = 0;
  char warn[4096], err[1024];
  bool ok = TunedTable_build((const char *const *)a->pos, a->npos, out, &info, &n, warn,
                             sizeof warn, err, sizeof err);
  for (char *line = strtok(warn, "\n"); line; line = strtok(NULL, "\n")) {
    fputs("benchtop tune-table: note: ", stderr);
    Text_print(stderr, line);
    fputc('\n', stderr);
  }
  if (!ok) {
    fputs("benchtop tune-table: ", stderr);
    Text_print(stderr, err);
    fputc('\n', stderr);
    return BT_EXIT_FAILED;
  }
  char line[1024];
  snprintf(line, sizeof line, "%s: %d entries for %s (%s), measured on benchtop %s, made by %s",
           out, n, info.chip, info.device, info.revision, info.generator);
  Text_print(stdout, line);
  putchar('\n');
  return BT_EXIT_OK;
}

const Command Cmd_tuneTable = {
  .name = "tune-table",
  .summary = "make the tuned table benchtop ships for a chip from exhaustive tune sessions",
  .description = "Reads the winners of exhaustive tune sessions (benchtop tune --strategy "
                 "exhaustive -o SESSION) measured on one chip and writes the table that run, "
                 "replay and the TUI use for a variant given no knob (and --knob auto): one "
                 "entry per variant and shape, keyed by the chip, with the sessions, the "
                 "benchtop commit they ran on and the date in the table. Copy it to "
                 "kernels/tuned/CHIP.json to ship it. A shape that was not tuned takes the "
                 "nearest tuned shape's knobs. Needs no GPU.",
  .options = table_options,
  .noptions = TABLE_NOPTS,
  .args = table_args,
  .nargs = CMD_COUNT(table_args),
  .exec = TuneTable_exec,
};
