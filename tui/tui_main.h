/* The TUI's entry point, the one thing the command layer needs from tui/. */
#ifndef BENCHTOP_TUI_MAIN_H
#define BENCHTOP_TUI_MAIN_H

/* Runs the TUI on path (NULL: the newest session or the bundled example); returns the exit
 * code. */
int Tui_main(const char *path);

#endif
