/* benchtop worker: placeholder until the command lands (prints that it is not built yet). */
#include <stdio.h>

#include "cmd/commands.h"
#include "common/util.h"

static int Cmd_worker_exec(int argc, char **argv) {
  (void)argc;
  fprintf(stderr, "benchtop: '%s' is not built yet\n", argv[0]);
  return BT_EXIT_USAGE;
}

const Command Cmd_worker = {"worker", "", "(not built yet)", Cmd_worker_exec};
