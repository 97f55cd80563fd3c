/* Quitting with records that are not saved. After a failed autosave (another benchtop holds
 * the file, a full disk) q asks: s save as (a path prompt; quitting follows the save), d
 * discard, any other key stays. A signal, or any other way out, writes the unsaved session to
 * a recovery file and says where: records are never lost without a word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/text.h"
#include "common/util.h"
#include "tui/runs.h"
#include "tui/tui.h"

/* Records that are in the session but not in its file. */
static bool Quit_unsaved(const App *a) {
  return a->session.dirty && a->session.nrecords > 0 && !a->autosave_ok;
}

static void Quit_discard(App *a) {
  a->discard_unsaved = true;
  a->quit = true;
}

static void Quit_saveAs(App *a) {
  char path[4096];
  if (!Session_defaultPath(path, sizeof path)) path[0] = '\0';
  a->quit_after_save = true;
  ViewPrompt_open(a, &Save_prompt, "save as, then quit (.json): ", path);
  a->prompt.selected = path[0] != '\0';
}

bool Quit_askUnsaved(App *a) {
  if (!Quit_unsaved(a)) return false;
  char q[sizeof a->prompt.confirm_text];
  snprintf(q, sizeof q, "%d records, new ones not saved (autosave failed). s save as, d discard "
           "them and quit, other key: stay", a->session.nrecords);
  App_confirm(a, q, "not quitting: the records are kept (S saves them elsewhere)", NULL);
  a->prompt.alt_key[0] = 's';
  a->prompt.on_alt[0] = Quit_saveAs;
  a->prompt.alt_key[1] = 'd';
  a->prompt.on_alt[1] = Quit_discard;
  return true;
}

/* A new file for a session that could not go where it belonged: the sessions directory, else
 * the temporary directory. Never replaces anything. */
bool Quit_recover(App *a, char *where, size_t size) {
  char err[1024];
  if (Session_defaultPath(where, size) && Session_save(&a->session, where, err, sizeof err))
    return true;
  const char *tmp = getenv("TMPDIR");
  snprintf(where, size, "%s/benchtop-recovered-%ld.json", tmp && tmp[0] ? tmp : "/tmp",
           (long)getpid());
  return Session_save(&a->session, where, err, sizeof err);
}

bool Quit_saveAtExit(App *a, int sig) {
  char err[1024] = "";
  bool saved = true;
  if (a->discard_unsaved) {
    fprintf(stderr, "benchtop: could not save ");
    Text_print(stderr, a->session.path[0] ? a->session.path : "the session");
    fprintf(stderr, " (autosave failed): its %d records were discarded at quit\n",
            a->session.nrecords);
    return false;
  }
  if (a->session.dirty && a->session.path[0] && !a->from_example)
    saved = Session_autosave(&a->session, err, sizeof err);
  else if (a->session.dirty && a->session.nrecords > 0 && !a->from_example) {
    saved = false;
    Util_strlcpy(err, "no file to save the session to", sizeof err);
  }
  if (sig) fprintf(stderr, "benchtop: stopped by signal %d (%s)%s\n", sig, strsignal(sig),
                   a->session.path[0] && !a->from_example && saved ? ", session saved" : "");
  if (!saved) {
    fprintf(stderr, "benchtop: could not save %s: ", a->session.path[0] ? a->session.path : "the session");
    Text_print(stderr, err);
    fputc('\n', stderr);
    char where[4096];
    if (Quit_recover(a, where, sizeof where)) {
      fprintf(stderr, "benchtop: the session (%d records) was written to ", a->session.nrecords);
      Text_print(stderr, where);
      fputs(" instead\n", stderr);
    } else {
      fprintf(stderr, "benchtop: no recovery file could be written either (");
      Text_print(stderr, where);
      fputs("): the unsaved records are lost\n", stderr);
    }
  } else if (a->session.path[0] && !a->from_example && a->session.nrecords) {
    printf("benchtop: session ");
    Text_print(stdout, a->session.path);
    printf(" (%d records)\n", a->session.nrecords);
  }
  return saved;
}

static void App_quitNow(App *a) {
  if (!Quit_askUnsaved(a)) a->quit = true;
}

void App_requestQuit(App *a) {
  if (a->run.running)
    App_confirm(a, "A run is in flight. Quit anyway (it is cancelled)? y/n",
                "still running; x cancels the run", App_quitNow);
  else App_quitNow(a);
}
