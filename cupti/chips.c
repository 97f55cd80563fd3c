/* The marketing-name table: one line per product name, the chip CUPTI calls it. Chips of one
 * architecture list the same metrics (AD102-AD107 alike, GA102-GA107 alike: checked with
 * libnvperf_host 13.0), so a compute capability maps to its family's first chip. */
#include "cupti/chips.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

typedef struct ChipAlias {
  const char *name; /* upper case, words joined without spaces: "RTX4090" */
  const char *chip;
} ChipAlias;

static const ChipAlias Chips_aliases[] = {
  /* Ada (sm_89) */
  {"L4", "AD104"}, {"L40", "AD102"}, {"L40S", "AD102"}, {"L20", "AD102"},
  {"RTX4090", "AD102"}, {"RTX4080", "AD103"}, {"RTX4070TI", "AD104"}, {"RTX4070", "AD104"},
  {"RTX4060TI", "AD106"}, {"RTX4060", "AD107"},
  /* Ampere (sm_80, sm_86) */
  {"A100", "GA100"}, {"A800", "GA100"}, {"A30", "GA100"}, {"A10", "GA102"}, {"A10G", "GA102"},
  {"A40", "GA102"}, {"A6000", "GA102"}, {"RTXA6000", "GA102"}, {"A5000", "GA102"},
  {"RTXA5000", "GA102"}, {"A4000", "GA104"}, {"RTXA4000", "GA104"}, {"A16", "GA107"},
  {"A2", "GA107"}, {"RTX3090", "GA102"}, {"RTX3080", "GA102"}, {"RTX3070", "GA104"},
  {"RTX3060", "GA106"},
  /* Hopper (sm_90) */
  {"H100", "GH100"}, {"H200", "GH100"}, {"H800", "GH100"}, {"H20", "GH100"}, {"GH200", "GH100"},
  /* Blackwell (sm_100, sm_120) */
  {"B200", "GB100"}, {"B100", "GB100"}, {"RTX5090", "GB202"}, {"RTX5080", "GB203"},
  /* Turing (sm_75) and Volta (sm_70): listable, though no variant runs there */
  {"T4", "TU104"}, {"RTX2080TI", "TU102"}, {"V100", "GV100"},
};

/* Compute capability x10 -> the first chip of that architecture's family. */
static const struct {
  int cc;
  const char *chip, *family;
} Chips_byCc[] = {
  {70, "GV100", "GV100"}, {75, "TU102", "TU102-TU117"}, {80, "GA100", "GA100"},
  {86, "GA102", "GA102-GA107"}, {87, "GA10B", "GA10B"}, {89, "AD102", "AD102-AD107"},
  {90, "GH100", "GH100"}, {100, "GB100", "GB100"}, {120, "GB202", "GB202-GB207"},
};

const char *Chips_knownNames(void) {
  return "L4, L40S, RTX 4090, A10G, A100, H100, H200, B200, ..., or sm_80, sm_86, sm_89, sm_90, "
         "8.9";
}

/* "NVIDIA GeForce RTX 4090" -> "RTX4090": the model in upper case, without the maker and brand
 * words and without what follows the model ("H100 80GB HBM3" -> "H100", "RTX 4070 Ti" ->
 * "RTX4070TI"). */
static void Chips_normalise(const char *in, char *out, size_t size) {
  static const char *const skip[] = {"NVIDIA", "GEFORCE", "TESLA", "QUADRO"};
  char words[4][24];
  int nw = 0;
  for (const char *p = in; *p && nw < 4;) {
    while (*p && !isalnum((unsigned char)*p)) p++;
    size_t w = 0;
    for (; *p && isalnum((unsigned char)*p); p++)
      if (w + 1 < sizeof words[0]) words[nw][w++] = (char)toupper((unsigned char)*p);
    words[nw][w] = '\0';
    bool skipped = w == 0;
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) skipped |= strcmp(words[nw], skip[i]) == 0;
    if (!skipped) nw++;
  }
  int take = nw > 0 ? 1 : 0;
  if (nw > 1 && strcmp(words[0], "RTX") == 0) take = 2;
  if (nw > take && strcmp(words[take], "TI") == 0) take++;
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < take; i++) {
    size_t w = strlen(words[i]);
    if (n + w >= size) break;
    memcpy(out + n, words[i], w + 1);
    n += w;
  }
}

/* "sm_89", "SM89", "compute_89", "8.9" -> 89; 0 when not a compute capability. */
static int Chips_parseCc(const char *s) {
  const char *p = s;
  if (strncasecmp(p, "sm_", 3) == 0) p += 3;
  else if (strncasecmp(p, "sm", 2) == 0) p += 2;
  else if (strncasecmp(p, "compute_", 8) == 0) p += 8;
  else {
    char *end;
    long major = strtol(p, &end, 10);
    if (end == p || *end != '.' || major < 1 || major > 99) return 0;
    const char *q = end + 1;
    long minor = strtol(q, &end, 10);
    if (end == q || *end || minor < 0 || minor > 9) return 0;
    return (int)(major * 10 + minor);
  }
  char *end;
  long cc = strtol(p, &end, 10);
  if (end == p || (*end && strcasecmp(end, "a") != 0) || cc < 10 || cc > 999) return 0;
  return (int)cc;
}

bool Chips_resolve(const char *name, char *chip, size_t chipsize, char *note, size_t notesize) {
  note[0] = '\0';
  int cc = Chips_parseCc(name);
  if (cc) {
    for (size_t i = 0; i < sizeof Chips_byCc / sizeof Chips_byCc[0]; i++)
      if (Chips_byCc[i].cc == cc) {
        Util_strlcpy(chip, Chips_byCc[i].chip, chipsize);
        if (strchr(Chips_byCc[i].family, '-'))
          snprintf(note, notesize, "sm_%d is %s, which list the same metrics", cc,
                   Chips_byCc[i].family);
        else
          snprintf(note, notesize, "sm_%d is %s", cc, Chips_byCc[i].chip);
        return true;
      }
    return false;
  }
  char key[64];
  Chips_normalise(name, key, sizeof key);
  for (size_t i = 0; i < sizeof Chips_aliases / sizeof Chips_aliases[0]; i++)
    if (strcmp(key, Chips_aliases[i].name) == 0) {
      Util_strlcpy(chip, Chips_aliases[i].chip, chipsize);
      snprintf(note, notesize, "%s is %s", key, Chips_aliases[i].chip);
      return true;
    }
  return false;
}
