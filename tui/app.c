/* Placeholder until the TUI lands. */
#include <stdio.h>

#include "cmd/commands.h"
#include "common/util.h"

int Tui_main(const char *path) {
  (void)path;
  fprintf(stderr, "benchtop: the TUI is not built yet\n");
  return BT_EXIT_USAGE;
}
