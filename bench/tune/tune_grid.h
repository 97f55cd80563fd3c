/* A tuning grid: the problems `benchtop tune --grid` tunes to make a chip's tuned table. A grid
 * file is text, one problem per line (the shape grammar of docs/problems.md), `#` starts a
 * comment, and two optional settings:
 *
 *   budget 30        measurements per variant and problem (as tune's --budget: N or P%)
 *   metrics none     the counters of every measurement (as --metrics; the default is none)
 *
 * A name without a slash or a .grid ending is a shipped grid: NAME.grid in kernels/grids/
 * (installed: <prefix>/share/benchtop/grids; TUNE_GRID_DIR_ENV names another folder).
 * docs/tuning.md describes the shipped grids and what they cost. */
#ifndef BENCHTOP_TUNE_GRID_H
#define BENCHTOP_TUNE_GRID_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/shape.h"

#define TUNE_GRID_PROBLEMS_MAX 256       /* problems one grid may hold */
#define TUNE_GRID_FILE_MAX (1u << 20)    /* bytes of a grid file */
#define TUNE_GRID_DIR_ENV "BENCHTOP_GRIDS"

typedef struct TuneGrid {
  char path[4096];      /* the file it was read from */
  int nproblems;
  Shape *problems;      /* in the file's order */
  char budget[32];      /* "" when the file sets none */
  char metrics[512];    /* "" when the file sets none */
} TuneGrid;

/* The file a --grid argument names: a path as given when it has a slash or ends in .grid,
 * else NAME.grid in the shipped grids' folder. False with one line in err (no such grid: the
 * line lists the shipped ones). */
bool TuneGrid_resolve(const char *arg, char *path, size_t size, char *err, size_t errsize);
/* Reads and checks a grid file: every line a problem or a setting, at least one problem, at
 * most TUNE_GRID_PROBLEMS_MAX (counted as lines are read, before anything is expanded), none
 * twice. False with one line in err ("FILE:LINE: what is wrong"). */
bool TuneGrid_load(const char *path, TuneGrid *g, char *err, size_t errsize);
/* The same from memory (tests); name stands for the file in messages. */
bool TuneGrid_parse(const char *text, size_t len, const char *name, TuneGrid *g, char *err,
                    size_t errsize);
void TuneGrid_free(TuneGrid *g);

#endif
