/* gpuprof: a point-in-time copy of one pipeline's statistics.
 *
 * The live statistics (gpuprof-stats.h, gpuprof-queue.h) are turned into a
 * snapshot, and everything that prints or saves numbers (report, summary
 * JSON/CSV, action signals, the gst-gpuprof tool) works from snapshots only,
 * so a saved summary prints exactly what the live run printed.
 *
 * All times are nanoseconds, sizes bytes, fractions 0..1.
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>
#include <string.h>
#include "gpuprof-schema.h"

G_BEGIN_DECLS

/* Row structs, one per table of gpuprof-schema.h (member comments there). */
typedef struct { GPUPROF_SCHEMA_ELEMENTS (GPUPROF_SCHEMA_MEMBER) } GpuprofElementRow;
typedef struct { GPUPROF_SCHEMA_QUEUES (GPUPROF_SCHEMA_MEMBER) } GpuprofQueueRow;
typedef struct { GPUPROF_SCHEMA_THREADS (GPUPROF_SCHEMA_MEMBER) } GpuprofThreadRow;
typedef struct { GPUPROF_SCHEMA_LINKS (GPUPROF_SCHEMA_MEMBER) } GpuprofLinkRow;
/* per aggregator: the batches it pushed (docs/batches.md) */
typedef struct { GPUPROF_SCHEMA_BATCHES (GPUPROF_SCHEMA_MEMBER) } GpuprofBatchRow;
/* per stage that processed batches, the aggregator itself included */
typedef struct { GPUPROF_SCHEMA_STAGES (GPUPROF_SCHEMA_MEMBER) } GpuprofStageRow;
typedef struct { GPUPROF_SCHEMA_ADVICE (GPUPROF_SCHEMA_MEMBER) } GpuprofAdviceRow;
typedef struct { GPUPROF_SCHEMA_STREAMS (GPUPROF_SCHEMA_MEMBER) } GpuprofStreamRow;
typedef struct { GPUPROF_SCHEMA_REMOVED (GPUPROF_SCHEMA_MEMBER) } GpuprofRemovedRow;
typedef struct { GPUPROF_SCHEMA_POOLS (GPUPROF_SCHEMA_MEMBER) } GpuprofPoolRow;
typedef struct { GPUPROF_SCHEMA_HISTOGRAMS (GPUPROF_SCHEMA_MEMBER) } GpuprofHistogramRow;
typedef struct { GPUPROF_SCHEMA_GPU_ELEMENTS (GPUPROF_SCHEMA_MEMBER) } GpuprofGpuElementRow;
typedef struct { GPUPROF_SCHEMA_GPU_KERNELS (GPUPROF_SCHEMA_MEMBER) } GpuprofGpuKernelRow;
typedef struct { GPUPROF_SCHEMA_GPU_DEVICES (GPUPROF_SCHEMA_MEMBER) } GpuprofGpuDeviceRow;
typedef struct { GPUPROF_SCHEMA_GPU (GPUPROF_SCHEMA_MEMBER) } GpuprofGpuRow;
typedef struct { GPUPROF_SCHEMA_RESOURCES (GPUPROF_SCHEMA_MEMBER) } GpuprofResourceRow;
typedef struct { GPUPROF_SCHEMA_LIMITS (GPUPROF_SCHEMA_MEMBER) } GpuprofLimitRow;
typedef struct { GPUPROF_SCHEMA_GPU_RESOURCES (GPUPROF_SCHEMA_MEMBER) } GpuprofGpuResourceRow;

/* the live tables' rows (interval=): path points into the snapshot */
typedef struct { GPUPROF_SCHEMA_INTERVAL_ELEMENTS (GPUPROF_SCHEMA_MEMBER) } GpuprofIntervalElementRow;
typedef struct { GPUPROF_SCHEMA_INTERVAL_QUEUES (GPUPROF_SCHEMA_MEMBER) } GpuprofIntervalQueueRow;
typedef struct { GPUPROF_SCHEMA_INTERVAL_STREAMS (GPUPROF_SCHEMA_MEMBER) } GpuprofIntervalStreamRow;
typedef struct { GPUPROF_SCHEMA_INTERVAL_GPUS (GPUPROF_SCHEMA_MEMBER) } GpuprofIntervalGpuRow;

