/* Where benchtop's shipped data (colour themes, the bundled example sessions) is found: beside
 * the running binary, never at a path compiled in, so an installed benchtop works wherever it
 * was built, and a copied or moved installation keeps working.
 *   installed:  <dir of the binary>/BENCHTOP_DATA_FROM_BIN/<installed name>
 *               (meson.build computes it: ../share/benchtop for <prefix>/bin and <prefix>/share)
 *   build tree: the source tree named in <dir of the binary>/benchtop-source-root, a file meson
 *               writes into the build directory and never installs (the development fallback) */
#ifndef BENCHTOP_DATADIR_H
#define BENCHTOP_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

typedef enum DataKind {
  DATA_THEMES,   /* installed: themes/, source tree: themes/ */
  DATA_EXAMPLES, /* installed: examples/, source tree: sessions/examples/ */
  DATA_TUNED,    /* installed: tuned/, source tree: kernels/tuned/ (shipped tuned tables) */
  DATA_GRIDS,    /* installed: grids/, source tree: kernels/grids/ (tune --grid's grids) */
} DataKind;

/* The first of the places above that holds a folder of this kind, into buf; false when none. */
bool DataDir_find(DataKind kind, char *buf, size_t size);

#endif
