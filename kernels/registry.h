/* The variants: every kernel on the kernel path (the built-ins, then the user's directories),
 * each described by the declaration in its own .cu file (docs/kernel-declarations.md): knobs,
 * constraints, launch geometry, steps, scratch buffers, head dims, architecture, tolerance.
 * Pure C, no CUDA: `benchtop list variants` and `check-kernels` use it without a GPU.
 * Adding a variant = adding one .cu file. */
#ifndef BENCHTOP_REGISTRY_H
#define BENCHTOP_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/device_props.h"
#include "kernels/expr.h"
#include "kernels/shape.h"

#define KNOB_MAX 16
#define KNOB_MAX_VALUES 256    /* a range may not expand to more */
#define VARIANT_MAX_STEPS 8
#define VARIANT_MAX_PRESETS 256 /* Variant.presets is NULL-terminated; this bounds the loops */
#define VARIANT_MAX_HEAD_DIMS 8
#define VARIANT_NAME_MAX 32     /* with its NUL, as records store it */
/* The longest "k=v,k=v" text of a variant's knobs, with its NUL: what requests, records and
 * tuned tables hold (RECORD_KNOBS_MAX). A declaration whose knobs could write more is refused. */
#define KNOB_TEXT_MAX 160

typedef struct KnobDesc {
  const char *name;   /* as typed: --knob pad=8 */
  const char *macro;  /* passed to NVRTC as -D<macro>=<value> */
  /* The allowed values as typed, nvalues of them (NULL-terminated); a declared range is
   * expanded to its values. KnobValues holds an index into this list. */
  const char *const *values;
  int nvalues;
  int def;            /* index of the default value */
  const char *help;
  /* The macro's value for each word value, by index ("auto" -> "0"); NULL for a number. */
  const char *const *defines;
  const long long *numbers; /* what expressions see: the number, or the word's macro value */
  bool is_range;      /* declared as lo..hi step s (the values are then lo, lo+s, ...) */
  long long lo, hi, step;
  int line;           /* of its declaration */
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

/* What cannot be data: code in the engine that a declaration names (`hook NAME`). */
typedef enum {
  HOOK_NONE,
  HOOK_CUBLAS_QK, /* scores = scale * Q K^T into the workspace, fp32 (bench/cublas_hooks.c) */
  HOOK_CUBLAS_PV, /* O = P V from the workspace's fp16 probabilities */
  HOOK_CUDNN_SDPA, /* cuDNN's fused attention forward, its plan cached per problem (bench/worker/cudnn.c) */
} RegistryHook;

typedef struct KernelStep {
  const char *entry; /* extern "C" __global__ name in the .cu, or the hook's name */
  RegistryHook hook; /* HOOK_NONE: a kernel launched with the declared geometry */
  ExprId grid[3], block[3], smem, persistent; /* -1: 1 (grid, block) or 0 */
  int line;
} KernelStep;

/* Scratch buffers a variant may ask for, by their AttnParams field. */
typedef enum { SCRATCH_WORKSPACE, SCRATCH_O_F32, SCRATCH_LSE, SCRATCH_COUNT } ScratchBuffer;

typedef struct VariantDecl VariantDecl; /* the expressions (registry_eval.c) */

typedef struct Variant {
  const char *name;
  const char *summary;   /* one line: the rung of the ladder */
  const char *builds_on; /* the variant this one changes (NULL: none) */
  int rung;              /* place in the ladder; 0: none (listed after it) */
  const char *source;    /* as shown and compiled: "mma.cu" for a built-in, else its path */
  const char *path;      /* the file on disk; NULL for a built-in compiled into the binary */
  const char *text;      /* the source the declaration was read from, compiled as it is */
  char source_hash[20];  /* 16 hex digits of text */
  int origin;            /* kernel path entry: 0 built-in, 1.. the user's directories */
  const KnobDesc *knobs;
  int nknobs;
  int head_dims[VARIANT_MAX_HEAD_DIMS]; /* supported D, 0-terminated */
  int min_cc;            /* lowest compute capability x10 (80, 89, 90) */
  bool arch_specific;    /* compiled for sm_XXa: that architecture only */
  double tolerance;      /* relative L2 error allowed against the fp32 reference */
  double tolerance_bf16; /* the same for bf16 problems (`tolerance 2e-3 bf16 1e-2`); 0: tolerance */
  bool qk_fp8;           /* QK^T on fp8 tensor cores (PV stays fp16): the floors count half
                            the FLOPs at the fp8 rate (sessions/floors.h); declared `qk_fp8` */
  unsigned dtypes;       /* bit ShapeDtype set for each dtype it is compiled for (`dtypes fp16
                            bf16`; fp16 alone when not declared); bf16 builds get -DBT_BF16=1 */
  bool gqa;              /* runs Hkv < Hq (`supports gqa`); else such problems are refused */
  bool kv_cache;         /* runs Sq < Skv (`supports kv_cache`); else refused */
  int nsteps;            /* run in order on one stream */
  KernelStep steps[VARIANT_MAX_STEPS];
  const char *const *presets; /* shipped knob settings, "k=v,k=v"; NULL-terminated */
  int npresets;
  bool bare;             /* a file with no declaration: attn_fwd launched like naive */
  VariantDecl *decl;
} Variant;

/* Everything the engine needs to launch one record: evaluated from the declaration. */
typedef struct LaunchPlan {
  int nsteps;
  LaunchDims dims[VARIANT_MAX_STEPS]; /* zero for hooks */
  bool skip[VARIANT_MAX_STEPS];       /* a kernel whose grid has a zero: not launched */
  int num_splits;                     /* AttnParams.num_splits */
  size_t scratch[SCRATCH_COUNT];      /* bytes per ScratchBuffer */
  int tma_rows[4];                    /* box rows of the Q, K, V, O tensor maps; 0: no map */
} LaunchPlan;

/* The variants, in ladder order (rung, then kernel path order, then name). The first call
 * loads the kernel path (registry.c says where it looks). */
int Registry_count(void);
const Variant *Registry_at(int i);
const Variant *Registry_find(const char *name);
/* Lines about the kernel path the user should see once: declaration errors ("FILE:LINE: ...",
 * the variant left out), shadowing notes. Kept for Registry_diagnostic; with a sink set (the
 * command line prints them on stderr; the TUI shows them itself) each is also handed to it as
 * it is found. */
int Registry_diagnosticCount(void);
const char *Registry_diagnostic(int i);
void Registry_setNoteSink(void (*sink)(const char *line));
/* How many of them are errors (a file left out), not notes ("note: ..."). */
int Registry_errorCount(void);
/* The directories of the kernel path after the built-ins, in order ("" = not set). */
int Registry_dirCount(void);
const char *Registry_dir(int i);
/* Reads the declaration of a file again when it changed on disk (hot reload). Returns the
 * variant now registered under name (the old pointer stays valid: it is never freed), or NULL
 * with one line in err when the file no longer declares a usable variant. */
const Variant *Registry_reload(const char *name, char *err, size_t errsize);
/* Registry_reload in two steps, so a caller can try the new text before it replaces the old
 * (hot reload keeps the last version that compiled): the variant as its file declares it now
 * (NULL with one line in err: unreadable, a declaration error, a renamed variant), not yet
 * registered; then Registry_install registers it under its name (the old one retired, its
 * pointer still valid), or frees it when no such variant is registered. */
Variant *Registry_readAgain(const char *name, char *err, size_t errsize);
const Variant *Registry_install(Variant *v);
/* Parses one file on its own, outside the kernel path (tests, `benchtop new`): a Variant the
 * caller frees with Registry_freeVariant, or NULL and the first error in err. */
Variant *Registry_parseFile(const char *path, const char *text, char *err, size_t errsize);
void Registry_freeVariant(Variant *v);
/* The source of v as a new variant called name (`benchtop new`): its declaration's name line
 * rewritten and builds_on set to v (a bare kernel gets a declaration of its defaults). A heap
 * string the caller frees. */
char *Registry_copyAs(const Variant *v, const char *name);
/* True when name can name a variant: letters, digits and '_', not starting with a digit,
 * shorter than VARIANT_NAME_MAX. */
bool Registry_validName(const char *name);
/* True for the words the command line gives a meaning of its own where a variant name may
 * stand (all, default, auto, none): a variant so named could never be selected, nor told from
 * the keyword in a plan or session; `new` and the kernel path refuse them. */
bool Registry_reservedName(const char *name);

/* The relative L2 error v may have on a problem of this dtype. */
double Registry_tolerance(const Variant *v, ShapeDtype dtype);
/* Why the variant cannot run this shape with these knobs on this device, or NULL when it can.
 * dev NULL: any device (architecture and device limits are not checked). The reason is in buf
 * ("n/a: ..." is prefixed by the caller). */
const char *Registry_refusal(const Variant *v, const Shape *s, const KnobValues *kv,
                             const DeviceProps *dev, char *buf, size_t size);
/* The launch of one record (geometry, splits, scratch, tensor maps) on dev, checked against
 * its limits. False with one line naming the declaration's file and line in err. */
bool Registry_plan(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                   LaunchPlan *out, char *err, size_t errsize);
/* The limits every GPU benchtop supports has (1024 threads a block, 227 KiB of shared memory
 * at most, ...), with cc and the SM count unknown: what the loader checks declarations with. */
void Registry_anyDevice(DeviceProps *dev);

/* Knob settings as values and text: kernels/knobs.h (the one parser and formatter). */
#include "kernels/knobs.h"

#endif
