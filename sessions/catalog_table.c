/* The metric catalog: one line per metric, nothing else. `run --metrics default` collects these;
 * show, diff, the TUI's columns and the detail view take their labels, units, directions and
 * help from here. Adding a metric is adding a line. Fields: Nsight Compute name, short label
 * (10 characters at most), unit, direction, brief (a default column of the table views), help,
 * some_chips (n/a on some architectures). */
#include "sessions/catalog.h"

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
    {"lts__t_sector_hit_rate.pct", "L2 hit", "%", METRIC_HIGHER_BETTER, true,
     "L2 sector hit rate (can read above 100% on Hopper, as in Nsight Compute)", false},
    {"gpu__time_duration.sum", "range time", "ns", METRIC_LOWER_BETTER, false,
     "GPU duration of the profiled range: the variant's launches plus the gaps between them, "
     "so above the kernel time; compare kernels by p50", false},
};
const int Catalog_headlineCount = (int)(sizeof Catalog_headline / sizeof Catalog_headline[0]);
