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
 * Parameters: each key of GST_TRACERS="gpuprof(key=value,...)" is a
 * construct-only property of the tracer (#GstGpuprofTracer:report,
 * #GstGpuprofTracer:nvtx, ...), made from the table in gst/core/gpuprof-params.c
 * and documented in docs/parameters.md, which is generated from it. On
 * GStreamer 1.22 the text between the parentheses arrives as the "params"
 * property; it is parsed as a GstStructure and each key is stored as its
 * property would be, over the properties' values. An unknown key or a bad
 * value warns once, naming it and the valid keys or values, and the run
 * goes on with the default.
 *
 * Action signals, documented one by one below and in docs/signals.md:
 * #GstGpuprofTracer::get-element-stats, #GstGpuprofTracer::get-queue-stats,
 * #GstGpuprofTracer::get-batch-stats, #GstGpuprofTracer::get-report,
 * #GstGpuprofTracer::get-last-report,
 * #GstGpuprofTracer::get-records, #GstGpuprofTracer::get-metrics. Find the tracer with
 * gst_tracing_get_active_tracers(). A path argument is an element's path
 * as the report prints it ("pipeline0/infer"); the statistics are those of
 * that pipeline's current run, cleared when it is reported.
 */
#include "config.h"

#include "gstgpuproftracer.h"
#include "gpuprof-metrics.h"
#include "gpuprof-overhead.h"
#include "gpuprof-pools.h"
#include "gpuprof-summary.h"

#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_TYPE (GstGpuprofTracer, gst_gpuprof_tracer, GST_TYPE_TRACER);

enum
{
  SIGNAL_GET_ELEMENT_STATS,
  SIGNAL_GET_QUEUE_STATS,
  SIGNAL_GET_BATCH_STATS,
  SIGNAL_GET_REPORT,
  SIGNAL_GET_LAST_REPORT,
  SIGNAL_GET_RECORDS,
  SIGNAL_GET_METRICS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* reports at process exit for pipelines never set back to NULL */
static GMutex live_lock;
static GList *live_tracers;     /* guarded by live_lock */

#define PROF(self) (GST_GPUPROF_TRACER_CAST (self)->profiler)
#define MEASURE(self) (GST_GPUPROF_TRACER_CAST (self)->measure)
#define GST_GPUPROF_TRACER_CAST(obj) ((GstGpuprofTracer *) (obj))

/* The buffer path's hooks, each sampled for the tracer's own time
 * (gpuprof-overhead.h): one push in GPUPROF_OVERHEAD_EVERY per thread and
 * the three hooks that close it read the clock around themselves. Per
 * thread: pushes since the last sample (ovh_count), and where the sample
 * is (ovh_level, below). Here, not in the library, so a hook reads them in
 * one instruction; the sampled paths are out of line, so the others stay
 * tail calls. */
typedef enum
{
  SAMPLE_NONE = 0,              /* no sample on this thread now */
  SAMPLE_IN_PUSH = 1,           /* in the sampled push, outside its chain */
  SAMPLE_IN_CHAIN = 2,          /* in the sampled push's chain call; each
                                 * chain call nested in it one more */
} SampleLevel;

static __thread guint ovh_count __attribute__ ((tls_model ("initial-exec")));
static __thread guint ovh_level __attribute__ ((tls_model ("initial-exec")));

typedef enum
{
  HOOK_PUSH_PRE,
  HOOK_PUSH_POST,
  HOOK_CHAIN_PRE,
  HOOK_CHAIN_POST,
} Hook;

static G_GNUC_NO_INLINE void
sampled (Hook hook, GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list, GstFlowReturn res)
{
  guint64 c = gpuprof_overhead_begin ();

  switch (hook) {
    case HOOK_PUSH_PRE:
      gpuprof_hooks_push_pre (MEASURE (self), ts, pad, buffer, list);
      break;
    case HOOK_PUSH_POST:
      gpuprof_hooks_push_post (MEASURE (self), ts, pad, res);
      break;
    case HOOK_CHAIN_PRE:
      gpuprof_hooks_chain_pre (MEASURE (self), ts, pad, buffer, list);
      break;
    case HOOK_CHAIN_POST:
      gpuprof_hooks_chain_post (MEASURE (self), ts, pad, res);
      break;
  }
  gpuprof_overhead_end (c, hook == HOOK_PUSH_POST);
}

static G_GNUC_NO_INLINE void
push_pre_counted (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list)
{
  /* inside a sample: the next push is one */
  if (ovh_level != SAMPLE_NONE) {
    gpuprof_hooks_push_pre (MEASURE (self), ts, pad, buffer, list);
    return;
  }
  ovh_count = 0;
  sampled (HOOK_PUSH_PRE, self, ts, pad, buffer, list, GST_FLOW_OK);
  ovh_level = SAMPLE_IN_PUSH;
}

static inline void
push_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buffer,
    GstBufferList * list)
{
  if (G_UNLIKELY (++ovh_count >= GPUPROF_OVERHEAD_EVERY))
    push_pre_counted (self, ts, pad, buffer, list);
  else
    gpuprof_hooks_push_pre (MEASURE (self), ts, pad, buffer, list);
}

static void
do_push_buffer_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer)
{
  push_pre (self, ts, pad, buffer, NULL);
}

