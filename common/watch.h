/* Watching files for saved changes: inotify on their directories where the kernel has it (an
 * editor that saves by renaming a new file over the old one is seen too), polling every
 * WATCH_POLL_MS where it does not (or with BENCHTOP_WATCH=poll). Either way a file counts as
 * changed only when its content did: a new mtime or size is confirmed by a hash of the bytes,
 * so a touch or an editor's second write of the same text reports nothing. */
#ifndef BENCHTOP_WATCH_H
#define BENCHTOP_WATCH_H

#include <stdbool.h>

#define WATCH_POLL_MS 250
#define WATCH_MAX_FILE (16u << 20) /* a larger file is hashed as "unreadable" */

typedef struct Watch Watch;

/* An empty watch; force_poll (or BENCHTOP_WATCH=poll) never uses inotify. */
Watch *Watch_new(bool force_poll);
void Watch_free(Watch *w);
/* Starts watching path (its content now is the baseline); returns its index. A path watched
 * already returns the same index. */
int Watch_add(Watch *w, const char *path);
int Watch_count(const Watch *w);
const char *Watch_path(const Watch *w, int i);
/* True when inotify is in use (else polling). */
bool Watch_usesInotify(const Watch *w);
/* The descriptor to poll() for input (inotify), or -1. */
int Watch_fd(const Watch *w);
/* Milliseconds until Watch_changes should be called although Watch_fd is quiet: -1 when
 * nothing is due (inotify), else the polling interval left. */
int Watch_timeoutMs(const Watch *w);
/* Reads pending events (never blocks) and looks at the files they concern (every file when
 * polling and the interval passed): the indices of files whose content changed since the
 * last look (a file that vanished or became unreadable counts as changed), at most max of
 * them. */
int Watch_changes(Watch *w, int *changed, int max);

#endif
