/* GPU names as people say them ("L4", "RTX 4090", "H200", "sm_89", "8.9") to the chip names
 * libnvperf_host knows ("AD104", "AD102", "GH100"), for `benchtop list metrics --chip`. */
#ifndef BENCHTOP_CHIPS_H
#define BENCHTOP_CHIPS_H

#include <stdbool.h>
#include <stddef.h>

/* True when name is a GPU's marketing name or a compute capability that maps to a chip: chip
 * gets the chip name, note says the mapping ("L4 is AD104"). False otherwise (name may be a
 * chip name itself: libnvperf_host decides). */
bool Chips_resolve(const char *name, char *chip, size_t chipsize, char *note, size_t notesize);
/* The names Chips_resolve accepts, for error messages ("L4, L40S, RTX 4090, ..."). */
const char *Chips_knownNames(void);

#endif
