/* benchtop generate man|bash|zsh (hidden): the man page or a completion script, written from
 * the command table; docs/meson.build runs it at build time. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"

static const CommandArg generate_args[] = {
  {"man|bash|zsh", "what to write on stdout", "man|bash|zsh", CMD_COMPLETE_CHOICES, 0},
};

static int Generate_exec(const CommandArgs *a) {
  const char *what = a->pos[0];
  if (strcmp(what, "man") == 0) CommandDocs_man(stdout);
  else if (strcmp(what, "bash") == 0) CommandDocs_bash(stdout);
  else CommandDocs_zsh(stdout);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror("benchtop generate: stdout");
    return BT_EXIT_FAILED;
  }
  return BT_EXIT_OK;
}

const Command Cmd_generate = {
  .name = "generate",
  .summary = "write the man page or a shell completion from the command table",
  .description = "Writes the man page (roff) or the bash or zsh completion script on stdout, "
                 "from the same table the command line is parsed with.",
  .args = generate_args, .nargs = CMD_COUNT(generate_args),
  .flags = CMD_HIDDEN,
  .exec = Generate_exec,
};