static void
do_push_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  push_pre (self, ts, pad, NULL, list);
}

static G_GNUC_NO_INLINE void
push_post_sampling (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  /* a push nested in the sampled chain */
  if (ovh_level != SAMPLE_IN_PUSH) {
    gpuprof_hooks_push_post (MEASURE (self), ts, pad, res);
    return;
  }
  sampled (HOOK_PUSH_POST, self, ts, pad, NULL, NULL, res);
  ovh_level = SAMPLE_NONE;
}

static void
do_push_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  if (G_UNLIKELY (ovh_level != SAMPLE_NONE))
    push_post_sampling (self, ts, pad, res);
  else
    gpuprof_hooks_push_post (MEASURE (self), ts, pad, res);
}

static G_GNUC_NO_INLINE void
chain_pre_sampling (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list)
{
  /* the sampled push's own chain call, or one nested deeper */
  if (ovh_level++ == SAMPLE_IN_PUSH)
    sampled (HOOK_CHAIN_PRE, self, ts, pad, buffer, list, GST_FLOW_OK);
  else
    gpuprof_hooks_chain_pre (MEASURE (self), ts, pad, buffer, list);
}

static inline void
chain_pre (GObject * self, GstClockTime ts, GstPad * pad, GstBuffer * buffer,
    GstBufferList * list)
{
  if (G_UNLIKELY (ovh_level != SAMPLE_NONE))
    chain_pre_sampling (self, ts, pad, buffer, list);
  else
    gpuprof_hooks_chain_pre (MEASURE (self), ts, pad, buffer, list);
}

static void
do_chain_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer)
{
  chain_pre (self, ts, pad, buffer, NULL);
}

static void
do_chain_list_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstBufferList * list)
{
  chain_pre (self, ts, pad, NULL, list);
}

static G_GNUC_NO_INLINE void
chain_post_sampling (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  /* SAMPLE_IN_PUSH: a chain call that began before the sample */
  if (ovh_level >= SAMPLE_IN_CHAIN && --ovh_level == SAMPLE_IN_PUSH)
    sampled (HOOK_CHAIN_POST, self, ts, pad, NULL, NULL, res);
  else
    gpuprof_hooks_chain_post (MEASURE (self), ts, pad, res);
}

static void
do_chain_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstFlowReturn res)
{
  if (G_UNLIKELY (ovh_level != SAMPLE_NONE))
    chain_post_sampling (self, ts, pad, res);
  else
    gpuprof_hooks_chain_post (MEASURE (self), ts, pad, res);
}

