/* Batch execution shared by `benchtop run` and `benchtop replay`: a plan through the runner,
 * records printed as they arrive, the session autosaved after every record, a progress bar on
 * a terminal, Ctrl-C keeping every finished record. */
#ifndef BENCHTOP_RUN_LOOP_H
#define BENCHTOP_RUN_LOOP_H

#include <stdbool.h>

#include "sessions/export.h"
#include "sessions/session.h"

/* Runs plan; saves to out_path (NULL: a new file under the sessions directory). When result is
 * not NULL it receives the session (caller frees). Returns the exit code: 0 all passed (or
 * n/a), 1 a record failed verification or errored, 3 no GPU, 130 interrupted. */
int RunLoop_run(const Plan *plan, const char *out_path, OutputFormat fmt, Session *result);
/* Checks a --metrics spec's syntax (availability is decided per metric on the GPU). */
bool RunLoop_checkMetrics(const char *spec, char *err, size_t errsize);

#endif
