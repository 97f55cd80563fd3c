#include "bench/tune/tune_wavefit.h"

#include <limits.h>
#include <math.h>

#include "kernels/knobs.h"

/* Per SM, by compute capability (the CUDA programming guide's table): shared memory, resident
 * threads, resident blocks. Each block also reserves 1 KiB of shared memory. */
static void WaveFit_smLimits(const DeviceProps *dev, long long *smem, int *threads, int *blocks) {
  switch (dev->cc) {
  case 80: case 87: *smem = 164 << 10; *threads = 2048; *blocks = 32; break;
  case 86: *smem = 100 << 10; *threads = 1536; *blocks = 16; break;
  case 89: *smem = 100 << 10; *threads = 1536; *blocks = 24; break;
  case 90: *smem = 228 << 10; *threads = 2048; *blocks = 32; break;
  default: *smem = dev->smem_optin > 0 ? dev->smem_optin + 1024 : 100 << 10; *threads = 1536; *blocks = 16;
  }
}

const LaunchDims *WaveFit_largest(const LaunchPlan *plan, long long *blocks) {
  const LaunchDims *big = NULL;
  *blocks = 0;
  for (int i = 0; i < plan->nsteps; i++) {
    const LaunchDims *d = &plan->dims[i];
    long long b = (long long)d->grid[0] * d->grid[1] * d->grid[2];
    if (!plan->skip[i] && b > *blocks) {
      *blocks = b;
      big = d;
    }
  }
  return big;
}

bool WaveFit_rounds(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                    int *rounds, double *fill, int *splits) {
  LaunchPlan plan;
  char err[256];
  if (!Registry_plan(v, s, kv, dev, &plan, err, sizeof err)) return false;
  long long blocks;
  const LaunchDims *big = WaveFit_largest(&plan, &blocks);
  if (!big || big->persistent || dev->sm_count <= 0) return false;
  long long smem, threads = (long long)big->block[0] * big->block[1] * big->block[2];
  int sm_threads, sm_blocks;
  WaveFit_smLimits(dev, &smem, &sm_threads, &sm_blocks);
  long long per = smem / ((long long)big->smem + 1024);
  if (threads > 0 && sm_threads / threads < per) per = sm_threads / threads;
  if (sm_blocks < per) per = sm_blocks;
  if (per < 1) return false;
  long long wave = per * dev->sm_count;
  long long r = (blocks + wave - 1) / wave;
  if (r > INT_MAX) return false;
  *rounds = (int)r;
  *fill = (double)blocks / (double)(r * wave);
  *splits = plan.num_splits;
  return true;
}

/* Whether kv is a setting v runs at s, with the splits asked for; its rounds and fill. */
static bool WaveFit_try(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                        int splits, int *rounds, double *fill) {
  char why[256];
  int sp;
  return Registry_refusal(v, s, kv, dev, why, sizeof why) == NULL &&
         WaveFit_rounds(v, s, kv, dev, rounds, fill, &sp) && sp == splits;
}

bool WaveFit_alternative(const Variant *v, const Shape *s, const KnobValues *kv, const DeviceProps *dev,
                         KnobValues *out) {
  int rounds0, splits0, best_rounds = INT_MAX, best_changes = 0;
  double fill0, best_fill = 0;
  if (!WaveFit_rounds(v, s, kv, dev, &rounds0, &fill0, &splits0) || rounds0 < 2) return false;
  int bm = Registry_knobIndex(v, "block_m");
  long long bm0 = bm >= 0 ? Registry_knobNumber(v, kv, bm) : 0;
  bool found = false;
  int tries = 0;
  /* Every setting one or two knobs away: i alone (j == i), or i and j. */
  for (int i = 0; i < v->nknobs; i++)
    for (int j = i; j < v->nknobs; j++)
      for (int a = 0; a < v->knobs[i].nvalues; a++)
        for (int b = 0; b < (j == i ? 1 : v->knobs[j].nvalues) && tries < WAVEFIT_TRIES; b++) {
          KnobValues c = *kv;
          c.idx[i] = a;
          if (j != i) c.idx[j] = b;
          int changes = (c.idx[i] != kv->idx[i]) + (j != i && c.idx[j] != kv->idx[j]);
          if (changes == 0 || (j != i && changes < 2)) continue; /* each setting once */
          if (bm >= 0 && Registry_knobNumber(v, &c, bm) < bm0) continue;
          int rounds;
          double fill;
          tries++;
          if (!WaveFit_try(v, s, &c, dev, splits0, &rounds, &fill) || rounds >= rounds0) continue;
          bool better = rounds < best_rounds ||
                        (rounds == best_rounds && (fill > best_fill + 1e-9 ||
                                                   (fabs(fill - best_fill) <= 1e-9 && changes < best_changes)));
          if (!better) continue;
          best_rounds = rounds;
          best_fill = fill;
          best_changes = changes;
          *out = c;
          found = true;
        }
  return found;
}
