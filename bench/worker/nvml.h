/* NVML, loaded with dlopen when present (optional): clocks, temperature, power, throttle
 * reasons. Read-only: benchtop never changes clocks, power or any GPU setting. */
#ifndef BENCHTOP_NVML_H
#define BENCHTOP_NVML_H

#include <stdbool.h>
#include <stddef.h>

typedef struct NvmlSample {
  double sm_mhz, mem_mhz, temp_c, power_w; /* NAN when unavailable */
  long long throttle_reasons;              /* -1 when unavailable */
} NvmlSample;

/* pci_bus_id from cudaDeviceGetPCIBusId; false (and a reason) when NVML is absent. */
bool Nvml_open(const char *pci_bus_id, char *why, size_t whysize);
void Nvml_sample(NvmlSample *out);
void Nvml_close(void);

#endif
