/* What the TUI runs, apart from what it shows: runs and replays through the runner (runs.c),
 * tunes and --knob auto (tunes.c), hot reload of kernel files (hotreload.c), quitting with
 * unsaved records (quit.c) and save as (save.c). Views that start one of these include this. */
#ifndef BENCHTOP_TUI_RUNS_H
#define BENCHTOP_TUI_RUNS_H

#include "tui/tui.h"

/* runs.c */
void App_startRun(App *a);
void App_replay(App *a);
void App_cancelRun(App *a);
void App_autosave(App *a);
void App_pollRunner(App *a);
void App_prebuild(App *a, const VariantRow *vr);
/* hotreload.c: watching the listed variants' files (HotReload_start after the variant list
 * is made); the loop polls HotReload_fd and HotReload_buildFd and calls HotReload_poll after
 * HotReload_timeoutMs at the latest. */
void HotReload_start(App *a);
int HotReload_fd(const App *a);
int HotReload_buildFd(const App *a);
int HotReload_timeoutMs(const App *a);
void HotReload_poll(App *a);
/* The worker went idle: a worker holding replaced code is let go (the next run starts one
 * that reads the files again). */
void HotReload_workerIdle(App *a);
void HotReload_free(App *a);
/* tunes.c: T tunes the variant under the Variants cursor on the checked shapes; the runner's
 * events pass through here first (each returns whether it handled the event). */
void Tunes_start(App *a);
void Tunes_hello(App *a, const DeviceInfo *d);
void Tunes_noGpu(App *a);
bool Tunes_batchDone(App *a);
void Tunes_record(App *a, Record *r);          /* before the session takes it */
void Tunes_recorded(App *a, const Record *r);  /* after */
bool Tunes_cancel(App *a);
void Tunes_poll(App *a);
/* A run's entries, some of them --knob auto: resolved for the worker's device and submitted
 * (now, or at its hello); false when none is auto (the caller submits). */
bool Tunes_submitRun(App *a, PlanEntry *entries, int n);
void Tunes_autoShown(App *a);
/* The tune's progress as the status line's worker text (configurations, refused, best). */
void Tunes_showProgress(App *a);
void Tunes_free(App *a);

/* quit.c: q with records a failed autosave left unsaved asks first (save as / discard / stay):
 * true when it asked. At exit the session is saved, or written to a recovery file that is
 * named on stderr; false when it is not where it belongs. */
bool Quit_askUnsaved(App *a);
bool Quit_saveAtExit(App *a, int sig);
/* Writes the open session to a new file (sessions directory, else $TMPDIR); where names it. */
bool Quit_recover(App *a, char *where, size_t size);

/* save.c: saves or exports to what the user typed (~ and $VAR expanded, the extension picks
 * the format); false with one line in err. May ask before replacing a file. */
bool Save_as(App *a, const char *typed, char *err, size_t errsize);
/* The save-as prompt's hooks (S, and quit after a failed autosave): Save_as of what is typed. */
extern const PromptHooks Save_prompt;

#endif