/* The run table's one row is the snapshot itself: its first members. */
typedef struct
{
  GPUPROF_SCHEMA_RUN (GPUPROF_SCHEMA_MEMBER)
  GArray *elements;             /* GpuprofElementRow, sorted by self time, largest first */
  GArray *queues;               /* GpuprofQueueRow */
  GArray *threads;              /* GpuprofThreadRow, busiest first */
  GArray *links;                /* GpuprofLinkRow, by src, src_pad */
  /* per batch (docs/batches.md); empty without aggregators */
  GArray *batches;              /* GpuprofBatchRow, by path */
  GArray *stages;               /* GpuprofStageRow, aggregator then downstream order */
  GArray *advice;               /* GpuprofAdviceRow, most important first */
  GArray *streams;              /* GpuprofStreamRow, by source_id */
  GArray *removed;              /* GpuprofRemovedRow, by factory: elements
                                 * that left during the run, folded */
  GArray *pools;                /* GpuprofPoolRow (GStreamer >= 1.28), the
                                 * destroyed ones' last */
  GArray *histograms;           /* GpuprofHistogramRow: per element, then
                                 * per aggregator, then per source */
  /* GPU (CUPTI), empty without GPU attribution (gpuprof-gpu-tables.c) */
  GArray *gpu_elements;         /* GpuprofGpuElementRow, most GPU time first,
                                 * then the unattributed rows */
  GArray *gpu_kernels;          /* GpuprofGpuKernelRow, most time first */
  GArray *gpu_devices;          /* GpuprofGpuDeviceRow, by device */
  GArray *gpu;                  /* GpuprofGpuRow: one row when GPU was on */
  /* shared resources (the CPUs, GPU engines), filled by the samplers */
  GArray *resources;            /* GpuprofResourceRow */
  GArray *limits;               /* GpuprofLimitRow, by rank */
  /* NVML (gpuprof-nvml-sampler.c), empty without it */
  GArray *gpu_resources;        /* GpuprofGpuResourceRow, by NVML index */
} GpuprofSnapshot;

/* the row type of each table of GPUPROF_SCHEMA_TABLES, by its ID */
#define GPUPROF_SCHEMA_ROW_RUN GpuprofSnapshot
#define GPUPROF_SCHEMA_ROW_ELEMENTS GpuprofElementRow
#define GPUPROF_SCHEMA_ROW_QUEUES GpuprofQueueRow
#define GPUPROF_SCHEMA_ROW_THREADS GpuprofThreadRow
#define GPUPROF_SCHEMA_ROW_LINKS GpuprofLinkRow
#define GPUPROF_SCHEMA_ROW_BATCHES GpuprofBatchRow
#define GPUPROF_SCHEMA_ROW_STAGES GpuprofStageRow
#define GPUPROF_SCHEMA_ROW_ADVICE GpuprofAdviceRow
#define GPUPROF_SCHEMA_ROW_STREAMS GpuprofStreamRow
#define GPUPROF_SCHEMA_ROW_REMOVED GpuprofRemovedRow
#define GPUPROF_SCHEMA_ROW_POOLS GpuprofPoolRow
#define GPUPROF_SCHEMA_ROW_HISTOGRAMS GpuprofHistogramRow
#define GPUPROF_SCHEMA_ROW_GPU_ELEMENTS GpuprofGpuElementRow
#define GPUPROF_SCHEMA_ROW_GPU_KERNELS GpuprofGpuKernelRow
#define GPUPROF_SCHEMA_ROW_GPU_DEVICES GpuprofGpuDeviceRow
#define GPUPROF_SCHEMA_ROW_GPU GpuprofGpuRow
#define GPUPROF_SCHEMA_ROW_RESOURCES GpuprofResourceRow
#define GPUPROF_SCHEMA_ROW_LIMITS GpuprofLimitRow
#define GPUPROF_SCHEMA_ROW_GPU_RESOURCES GpuprofGpuResourceRow
#define GPUPROF_SCHEMA_ROW_INTERVAL_ELEMENTS GpuprofIntervalElementRow
#define GPUPROF_SCHEMA_ROW_INTERVAL_QUEUES GpuprofIntervalQueueRow
#define GPUPROF_SCHEMA_ROW_INTERVAL_STREAMS GpuprofIntervalStreamRow
#define GPUPROF_SCHEMA_ROW_INTERVAL_GPUS GpuprofIntervalGpuRow

