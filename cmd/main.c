/* benchtop: dispatch to a command, or open the TUI (the command without a name). */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "common/text.h"
#include "kernels/registry.h"

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

/* Kernel path notes (a broken declaration, a shadowed variant) as the registry loads. */
static void Main_kernelNote(const char *line) {
  fputs("benchtop: ", stderr);
  Text_print(stderr, line); /* quotes paths and names of files on the kernel path */
  fputc('\n', stderr);
}

int main(int argc, char **argv) {
  signal(SIGSEGV, Main_onCrash);
  signal(SIGBUS, Main_onCrash);
  /* A file-size limit reached is a failed write (EFBIG) that is said, like a full disk, not a
   * silent death that leaves a temporary file behind. */
  signal(SIGXFSZ, SIG_IGN);
  const Command *c = argc >= 2 ? Command_find(argv[1]) : NULL;
  if (c) {
    Registry_setNoteSink(Main_kernelNote); /* the TUI shows them itself */
    return Command_run(c, argc - 1, argv + 1);
  }
  return Command_run(&Cmd_tui, argc, argv);
}
