/* Attention problems: "B x Hq[/Hkv] x Sq[/Skv] x D" with optional ":causal", ":bf16", ":fp16"
 * suffixes, e.g. "2x8x512x64:causal" or "8x32/8x1/8192x128:bf16". The grammar, its limits and
 * the FLOP/byte counts are documented in docs/problems.md. */
#ifndef BENCHTOP_SHAPE_H
#define BENCHTOP_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#define SHAPE_MAX_S 16384
#define SHAPE_MIN_D 32
#define SHAPE_MAX_D 256
/* Bytes per element of Q, K, V and O: fp16 and bf16 alike. */
#define SHAPE_ELEM_BYTES 2
/* A problem with at most this many queries against a longer cache is a decode problem:
 * bandwidth-bound, reported in GB/s against the copy ceiling. */
#define SHAPE_DECODE_MAX_SQ 16

/* Element type of Q, K, V and O. */
typedef enum ShapeDtype { SHAPE_FP16 = 0, SHAPE_BF16 = 1 } ShapeDtype;

/* H and S are the query heads and the query length (Hq, Sq). Hkv and Skv are the key/value heads
 * and the key length; 0 means "the same as H / S" (today's problem), so a positional {B,H,S,D,c}
 * stays valid. Read them through Shape_hkv and Shape_skv. */
typedef struct Shape {
  int B, H, S, D;
  bool causal;
  int Hkv, Skv;
  ShapeDtype dtype;
} Shape;

static inline int Shape_hkv(const Shape *s) { return s->Hkv > 0 ? s->Hkv : s->H; }
static inline int Shape_skv(const Shape *s) { return s->Skv > 0 ? s->Skv : s->S; }

/* Parses one shape; on failure writes one line to err and returns false. */
bool Shape_parse(const char *text, Shape *out, char *err, size_t errsize);
/* Parses a comma-separated list; *out is heap-allocated. */
bool Shape_parseList(const char *text, Shape **out, int *count, char *err, size_t errsize);
void Shape_format(const Shape *s, char *buf, size_t size);
/* The same with ":causal" written ":c" (fixed-width tables); the dtype suffix is kept. */
void Shape_formatCompact(const Shape *s, char *buf, size_t size);
bool Shape_equal(const Shape *a, const Shape *b);
const char *Shape_dtypeName(ShapeDtype d);
/* Query-key pairs of one query head (bottom-right causal counted as Sq*Skv - Sq*Sq/2). */
double Shape_pairs(const Shape *s);
/* Multiply-adds of QK^T and PV, counted as 2 FLOPs each: 4*B*Hq*pairs*D (today: 4*B*H*S*S*D,
 * halved when causal). */
double Shape_flops(const Shape *s);
/* Bytes a kernel must move at least: Q and O per query head, K and V once per key/value head. */
double Shape_bytes(const Shape *s);
/* Sq <= SHAPE_DECODE_MAX_SQ against a longer cache: bound by memory, not by the tensor cores. */
bool Shape_isDecode(const Shape *s);
/* Elements of the Q (and O) tensor [B,Hq,Sq,D]. */
size_t Shape_elems(const Shape *s);
/* Elements of the K (and V) tensor [B,Hkv,Skv,D]. */
size_t Shape_kvElems(const Shape *s);

/* The shapes the kernels are tuned and checked on (targets, ragged and edge cases), offered as
 * presets by the TUI and `benchtop list shapes`. */
extern const char *const Shape_presets[];
extern const int Shape_presetCount;

#endif