GPUPROF_API
GpuprofSnapshot *gpuprof_snapshot_new (const gchar * pipeline);
GPUPROF_API
void gpuprof_snapshot_free (GpuprofSnapshot * snap);
void gpuprof_snapshot_mark_taken (GpuprofSnapshot * snap, guint64 taken_ns);
GPUPROF_API
void gpuprof_snapshot_sort (GpuprofSnapshot * snap);
GPUPROF_API
void gpuprof_snapshot_compute_verdict (GpuprofSnapshot * snap);
/* the share of its thread's wall in its work (self time: on a CPU, waiting
 * for a core or blocked inside its calls; clock, input and GPU waits are
 * not in it): what ranks stages. busy is the on-CPU part (the CPU
 * sampler's), or the same without the sampler. In the steady state, as
 * busy: its start-up (first_ns, in its thread's self time where it ran
 * there) comes off the work and off the wall. A source's loop is timed on
 * its thread's CPU clock: its wait for a core (the sampler's), in a chain
 * call's wall time already, is added to it */
static inline gdouble
gpuprof_element_row_occupancy (const GpuprofElementRow * r)
{
  guint64 first = r->first_ns <= r->thread_self_ns ? r->first_ns : 0;
  guint64 work = r->thread_self_ns - first;

  if (r->role && !strcmp (r->role, "source"))
    work += r->wait_core_ns;
  return r->thread_wall_ns > first ? MIN (1.0, (gdouble) work /
      (r->thread_wall_ns - first)) : r->busy;
}
GPUPROF_API
const GpuprofElementRow *gpuprof_snapshot_find_element (const GpuprofSnapshot *
    snap, const gchar * path);
GPUPROF_API
const GpuprofBatchRow *gpuprof_snapshot_find_batch (const GpuprofSnapshot *
    snap, const gchar * path);
GPUPROF_API
const GpuprofStageRow *gpuprof_snapshot_find_stage (const GpuprofSnapshot *
    snap, const gchar * path);
GPUPROF_API
const GpuprofQueueRow *gpuprof_snapshot_find_queue (const GpuprofSnapshot *
    snap, const gchar * path);
/* the ladder of gpuprof-schema.h's histograms table */
#define GPUPROF_HISTOGRAM_LADDER 16
#define GPUPROF_HISTOGRAM_FIRST_NS (G_GUINT64_CONSTANT (1) << 19)
struct _GpuprofHistogram;
/* a row of the histograms table from @h: @unit_ns TRUE for a histogram of
 * ns (exported in seconds), FALSE for one of frames */
void gpuprof_snapshot_add_histogram (GpuprofSnapshot * snap,
    const gchar * name, const gchar * owner,
    const struct _GpuprofHistogram * h, gboolean unit_ns);
const GpuprofStreamRow *gpuprof_snapshot_find_stream (const GpuprofSnapshot *
    snap, const gchar * source);
/* the GPU resources row of @device (its UUID), NULL when none */
const GpuprofGpuResourceRow *gpuprof_snapshot_find_gpu_resource (const
    GpuprofSnapshot * snap, const gchar * device);


/* The snapshot's tables by their schema id (gpuprof-schema.c): rows of
 * any table, for writers that walk them all */
GArray *gpuprof_summary_rows (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id);
GPUPROF_API
guint gpuprof_summary_n_rows (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id);
GPUPROF_API
gconstpointer gpuprof_summary_row (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id, guint i);
GPUPROF_API
gpointer gpuprof_summary_add_row (GpuprofSnapshot * snap,
    GpuprofSummaryTableId id);
void gpuprof_summary_row_clear (GpuprofSummaryTableId id, gpointer row);
GPUPROF_API
GstStructure *gpuprof_summary_row_to_structure (GpuprofSummaryTableId id,
    gconstpointer row);

G_END_DECLS
