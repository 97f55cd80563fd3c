/* benchtop: dispatch to a command, or open the TUI. */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/revision.h"
#include "common/util.h"
#include "tui/tui_main.h"

/* A crash prints its stack on stderr for the bug report, then takes the default action. */
static void Main_onCrash(int sig) {
  static const char head[] = "benchtop: crashed; stack (addr2line -e benchtop resolves it):\n";
  ssize_t w = write(STDERR_FILENO, head, sizeof head - 1);
  (void)w;
  void *frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char **argv) {
  signal(SIGSEGV, Main_onCrash);
  signal(SIGBUS, Main_onCrash);
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
