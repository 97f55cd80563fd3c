/* The headline metrics (what the TUI columns and exports show by default) and the parsing of
 * --metrics specs. Names are Nsight Compute's, so users can paste them from its docs.
 * Pure data and pure C: no CUDA here, usable without a GPU. */
#ifndef BENCHTOP_CATALOG_H
#define BENCHTOP_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/name_index.h"
#include "sessions/record.h"

typedef enum {
  METRIC_HIGHER_BETTER = 0,
  METRIC_LOWER_BETTER,
  METRIC_NEUTRAL, /* a count to read, neither more nor less is better (instructions, wavefronts) */
} MetricDirection;

/* A metric benchtop computes from two collected ones (never asked of CUPTI). */
typedef enum {
  DERIVE_NONE = 0,
  DERIVE_SHARE_PCT, /* 100 * from[0] / (from[0] + from[1]): hits over hits + misses */
} MetricDerive;

typedef struct MetricInfo {
  const char *name;  /* Nsight Compute metric name; derived ones are named "derived__..." */
  const char *label; /* short column label */
  const char *unit;  /* "%", "ns", "inst", ... */
  MetricDirection direction;
  bool brief;        /* a default column of the table views (run/show tables, TUI results) */
  const char *help;  /* one line */
  bool some_chips;   /* not every chip has it (n/a elsewhere); the rest exist on GA100-GH100/AD10x */
  bool explain;      /* the detail view prints the help under the value (what it counts) */
  MetricDerive derive;
  const char *from[2]; /* the collected metrics a derived one is computed from */
} MetricInfo;

/* The catalog (sessions/catalog_table.c), in display order; "default" collects all of it. */
extern const MetricInfo Catalog_headline[];
extern const int Catalog_headlineCount;

/* Catalog entry by exact name, or NULL for a metric outside the headline set. */
const MetricInfo *Catalog_find(const char *name);
/* "higher", "lower" or "neutral" (as written in exports). */
const char *Catalog_directionName(MetricDirection d);
bool Catalog_directionParse(const char *s, MetricDirection *out);

/* Appends to the record every derived catalog metric whose inputs it holds (n/a with the
 * reason when an input is n/a or both are 0); one already there is left as it is. */
void Catalog_addDerived(Record *r);

/* Shared-memory wavefronts per request: wavefronts / (wavefronts - conflicts). 1.0 means no
 * conflict, 32 a full 32-way conflict. NAN when an input is NAN or the ratio is undefined.
 * Use with the _op_ld (or _op_st) pair of the catalog. */
double Catalog_sharedWays(double conflicts, double wavefronts);

/* Catalog names the code itself reads (special cases beside the tables). */
#define CATALOG_OCCUPANCY "sm__warps_active.avg.pct_of_peak_sustained_active"
#define CATALOG_TENSOR_PCT "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
#define CATALOG_TENSOR_MMA_PCT \
  "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active"
#define CATALOG_L2_HIT "lts__t_sector_hit_rate.pct"
#define CATALOG_DURATION "gpu__time_duration.sum"
/* Names of the catalog pairs used by Catalog_sharedWays. */
#define CATALOG_SMEM_LD_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define CATALOG_SMEM_ST_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define CATALOG_SMEM_LD_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define CATALOG_SMEM_ST_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"

#define METRICS_MAX 64

/* One metric column of a table: a catalog metric, or one the user named (any Nsight Compute
 * name given with --metrics). */
typedef struct MetricColumn {
  char name[METRIC_NAME_MAX];
  char label[METRIC_NAME_MAX]; /* the catalog's label; else the name, its rollup (.sum, .avg,
                                  .max, .min) dropped when no other column has the same stem */
  char unit[16];
  MetricDirection direction;   /* neutral outside the catalog */
  const MetricInfo *info;      /* NULL outside the catalog */
} MetricColumn;

typedef struct MetricColumns {
  int n;
  MetricColumn *col; /* owned */
} MetricColumns;

/* The metric columns of a set of records: catalog metrics with a value in at least one record,
 * in catalog order, then every other metric a record holds (valued or not: the user asked for
 * it by name), in order of first appearance. brief_only keeps, of the catalog's, the brief ones. */
void MetricColumns_collect(MetricColumns *mc, const Record *const *recs, int n, bool brief_only);
/* The columns for metrics that will be collected (before any record exists): names as
 * Metrics_resolve gives them. */
void MetricColumns_fromNames(MetricColumns *mc, char *const *names, int n, bool brief_only);
void MetricColumns_free(MetricColumns *mc);
/* The record's value of a column's metric, NAN when absent or n/a. */
double MetricColumns_value(const Record *r, const MetricColumn *c);
/* An index of the columns by name (free it with NameIndex_free), then every column's value in
 * one record at once: values[mc->n] (NAN where absent or n/a), held[mc->n] (may be NULL)
 * whether the record has the metric at all. O(columns + the record's metrics), where a
 * MetricColumns_value per column is O(columns x metrics): tables of thousands of names. */
void MetricColumns_index(const MetricColumns *mc, NameIndex *ix);
void MetricColumns_rowValues(const MetricColumns *mc, const NameIndex *ix, const Record *r,
                             double *values, bool *held);

/* --metrics spec: "default" -> the catalog (a derived metric stands for its inputs: those are
 * what CUPTI collects), "none" -> 0 names, "a,b" -> those ("default"
 * may appear inside a list: "default,sm__cycles_elapsed.avg"). Duplicates are dropped, spaces
 * around names ignored. Returns the count and a heap array of heap strings in *names_out (NULL
 * for 0), or -1 with one line in err (empty item, bad character, too long, too many). */
int Metrics_resolve(const char *spec, char ***names_out, char *err, size_t errsize);
void Metrics_freeNames(char **names, int n);
/* A plausible metric name: [A-Za-z0-9_.], starts with a letter, shorter than METRIC_NAME_MAX.
 * Says nothing about whether a GPU offers it (Profiler_collect decides that per name). */
bool Metrics_nameValid(const char *name);

#endif