static void
do_pull_range_pre (GObject * self, GstClockTime ts, GstPad * pad,
    guint64 offset, guint size)
{
  gpuprof_hooks_pull_pre (MEASURE (self), ts, pad);
}

static void
do_pull_range_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
  gpuprof_hooks_pull_post (MEASURE (self), ts, pad, buffer, res);
}

static void
do_push_event_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstEvent * event)
{
  gpuprof_hooks_event_pre (MEASURE (self), ts, pad, event);
}

static void
do_push_event_post (GObject * self, GstClockTime ts, GstPad * pad,
    gboolean res)
{
  gpuprof_hooks_event_post (MEASURE (self), ts, pad);
}

static void
do_pad_query_pre (GObject * self, GstClockTime ts, GstPad * pad,
    GstQuery * query)
{
  gpuprof_hooks_query_pre (MEASURE (self), ts, pad);
}

static void
do_pad_query_post (GObject * self, GstClockTime ts, GstPad * pad,
    GstQuery * query, gboolean res)
{
  gpuprof_hooks_query_post (MEASURE (self), ts, pad);
}

static void
do_element_change_state_pre (GObject * self, GstClockTime ts,
    GstElement * element, GstStateChange transition)
{
  gpuprof_hooks_state_change_pre (MEASURE (self), element, transition);
}

static void
do_element_change_state_post (GObject * self, GstClockTime ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result)
{
  gpuprof_hooks_state_change (MEASURE (self), ts, element, transition,
      result);
}

static void
do_element_post_message_pre (GObject * self, GstClockTime ts,
    GstElement * element, GstMessage * message)
{
  gpuprof_hooks_message (MEASURE (self), ts, element, message);
}

static void
on_element_removed (GstBin * bin, GstElement * element, GObject * self)
{
  gpuprof_hooks_element_removed (MEASURE (self), bin, element);
}

/* Removals come from the bin's "element-removed" signal, connected at the
 * first element added to it, not from the bin-remove hooks: each hook name
 * registered is a key in GStreamer's hook table, looked up (and missed) in
 * every gst_object_ref/unref, several times per push; the two cost about
 * 240 instructions per push (docs/benchmarks.md). The signal names the
 * element, alive, after it left; g_signal_connect_object() drops the
 * handler with the tracer. */
static void
follow_removals (GObject * self, GstBin * bin)
{
  static GMutex lock;           /* two threads adding to one bin connect once */

  g_mutex_lock (&lock);
  if (!g_signal_handler_find (bin, G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA,
          0, 0, NULL, on_element_removed, self))
    g_signal_connect_object (bin, "element-removed",
        G_CALLBACK (on_element_removed), self, 0);
  g_mutex_unlock (&lock);
}

static void
do_bin_add_post (GObject * self, GstClockTime ts, GstBin * bin,
    GstElement * element, gboolean result)
{
  if (result)
    follow_removals (self, bin);
  gpuprof_hooks_element_added (MEASURE (self), bin, element, result);
}

static void
do_object_destroyed (GObject * self, GstClockTime ts, GstObject * object)
{
  gpuprof_hooks_object_destroyed (MEASURE (self), ts, object);
}

/* GStreamer 1.28's buffer-pool hooks (GstTracerHookPoolBufferQueued and
 * ...Dequeued, typed GpuprofHookPoolBuffer here: older headers lack
 * them). Exported: a test on an older GStreamer calls them as 1.28 would
 * (tests/tracer/test-pools.c). */
G_MODULE_EXPORT void
gst_gpuprof_tracer_pool_buffer_queued (GObject * self, GstClockTime ts,
    GstBufferPool * pool, GstBuffer * buffer)
{
  gpuprof_pools_queued (MEASURE (self), ts, pool, buffer);
}

G_MODULE_EXPORT void
gst_gpuprof_tracer_pool_buffer_dequeued (GObject * self, GstClockTime ts,
    GstBufferPool * pool, GstBuffer * buffer)
{
  gpuprof_pools_dequeued (MEASURE (self), ts, pool, buffer);
}

