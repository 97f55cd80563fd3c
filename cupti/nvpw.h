/* Host side of metric collection, through the C API of libnvperf_host (NVPW_*): metric lookup
 * and validation, config images, evaluation of counter data, and metric enumeration. Works
 * without a GPU or driver when given a chip name (GH100, AD104, ...), which is what
 * `benchtop list metrics --chip` uses. (cupti_profiler_host.h, the CUPTI wrapper of the same
 * library, includes <string> and cannot be compiled as C.) */
#ifndef BENCHTOP_NVPW_H
#define BENCHTOP_NVPW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct NvpwHost NvpwHost;

/* Metric evaluator for a chip. avail: the counter availability image of the device (NULL
 * offline). On failure NULL and one line in err; an unknown chip name says so and lists the
 * chips this libnvperf_host knows. */
NvpwHost *NvpwHost_new(const char *chip, const uint8_t *avail, char *err, size_t errsize);
void NvpwHost_free(NvpwHost *h);
const char *NvpwHost_chip(const NvpwHost *h);

/* Loads libnvperf_host (once; NvpwHost_new and NvpwEval_new do it themselves). It is not linked:
 * linked, its start-up cost every command 0.3 s. CUPTI's profiler opens the library by its
 * soname on its own, without the toolkit folder benchtop's run path names: call this before the
 * first CUPTI profiler call, so that CUPTI finds it loaded, as when it was linked. False with
 * one line in err when it cannot be loaded. */
bool Nvpw_load(char *err, size_t errsize);

/* Comma-separated list of the chips libnvperf_host supports ("GA100, GA102, ..."). */
bool Nvpw_supportedChips(char *buf, size_t size, char *err, size_t errsize);

/* One metric alone: known to this chip and schedulable (its raw counters fit in a config
 * image, honouring counter availability). On success the unit (short text, "%" for
 * percentages) and the passes it needs alone; else false and a reason without "n/a: "
 * ("unknown metric", "not collectable on GH100: ..."). */
bool NvpwHost_validate(NvpwHost *h, const char *name, char *unit, size_t unitsize, int *passes,
                       char *reason, size_t reasonsize);

/* Config image for these (already validated) metrics; *image is heap memory. */
bool NvpwHost_configImage(NvpwHost *h, const char *const *names, int n, uint8_t **image,
                          size_t *size, int *passes, char *err, size_t errsize);

/* Evaluator bound to one device's counter data (created from the first image it sees, then
 * only refreshed: the device does not change). */
typedef struct NvpwEval NvpwEval;
NvpwEval *NvpwEval_new(const char *chip, const uint8_t *counter_data, size_t size, char *err,
                       size_t errsize);
void NvpwEval_free(NvpwEval *e);
/* Reads the device attributes (clocks, unit counts) of a freshly decoded counter data image;
 * call once per collection before NvpwEval_value. */
bool NvpwEval_bind(NvpwEval *e, const uint8_t *counter_data, size_t size, char *err,
                   size_t errsize);
/* Value of one metric in range `range` of counter_data (isolated evaluation). */
bool NvpwEval_value(NvpwEval *e, const uint8_t *counter_data, size_t size, size_t range,
                    const char *name, double *value, char *err, size_t errsize);

/* Enumeration: base metric names containing `substring` (case-insensitive; NULL or "" = all),
 * sorted by name, with kind ("counter", "ratio", "throughput"), unit and description. */
typedef struct NvpwMetricDesc {
  const char *name, *kind, *unit, *description, *hw_unit;
} NvpwMetricDesc;
typedef void (*NvpwVisitor)(void *user, const NvpwMetricDesc *m);
/* Returns the number visited, -1 with err on failure. */
int NvpwHost_listMetrics(NvpwHost *h, const char *substring, NvpwVisitor visit, void *user,
                         char *err, size_t errsize);

/* Short name of an NVPA_Status ("NVPA_STATUS_INSUFFICIENT_PRIVILEGE"). */
const char *Nvpw_statusName(int status);
/* True for the statuses that mean "performance counters restricted by the driver". */
bool Nvpw_statusDenied(int status);

#endif
