/* Metric enumeration for `benchtop list metrics` (see nvpw.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "cupti/nvpw_private.h"

typedef struct ListItem {
  NvpwMetricDesc d;
  char unit[48];
} ListItem;

/* Description and hardware unit of metric i of one type: the three property calls differ only
 * in the type's name and the name of the index field. Leaves *desc and *hw on failure. */
#define METRIC_PROPERTIES(Type, index_field, evaluator, i, desc, hw)                          \
  do {                                                                                        \
    SIZED_PARAMS(NVPW_MetricsEvaluator_Get##Type##Properties_Params, prop);                   \
    prop.pMetricsEvaluator = (evaluator);                                                     \
    prop.index_field = (i);                                                                   \
    if (nvpw.NVPW_MetricsEvaluator_Get##Type##Properties(&prop) == NVPA_STATUS_SUCCESS) {     \
      *(desc) = prop.pDescription;                                                            \
      *(hw) = prop.hwUnit;                                                                    \
    }                                                                                         \
  } while (0)

static int ListItem_cmp(const void *a, const void *b) {
  return strcmp(((const ListItem *)a)->d.name, ((const ListItem *)b)->d.name);
}

int NvpwHost_listMetrics(NvpwHost *h, const char *substring, NvpwVisitor visit, void *user,
                         char *err, size_t errsize) {
  static const char *const kinds[] = {"counter", "ratio", "throughput"};
  ListItem *items = NULL;
  size_t n = 0, cap = 0;
  /* A full metric name ("x.sum") matches on its base name. */
  char sub[128] = "";
  if (substring) Util_strlcpy(sub, substring, sizeof sub);
  char *dot = strchr(sub, '.');
  if (dot) *dot = '\0';
  for (int t = 0; t < NVPW_METRIC_TYPE__COUNT; t++) {
    SIZED_PARAMS(NVPW_MetricsEvaluator_GetMetricNames_Params, g);
    g.pMetricsEvaluator = h->eval.ev;
    g.metricType = (uint8_t)t;
    NVPA_Status st = nvpw.NVPW_MetricsEvaluator_GetMetricNames(&g);
    if (st != NVPA_STATUS_SUCCESS) {
      snprintf(err, errsize, "NVPW_MetricsEvaluator_GetMetricNames failed (%s)",
               Nvpw_statusName(st));
      free(items);
      return -1;
    }
    for (size_t i = 0; i < g.numMetrics; i++) {
      const char *name = g.pMetricNames + g.pMetricNameBeginIndices[i];
      if (sub[0] && !strcasestr(name, sub)) continue;
      if (n == cap) {
        cap = cap ? cap * 2 : 256;
        items = Util_xrealloc(items, cap * sizeof *items);
      }
      ListItem *it = &items[n++];
      memset(it, 0, sizeof *it);
      it->d.name = name;
      it->d.kind = kinds[t];
      uint64_t hw = 0;
      if (t == NVPW_METRIC_TYPE_COUNTER) {
        METRIC_PROPERTIES(Counter, counterIndex, h->eval.ev, i, &it->d.description, &hw);
        char full[160];
        NVPW_MetricEvalRequest req;
        snprintf(full, sizeof full, "%s.sum", name);
        if (Nvpw_request(h->eval.ev, full, &req))
          Nvpw_unit(h->eval.ev, full, &req, it->unit, sizeof it->unit);
      } else if (t == NVPW_METRIC_TYPE_RATIO) {
        METRIC_PROPERTIES(RatioMetric, ratioMetricIndex, h->eval.ev, i, &it->d.description, &hw);
        Util_strlcpy(it->unit, "% (.pct)", sizeof it->unit);
      } else {
        METRIC_PROPERTIES(ThroughputMetric, throughputMetricIndex, h->eval.ev, i,
                          &it->d.description, &hw);
        Util_strlcpy(it->unit, "%", sizeof it->unit);
      }
      SIZED_PARAMS(NVPW_MetricsEvaluator_HwUnitToString_Params, hu);
      hu.pMetricsEvaluator = h->eval.ev;
      hu.hwUnit = (uint32_t)hw;
      if (hw && nvpw.NVPW_MetricsEvaluator_HwUnitToString(&hu) == NVPA_STATUS_SUCCESS)
        it->d.hw_unit = hu.pHwUnitName;
      if (!it->d.description) it->d.description = "";
      if (!it->d.hw_unit) it->d.hw_unit = "";
    }
  }
  if (n) qsort(items, n, sizeof *items, ListItem_cmp);
  for (size_t i = 0; i < n; i++) {
    items[i].d.unit = items[i].unit;
    visit(user, &items[i].d);
  }
  free(items);
  return (int)n;
}
