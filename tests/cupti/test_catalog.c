/* Unit: headline catalog consistency, --metrics spec parsing, shared-memory ways. No GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions/catalog.h"
#include "sessions/record.h"
#include "tests/unit/check.h"

static void test_catalog(void) {
  static const char *const required[] = {
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tensor_op_hmma.sum",
      "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
      "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      "lts__t_sector_hit_rate.pct",
      "derived__l2_tex_read_hit_rate.pct",
      "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
      "gpu__time_duration.sum",
  };
  CHECKF(Catalog_headlineCount == (int)(sizeof required / sizeof required[0]), "count %d",
         Catalog_headlineCount);
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
    CHECKF(Catalog_find(required[i]) != NULL, "missing %s", required[i]);
  for (int i = 0; i < Catalog_headlineCount; i++) {
    const MetricInfo *m = &Catalog_headline[i];
    CHECKF(Metrics_nameValid(m->name), "name %s", m->name);
    CHECKF(m->label && m->label[0] && strlen(m->label) <= 10, "label of %s", m->name);
    CHECKF(m->unit && m->unit[0] && strlen(m->unit) < sizeof(((Metric *)0)->unit), "unit of %s",
           m->name);
    CHECKF(m->help && m->help[0], "help of %s", m->name);
    CHECKF(Catalog_find(m->name) == m, "find %s", m->name);
    MetricDirection d;
    CHECKF(Catalog_directionParse(Catalog_directionName(m->direction), &d) && d == m->direction,
           "direction of %s", m->name);
    for (int j = 0; j < i; j++) {
      CHECKF(strcmp(Catalog_headline[j].name, m->name) != 0, "duplicate name %s", m->name);
      CHECKF(strcmp(Catalog_headline[j].label, m->label) != 0, "duplicate label %s", m->label);
    }
  }
  CHECKF(Catalog_find("sm__cycles_elapsed.avg") == NULL, "non-headline found");
  CHECKF(Catalog_find(NULL) == NULL, "NULL");
  /* Percentages are '%' and the conflict counts are lower-better. */
  CHECKF(strcmp(Catalog_find("lts__t_sector_hit_rate.pct")->unit, "%") == 0, "L2 unit");
  CHECKF(Catalog_find(CATALOG_SMEM_LD_CONFLICTS)->direction == METRIC_LOWER_BETTER, "ld dir");
  CHECKF(Catalog_find("gpu__time_duration.sum")->direction == METRIC_LOWER_BETTER, "dur dir");
  MetricDirection d;
  CHECKF(!Catalog_directionParse("sideways", &d), "bad direction parsed");
}

static void test_ways(void) {
  CHECKF(Catalog_sharedWays(0, 100) == 1.0, "no conflicts");
  CHECKF(fabs(Catalog_sharedWays(31, 32) - 32.0) < 1e-12, "32-way");
  CHECKF(isnan(Catalog_sharedWays(NAN, 10)), "nan in");
  CHECKF(isnan(Catalog_sharedWays(10, 10)), "zero ideal");
  CHECKF(isnan(Catalog_sharedWays(0, 0)), "no wavefronts");
}