/* the hooks of this GStreamer's release: gst_tracing_register_hook()
 * takes a name it does not know (quark 0) as every hook, so the pool
 * hooks are named only where they exist (the release running, not the
 * headers built against: a 1.26 build runs on 1.28) */
static void
register_pool_hooks (GstTracer * tracer)
{
  static const GpuprofHookPoolBuffer queued =
      gst_gpuprof_tracer_pool_buffer_queued;
  static const GpuprofHookPoolBuffer dequeued =
      gst_gpuprof_tracer_pool_buffer_dequeued;
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  if (!gpuprof_pools_hooks_supported (major, minor))
    return;
  gst_tracing_register_hook (tracer, GPUPROF_HOOK_POOL_BUFFER_QUEUED,
      G_CALLBACK (queued));
  gst_tracing_register_hook (tracer, GPUPROF_HOOK_POOL_BUFFER_DEQUEUED,
      G_CALLBACK (dequeued));
}

static void
do_object_created (GObject * self, GstClockTime ts, GstObject * object)
{
  gpuprof_hooks_object_created (MEASURE (self), object);
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
      return row ? gpuprof_summary_row_to_structure (GPUPROF_SUMMARY_ELEMENTS,
          row) : NULL;
    case ROW_QUEUE:
      row = gpuprof_snapshot_find_queue (snap, path);
      return row ? gpuprof_summary_row_to_structure (GPUPROF_SUMMARY_QUEUES,
          row) : NULL;
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

  if (!path || !self->profiler)
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
  GpuprofSnapshot *snap = self->profiler ?
      gpuprof_profiler_snapshot (self->profiler, pipeline) : NULL;
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
  return self->profiler ? gpuprof_profiler_last_report (self->profiler) :
      NULL;
}

static GstStructure *
get_metrics (GstGpuprofTracer * self, const gchar * pipeline)
{
  GpuprofSnapshot *snap = self->profiler ?
      gpuprof_profiler_metrics_snapshot (self->profiler, pipeline) : NULL;
  GstStructure *s;

  if (!snap)
    return NULL;
  s = gpuprof_metrics_structure (snap);
  gpuprof_snapshot_free (snap);
  return s;
}

/* how many records the tracer keeps: bounded by the live objects and the
 * runs not reported yet, however many pipelines came and went */
static GstStructure *
get_records (GstGpuprofTracer * self)
{
  guint elements, pads, pipelines;

  if (!self->profiler)
    return NULL;
  gpuprof_profiler_count_records (self->profiler, &elements, &pads,
      &pipelines);
  return gst_structure_new ("gpuprof-records", "elements", G_TYPE_UINT,
      elements, "pads", G_TYPE_UINT, pads, "pipelines", G_TYPE_UINT,
      pipelines, NULL);
}

/* GST_TRACERS="a;gpuprof(...);b(...);gpuprof": is gpuprof there twice?
 * Told once per process. */
static gboolean
gpuprof_named_twice (void)
{
  static gboolean told = FALSE;
  const gchar *env = g_getenv ("GST_TRACERS");
  gchar **entries;
  guint i, n = 0;

  if (!env || told)
    return FALSE;
  entries = g_strsplit (env, ";", -1);
  for (i = 0; entries[i]; i++) {
    gchar *name = g_strstrip (g_strndup (entries[i], strcspn (entries[i],
                "(")));
    n += !strcmp (name, "gpuprof");
    g_free (name);
  }
  g_strfreev (entries);
  told = n > 1;
  return told;
}

