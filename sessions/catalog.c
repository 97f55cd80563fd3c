/* Headline metric catalog and --metrics spec parsing. */
#include "sessions/catalog.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/record.h"

const MetricInfo Catalog_headline[] = {
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "occ", "%", METRIC_HIGHER_BETTER,
     "achieved occupancy: active warps per SM over the SM's maximum, while the SM was active", false},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor", "%",
     METRIC_HIGHER_BETTER, "tensor pipe (HMMA) busy cycles over the peak, while the SM was active", false},
    {"sm__inst_executed_pipe_tensor_op_hmma.sum", "hmma", "inst", METRIC_NEUTRAL,
     "warp instructions executed on the tensor pipe (HMMA, and HFMA2.MMA register moves)", false},
    /* ptxas moves constants into registers with HFMA2.MMA, which issues on the tensor pipe and
     * is counted by the two above: a scalar kernel reads 0.1-0.3 %. Where the chip counts them
     * apart (GA100/GH100; Hopper also has the matrix-only busy cycles) these say so. */
    {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor mma", "%", METRIC_HIGHER_BETTER,
     "tensor pipe busy with matrix instructions only (HMMA/HGMMA/QGMMA, not HFMA2.MMA moves)", true},
    {"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum", "hfma2", "inst", METRIC_NEUTRAL,
     "HFMA2.MMA instructions among the tensor-pipe ones: register moves, not matrix math", true},
    {CATALOG_SMEM_LD_CONFLICTS, "ld conf", "conflicts", METRIC_LOWER_BETTER,
     "shared-memory load bank conflicts (extra wavefronts)", false},
    {CATALOG_SMEM_ST_CONFLICTS, "st conf", "conflicts", METRIC_LOWER_BETTER,
     "shared-memory store bank conflicts (extra wavefronts)", false},
    {CATALOG_SMEM_LD_WAVEFRONTS, "ld wavef", "wavefronts", METRIC_NEUTRAL,
     "shared-memory load wavefronts, conflicts included", false},
    {CATALOG_SMEM_ST_WAVEFRONTS, "st wavef", "wavefronts", METRIC_NEUTRAL,
     "shared-memory store wavefronts, conflicts included", false},
    {"lts__t_sector_hit_rate.pct", "L2 hit", "%", METRIC_HIGHER_BETTER,
     "L2 sector hit rate (can read above 100% on Hopper, as in Nsight Compute)", false},
    {"gpu__time_duration.sum", "range time", "ns", METRIC_LOWER_BETTER,
     "GPU duration of the profiled range: the variant's launches plus the gaps between them, "
     "so above the kernel time; compare kernels by p50", false},
};
const int Catalog_headlineCount = (int)(sizeof Catalog_headline / sizeof Catalog_headline[0]);

const MetricInfo *Catalog_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < Catalog_headlineCount; i++)
    if (strcmp(Catalog_headline[i].name, name) == 0) return &Catalog_headline[i];
  return NULL;
}

static const char *const direction_names[] = {"higher", "lower", "neutral"};

const char *Catalog_directionName(MetricDirection d) {
  return (unsigned)d < 3 ? direction_names[d] : "neutral";
}

bool Catalog_directionParse(const char *s, MetricDirection *out) {
  for (int i = 0; s && i < 3; i++)
    if (strcmp(s, direction_names[i]) == 0) {
      *out = (MetricDirection)i;
      return true;
    }
  return false;
}

double Catalog_sharedWays(double conflicts, double wavefronts) {
  if (isnan(conflicts) || isnan(wavefronts) || conflicts < 0) return NAN;
  const double ideal = wavefronts - conflicts;
  if (!(ideal > 0)) return NAN;
  return wavefronts / ideal;
}

bool Metrics_nameValid(const char *name) {
  size_t n = name ? strlen(name) : 0;
  if (n == 0 || n >= METRIC_NAME_MAX || !isalpha((unsigned char)name[0])) return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (!isalnum(c) && c != '_' && c != '.') return false;
  }
  return true;
}

void Metrics_freeNames(char **names, int n) {
  if (!names) return;
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Appends name unless already present; false when the list is full. */
static bool Metrics_add(char **names, int *n, const char *name) {
  for (int i = 0; i < *n; i++)
    if (strcmp(names[i], name) == 0) return true;
  if (*n >= METRICS_MAX) return false;
  names[(*n)++] = Util_xstrdup(name);
  return true;
}

int Metrics_resolve(const char *spec, char ***names_out, char *err, size_t errsize) {
  *names_out = NULL;
  if (!spec) spec = "default";
  char **names = Util_xcalloc(METRICS_MAX, sizeof *names);
  int n = 0;
  const char *p = spec;
  bool saw_none = false, saw_other = false;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len > 0 && isspace((unsigned char)*p)) p++, len--;
    while (len > 0 && isspace((unsigned char)p[len - 1])) len--;
    char item[METRIC_NAME_MAX + 8];
    if (len == 0) {
      snprintf(err, errsize, "--metrics '%s': empty name in the list (use default, none or NAME,NAME)",
               spec);
      goto fail;
    }
    if (len >= sizeof item) {
      snprintf(err, errsize, "--metrics: name '%.40s...' is too long (at most %d characters)", p,
               METRIC_NAME_MAX - 1);
      goto fail;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    if (strcmp(item, "none") == 0) {
      saw_none = true;
    } else if (strcmp(item, "default") == 0) {
      saw_other = true;
      for (int i = 0; i < Catalog_headlineCount; i++)
        if (!Metrics_add(names, &n, Catalog_headline[i].name)) goto full;
    } else {
      saw_other = true;
      if (!Metrics_nameValid(item)) {
        snprintf(err, errsize,
                 "--metrics: '%s' is not a metric name (letters, digits, '_' and '.', e.g. "
                 "lts__t_sector_hit_rate.pct; see benchtop list metrics)", item);
        goto fail;
      }
      if (!Metrics_add(names, &n, item)) goto full;
    }
    if (!end) break;
    p = end + 1;
  }
  if (saw_none && saw_other) {
    snprintf(err, errsize, "--metrics: 'none' cannot be combined with other names");
    goto fail;
  }
  if (n == 0) {
    free(names);
    return 0;
  }
  *names_out = names;
  return n;
full:
  snprintf(err, errsize, "--metrics: more than %d metrics", METRICS_MAX);
fail:
  Metrics_freeNames(names, n);
  return -1;
}
