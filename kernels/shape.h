/* Problem shapes: "BxHxSxD" with an optional ":causal", e.g. "2x8x512x64:causal". */
#ifndef BENCHTOP_SHAPE_H
#define BENCHTOP_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#define SHAPE_MAX_S 16384
#define SHAPE_MAX_D 256

typedef struct Shape {
  int B, H, S, D;
  bool causal;
} Shape;

/* Parses one shape; on failure writes one line to err and returns false. */
bool Shape_parse(const char *text, Shape *out, char *err, size_t errsize);
/* Parses a comma-separated list; *out is heap-allocated. */
bool Shape_parseList(const char *text, Shape **out, int *count, char *err, size_t errsize);
void Shape_format(const Shape *s, char *buf, size_t size);
bool Shape_equal(const Shape *a, const Shape *b);
/* Multiply-adds of QK^T and PV, counted as 2 FLOPs each: 4*B*H*S*S*D, halved when causal. */
double Shape_flops(const Shape *s);
/* Elements of one [B,H,S,D] tensor. */
size_t Shape_elems(const Shape *s);

/* The shapes the kernels are tuned and checked on (targets, ragged and edge cases), offered as
 * presets by the TUI and `benchtop list shapes`. */
extern const char *const Shape_presets[];
extern const int Shape_presetCount;

#endif
