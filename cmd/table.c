#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"

const Command *const Command_table[] = {
  &Cmd_run, &Cmd_list, &Cmd_show, &Cmd_diff, &Cmd_replay, &Cmd_checkKernels, &Cmd_bench,
  &Cmd_worker, NULL,
};

const Command *Command_find(const char *name) {
  for (int i = 0; Command_table[i]; i++)
    if (strcmp(Command_table[i]->name, name) == 0) return Command_table[i];
  return NULL;
}

void Command_printHelp(void) {
  printf("benchtop %s - a terminal workbench for tuning CUDA attention kernels\n\n", BENCHTOP_VERSION);
  printf("usage:\n  benchtop [SESSION.json]\n      the TUI; with no GPU it opens the newest session "
         "or the bundled example\n");
  for (int i = 0; Command_table[i]; i++)
    printf("  benchtop %s %s\n      %s\n", Command_table[i]->name, Command_table[i]->usage,
           Command_table[i]->summary);
  printf("\nshapes are BxHxSxD with an optional :causal, e.g. 2x8x512x64:causal\n"
         "exit codes: 0 ok, 1 a verification or regression check failed (or a bad file),\n"
         "            2 usage error, 3 no GPU\n");
}
