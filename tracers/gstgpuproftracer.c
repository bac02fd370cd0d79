/* GStreamer
 * gpuprof tracer: where a pipeline spends its time, on CPU and GPU.
 */
/**
 * SECTION:tracer-gpuprof
 * @short_description: per-element self time, queue latency, NVTX ranges
 *
 * Emits NVTX ranges (one domain per element, a range per chain call, a range
 * per buffer's stay in each queue) for Nsight Systems, keeps exact per-element
 * self time, queue residency and backpressure, and prints a report with a
 * bottleneck verdict when a pipeline goes back to NULL or the process exits.
 *
 * |[
 * GST_TRACERS="gpuprof" gst-launch-1.0 videotestsrc num-buffers=300 ! \
 *     videoconvert ! queue ! fakesink
 * GST_TRACERS="gpuprof(nvtx=off,report=run.txt)" gst-launch-1.0 ...
 * ]|
 *
 * Parameters are documented in docs/parameters.md.
 *
 * Action signals (for tests and applications):
 * "get-element-stats" (path) -> GstStructure "gpuprof-element" or NULL;
 * "get-queue-stats" (path) -> GstStructure "gpuprof-queue" or NULL;
 * "get-batch-stats" (path) -> for an aggregator GstStructure
 *   "gpuprof-batches", for a stage of its batches "gpuprof-stages"
 *   (fields as in docs/summary-schema.md), or NULL;
 * "get-report" (pipeline or NULL) -> the report text of the live statistics;
 * "get-last-report" -> the text of the last report printed.
 */
#include "config.h"

#include "gstgpuproftracer.h"
#include "gpuprof-summary.h"

#include <stdlib.h>

G_DEFINE_TYPE (GstGpuprofTracer, gst_gpuprof_tracer, GST_TYPE_TRACER);

enum
{
  SIGNAL_GET_ELEMENT_STATS,
  SIGNAL_GET_QUEUE_STATS,
  SIGNAL_GET_BATCH_STATS,
  SIGNAL_GET_REPORT,
  SIGNAL_GET_LAST_REPORT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* reports at process exit for pipelines never set back to NULL */
static GMutex live_lock;
static GList *live_tracers;     /* guarded by live_lock */

#define PROF(self) (GST_GPUPROF_TRACER_CAST (self)->profiler)
#define GST_GPUPROF_TRACER_CAST(obj) ((GstGpuprofTracer *) (obj))

static void
do_push_buffer_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer)
{
  gpuprof_profiler_push_pre (PROF (self), ts, pad, buffer, NULL);
}

static void
do_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  gpuprof_profiler_push_pre (PROF (self), ts, pad, NULL, list);
}

static void
do_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  gpuprof_profiler_push_post (PROF (self), ts, pad, res);
}

static void
do_chain_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer)
{
  gpuprof_profiler_chain_pre (PROF (self), ts, pad, buffer, NULL);
}

static void
do_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  gpuprof_profiler_chain_pre (PROF (self), ts, pad, NULL, list);
}

static void
do_chain_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  gpuprof_profiler_chain_post (PROF (self), ts, pad, res);
}

static void
do_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
  gpuprof_profiler_pull_pre (PROF (self), ts, pad);
}

static void
do_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
  gpuprof_profiler_pull_post (PROF (self), ts, pad, buffer, res);
}

static void
do_push_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  gpuprof_profiler_event_pre (PROF (self), ts, pad, event);
}

static void
do_push_event_post (GObject * self, GstClockTime ts, GstPad * pad,
    gboolean res)
{
  gpuprof_profiler_event_post (PROF (self), ts, pad);
}

static void
do_pad_query_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstQuery * query)
{
  gpuprof_profiler_query_pre (PROF (self), ts, pad);
}

static void
do_pad_query_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstQuery * query, gboolean res)
{
  gpuprof_profiler_query_post (PROF (self), ts, pad);
}

static void
do_element_change_state_post (GObject * self, GstClockTime ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result)
{
  gpuprof_profiler_state_change (PROF (self), ts, element, transition,
      result);
}

