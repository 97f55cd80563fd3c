/* The signals that stop a long command (run, tune, tune --grid) cleanly: SIGINT, SIGTERM and
 * SIGHUP go to the command's handler (it sets a flag; the command keeps what finished and
 * exits 130), and SIGPIPE is ignored, so a closed stdout (`| head`) is an error on write, not a
 * silent death mid-plan. Restored as they were when the command ends. */
#ifndef BENCHTOP_STOP_SIGNALS_H
#define BENCHTOP_STOP_SIGNALS_H

#include <signal.h>

typedef struct StopSignals {
  struct sigaction old_int, old_term, old_hup, old_pipe;
} StopSignals;

void StopSignals_install(StopSignals *s, void (*handler)(int));
void StopSignals_restore(const StopSignals *s);

#endif
