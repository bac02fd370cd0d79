/* gpuprof: the figures between two snapshots of one run, and what limited
 * the run then (docs/live.md, "What limits, per interval"). */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/**
 * gpuprof_snapshot_delta:
 * @now: a snapshot of a run
 * @before: (nullable): an earlier snapshot of the same run; %NULL: the run
 *   from its start
 *
 * The rows the verdict reads (elements, threads, queues: counters as the
 * differences; links and resources as they are now; the GPU's engines
 * over the interval's NVML readings), with their verdict:
 * the limits table and the run's limit_* fields of that interval. An
 * element whose busiest thread changed is read on its new thread only.
 *
 * Returns: (transfer full): the interval's snapshot
 */
GPUPROF_API
GpuprofSnapshot *gpuprof_snapshot_delta (const GpuprofSnapshot * now,
    const GpuprofSnapshot * before);

/* The mean of the readings between two cumulative means: @now over @n_now
 * readings, @before over the first @n_before of them; 0 when no reading
 * came between (an NVML figure of an interval) */
GPUPROF_API
gdouble gpuprof_interval_mean (gdouble now, guint64 n_now, gdouble before,
    guint64 n_before);

G_END_DECLS
