#include "bench/worker/nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

/* Our own prototypes: the toolkit ships no nvml.h, and we only need these few. */
typedef int (*NvmlInit)(void);
typedef int (*NvmlShutdown)(void);
typedef int (*NvmlByPci)(const char *, void **);
typedef int (*NvmlClock)(void *, int, unsigned *);
typedef int (*NvmlTemp)(void *, int, unsigned *);
typedef int (*NvmlPower)(void *, unsigned *);
typedef int (*NvmlReasons)(void *, unsigned long long *);

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

/* POSIX allows reading a function pointer out of dlsym's object pointer this way; ISO C's
 * pedantic mode forbids the plain cast. */
#define NVML_SYM(dst, name) (*(void **)(&(dst)) = dlsym(Nvml.lib, (name)))

static struct {
  void *lib, *dev;
  NvmlShutdown shutdown;
  NvmlClock clock;
  NvmlTemp temp;
  NvmlPower power;
  NvmlReasons reasons;
} Nvml;

bool Nvml_open(const char *pci_bus_id, char *why, size_t whysize) {
  if (Nvml.dev) return true;
  Nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Nvml.lib) {
    snprintf(why, whysize, "NVML not available (libnvidia-ml.so.1 not found): clocks n/a");
    return false;
  }
  NvmlInit init;
  NVML_SYM(init, "nvmlInit_v2");
  NvmlByPci by_pci;
  NVML_SYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  NVML_SYM(Nvml.shutdown, "nvmlShutdown");
  NVML_SYM(Nvml.clock, "nvmlDeviceGetClockInfo");
  NVML_SYM(Nvml.temp, "nvmlDeviceGetTemperature");
  NVML_SYM(Nvml.power, "nvmlDeviceGetPowerUsage");
  NVML_SYM(Nvml.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!Nvml.reasons)
    NVML_SYM(Nvml.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  int rc;
  if (!init || !by_pci || (rc = init()) != 0) {
    snprintf(why, whysize, "NVML could not be initialised: clocks n/a");
    dlclose(Nvml.lib);
    Nvml.lib = NULL;
    return false;
  }
  if ((rc = by_pci(pci_bus_id, &Nvml.dev)) != 0) {
    snprintf(why, whysize, "NVML has no device at PCI %s (error %d): clocks n/a", pci_bus_id, rc);
    Nvml_close();
    return false;
  }
  return true;
}

void Nvml_sample(NvmlSample *out) {
  out->sm_mhz = out->mem_mhz = out->temp_c = out->power_w = NAN;
  out->throttle_reasons = -1;
  if (!Nvml.dev) return;
  unsigned v;
  unsigned long long r;
  if (Nvml.clock && Nvml.clock(Nvml.dev, NVML_CLOCK_SM, &v) == 0) out->sm_mhz = v;
  if (Nvml.clock && Nvml.clock(Nvml.dev, NVML_CLOCK_MEM, &v) == 0) out->mem_mhz = v;
  if (Nvml.temp && Nvml.temp(Nvml.dev, NVML_TEMPERATURE_GPU, &v) == 0) out->temp_c = v;
  if (Nvml.power && Nvml.power(Nvml.dev, &v) == 0) out->power_w = v / 1000.0;
  if (Nvml.reasons && Nvml.reasons(Nvml.dev, &r) == 0) out->throttle_reasons = (long long)r;
}

void Nvml_close(void) {
  if (Nvml.lib) {
    if (Nvml.shutdown) Nvml.shutdown();
    dlclose(Nvml.lib);
  }
  Nvml.lib = Nvml.dev = NULL;
}
