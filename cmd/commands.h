/* One file per command, each an entry in the table (cmd/table.c), as tmux does it. */
#ifndef BENCHTOP_COMMANDS_H
#define BENCHTOP_COMMANDS_H

typedef struct Command {
  const char *name;
  const char *usage;   /* arguments after the name */
  const char *summary; /* one line for --help */
  int (*exec)(int argc, char **argv); /* argv[0] is the command name */
} Command;

extern const Command Cmd_run, Cmd_list, Cmd_show, Cmd_diff, Cmd_replay, Cmd_checkKernels,
    Cmd_worker, Cmd_bench;
extern const Command *const Command_table[];

const Command *Command_find(const char *name);
void Command_printHelp(void);

#endif
