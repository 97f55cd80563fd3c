/* The kernel ladder: every variant, its knobs, what it supports and how it is launched.
 * Pure data and pure C: `benchtop list variants` and `check-kernels` use it without a GPU.
 * Adding a variant = one kernels/<name>.cu + one entry in registry.c. */
#ifndef BENCHTOP_REGISTRY_H
#define BENCHTOP_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/device_props.h"
#include "kernels/shape.h"

#define KNOB_MAX 8
#define KNOB_MAX_VALUES 8
#define VARIANT_MAX_STEPS 3
#define VARIANT_MAX_PRESETS 12

typedef struct KnobDesc {
  const char *name;   /* as typed: --knob pad=8 */
  const char *macro;  /* passed to NVRTC as -D<macro>=<value> */
  const char *values[KNOB_MAX_VALUES]; /* allowed values, NULL-terminated; [0] is the default */
  const char *help;
  /* The macro's value for each word value, by index ("auto" -> "0"); a number passes as
   * itself and needs none. A word without one does not compile (Jit_knobDefine). */
  const char *defines[KNOB_MAX_VALUES];
} KnobDesc;

/* One knob setting per knob of the variant: index into KnobDesc.values. */
typedef struct KnobValues {
  int idx[KNOB_MAX];
} KnobValues;

typedef struct LaunchDims {
  unsigned grid[3], block[3];
  size_t smem;     /* dynamic shared memory bytes */
  bool persistent; /* the engine launches min(grid blocks, SM count) blocks in x; the kernel
                      walks the grid's blocks itself (x fastest, then y, then z) */
} LaunchDims;

/* Launch geometry may depend on the device (mma's split=auto on its SM count): dims gets the
 * device's own properties, never NULL. */
typedef struct KernelStep {
  const char *entry; /* extern "C" __global__ name in the variant's .cu */
  void (*dims)(const Shape *s, const KnobValues *kv, const DeviceProps *dev, LaunchDims *out);
} KernelStep;

typedef enum { LAUNCH_KERNELS, LAUNCH_CUBLAS } LaunchKind;

typedef struct Variant {
  const char *name;
  const char *source;    /* file name under kernels/, e.g. "mma.cu" */
  const char *summary;   /* one line: the rung of the ladder */
  const KnobDesc *knobs;
  int nknobs;
  int head_dims[4];      /* supported D, 0-terminated */
  int min_cc;            /* lowest compute capability x10 (80, 89, 90) */
  bool arch_specific;    /* compiled for sm_90a: Hopper only */
  double tolerance;      /* relative L2 error allowed against the fp32 reference */
  bool qk_fp8;           /* QK^T on fp8 tensor cores (PV stays fp16): the floors count half
                            the FLOPs at the fp8 rate (sessions/floors.h) */
  LaunchKind kind;
  int nsteps;            /* LAUNCH_KERNELS: run in order on one stream */
  KernelStep steps[VARIANT_MAX_STEPS];
  /* Extra constraints beyond head_dims/min_cc; NULL or returns NULL when fine, else why not. */
  const char *(*check)(const Shape *s, const KnobValues *kv);
  /* Scratch the variant needs (AttnParams.workspace etc.); NULL means none. */
  size_t (*workspace_bytes)(const Shape *s, const KnobValues *kv);
  int (*num_splits)(const Shape *s, const KnobValues *kv, const DeviceProps *dev); /* NULL: 1 */
  /* TMA tensor maps the kernels read from AttnParams (bench/tensor_maps.c builds them): rows of
   * the box for Q, K, V, O, each 64 columns wide; 0 = no map. NULL: the variant uses none. */
  void (*tma_rows)(const Shape *s, const KnobValues *kv, int rows[4]);
  const char *presets[VARIANT_MAX_PRESETS]; /* shipped knob settings, "k=v,k=v"; NULL-terminated */
} Variant;

extern const Variant *const Registry_variants[];
extern const int Registry_count;

const Variant *Registry_find(const char *name);
/* Default knob values. */
void Registry_defaults(const Variant *v, KnobValues *kv);
/* How many values knob k allows (its NULL-terminated value list). */
int Registry_knobValueCount(const KnobDesc *k);
/* Applies "k=v,k=v"; unknown knobs or values give one line in err. ignore_unknown skips knobs
 * the variant does not have (a plan-wide --knob applies to the variants that have it). */
bool Registry_applyKnobs(const Variant *v, const char *spec, KnobValues *kv, bool ignore_unknown,
                         char *err, size_t errsize);
/* Integer value of knob `name` (its value string parsed); `fallback` if absent or not numeric. */
int Registry_knobInt(const Variant *v, const KnobValues *kv, const char *name, int fallback);
const char *Registry_knobStr(const Variant *v, const KnobValues *kv, const char *name);
/* "k=v,k=v" for all knobs. */
void Registry_formatKnobs(const Variant *v, const KnobValues *kv, char *buf, size_t size);
/* NULL when the variant can run this shape on device dev (its compute capability, and the
 * shared memory each step asks for against what one block may opt into there; NULL dev: any
 * supported device), else a reason ("n/a: ..." is prefixed by the caller). */
const char *Registry_supports(const Variant *v, const Shape *s, const KnobValues *kv,
                              const DeviceProps *dev, char *buf, size_t size);

#endif
