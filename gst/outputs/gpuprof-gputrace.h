/* gpuprof: GPU ops into the timeline trace.
 *
 * Connects the correlation engine (gpuprof-gpu.h) to the trace writer
 * (gpuprof-trace.h): every GPU record settled on the tracer channel becomes a
 * GPUPROF_EVENT_GPU_OP — a complete event on a track per (device, stream)
 * and, when it was launched inside a chain call, an arrow from that call to
 * it. Runs on the thread that settles records (the CUPTI collector, or the
 * one that flushes at EOS), never on a streaming thread's hot path.
 * See docs/trace.md.
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-trace.h"

G_BEGIN_DECLS

/* GPU ops waiting for the writer, at most: 2.5 MiB */
#define GPUPROF_GPUTRACE_RING_CAPACITY 32768
/* (device, stream) tracks at most; later streams share one per device */
#define GPUPROF_GPUTRACE_MAX_TRACKS 1024

GPUPROF_API
gboolean gpuprof_gputrace_attach (GpuprofTrace * trace);
GPUPROF_API
void gpuprof_gputrace_detach (GpuprofTrace * trace);

/**
 * GpuprofGputraceStats:
 * @ops: settled ops pushed to the trace
 * @flows: of them, with a launch arrow
 * @untimed: ops CUPTI could not time: not in the trace
 * @lost: ops the trace's ring had no room for (also in events_lost)
 */
typedef struct
{
  guint64 ops;
  guint64 flows;
  guint64 untimed;
  guint64 lost;
} GpuprofGputraceStats;

GPUPROF_API
void gpuprof_gputrace_get_stats (GpuprofGputraceStats * stats);

G_END_DECLS
