/* The headline metrics (what the TUI columns and exports show by default) and the parsing of
 * --metrics specs. Names are Nsight Compute's, so users can paste them from its docs.
 * Pure data and pure C: no CUDA here, usable without a GPU. */
#ifndef BENCHTOP_CATALOG_H
#define BENCHTOP_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
  METRIC_HIGHER_BETTER = 0,
  METRIC_LOWER_BETTER,
  METRIC_NEUTRAL, /* a count to read, neither more nor less is better (instructions, wavefronts) */
} MetricDirection;

typedef struct MetricInfo {
  const char *name;  /* Nsight Compute metric name */
  const char *label; /* short column label */
  const char *unit;  /* "%", "ns", "inst", ... */
  MetricDirection direction;
  const char *help;  /* one line */
  bool some_chips;   /* not every chip has it (n/a elsewhere); the rest exist on GA100-GH100/AD10x */
} MetricInfo;

/* The "default" set, in display order. */
extern const MetricInfo Catalog_headline[];
extern const int Catalog_headlineCount;

/* Catalog entry by exact name, or NULL for a metric outside the headline set. */
const MetricInfo *Catalog_find(const char *name);
/* "higher", "lower" or "neutral" (as written in exports). */
const char *Catalog_directionName(MetricDirection d);
bool Catalog_directionParse(const char *s, MetricDirection *out);

/* Shared-memory wavefronts per request: wavefronts / (wavefronts - conflicts). 1.0 means no
 * conflict, 32 a full 32-way conflict. NAN when an input is NAN or the ratio is undefined.
 * Use with the _op_ld (or _op_st) pair of the catalog. */
double Catalog_sharedWays(double conflicts, double wavefronts);

/* Names of the catalog pairs used by Catalog_sharedWays. */
#define CATALOG_SMEM_LD_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define CATALOG_SMEM_ST_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define CATALOG_SMEM_LD_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define CATALOG_SMEM_ST_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"

#define METRICS_MAX 64

/* --metrics spec: "default" -> the headline set, "none" -> 0 names, "a,b" -> those ("default"
 * may appear inside a list: "default,sm__cycles_elapsed.avg"). Duplicates are dropped, spaces
 * around names ignored. Returns the count and a heap array of heap strings in *names_out (NULL
 * for 0), or -1 with one line in err (empty item, bad character, too long, too many). */
int Metrics_resolve(const char *spec, char ***names_out, char *err, size_t errsize);
void Metrics_freeNames(char **names, int n);
/* A plausible metric name: [A-Za-z0-9_.], starts with a letter, shorter than METRIC_NAME_MAX.
 * Says nothing about whether a GPU offers it (Profiler_collect decides that per name). */
bool Metrics_nameValid(const char *name);

#endif
