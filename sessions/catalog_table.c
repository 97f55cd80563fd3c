/* The metric catalog: one line per metric, nothing else. `run --metrics default` collects these;
 * show, diff, the TUI's columns and the detail view take their labels, units, directions and
 * help from here. Adding a metric is adding a line. Fields: Nsight Compute name, short label
 * (10 characters at most), unit, direction, brief (a default column of the table views), help,
 * then optionally some_chips (n/a on some architectures), explain (the detail view prints the
 * help under the value), and for a metric benchtop derives from two collected ones, how and
 * from which. */
#include "sessions/catalog.h"

/* A line leaves out the optional fields after some_chips: they are zero (no, none). */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

const MetricInfo Catalog_headline[] = {
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "occ", "%", METRIC_HIGHER_BETTER, true,
     "achieved occupancy: active warps per SM over the SM's maximum, while the SM was active", false},
    {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor", "%",
     METRIC_HIGHER_BETTER, true,
     "tensor pipe busy cycles over the peak while the SM was active (HMMA, and HFMA2.MMA moves)", false},
    {"sm__inst_executed_pipe_tensor_op_hmma.sum", "hmma", "inst", METRIC_NEUTRAL, false,
     "warp instructions executed on the tensor pipe (HMMA, and HFMA2.MMA register moves)", false},
    /* ptxas moves constants into registers with HFMA2.MMA, which issues on the tensor pipe and
     * is counted by the two above: a scalar kernel reads 0.1-0.3 %. Where the chip counts them
     * apart (GA100/GH100; Hopper also has the matrix-only busy cycles) these say so. */
    {"sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
     "tensor mma", "%", METRIC_HIGHER_BETTER, true,
     "tensor pipe busy with matrix instructions only (HMMA/HGMMA/QGMMA, not HFMA2.MMA moves)", true},
    {"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum", "hfma2", "inst", METRIC_NEUTRAL, false,
     "HFMA2.MMA instructions among the tensor-pipe ones: register moves, not matrix math", true},
    {CATALOG_SMEM_LD_CONFLICTS, "ld conf", "conflicts", METRIC_LOWER_BETTER, true,
     "shared-memory load bank conflicts (extra wavefronts)", false},
    {CATALOG_SMEM_ST_CONFLICTS, "st conf", "conflicts", METRIC_LOWER_BETTER, true,
     "shared-memory store bank conflicts (extra wavefronts)", false},
    {CATALOG_SMEM_LD_WAVEFRONTS, "ld wavef", "wavefronts", METRIC_NEUTRAL, false,
     "shared-memory load wavefronts, conflicts included", false},
    {CATALOG_SMEM_ST_WAVEFRONTS, "st wavef", "wavefronts", METRIC_NEUTRAL, false,
     "shared-memory store wavefronts, conflicts included", false},
    /* L2: Nsight Compute's own hit rate counts every client's lookups (the copy engines, the
     * other L2 partition over the fabric on GA100/GH100, stores that always count as hits),
     * its hits and lookups may come from different replay passes, and it reads above 100 % on
     * Hopper. The SMs' own reads (unit TEX), hits over hits + misses, give a rate that stays in
     * 0-100 on every chip and is what a kernel's tiling changes. */
    {"derived__l2_tex_read_hit_rate.pct", "L2 rd hit", "%", METRIC_HIGHER_BETTER, true,
     "L2 hit rate of the kernels' own reads: sectors read by the SMs (unit TEX) that hit, over "
     "those that hit or missed; stores and other clients left out, so it stays within 0-100%",
     false, true, DERIVE_SHARE_PCT,
     {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
      "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum"}},
    {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "L2 rd hits", "sectors", METRIC_NEUTRAL,
     false, "L2 sectors read by the SMs (unit TEX) that hit", false},
    {"lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum", "L2 rd miss", "sectors",
     METRIC_LOWER_BETTER, false, "L2 sectors read by the SMs (unit TEX) that missed (went to DRAM)",
     false},
    {"lts__t_sector_hit_rate.pct", "L2 hit all", "%", METRIC_HIGHER_BETTER, false,
     "Nsight Compute's L2 sector hit rate: every client's lookups (copy engines, the other L2 "
     "partition, stores counted as hits), hits and lookups possibly from different replay "
     "passes; reads above 100% on Hopper, as ncu shows it", false, true},
    {"gpu__time_duration.sum", "range time", "ns", METRIC_LOWER_BETTER, false,
     "GPU duration of the profiled range: the variant's launches plus the gaps between them, "
     "so above the kernel time; compare kernels by p50", false},
};
const int Catalog_headlineCount = (int)(sizeof Catalog_headline / sizeof Catalog_headline[0]);
