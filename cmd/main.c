/* benchtop: dispatch to a command, or open the TUI. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/util.h"

int main(int argc, char **argv) {
  if (argc >= 2) {
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "help") == 0) {
      Command_printHelp();
      return BT_EXIT_OK;
    }
    if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
      printf("benchtop %s (%s)\n", BENCHTOP_VERSION, BENCHTOP_REVISION);
      return BT_EXIT_OK;
    }
    const Command *c = Command_find(a);
    if (c) return c->exec(argc - 1, argv + 1);
    if (a[0] == '-') {
      fprintf(stderr, "benchtop: unknown option '%s' (try benchtop --help)\n", a);
      return BT_EXIT_USAGE;
    }
    if (argc > 2) {
      fprintf(stderr, "benchtop: unexpected '%s' after the session file (try benchtop --help)\n",
              argv[2]);
      return BT_EXIT_USAGE;
    }
  }
  return Tui_main(argc >= 2 ? argv[1] : NULL);
}
