/* gpuprof: what the session (gpuprof-profiler.c) and the hooks
 * (gpuprof-hooks.c) share. Private to the library. */
#pragma once

#include "gpuprof-batch.h"
#include "gpuprof-checkpoint.h"
#include "gpuprof-metrics-server.h"
#include "gpuprof-objects.h"
#include "gpuprof-profiler.h"
#include "gpuprof-stall.h"
#include "gpuprof-trace.h"

G_BEGIN_DECLS

struct _GpuprofProfiler
{
  GpuprofParams params;
  GpuprofObjects *objects;
  GPtrArray *outputs;           /* GpuprofOutput *, see gpuprof-output.h */
  GpuprofTrace *trace;          /* the trace output's writer, for the hooks;
                                 * NULL: no trace= or it could not open */
  gsize gpu_started;            /* g_once: CUPTI tried when a run starts */
  gsize checkpoint_started;     /* g_once: checkpoint= thread, likewise */
  gboolean gpu_on;              /* CUPTI attribution running */
  gchar *gpu_off_reason;        /* why not, for the report (cupti=on) */
  GpuprofBatches *batches;      /* per-batch analysis (gpuprof-batch.h) */
  GpuprofStreams *streams;      /* per-source figures (gpuprof-streams.h) */
  /* frames are followed per source only once there is something to tell
   * apart: a second source or a batching aggregator (element_init) */
  gint n_sources;
  gboolean streams_on;

  GMutex report_lock;           /* guards below; reports are rare */
  gchar *last_report;
  /* interval=: live snapshots (docs/live.md) */
  GHashTable *live_previous;    /* pipeline id -> its last GpuprofSnapshot */
  guint64 live_seq;
  guint64 live_last_ns;         /* when the last snapshot was taken */
  GpuprofStall *stall;          /* the watchdog, on the live thread */

  GpuprofMetricsServer *metrics;        /* metrics=: NULL when off */
  GpuprofCheckpoint *checkpoint;        /* checkpoint=: NULL when off */
  guint64 metrics_scrape_ns;    /* what the last scrape cost (atomic) */

  GThread *live_thread;         /* the timer; NULL without interval= */
  GMutex live_lock;             /* guards live_stop */
  GCond live_cond;
  gboolean live_stop;
};

/* gpuprof-hooks.c */
void gpuprof_hooks_init (void);
void gpuprof_hooks_gpu_state_enter (GpuprofProfiler * p, GstElement * element);
/* the queue stopped or the trace closes: what it holds is left */
void gpuprof_hooks_end_queues (GpuprofProfiler * p, GpuprofElement * e,
    guint64 ts);

/* gpuprof-profiler.c */
/* the end of a run: report, save, reset */
void gpuprof_profiler_report_pipeline (GpuprofProfiler * p,
    GpuprofPipeline * pl);
/* report lock held */
void gpuprof_profiler_sweep_locked (GpuprofProfiler * p);

G_END_DECLS
