/* The datasheet table (see datasheet.h). One line per product; a more specific name comes
 * before the one it contains ("H100 PCIe" before "H100"). Figures: NVIDIA's product datasheets,
 * dense rates (the sparse ones are twice these). */
#include "sessions/datasheet.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

static const Datasheet Datasheet_table[] = {
  /* Hopper */
  {"H100 PCIe", 756.5, 1513.0, 2000},
  {"H100 NVL", 835.5, 1671.0, 3900},
  {"H100", 989.4, 1978.9, 3350}, /* SXM5, HBM3 */
  {"H200 NVL", 835.5, 1671.0, 4800},
  {"H200", 989.4, 1978.9, 4800},
  /* Ada */
  {"L40S", 362.1, 733.0, 864},
  {"L4", 121.0, 242.5, 300},
  {"RTX 4090", 165.2, 330.3, 1008},
  /* Ampere */
  {"A100-SXM4-80GB", 312.0, 0, 2039},
  {"A100 80GB PCIe", 312.0, 0, 1935},
  {"A100", 312.0, 0, 1555}, /* the 40 GB boards */
  {"A10", 125.0, 0, 600},
  /* Blackwell */
  {"B200", 2250.0, 4500.0, 8000},
};

/* True when word occurs in name as a whole word, case-insensitively: "H100" in "NVIDIA H100
 * 80GB HBM3" and "A100-SXM4-40GB", not "H200" in "GH200" nor "L4" in "L40S". */
static bool Datasheet_hasWord(const char *name, const char *word) {
  size_t n = strlen(word);
  for (const char *p = name; *p; p++) {
    if (p != name && isalnum((unsigned char)p[-1])) continue;
    size_t i = 0;
    while (i < n && p[i] && toupper((unsigned char)p[i]) == toupper((unsigned char)word[i])) i++;
    if (i == n && !isalnum((unsigned char)p[n])) return true;
  }
  return false;
}

const Datasheet *Datasheet_find(const DeviceInfo *d) {
  for (size_t i = 0; i < sizeof Datasheet_table / sizeof *Datasheet_table; i++)
    if (Datasheet_hasWord(d->name, Datasheet_table[i].product)) return &Datasheet_table[i];
  return NULL;
}

double Datasheet_fp8Ratio(const DeviceInfo *d) {
  const Datasheet *ds = Datasheet_find(d);
  if (ds) return ds->fp8_tflops > 0 ? ds->fp8_tflops / ds->fp16_tflops : 0;
  return d->cc_major * 10 + d->cc_minor >= 89 ? 2.0 : 0;
}