static void
gst_gpuprof_tracer_constructed (GObject * object)
{
  GstGpuprofTracer *self = GST_GPUPROF_TRACER_CAST (object);
  GstTracer *tracer = GST_TRACER (object);
  static gsize exit_hook = 0;
  gchar *params = NULL, *warnings;

  G_OBJECT_CLASS (gst_gpuprof_tracer_parent_class)->constructed (object);

  /* The per-thread state and the records attached to elements and pads are
   * the process's, not an instance's: a second instance would count every
   * call twice into the same records. It stays inert (no hooks, no files). */
  g_mutex_lock (&live_lock);
  if (live_tracers) {
    g_mutex_unlock (&live_lock);
    GST_WARNING_OBJECT (self, "a second gpuprof instance is ignored");
    /* said once, and only for the user's doing (gst-inspect-1.0 makes an
     * instance of its own) */
    if (gpuprof_named_twice ())
      g_printerr ("gpuprof: GST_TRACERS names gpuprof more than once; only "
          "the first instance profiles, the others are ignored\n");
    return;
  }
  g_mutex_unlock (&live_lock);

  /* on 1.22 GST_TRACERS' "(key=value,...)" arrives as "params": it
   * overrides the properties, as if each key had been set as one */
  g_object_get (object, "params", &params, NULL);
  warnings = gpuprof_params_parse (&self->params, params);
  if (warnings)
    gpuprof_params_warn (warnings);
  g_free (warnings);
  g_free (params);
  self->profiler = gpuprof_profiler_new (&self->params);
  self->measure = gpuprof_profiler_get_measure (self->profiler);

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
  gst_tracing_register_hook (tracer, "element-change-state-pre",
      G_CALLBACK (do_element_change_state_pre));
  gst_tracing_register_hook (tracer, "element-change-state-post",
      G_CALLBACK (do_element_change_state_post));
  gst_tracing_register_hook (tracer, "element-post-message-pre",
      G_CALLBACK (do_element_post_message_pre));
  gst_tracing_register_hook (tracer, "object-destroyed",
      G_CALLBACK (do_object_destroyed));
  gst_tracing_register_hook (tracer, "object-created",
      G_CALLBACK (do_object_created));
  gst_tracing_register_hook (tracer, "bin-add-post",
      G_CALLBACK (do_bin_add_post));
  register_pool_hooks (tracer);

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
  if (self->profiler)
    gpuprof_profiler_free (self->profiler);
  gpuprof_params_clear (&self->params);

  G_OBJECT_CLASS (gst_gpuprof_tracer_parent_class)->finalize (object);
}

/* every property is a parameter of the table in gst/core/gpuprof-params.c */
#define PROP_FIRST_PARAM 1

static void
gst_gpuprof_tracer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  gpuprof_params_set_property (&GST_GPUPROF_TRACER_CAST (object)->params,
      prop_id - PROP_FIRST_PARAM, value);
}

static void
gst_gpuprof_tracer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  gpuprof_params_get_property (&GST_GPUPROF_TRACER_CAST (object)->params,
      prop_id - PROP_FIRST_PARAM, value);
}

