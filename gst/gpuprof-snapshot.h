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

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  gchar *path;                  /* "pipeline0/infer" */
  gchar *factory;               /* "identity", "" when unknown */
  gchar *role;                  /* "source", "filter", "queue", "aggregator", "sink" */
  gchar *thread;                /* thread where it spent most self time, "" if none */
  guint64 buffers_in;
  guint64 buffers_out;
  guint64 calls;                /* samples: chain calls, or source loop iterations */
  guint64 self_ns;              /* total self time */
  guint64 incl_ns;              /* total inclusive time of its chain/pull calls */
  guint64 self_p50_ns, self_p95_ns, self_p99_ns, self_max_ns; /* per call */
  guint64 thread_self_ns;       /* self time on 'thread' */
  guint64 thread_wall_ns;       /* wall time of 'thread' during the run */
  gdouble busy;                 /* thread_self_ns / thread_wall_ns */
  gboolean waits_on_clock;      /* synced sink or live source: time includes clock waits */
  guint64 blocked_ns;           /* upstream threads waited inside it (full
                                 * queue, batching input); not self time */
} GpuprofElementRow;

typedef struct
{
  gchar *path;
  guint64 buffers;              /* dequeued (pushed out) */
  guint64 residency_p50_ns, residency_p99_ns, residency_max_ns, residency_mean_ns;
  guint64 max_level_buffers;
  guint64 max_level_bytes;
  guint64 max_level_time_ns;
  guint64 backpressure_ns;      /* upstream thread blocked pushing into it while full */
  guint64 upstream_wall_ns;     /* wall time of the upstream thread, for a fraction */
  guint64 drops;                /* leaky drops */
  guint64 flushed;              /* buffers discarded by flushes */
  guint64 left;                 /* never pushed: downstream stopped, or the
                                 * run ended with them inside */
} GpuprofQueueRow;

typedef struct
{
  gchar *name;                  /* "q:src", from the GstTask, else the OS thread name */
  guint64 wall_ns;
  guint64 busy_ns;              /* sum of element self time on it */
  gchar *top_element;           /* element with the most self time on it */
} GpuprofThreadRow;

/* One aggregator (batching mux, compositor, ...): the batches it pushed.
 * See docs/batches.md. */
typedef struct
{
  gchar *path;
  gchar *factory;
  guint64 batches;              /* buffers pushed = batches */
  guint64 frames;               /* input buffers taken into the batches */
  gdouble frames_mean;          /* frames per batch */
  guint64 frames_p99;
  guint64 batch_size;           /* its batch-size property, 0 when none */
  gdouble fill;                 /* frames_mean / batch_size, 0 when none */
  guint64 inputs;               /* sink pads that delivered frames (live inputs) */
  gdouble inputs_mean;          /* distinct inputs per batch */
  guint64 wait_p50_ns, wait_p99_ns; /* first input of a batch -> its push */
  guint64 full;                 /* pushes with frames >= batch_size */
  guint64 timeout;              /* partial pushes before the end */
  guint64 eos;                  /* the partial last push before EOS */
  guint64 interval_ns;          /* mean time between pushes */
  guint64 frame_interval_ns;    /* of its inputs (durations, caps), 0 unknown */
  guint64 latency_p50_ns, latency_p99_ns; /* push -> a sink; 0 when none */
} GpuprofBatchRow;

/* One stage that processed batches (the aggregator itself included). */
typedef struct
{
  gchar *path;
  gchar *factory;
  gchar *aggregator;            /* path of the aggregator whose batches it saw */
  gchar *thread;                /* its main thread */
  guint64 batches;
  guint64 frames;
  guint64 self_ns;              /* self time spent on batches */
  guint64 ns_per_batch;
  guint64 ns_per_frame;
  guint64 gpu_ns;               /* GPU time attributed (CUPTI), 0 when off */
  guint64 gpu_ns_per_batch;
  guint64 batch_size;           /* its batch-size property (launch size), 0 none */
  guint64 interval;             /* its interval property + 1, 0 when none */
  /* per-frame time at the smallest and largest fill seen (>= 4 batches each) */
  guint64 fill_lo_frames, fill_lo_ns_per_frame;
  guint64 fill_hi_frames, fill_hi_ns_per_frame;
  gboolean waits_on_clock;
  guint64 span_ns;              /* its first batch's push (aggregator: first
                                 * input) to the end of its last batch */
  gdouble util;                 /* self_ns / span_ns, 0..1 */
  gboolean limiting;            /* the stage that limits throughput */
} GpuprofStageRow;

/* One piece of advice: the knob and its value. */
typedef struct
{
  gchar *rule;                  /* "mux-batch", "mux-timeout", "infer-batch", "queue", "interval", "drop-osd" */
  gchar *stage;                 /* element whose knob it is */
  gchar *setting;               /* "batch-size=8 batched-push-timeout=33333" */
  gchar *reason;                /* why, with the numbers */
} GpuprofAdviceRow;

typedef struct
{
  gchar *pipeline;
  guint64 wall_ns;              /* first to last activity */
  GArray *elements;             /* GpuprofElementRow, sorted by self time, largest first */
  GArray *queues;               /* GpuprofQueueRow */
  GArray *threads;              /* GpuprofThreadRow, busiest first */
  /* verdict: the element whose thread is busiest; NULL path when none */
  gchar *bottleneck;
  gchar *bottleneck_thread;
  gdouble bottleneck_busy;
  guint64 bottleneck_ns_per_buffer;
  /* per batch (docs/batches.md); empty without aggregators */
  GArray *batches;              /* GpuprofBatchRow, by path */
  GArray *stages;               /* GpuprofStageRow, aggregator then downstream order */
  GArray *advice;               /* GpuprofAdviceRow, most important first */
  /* the report's GPU (CUPTI) section as text, NULL without GPU attribution;
   * kept so a saved summary prints it too */
  gchar *gpu_section;
} GpuprofSnapshot;

GpuprofSnapshot *gpuprof_snapshot_new (const gchar * pipeline);
void gpuprof_snapshot_free (GpuprofSnapshot * snap);
void gpuprof_snapshot_sort (GpuprofSnapshot * snap);
void gpuprof_snapshot_compute_verdict (GpuprofSnapshot * snap);
const GpuprofElementRow *gpuprof_snapshot_find_element (const GpuprofSnapshot *
    snap, const gchar * path);
const GpuprofBatchRow *gpuprof_snapshot_find_batch (const GpuprofSnapshot *
    snap, const gchar * path);
const GpuprofStageRow *gpuprof_snapshot_find_stage (const GpuprofSnapshot *
    snap, const gchar * path);
const GpuprofQueueRow *gpuprof_snapshot_find_queue (const GpuprofSnapshot *
    snap, const gchar * path);

GstStructure *gpuprof_element_row_to_structure (const GpuprofElementRow * row);
GstStructure *gpuprof_queue_row_to_structure (const GpuprofQueueRow * row);

G_END_DECLS
