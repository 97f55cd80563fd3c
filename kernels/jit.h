/* NVRTC: compile a variant's .cu for one architecture with its knobs as -D flags, record the
 * ptxas resource report, and cache the cubin on disk keyed by hash(source, headers, flags,
 * arch, NVRTC version). No GPU needed: check-kernels runs this on the CPU machine. */
#ifndef BENCHTOP_JIT_H
#define BENCHTOP_JIT_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/build_info.h"
#include "kernels/registry.h"

typedef struct JitOutput {
  void *cubin;       /* the image to load: a cubin, or NUL-terminated PTX for a compute_NN target */
  size_t cubin_size;
  char *ptx;         /* the PTX NVRTC made on the way, owned; NULL on a cache hit */
  BuildInfo build;   /* of the variant's last step (the attention kernel); spills: the worst */
  char *log;         /* NVRTC log, owned (may be empty) */
  bool ptxas_warning;
} JitOutput;

/* Variant v at knobs kv, head dimension D, for arch ("sm_89", "sm_90a"). use_cache: read and
 * write the on-disk cache. On failure: false, err holds one line, out->log the NVRTC log. */
bool Jit_compileVariant(const Variant *v, const KnobValues *kv, int head_dim, const char *arch,
                        bool use_cache, JitOutput *out, char *err, size_t errsize);
/* The same for one dtype: bf16 compiles with -DBT_BF16=1 (the define is part of the cache key);
 * fp16 is Jit_compileVariant. */
bool Jit_compileVariantFor(const Variant *v, const KnobValues *kv, int head_dim, ShapeDtype dtype,
                           const char *arch, bool use_cache, JitOutput *out, char *err,
                           size_t errsize);
/* The define NVRTC gets for value idx of knob k of v, "MACRO=VALUE" (caller frees): a number
 * as itself, a word as its declared macro value (acc=fp16 -> ACC_FP16=1). */
char *Jit_knobDefine(const Variant *v, int k, int idx);
/* The kernel whose resources a build reports: attn_fwd if the variant launches one, else its
 * last kernel (not a quantize or combine step). */
const char *Jit_mainEntry(const Variant *v);
/* Any source (the reference, test kernels); defines like "HEAD_DIM=64". main_entry names the
 * kernel whose resources go into out->build. */
bool Jit_compileSource(const char *name, const char *source, const char *const *defines,
                       int ndefines, const char *main_entry, const char *arch, bool use_cache,
                       JitOutput *out, char *err, size_t errsize);
void Jit_free(JitOutput *out);

/* The hash a build of v records in BuildInfo.source_hash (16 hex digits): the text v was
 * loaded from and the shared headers. False when v has no text. */
bool Jit_sourceHash(const Variant *v, char *buf, size_t size);
/* $BENCHTOP_KERNEL_DIR/name when that file exists, else the embedded source (the built-in
 * kernels and the shared headers). NULL with one line in err when it is unknown or cannot be
 * read (the directory missing, the file a FIFO, a directory or over 16 MiB). Caller frees. */
char *Jit_loadSource(const char *name, char *err, size_t errsize);
/* "sm_89" for cc 89; "sm_90a" when the variant is arch-specific. */
void Jit_archFor(int cc, bool arch_specific, char *buf, size_t size);
/* The target NVRTC compiles for on a device of compute capability cc, given the architectures
 * this NVRTC knows (supported[], ascending, as nvrtcGetSupportedArchs lists them): the device's
 * own "sm_XY" when known; else the newest known sm_XZ of the same major with Z < Y (a cubin
 * runs on later minors); else "compute_NN" of the newest known architecture (PTX, which the
 * driver compiles for the device: the driver may be newer than NVRTC). An arch-specific target
 * ("sm_90a") exists only for the device's own architecture. False when none fits (an older
 * device than NVRTC supports, or an arch-specific one NVRTC lacks), with why in note; note says
 * what was chosen and why whenever it is not the device's own architecture, else is "". */
bool Jit_chooseArch(int cc, bool arch_specific, const int *supported, int nsupported, char *arch,
                    size_t archsize, char *note, size_t notesize);
/* Jit_chooseArch with the list of the NVRTC this process loaded. */
bool Jit_targetFor(int cc, bool arch_specific, char *arch, size_t archsize, char *note,
                   size_t notesize);
void Jit_nvrtcVersion(int *major, int *minor);
/* "nvrtc-13.0-65be0db342ad51a0": the version and the start of the loaded library's build ID,
 * which tells apart two updates of one version ("nvrtc-13.0" when the library has none). */
void Jit_nvrtcIdentity(char *buf, size_t size);
/* The first error line of an NVRTC log, "mine.cu:42: error: ..." (NVRTC writes the line in
 * parentheses), control bytes replaced; "" when the log has none. */
void Jit_firstError(const char *log, char *line, size_t size);
/* Parses a ptxas -v report for function `entry` into b (regs, smem, stack, spills). */
void Jit_parsePtxasLog(const char *log, const char *entry, BuildInfo *b);

#endif
