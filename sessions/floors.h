/* How far a record is from what its device allows for its shape (docs/floors.md):
 *   FLOP floor   the useful FLOPs over the device's measured dense tensor rate for the dtype the
 *                variant multiplies in (fp16; a variant whose QK^T runs in fp8 has half its
 *                FLOPs at the fp8 rate, the measured fp16 rate times the datasheet's ratio);
 *   byte floor   Q, K and V read once and O written once (fp16) over the measured
 *                device-to-device copy bandwidth;
 *   launch floor an empty kernel's time by kernel timestamps.
 * The record's p50 as a multiple of the largest, which one that is, and the rates achieved. The
 * ceilings are measured on the device once (bench/worker/peak.c, bench/worker/ceilings.c) and kept in the
 * record's DeviceInfo; the floors follow from them, the shape and the variant. */
#ifndef BENCHTOP_FLOORS_H
#define BENCHTOP_FLOORS_H

#include "sessions/record.h"

typedef struct Floors {
  double flops, bytes;    /* the work: 4*B*H*S^2*D (half when causal), 8*B*H*S*D bytes */
  double fp8_flops;       /* the part of flops the variant runs on fp8 tensor cores */
  double rate_tflops;     /* the FLOP floor's rate: fp16, or the mix of fp16 and fp8; NAN */
  double flop_us, byte_us, launch_us; /* NAN where the ceiling is unknown */
  double floor_us;        /* the largest of the three known ones */
  const char *bound;      /* "compute", "memory", "launch"; NULL when no floor is known */
  double x_floor;         /* p50 / floor_us */
  double achieved_gbs;    /* bytes / p50 */
  double declared_tflops, declared_gbs; /* the datasheet's fp16 rate and DRAM bandwidth; NAN */
} Floors;

/* From the record's shape, variant, p50 and device ceilings; every field NAN (bound NULL) that
 * cannot be had. */
void Floors_compute(const Record *r, Floors *f);
/* The bound's short name for people: "FLOP", "bytes", "launch" ("n/a" without a floor). */
const char *Floors_boundLabel(const Floors *f);

#endif