static void
do_element_post_message_pre (GObject * self, GstClockTime ts,
    GstElement * element, GstMessage * message)
{
  gpuprof_profiler_message (PROF (self), ts, element, message);
}

static void
do_object_destroyed (GObject * self, GstClockTime ts, GstObject * object)
{
  gpuprof_profiler_object_destroyed (PROF (self), ts, object);
}

static void
report_at_exit (void)
{
  GList *l;

  g_mutex_lock (&live_lock);
  for (l = live_tracers; l; l = l->next)
    gpuprof_profiler_shutdown (PROF (l->data));
  g_mutex_unlock (&live_lock);
}

typedef enum
{
  ROW_ELEMENT,
  ROW_QUEUE,
  ROW_BATCH,                    /* an aggregator's batches, or a stage's */
} RowKind;

static GstStructure *
row_structure (const GpuprofSnapshot * snap, const gchar * path, RowKind kind)
{
  gconstpointer row;

  switch (kind) {
    case ROW_ELEMENT:
      row = gpuprof_snapshot_find_element (snap, path);
      return row ? gpuprof_element_row_to_structure (row) : NULL;
    case ROW_QUEUE:
      row = gpuprof_snapshot_find_queue (snap, path);
      return row ? gpuprof_queue_row_to_structure (row) : NULL;
    case ROW_BATCH:
      if ((row = gpuprof_snapshot_find_batch (snap, path)))
        return gpuprof_summary_row_to_structure (GPUPROF_SUMMARY_BATCHES, row);
      row = gpuprof_snapshot_find_stage (snap, path);
      return row ? gpuprof_summary_row_to_structure (GPUPROF_SUMMARY_STAGES,
          row) : NULL;
  }
  return NULL;
}

/* live statistics of the pipeline "path" belongs to ("pipeline0/q") */
static GstStructure *
get_stats (GstGpuprofTracer * self, const gchar * path, RowKind kind)
{
  GpuprofSnapshot *snap;
  GstStructure *s = NULL;
  gchar *pipeline;

  if (!path)
    return NULL;
  pipeline = g_strndup (path, strcspn (path, "/"));
  snap = gpuprof_profiler_snapshot (self->profiler, pipeline);
  if (snap)
    s = row_structure (snap, path, kind);
  gpuprof_snapshot_free (snap);
  g_free (pipeline);
  return s;
}

static GstStructure *
get_element_stats (GstGpuprofTracer * self, const gchar * path)
{
  return get_stats (self, path, ROW_ELEMENT);
}

static GstStructure *
get_queue_stats (GstGpuprofTracer * self, const gchar * path)
{
  return get_stats (self, path, ROW_QUEUE);
}

static GstStructure *
get_batch_stats (GstGpuprofTracer * self, const gchar * path)
{
  return get_stats (self, path, ROW_BATCH);
}

static gchar *
get_report (GstGpuprofTracer * self, const gchar * pipeline)
{
  GpuprofSnapshot *snap = gpuprof_profiler_snapshot (self->profiler,
      pipeline);
  gchar *text;

  if (!snap)
    return NULL;
  text = gpuprof_report_format (snap);
  gpuprof_snapshot_free (snap);
  return text;
}

static gchar *
get_last_report (GstGpuprofTracer * self)
{
  return gpuprof_profiler_last_report (self->profiler);
}

