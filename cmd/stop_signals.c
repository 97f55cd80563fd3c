/* See stop_signals.h. */
#include "cmd/stop_signals.h"

#include <string.h>

void StopSignals_install(StopSignals *s, void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigaction(SIGINT, &sa, &s->old_int);
  sigaction(SIGTERM, &sa, &s->old_term);
  sigaction(SIGHUP, &sa, &s->old_hup);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &s->old_pipe);
}

void StopSignals_restore(const StopSignals *s) {
  sigaction(SIGINT, &s->old_int, NULL);
  sigaction(SIGTERM, &s->old_term, NULL);
  sigaction(SIGHUP, &s->old_hup, NULL);
  sigaction(SIGPIPE, &s->old_pipe, NULL);
}
