/* The results' best-so-far column: beside each record, the best p50 of its configuration over
 * the sessions folder and the open session (the leaderboard of `benchtop best`,
 * sessions/leaderboard.h), and where it was reached. Read on demand (L), since the folder may
 * hold many sessions. */
#ifndef BENCHTOP_TUI_BEST_H
#define BENCHTOP_TUI_BEST_H

typedef struct App App;

/* L: reads the sessions folder (again) and fills the column. */
void Best_load(App *a, int ch);
/* The open session's records changed: the column worked out again (nothing before L). */
void Best_refresh(App *a);
/* Forgets the sessions read (a session opened in place of the other; at exit). */
void Best_free(App *a);

#endif