/* A record holding the derived L2 read hit rate's two inputs with these values. */
static void derived_inputs(Record *r, double hit, double miss) {
  Record_init(r);
  r->metrics = calloc(2, sizeof(Metric));
  r->nmetrics = 2;
  snprintf(r->metrics[0].name, METRIC_NAME_MAX, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
  snprintf(r->metrics[1].name, METRIC_NAME_MAX, "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum");
  r->metrics[0].value = hit;
  r->metrics[1].value = miss;
}

/* The derived L2 read hit rate: hits over hits + misses; n/a with a reason otherwise. */
static void test_derived(void) {
  Record r;
  derived_inputs(&r, 900, 100);
  Catalog_addDerived(&r);
  const Metric *d = Record_metric(&r, "derived__l2_tex_read_hit_rate.pct");
  CHECKF(d && fabs(d->value - 90.0) < 1e-12 && strcmp(d->unit, "%") == 0, "90%% derived");
  Catalog_addDerived(&r); /* once only */
  CHECKF(r.nmetrics == 3, "derived twice: %d metrics", r.nmetrics);
  Record_free(&r);

  derived_inputs(&r, 0, NAN);
  Catalog_addDerived(&r);
  d = Record_metric(&r, "derived__l2_tex_read_hit_rate.pct");
  CHECKF(d && isnan(d->value) && strstr(d->reason, "n/a"), "n/a input -> n/a (%s)", d ? d->reason : "");
  Record_free(&r);

  /* Inputs n/a for a reason (restricted counters): the derived one gives the same reason, so
   * every metric of the record says it and the run can name the fix once. */
  derived_inputs(&r, NAN, NAN);
  snprintf(r.metrics[0].reason, sizeof r.metrics[0].reason, "counters restricted: the fix");
  snprintf(r.metrics[1].reason, sizeof r.metrics[1].reason, "counters restricted: the fix");
  Catalog_addDerived(&r);
  d = Record_metric(&r, "derived__l2_tex_read_hit_rate.pct");
  CHECKF(d && isnan(d->value) && strcmp(d->reason, "counters restricted: the fix") == 0,
         "n/a input's reason carried (%s)", d ? d->reason : "");
  r.nmetrics = 2;
  r.metrics[0].value = 0;
  r.metrics[1].value = 0;
  r.metrics[1].value = 0;
  Catalog_addDerived(&r);
  d = Record_metric(&r, "derived__l2_tex_read_hit_rate.pct");
  CHECKF(d && isnan(d->value) && d->reason[0], "no lookups -> n/a");
  Record_free(&r);

  Record_init(&r); /* without inputs: nothing added */
  Catalog_addDerived(&r);
  CHECKF(r.nmetrics == 0, "no inputs, nothing derived");
  Record_free(&r);
}

static int resolve(const char *spec, char ***names, char *err) {
  return Metrics_resolve(spec, names, err, 200);
}

static void test_resolve(void) {
  char err[200];
  char **names = NULL;
  /* default: every catalog line that is collected, in order; derived ones stand for inputs. */
  int collected = 0;
  for (int i = 0; i < Catalog_headlineCount; i++) collected += Catalog_headline[i].derive == DERIVE_NONE;
  int n = resolve("default", &names, err);
  CHECKF(n == collected, "default -> %d, want %d", n, collected);
  for (int i = 0; i < n; i++) {
    const MetricInfo *m = Catalog_find(names[i]);
    CHECKF(m && m->derive == DERIVE_NONE, "default asks CUPTI for %s", names[i]);
  }
  Metrics_freeNames(names, n);

  n = resolve(NULL, &names, err);
  CHECKF(n == collected, "NULL spec is default -> %d", n);
  Metrics_freeNames(names, n);

  n = resolve("derived__l2_tex_read_hit_rate.pct", &names, err);
  CHECKF(n == 2 && strstr(names[0], "lookup_hit") && strstr(names[1], "lookup_miss"),
        "a derived metric is its inputs -> %d", n);
  Metrics_freeNames(names, n);

  n = resolve("none", &names, err);
  CHECKF(n == 0 && names == NULL, "none -> %d", n);

  n = resolve(" lts__t_sector_hit_rate.pct , sm__cycles_elapsed.avg ", &names, err);
  CHECKF(n == 2, "list -> %d (%s)", n, err);
  if (n == 2) {
    CHECKF(strcmp(names[0], "lts__t_sector_hit_rate.pct") == 0, "[0]=%s", names[0]);
    CHECKF(strcmp(names[1], "sm__cycles_elapsed.avg") == 0, "[1]=%s", names[1]);
  }
  Metrics_freeNames(names, n);

  n = resolve("gpu__time_duration.sum,default", &names, err);
  CHECKF(n == collected, "dedup with default -> %d", n);
  if (n > 0) CHECKF(strcmp(names[0], "gpu__time_duration.sum") == 0, "first kept");
  Metrics_freeNames(names, n);

  n = resolve("a.sum,a.sum", &names, err);
  CHECKF(n == 1, "dedup -> %d", n);
  Metrics_freeNames(names, n);

  static const char *const bad[] = {"", ",", "a.sum,", ",a.sum", "a.sum,,b.sum", "none,a.sum",
                                    "bad name", "x;rm -rf", "1abc", "a.sum,\xff"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    names = (char **)1;
    n = resolve(bad[i], &names, err);
    CHECKF(n == -1 && names == NULL, "bad spec '%s' -> %d", bad[i], n);
    CHECKF(err[0] && !strchr(err, '\n'), "one-line error for '%s': '%s'", bad[i], err);
  }
  char longname[300];
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  n = resolve(longname, &names, err);
  CHECKF(n == -1, "too long accepted");

  /* More than METRICS_MAX distinct names. */
  char big[METRICS_MAX * 12 + 64] = "";
  for (int i = 0; i <= METRICS_MAX; i++) {
    char one[16];
    snprintf(one, sizeof one, "%sm%d.sum", i ? "," : "", i);
    strcat(big, one);
  }
  n = resolve(big, &names, err);
  CHECKF(n == -1 && strstr(err, "more than"), "too many -> %d (%s)", n, err);
}

int main(void) {
  test_catalog();
  test_ways();
  test_resolve();
  test_derived();
  return Check_done("catalog, derived, resolve, ways");
}