static void
gst_gpuprof_tracer_class_init (GstGpuprofTracerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_gpuprof_tracer_constructed;
  gobject_class->finalize = gst_gpuprof_tracer_finalize;
  gobject_class->set_property = gst_gpuprof_tracer_set_property;
  gobject_class->get_property = gst_gpuprof_tracer_get_property;

  /* Since: 0.1 (every one); documented in docs/parameters.md */
  gpuprof_params_install_properties (gobject_class, PROP_FIRST_PARAM);

  /**
   * GstGpuprofTracer::get-element-stats:
   * @tracer: the tracer
   * @path: an element's path, "pipeline0/infer"
   *
   * Returns: (transfer full) (nullable): the element's statistics so far,
   * a #GstStructure named "gpuprof-element" (fields "self_ns", "calls",
   * "self_p99_ns", ...: the summary's JSON keys, listed in
   * docs/signals.md), or %NULL when no element has that path.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_ELEMENT_STATS] =
      g_signal_new_class_handler ("get-element-stats",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_element_stats), NULL, NULL, NULL, GST_TYPE_STRUCTURE, 1,
      G_TYPE_STRING);
  /**
   * GstGpuprofTracer::get-queue-stats:
   * @tracer: the tracer
   * @path: a queue's path, "pipeline0/q"
   *
   * Returns: (transfer full) (nullable): the queue's residency, levels,
   * backpressure and drops so far, a #GstStructure named "gpuprof-queue"
   * (fields in docs/signals.md), or %NULL when the path is not a queue.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_QUEUE_STATS] =
      g_signal_new_class_handler ("get-queue-stats",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_queue_stats), NULL, NULL, NULL, GST_TYPE_STRUCTURE, 1,
      G_TYPE_STRING);
  /**
   * GstGpuprofTracer::get-batch-stats:
   * @tracer: the tracer
   * @path: an aggregator's path, or the path of a stage of its batches
   *
   * Returns: (transfer full) (nullable): for an aggregator, its batches
   * ("gpuprof-batch"); for a stage, its work on batches
   * ("gpuprof-stage"); fields named as in the JSON summary
   * (docs/summary-schema.md); %NULL for any other path.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_BATCH_STATS] =
      g_signal_new_class_handler ("get-batch-stats",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_batch_stats), NULL, NULL, NULL, GST_TYPE_STRUCTURE, 1,
      G_TYPE_STRING);
  /**
   * GstGpuprofTracer::get-report:
   * @tracer: the tracer
   * @pipeline: (nullable): a pipeline's name, or %NULL for the last one
   *   with activity
   *
   * The report of the statistics so far, printing and changing nothing.
   *
   * Returns: (transfer full) (nullable): the report text, or %NULL when
   * there is no such pipeline.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_REPORT] =
      g_signal_new_class_handler ("get-report", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (get_report), NULL,
      NULL, NULL, G_TYPE_STRING, 1, G_TYPE_STRING);
  /**
   * GstGpuprofTracer::get-last-report:
   * @tracer: the tracer
   *
   * Returns: (transfer full) (nullable): the text of the last report the
   * tracer made (also with report=off), %NULL before the first.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_LAST_REPORT] =
      g_signal_new_class_handler ("get-last-report",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (get_last_report), NULL, NULL, NULL, G_TYPE_STRING, 0);
  /**
   * GstGpuprofTracer::get-records:
   * @tracer: the tracer
   *
   * Returns: (transfer full): a "gpuprof-records" structure with the
   * numbers of element, pad and pipeline records kept now ("elements",
   * "pads", "pipelines", guint): live objects and runs not reported yet.
   * Records of destroyed objects are freed once their run was reported.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_RECORDS] =
      g_signal_new_class_handler ("get-records", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (get_records), NULL,
      NULL, NULL, GST_TYPE_STRUCTURE, 0);
  /**
   * GstGpuprofTracer::get-metrics:
   * @tracer: the tracer
   * @pipeline: (nullable): a pipeline's name, or %NULL for the last one
   *   with activity
   *
   * Returns: (transfer full) (nullable): the pipeline's figures so far, a
   * "gpuprof-metrics" structure: "pipeline" (string), "wall_ns" (guint64),
   * "tracer_overhead_ns" (guint64, the tracer's own hook time, estimated),
   * "streams" and "elements" (arrays of the "gpuprof-stream" and
   * "gpuprof-element" structures, fields as in the summary's tables), with
   * GPU attribution on also "gpu_elements" (array of "gpuprof-gpu-element":
   * gpu_ns per element), or %NULL when there is no such pipeline. See
   * docs/signals.md.
   *
   * Since: 0.1
   */
  signals[SIGNAL_GET_METRICS] =
      g_signal_new_class_handler ("get-metrics", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION, G_CALLBACK (get_metrics), NULL,
      NULL, NULL, GST_TYPE_STRUCTURE, 1, G_TYPE_STRING);
}

static void
gst_gpuprof_tracer_init (GstGpuprofTracer * self)
{
  gpuprof_params_init (&self->params);
}
