/* Physical floors of a record (see floors.h). */
#include "sessions/floors.h"

#include <math.h>
#include <string.h>

#include "kernels/registry.h"
#include "sessions/datasheet.h"

void Floors_compute(const Record *r, Floors *f) {
  memset(f, 0, sizeof *f);
  const DeviceInfo *d = &r->device;
  const Variant *v = Registry_find(r->variant);
  f->flops = Shape_flops(&r->shape);
  f->bytes = Shape_bytes(&r->shape);
  /* QK^T and PV are half the FLOPs each; an fp8 QK^T runs at the fp8 rate where there is one. */
  double fp8_rate = d->peak_tflops * Datasheet_fp8Ratio(d);
  f->fp8_flops = v && v->qk_fp8 && fp8_rate > 0 ? f->flops / 2 : 0;
  double compute_us = d->peak_tflops > 0 ? (f->flops - f->fp8_flops) / (d->peak_tflops * 1e12) * 1e6
                                         : NAN;
  if (f->fp8_flops > 0) compute_us += f->fp8_flops / (fp8_rate * 1e12) * 1e6;
  f->flop_us = compute_us > 0 ? compute_us : NAN;
  f->rate_tflops = f->flop_us > 0 ? f->flops / (f->flop_us * 1e-6) / 1e12 : NAN;
  f->byte_us = d->peak_gbs > 0 ? f->bytes / (d->peak_gbs * 1e9) * 1e6 : NAN;
  f->launch_us = d->launch_us > 0 ? d->launch_us : NAN;
  f->floor_us = NAN;
  f->bound = NULL;
  const double floor[3] = {f->flop_us, f->byte_us, f->launch_us};
  static const char *const names[3] = {"compute", "memory", "launch"};
  for (int i = 0; i < 3; i++)
    if (!isnan(floor[i]) && (isnan(f->floor_us) || floor[i] > f->floor_us)) {
      f->floor_us = floor[i];
      f->bound = names[i];
    }
  double p50 = r->timing.p50;
  f->x_floor = p50 > 0 && f->floor_us > 0 ? p50 / f->floor_us : NAN;
  f->achieved_gbs = p50 > 0 ? f->bytes / (p50 * 1e-6) / 1e9 : NAN;
  const Datasheet *ds = Datasheet_find(d);
  f->declared_tflops = ds ? ds->fp16_tflops : NAN;
  f->declared_gbs = ds ? ds->dram_gbs : NAN;
}

const char *Floors_boundLabel(const Floors *f) {
  if (!f->bound) return "n/a";
  return strcmp(f->bound, "compute") == 0 ? "FLOP" : strcmp(f->bound, "memory") == 0 ? "bytes"
                                                                                    : "launch";
}
