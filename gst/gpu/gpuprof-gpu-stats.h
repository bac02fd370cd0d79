/* gpuprof: GPU attribution, the statistics (gpuprof-gpu-stats.c): per
 * channel, element, kernel and device sums of the settled ops, the ring of
 * recent buffers' costs, idle gaps. The join adds to them; the getters of
 * gpuprof-gpu.h copy out of them. Under the engine's lock
 * (gpuprof-gpu-engine.h); they set themselves up on first use.
 */
#pragma once

#include "gpuprof-gpu.h"

G_BEGIN_DECLS

/* a settled op of @ns on the GPU (a graph's records apart) */
void gpuprof_gpu_stats_account_locked (const GpuprofGpuSettledOp * so,
    guint64 ns, gboolean graph);
/* every op, attributed or not, for the devices' busy time */
void gpuprof_gpu_stats_device_add_locked (const GpuprofGpuOp * op);
/* busy intervals older than the retention (or all, @force) are final */
void gpuprof_gpu_stats_commit_locked (gboolean force);
/* the statistics' part of @channel's totals */
void gpuprof_gpu_stats_totals_locked (GpuprofGpuChannel channel,
    GpuprofGpuTotals * totals);
/* everything forgotten (gpuprof_gpu_reset(), _configure()) */
void gpuprof_gpu_stats_clear_locked (void);

G_END_DECLS
