/* What NVIDIA's datasheets declare for the chips benchtop is run on: dense tensor rates (no
 * sparsity, boost clock, fp32 accumulation) and DRAM bandwidth. The floors are computed from
 * ceilings measured on the device (bench/worker/peak.c, bench/worker/ceilings.c), never from these alone;
 * the declared figures are shown beside the measured ones (how much of the datasheet the device
 * reaches) and give the fp8:fp16 rate ratio that turns the measured fp16 rate into an fp8 one. */
#ifndef BENCHTOP_DATASHEET_H
#define BENCHTOP_DATASHEET_H

#include "sessions/record.h"

typedef struct Datasheet {
  const char *product;  /* as matched in the device name, e.g. "H100 PCIe" */
  double fp16_tflops;   /* dense fp16 tensor rate, fp32 accumulation */
  double fp8_tflops;    /* dense E4M3 tensor rate; 0 where the chip has no fp8 tensor cores */
  double dram_gbs;      /* DRAM bandwidth */
} Datasheet;

/* The datasheet of the device named d->name ("NVIDIA H100 80GB HBM3", "NVIDIA L4"), NULL when
 * the product is not in the table. */
const Datasheet *Datasheet_find(const DeviceInfo *d);
/* The fp8 tensor rate over the fp16 one on this device: the datasheet's ratio when the product
 * is known, else by compute capability (2 from sm_89 on, 0 before: no fp8 tensor cores). */
double Datasheet_fp8Ratio(const DeviceInfo *d);

#endif
