/* benchtop worker: the GPU-owning process the TUI and `run` talk to over pipes (JSON lines,
 * bench/protocol.h). Not meant to be typed by hand, but it works: feed it run requests. */
#include <stdio.h>

#include "bench/worker.h"
#include "cmd/commands.h"
#include "common/util.h"

static int Worker_exec(int argc, char **argv) {
  if (argc > 1) {
    fprintf(stderr, "benchtop worker: takes no arguments (it reads JSON lines on stdin)\n");
    return BT_EXIT_USAGE;
  }
  (void)argv;
  return Worker_main();
}

const Command Cmd_worker = {"worker", "", "the GPU worker process (JSON lines on stdin/stdout)",
                            Worker_exec};
