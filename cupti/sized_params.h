/* The one way the cupti/ layer fills a CUPTI or NVPW params struct. */
#ifndef BENCHTOP_SIZED_PARAMS_H
#define BENCHTOP_SIZED_PARAMS_H

#include <string.h>

/* Zeroed params struct with its structSize set, as every CUPTI and NVPW call wants (both
 * libraries name the size constant T_STRUCT_SIZE). */
#define SIZED_PARAMS(T, v) \
  T v;                     \
  memset(&v, 0, sizeof v); \
  v.structSize = T##_STRUCT_SIZE

#endif