static void
gst_gpuprof_tracer_constructed (GObject * object)
{
  GstGpuprofTracer *self = GST_GPUPROF_TRACER_CAST (object);
  GstTracer *tracer = GST_TRACER (object);
  static gsize exit_hook = 0;
  gchar *params = NULL;

  G_OBJECT_CLASS (gst_gpuprof_tracer_parent_class)->constructed (object);

  g_object_get (object, "params", &params, NULL);
  self->profiler = gpuprof_profiler_new (params);
  g_free (params);

  gst_tracing_register_hook (tracer, "pad-push-pre",
      G_CALLBACK (do_push_buffer_pre));
  gst_tracing_register_hook (tracer, "pad-push-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-push-list-pre",
      G_CALLBACK (do_push_list_pre));
  gst_tracing_register_hook (tracer, "pad-push-list-post",
      G_CALLBACK (do_push_post));
  gst_tracing_register_hook (tracer, "pad-chain-pre",
      G_CALLBACK (do_chain_pre));
  gst_tracing_register_hook (tracer, "pad-chain-post",
      G_CALLBACK (do_chain_post));
  gst_tracing_register_hook (tracer, "pad-chain-list-pre",
      G_CALLBACK (do_chain_list_pre));
  gst_tracing_register_hook (tracer, "pad-chain-list-post",
      G_CALLBACK (do_chain_post));
  gst_tracing_register_hook (tracer, "pad-pull-range-pre",
      G_CALLBACK (do_pull_range_pre));
  gst_tracing_register_hook (tracer, "pad-pull-range-post",
      G_CALLBACK (do_pull_range_post));
  gst_tracing_register_hook (tracer, "pad-push-event-pre",
      G_CALLBACK (do_push_event_pre));
  gst_tracing_register_hook (tracer, "pad-push-event-post",
      G_CALLBACK (do_push_event_post));
  gst_tracing_register_hook (tracer, "pad-query-pre",
      G_CALLBACK (do_pad_query_pre));
  gst_tracing_register_hook (tracer, "pad-query-post",
      G_CALLBACK (do_pad_query_post));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_element_change_state_post));
  gst_tracing_register_hook (tracer, "element-post-message-pre",
      G_CALLBACK (do_element_post_message_pre));
  gst_tracing_register_hook (tracer, "object-destroyed",
      G_CALLBACK (do_object_destroyed));

  g_mutex_lock (&live_lock);
  live_tracers = g_list_prepend (live_tracers, self);
  g_mutex_unlock (&live_lock);
  if (g_once_init_enter (&exit_hook)) {
    atexit (report_at_exit);
    g_once_init_leave (&exit_hook, 1);
  }
}

static void
gst_gpuprof_tracer_finalize (GObject * object)
{
  GstGpuprofTracer *self = GST_GPUPROF_TRACER_CAST (object);

  g_mutex_lock (&live_lock);
  live_tracers = g_list_remove (live_tracers, self);
  g_mutex_unlock (&live_lock);
  gpuprof_profiler_free (self->profiler);

  G_OBJECT_CLASS (gst_gpuprof_tracer_parent_class)->finalize (object);
}

static void
gst_gpuprof_tracer_class_init (GstGpuprofTracerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_gpuprof_tracer_constructed;
  gobject_class->finalize = gst_gpuprof_tracer_finalize;

  signals[SIGNAL_GET_ELEMENT_STATS] =
      g_signal_new_class_handler ("get-element-stats",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_element_stats), NULL, NULL, NULL, GST_TYPE_STRUCTURE, 1,
      G_TYPE_STRING);
  signals[SIGNAL_GET_QUEUE_STATS] =
      g_signal_new_class_handler ("get-queue-stats",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_queue_stats), NULL, NULL, NULL, GST_TYPE_STRUCTURE, 1,
      G_TYPE_STRING);
  signals[SIGNAL_GET_BATCH_STATS] =
      g_signal_new_class_handler ("get-batch-stats",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_batch_stats), NULL, NULL, NULL, GST_TYPE_STRUCTURE, 1,
      G_TYPE_STRING);
  signals[SIGNAL_GET_REPORT] =
      g_signal_new_class_handler ("get-report", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (get_report), NULL,
      NULL, NULL, G_TYPE_STRING, 1, G_TYPE_STRING);
  signals[SIGNAL_GET_LAST_REPORT] =
      g_signal_new_class_handler ("get-last-report",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_last_report), NULL, NULL, NULL, G_TYPE_STRING, 0);
}

static void
gst_gpuprof_tracer_init (GstGpuprofTracer * self)
{
}
