/* gpuprof: the measurement state of a session.
 *
 * A GpuprofMeasure owns the registry of elements and pads
 * (gpuprof-objects.h) with the slots its modules keep per element
 * (statistics, queues, batches, streams, asynchronous elements, NVTX), the
 * per-batch and per-source state, and where the hooks' events go (the
 * bus). The hooks (gpuprof-hooks.h) update it on the streaming threads; the
 * session reads it into snapshots (gpuprof_measure_snapshot(), the rows of
 * gpuprof-rows.c) and starts each run from zero (gpuprof_measure_reset()).
 *
 * Measurement never calls the session: what the session must hear of (a
 * run ended, the first element starts, a pipeline was destroyed) goes
 * through the GpuprofMeasureFuncs it installs.
 */
#pragma once

#include <gst/gst.h>

#include "gpuprof-batch.h"
#include "gpuprof-bus.h"
#include "gpuprof-objects.h"
#include "gpuprof-queue.h"
#include "gpuprof-snapshot.h"
#include "gpuprof-streams.h"

G_BEGIN_DECLS

/**
 * GpuprofMeasureFuncs:
 * @starting: (nullable): @element is about to leave NULL (before any CUDA
 *   work of a run: the session starts CUPTI on the first, and its threads),
 *   before the owners' scan of its state change (gpuprof-owners.h): the
 *   threads started here are no element's workers
 * @run_end: (nullable): the top-level pipeline @pl went back to NULL: its
 *   run is over (the session reports it and calls gpuprof_measure_reset())
 * @pipeline_destroyed: (nullable): a top-level bin was destroyed, or
 *   elements that left a running pipeline were (GPUPROF_MEASURE_SWEEP_BATCH
 *   of them): the records of destroyed objects may be freed
 *   (gpuprof_measure_fold(), gpuprof_objects_sweep())
 *
 * The session's part, called from the hooks on the thread that changes
 * state or destroys: never on the buffer path.
 */
typedef struct
{
  void (*starting) (GstElement * element, gpointer user_data);
  void (*run_end) (GpuprofPipeline * pl, gpointer user_data);
  void (*pipeline_destroyed) (gpointer user_data);
} GpuprofMeasureFuncs;

typedef struct _GpuprofMeasure GpuprofMeasure;

/* Read by the hooks (gpuprof-hooks.c) and the rows (gpuprof-rows.c);
 * constant after gpuprof_measure_new() unless said. */
struct _GpuprofMeasure
{
  GpuprofObjects *objects;
  GpuprofBus *bus;              /* the events' bus; the session's */
  gboolean nvtx;                /* nvtx=on */
  gboolean gpu_on;              /* GPU attribution runs (set once, before
                                 * the first run) */
  GpuprofBatches *batches;      /* per-batch analysis (gpuprof-batch.h) */
  GpuprofStreams *streams;      /* per-source figures (gpuprof-streams.h) */
  struct _GpuprofRemoved *removed;      /* elements that left a running
                                         * pipeline, folded
                                         * (gpuprof-removed.h) */
  struct _GpuprofPools *pools;  /* buffer pools (gpuprof-pools.h), from
                                 * GStreamer >= 1.28's pool hooks */
  gint n_freeable;              /* destroyed elements' records a sweep can
                                 * free, since the last sweep asked for
                                 * (atomic) */
  /* frames are followed per source only once there is something to tell
   * apart: a second source or a batching aggregator (atomic) */
  gint n_sources;
  gboolean streams_on;
  GpuprofMeasureFuncs funcs;
  gpointer funcs_data;
  /* the CPU sampler (gpuprof-cpu-sampler.h), set once by the session
   * before its first run, NULL with sample-hz=0 (atomic) */
  struct _GpuprofCpuSampler *cpu;
};

GpuprofMeasure *gpuprof_measure_new (gboolean nvtx, GpuprofBus * bus);
void gpuprof_measure_free (GpuprofMeasure * m);
/* before the first hook */
void gpuprof_measure_set_funcs (GpuprofMeasure * m,
    const GpuprofMeasureFuncs * funcs, gpointer user_data);

/* GPU attribution started (CUPTI runs): the GPU side learns element paths,
 * threads' owners and the batches in flight from here on */
void gpuprof_measure_gpu_start (GpuprofMeasure * m);
void gpuprof_measure_gpu_stop (GpuprofMeasure * m);
/* element path of @id, for names on other threads (trace, GPU tables) */
gchar *gpuprof_measure_element_path (guint32 id, gpointer measure);

/* @e has measured something in this run */
gboolean gpuprof_measure_element_active (GpuprofMeasure * m,
    GpuprofElement * e);
/* the run of @pl has measured something */
gboolean gpuprof_measure_pipeline_active (GpuprofMeasure * m,
    GpuprofPipeline * pl);
/* a new run of @pl counts from zero; nothing streams at NULL */
void gpuprof_measure_reset (GpuprofMeasure * m, GpuprofPipeline * pl);
/* queues still holding buffers at the end (a pipeline never stopped) are
 * left, so the report says so and every residency in the trace ends */
void gpuprof_measure_end_queues (GpuprofMeasure * m);
/* the end of one queue element's run (it stopped): what it holds is left */
void gpuprof_measure_end_element_queues (GpuprofMeasure * m,
    GpuprofElement * e, guint64 ts);
/* buffers in and out of @e in this run, pulls included */
void gpuprof_measure_buffer_counts (GpuprofMeasure * m, GpuprofElement * e,
    guint64 * in, guint64 * out);

/* where a queue tells its entries (gpuprof-queue.c does the rest) */
static inline GpuprofQueueOutputs
gpuprof_measure_queue_outputs (GpuprofMeasure * m)
{
  GpuprofQueueOutputs out = { gpuprof_bus_active (m->bus) ? m->bus : NULL,
    m->nvtx
  };

  return out;
}

/* records of destroyed elements that left a running pipeline are swept
 * every this many (and at every live tick, report and pipeline's end) */
#define GPUPROF_MEASURE_SWEEP_BATCH 16

/* gpuprof-rows.c: the elements that left @pl's run since the last call
 * folded into its removed totals (docs/tracer.md#removed), and its
 * members now into @members (nullable), both read at once. Under the
 * session's report lock, as snapshots are. */
void gpuprof_measure_fold (GpuprofMeasure * m, GpuprofPipeline * pl,
    GPtrArray * members);

/* gpuprof-rows.c: @pl's run so far, every table but the GPU's, with the
 * advice and the verdict; @first, @last (nullable): the wall span of its
 * threads (tracer clock, 0: none) */
GpuprofSnapshot *gpuprof_measure_snapshot (GpuprofMeasure * m,
    GpuprofPipeline * pl, guint64 * first, guint64 * last);

G_END_DECLS
