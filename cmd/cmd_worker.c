/* benchtop worker: the GPU-owning process the TUI and `run` talk to over pipes (JSON lines,
 * bench/protocol.h). Hidden: not meant to be typed by hand, but it works: feed it requests. */
#include <stdio.h>

#include "bench/worker/worker.h"
#include "cmd/commands.h"
#include "common/util.h"

static int Worker_exec(const CommandArgs *a) {
  (void)a;
  return Worker_main();
}

const Command Cmd_worker = {
  .name = "worker",
  .summary = "the GPU worker process (JSON lines on stdin/stdout)",
  .description = "The process that owns the GPU: benchtop starts it and talks to it in JSON "
                 "lines (bench/protocol.h). It takes no arguments.",
  .flags = CMD_HIDDEN | CMD_NEEDS_GPU,
  .exec = Worker_exec,
};
