/* benchtop [SESSION.json]: the TUI, the command without a name. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/gpu_build.h"
#include "common/revision.h"
#include "common/util.h"
#include "tui/tui_main.h"

enum { TUI_VERSION, TUI_KERNELS, TUI_NOPTS };

static const CommandOption tui_options[] = {
  [TUI_VERSION] = {.name = "version", .short_name = 'V', .value = CMD_FLAG,
                   .help = "print the version and the source revision, and exit"},
  [TUI_KERNELS] = CMD_OPTION_KERNELS,
};

static const CommandArg tui_args[] = {
  {"SESSION.json", "the session to open (default: the newest saved session, else the bundled "
   "example)", NULL, CMD_COMPLETE_SESSION, CMD_ARG_OPTIONAL},
};

static int Tui_exec(const CommandArgs *a) {
  if (CommandArgs_has(a, TUI_VERSION)) {
    printf("benchtop %s (%s)%s\n", BENCHTOP_VERSION, BENCHTOP_REVISION,
           BENCHTOP_GPU ? "" : ", viewer build (no GPU support)");
    return BT_EXIT_OK;
  }
  Command_kernelDirs(a, TUI_KERNELS);
  const char *path = a->npos ? a->pos[0] : NULL;
  /* A mistyped command must not become a new session file named after it. */
  size_t n = path ? strlen(path) : 0;
  if (path && access(path, F_OK) != 0 && !strchr(path, '/') &&
      (n < 5 || strcmp(path + n - 5, ".json") != 0))
    return Command_usageError(&Cmd_tui, "no command '%s' (a new session file needs a .json name)",
                              path);
  return Tui_main(path);
}

const Command Cmd_tui = {
  .name = "",
  .summary = "the TUI; with no GPU it opens the newest session or the bundled example",
  .description = "Opens the terminal workbench: toggle variants, knobs and shapes, run them, "
                 "and read, compare and save the results. Press ? in it for every key.",
  .options = tui_options, .noptions = TUI_NOPTS,
  .args = tui_args, .nargs = CMD_COUNT(tui_args),
  .exec = Tui_exec,
};
