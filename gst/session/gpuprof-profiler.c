/* gpuprof: the profiling session — ties the layers together: the
 * measurement (gst/measure/, with the hooks), GPU attribution, the event
 * bus and the outputs, the live thread, run ends and reports. */
#include "config.h"
#include "gpuprof-profiler.h"

#include "gpuprof-bus.h"
#include "gpuprof-clock.h"
#include "gpuprof-cpu-sampler.h"
#include "gpuprof-cuda-profiler.h"
#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"
#include "gpuprof-gpu-tables.h"
#include "gpuprof-gpu-verdict.h"
#include "gpuprof-gputrace.h"
#include "gpuprof-hooks.h"
#include "gpuprof-limits.h"
#include "gpuprof-live.h"
#include "gpuprof-metrics.h"
#include "gpuprof-metrics-server.h"
#include "gpuprof-nvml-sampler.h"
#include "gpuprof-nvtx.h"
#include "gpuprof-output.h"
#include "gpuprof-report.h"
#include "gpuprof-stall.h"
#include "gpuprof-stats.h"
#include "gpuprof-thread.h"
#include "gpuprof-ticker.h"
#include "gpuprof-trace.h"

#include <dlfcn.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_debug);
#define GST_CAT_DEFAULT gpuprof_debug

struct _GpuprofProfiler
{
  GpuprofParams params;
  GpuprofMeasure *measure;      /* what the hooks keep (gpuprof-measure.h) */
  GpuprofBus *bus;              /* the hooks' events to the outputs */
  GPtrArray *outputs;           /* GpuprofOutput *, see gpuprof-output.h */
  GpuprofTrace *trace;          /* the trace output's writer; NULL: no
                                 * trace= or it could not open */
  gsize gpu_started;            /* g_once: CUPTI tried when a run starts */
  gsize checkpoint_started;     /* g_once: checkpoint= thread, likewise */
  gboolean gpu_on;              /* CUPTI attribution running */
  gchar *gpu_off_reason;        /* why not, for the report (cupti=on) */

  GMutex report_lock;           /* guards below; reports are rare */
  gint sweep_owed;              /* a sweep asked for while it was held
                                 * (atomic, report_unlock) */
  gchar *last_report;
  /* interval=: live snapshots (docs/live.md) */
  GHashTable *live_previous;    /* pipeline id -> its last GpuprofSnapshot */
  guint64 live_seq;
  guint64 live_last_ns;         /* when the last snapshot was taken */
  GpuprofStall *stall;          /* the watchdog, on the live thread */

  GpuprofMetricsServer *metrics;        /* metrics=: NULL when off */
  GpuprofTicker *checkpoint;    /* checkpoint=: its thread, NULL when off */
  guint64 metrics_scrape_ns;    /* what the last scrape cost (atomic) */

  GpuprofTicker *live;          /* the live thread (gpuprof-ticker.h): the
                                 * stall watchdog, snapshots; NULL without
                                 * interval= or stall= */

  /* the resource sampler's thread and its CPU registration (issue 22,
   * docs/resources.md): started with the first run */
  GpuprofTicker *sampler;
  gsize cpu_started;            /* g_once */
  guint cpu_tick;
  /* its NVML registration (issue 23): started with the first run, as
   * CUPTI */
  gsize nvml_started;           /* g_once */
  GpuprofNvmlSampler *nvml;     /* NULL: nvml=off */
  gboolean nvml_said;           /* why it could not open (sampler thread) */
  guint nvml_tick;

  /* window=: its edges, checked on the sampler thread (docs/resources.md
   * "The measurement window"); the process's, once */
  guint window_tick;
  guint64 window_sinks_at_open; /* buffers the sinks had received */
  GMutex window_lock;           /* the lines below */
  gchar *window_start_line, *window_stop_line;
  gchar **argv;                 /* this process's command line (ncu's) */
};

/* ---------------------------------------------------------------- setup */

/* Names for the trace writer and the GPU report: called off the streaming
 * threads, under the registry's own locks. */
static gchar *
pad_name_cb (guint32 id, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  return gpuprof_objects_dup_pad_name (p->measure->objects, id);
}

static gchar *
element_path_cb (guint32 id, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  return gpuprof_measure_element_path (id, p->measure);
}

static gchar *
thread_name_cb (guint32 id, gpointer user_data)
{
  return gpuprof_thread_dup_name_of (id);
}

static gchar *
pipeline_name_cb (gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  return gpuprof_objects_dup_last_pipeline_name (p->measure->objects);
}

static void
open_outputs (GpuprofProfiler * p)
{
  GpuprofTraceNames names = { p, element_path_cb, pad_name_cb,
    thread_name_cb, pipeline_name_cb
  };
  GpuprofOutputContext ctx = { &names, p->bus };

  p->outputs = gpuprof_outputs_open (&p->params, &ctx);
  p->trace = gpuprof_output_trace_get (gpuprof_outputs_find (p->outputs,
          "trace"));
}

static void
start_gpu (GpuprofProfiler * p)
{
  GpuprofCuptiSettings s = { p->params.cupti, p->params.cupti_lib, 0, 0,
    p->params.cupti_path
  };
  gchar *reason = NULL;

  if (p->params.cupti == GPUPROF_CUPTI_OFF)
    return;
  p->gpu_on = gpuprof_cupti_start (&s, &reason);
  if (p->gpu_on) {
    gpuprof_measure_gpu_start (p->measure);
    /* GPU tracks and launch arrows in the trace */
    if (p->trace)
      gpuprof_gputrace_attach (p->trace);
  } else if (p->params.cupti == GPUPROF_CUPTI_ON) {
    /* asked for: said once, so the user knows why; and in each report */
    p->gpu_off_reason = reason ? reason : g_strdup ("GPU attribution off");
    GST_WARNING ("%s", p->gpu_off_reason);
    g_printerr ("gpuprof: %s\n", p->gpu_off_reason);
  } else {
    /* auto: a machine without a GPU is no news */
    GST_INFO ("%s", reason ? reason : "GPU attribution off");
    g_free (reason);
  }
}

static void start_checkpoints (GpuprofProfiler * p);

/* the window's edges are looked for this often */
#define WINDOW_CHECK_US (G_USEC_PER_SEC / 50)

/* the sampler thread: periodic readings off the buffer path */
static GpuprofTicker *
sampler_ticker (GpuprofProfiler * p)
{
  if (!p->sampler)
    p->sampler = gpuprof_ticker_new ("gpuprof-sampler");
  return p->sampler;
}

/* sample-hz=: every thread's CPU and the process's cores, read on the
 * sampler thread (at most 10 passes a second) and at snapshots */
static void
start_cpu_sampler (GpuprofProfiler * p)
{
  gdouble hz = MIN (p->params.sample_hz, 10.0);
  GpuprofCpuSampler *cpu;
  GError *err = NULL;

  if (hz <= 0.0)
    return;
  cpu = gpuprof_cpu_sampler_new (p->measure, &err);
  if (!cpu) {
    g_printerr ("gpuprof: no CPU sampler: %s\n", err->message);
    g_clear_error (&err);
    return;
  }
  __atomic_store_n (&p->measure->cpu, cpu, __ATOMIC_RELEASE);
  p->cpu_tick = gpuprof_ticker_add (sampler_ticker (p),
      MAX ((gint64) (G_USEC_PER_SEC / hz), 1), gpuprof_cpu_sampler_tick, cpu);
}

static void
stop_cpu_sampler (GpuprofProfiler * p)
{
  if (p->cpu_tick)
    gpuprof_ticker_remove (p->sampler, p->cpu_tick);
  p->cpu_tick = 0;
}

/* ---------------------------------------------------------- window */

/* buffers every sink of every pipeline has received in its run */
static guint64
sink_buffers (GpuprofProfiler * p)
{
  GPtrArray *all = gpuprof_objects_elements (p->measure->objects);
  guint64 total = 0;
  guint i;

  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    guint64 in = 0, out = 0;

    if (e->role != GPUPROF_ROLE_SINK)
      continue;
    gpuprof_measure_buffer_counts (p->measure, e, &in, &out);
    total += in;
  }
  g_ptr_array_unref (all);
  return total;
}

/* when the first pipeline went to PLAYING (tracer clock), 0: none yet */
static guint64
first_playing (GpuprofProfiler * p)
{
  GPtrArray *pipelines = gpuprof_objects_pipelines (p->measure->objects);
  guint64 first = 0;
  guint i;

  for (i = 0; i < pipelines->len; i++) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i);
    guint64 t = __atomic_load_n (&pl->playing_since, __ATOMIC_RELAXED);

    if (t && (!first || t < first))
      first = t;
  }
  g_ptr_array_unref (pipelines);
  return first;
}

/* GStreamer's own CUDA contexts (gst.cuda.context on the elements: its
 * nvcodec and cuda elements share one per device), their CUcontext
 * handles through libgstcuda where the process has loaded it; @refs keeps
 * the GstCudaContext objects alive over the calls */
static GPtrArray *
gst_cuda_contexts (GpuprofProfiler * p, GPtrArray * refs)
{
  gpointer (*get_handle) (gpointer) = dlsym (RTLD_DEFAULT,
      "gst_cuda_context_get_handle");
  GPtrArray *handles = g_ptr_array_new ();
  GPtrArray *all;
  guint i;

  if (!get_handle)
    return handles;
  all = gpuprof_objects_elements (p->measure->objects);
  for (i = 0; i < all->len; i++) {
    GstElement *el = gpuprof_objects_ref_element (p->measure->objects,
        g_ptr_array_index (all, i));
    GstContext *ctx = el ? gst_element_get_context (el, "gst.cuda.context") :
        NULL;
    const GValue *v = ctx ? gst_structure_get_value
        (gst_context_get_structure (ctx), "gst.cuda.context") : NULL;

    if (v && G_VALUE_HOLDS_OBJECT (v) && g_value_get_object (v)) {
      GObject *cuda = g_value_get_object (v);
      gpointer h = get_handle (cuda);

      if (h && !g_ptr_array_find (handles, h, NULL)) {
        g_ptr_array_add (handles, h);
        g_ptr_array_add (refs, g_object_ref (cuda));
      }
    }
    if (ctx)
      gst_context_unref (ctx);
    if (el)
      gst_object_unref (el);
  }
  g_ptr_array_unref (all);
  return handles;
}

/* cuProfilerStart/Stop on the contexts known; its line kept */
static void
window_profiler (GpuprofProfiler * p, gboolean start)
{
  GPtrArray *refs = g_ptr_array_new_with_free_func (g_object_unref);
  GPtrArray *handles = gst_cuda_contexts (p, refs);
  gchar *line = gpuprof_cuda_profiler_call (start, handles);

  GST_INFO ("window: %s", line);
  g_mutex_lock (&p->window_lock);
  g_free (start ? p->window_start_line : p->window_stop_line);
  if (start)
    p->window_start_line = line;
  else
    p->window_stop_line = line;
  g_mutex_unlock (&p->window_lock);
  g_ptr_array_unref (handles);
  g_ptr_array_unref (refs);
}

static gboolean
window_opens (GpuprofProfiler * p, guint64 now)
{
  const GpuprofWindowSpec *w = &p->params.window_spec;
  guint64 playing = first_playing (p);

  if (!playing)
    return FALSE;
  if (w->skip_buffers)
    return sink_buffers (p) >= w->skip_buffers;
  return now >= playing + (guint64) (w->skip_s * GST_SECOND);
}

static gboolean
window_closes (GpuprofProfiler * p, guint64 now)
{
  const GpuprofWindowSpec *w = &p->params.window_spec;
  guint64 open_ts, close_ts;

  gpuprof_stats_window_edges (&open_ts, &close_ts);
  if (w->length_buffers)
    return sink_buffers (p) >= p->window_sinks_at_open + w->length_buffers;
  return w->length_s > 0.0
      && now >= open_ts + (guint64) (w->length_s * GST_SECOND);
}

/* Closes the window: gpuprof stops measuring first, then the profilers */
static void
window_close (GpuprofProfiler * p)
{
  gpuprof_stats_set_window (GPUPROF_STATS_WINDOW_CLOSED,
      gpuprof_clock_now ());
  window_profiler (p, FALSE);
}

/* The edges, on the sampler thread: off the buffer path (a context push
 * takes CUDA's locks), at most a tick late; the profilers start before
 * gpuprof measures and stop after it stopped, so theirs covers ours */
static gboolean
window_tick (gint64 now_us, gpointer data)
{
  GpuprofProfiler *p = data;
  GpuprofStatsWindow phase = gpuprof_stats_get_window ();

  if (phase == GPUPROF_STATS_WINDOW_BEFORE
      && window_opens (p, gpuprof_clock_now ())) {
    window_profiler (p, TRUE);
    p->window_sinks_at_open = sink_buffers (p);
    gpuprof_stats_set_window (GPUPROF_STATS_WINDOW_OPEN,
        gpuprof_clock_now ());
  } else if (phase == GPUPROF_STATS_WINDOW_OPEN
      && window_closes (p, gpuprof_clock_now ())) {
    window_close (p);
  }
  return FALSE;
}

/* window=: gpuprof measures nothing but start-up until it opens */
static void
start_window (GpuprofProfiler * p)
{
  if (!p->params.window)
    return;
  gpuprof_stats_set_window (GPUPROF_STATS_WINDOW_BEFORE, 0);
  p->window_tick = gpuprof_ticker_add (sampler_ticker (p),
      WINDOW_CHECK_US, window_tick, p);
}

/* the window in a snapshot: its edges and what the profiler API said */
static void
window_section (GpuprofProfiler * p, GpuprofSnapshot * snap)
{
  if (!p->params.window)
    return;
  gpuprof_stats_window_edges (&snap->window_start_ns, &snap->window_end_ns);
  g_mutex_lock (&p->window_lock);
  g_free (snap->window_profiler);
  snap->window_profiler = g_strdup_printf ("%s%s%s",
      p->window_start_line ? p->window_start_line : "not opened yet",
      p->window_stop_line ? "; " : "",
      p->window_stop_line ? p->window_stop_line : "");
  g_mutex_unlock (&p->window_lock);
}

/* nvml=: NVML read on the sampler thread, with or without CUPTI; opened
 * there too, so no NVML call happens on any other thread. auto is silent
 * where it cannot run (no driver, no GPU), on says why once. */
static gboolean
nvml_tick (gint64 now_us, gpointer data)
{
  GpuprofProfiler *p = data;
  const gchar *reason = NULL;

  /* NVML is read while a pipeline plays (and opened at once): a process
   * whose pipelines rest pays nothing */
  if (gpuprof_nvml_sampler_state (p->nvml, 0, NULL) !=
      GPUPROF_NVML_SAMPLER_PENDING && !first_playing (p))
    return FALSE;
  gpuprof_nvml_sampler_tick (p->nvml, now_us);
  if (!p->nvml_said && gpuprof_nvml_sampler_state (p->nvml, 0, &reason) ==
      GPUPROF_NVML_SAMPLER_FAILED) {
    p->nvml_said = TRUE;
    if (p->params.nvml == GPUPROF_NVML_MODE_ON) {
      GST_WARNING ("%s", reason);
      g_printerr ("gpuprof: %s\n", reason);
    } else {
      GST_INFO ("%s", reason);
    }
  }
  return FALSE;
}

static void
start_nvml (GpuprofProfiler * p)
{
  if (p->params.nvml == GPUPROF_NVML_MODE_OFF || p->params.nvml_hz <= 0.0)
    return;
  p->nvml = gpuprof_nvml_sampler_new (NULL, p->params.nvml_hz);
  p->nvml_tick = gpuprof_ticker_add (sampler_ticker (p),
      gpuprof_nvml_sampler_period_us (p->nvml), nvml_tick, p);
  /* opened now, not a period from now */
  gpuprof_ticker_wake (p->sampler, p->nvml_tick);
}

static void
stop_nvml (GpuprofProfiler * p)
{
  if (p->nvml_tick)
    gpuprof_ticker_remove (p->sampler, p->nvml_tick);
  p->nvml_tick = 0;
  if (p->window_tick)
    gpuprof_ticker_remove (p->sampler, p->window_tick);
  p->window_tick = 0;
}

/* an element leaves NULL (GpuprofMeasureFuncs), before the owners' scan of
 * its state change: the threads started here (CUPTI's collector, the
 * checkpoint thread) are the application's, no element's workers. The
 * first starts CUPTI, before any CUDA work of a run, not with the tracer:
 * gst-inspect-1.0 creates the tracer too and runs nothing; and the
 * checkpoint thread, likewise, so a process forked before (check's tests)
 * has no thread it never ran. */
static void
starting (GstElement * element, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  if (g_once_init_enter (&p->checkpoint_started)) {
    start_checkpoints (p);
    g_once_init_leave (&p->checkpoint_started, 1);
  }
  if (g_once_init_enter (&p->gpu_started)) {
    start_gpu (p);
    g_once_init_leave (&p->gpu_started, 1);
  }
  if (g_once_init_enter (&p->cpu_started)) {
    start_cpu_sampler (p);
    g_once_init_leave (&p->cpu_started, 1);
  }
  if (g_once_init_enter (&p->nvml_started)) {
    start_nvml (p);
    start_window (p);
    g_once_init_leave (&p->nvml_started, 1);
  }
}

/* /proc/self/cmdline: the command to hand to ncu; NULL when unreadable */
static gchar **
read_cmdline (void)
{
  gchar *text = NULL;
  gsize len = 0, i;
  GPtrArray *args;

  if (!g_file_get_contents ("/proc/self/cmdline", &text, &len, NULL) || !len) {
    g_free (text);
    return NULL;
  }
  args = g_ptr_array_new ();
  for (i = 0; i < len; i += strlen (text + i) + 1)
    g_ptr_array_add (args, g_strdup (text + i));
  g_ptr_array_add (args, NULL);
  g_free (text);
  return (gchar **) g_ptr_array_free (args, FALSE);
}

static void run_end (GpuprofPipeline * pl, gpointer user_data);
static void pipeline_destroyed (gpointer user_data);
static void live_start (GpuprofProfiler * p);
static void live_stop (GpuprofProfiler * p);
static gchar *metrics_body (gpointer data);

GpuprofProfiler *
gpuprof_profiler_new (const GpuprofParams * params)
{
  static const GpuprofMeasureFuncs funcs = { starting, run_end,
    pipeline_destroyed
  };
  GpuprofProfiler *p = g_new0 (GpuprofProfiler, 1);

  if (!gpuprof_debug)
    GST_DEBUG_CATEGORY_INIT (gpuprof_debug, "gpuprof", 0, "gpuprof tracer");
  gpuprof_hooks_init ();
  gpuprof_params_copy (&p->params, params);
  if (p->params.nvtx && !gpuprof_nvtx_available ())
    GST_INFO ("built without NVTX headers: nvtx=on has no effect");
  g_mutex_init (&p->report_lock);
  g_mutex_init (&p->window_lock);
  p->argv = read_cmdline ();
  p->bus = gpuprof_bus_new ();
  p->measure = gpuprof_measure_new (p->params.nvtx, p->bus);
  gpuprof_measure_set_funcs (p->measure, &funcs, p);
  open_outputs (p);
  live_start (p);
  if (p->params.metrics)
    p->metrics = gpuprof_metrics_server_start (p->params.metrics,
        metrics_body, p);
  return p;
}

GpuprofMeasure *
gpuprof_profiler_get_measure (GpuprofProfiler * p)
{
  return p->measure;
}

/* End of the process (or of the tracer): pending reports, then the files
 * and CUPTI are closed. Hooks that still run afterwards are harmless. */
void
gpuprof_profiler_shutdown (GpuprofProfiler * p)
{
  live_stop (p);
  stop_nvml (p);
  g_clear_pointer (&p->checkpoint, gpuprof_ticker_free);
  g_clear_pointer (&p->metrics, gpuprof_metrics_server_stop);
  gpuprof_measure_end_queues (p->measure);
  gpuprof_profiler_report_unreported (p);
  stop_cpu_sampler (p);
  gpuprof_outputs_close (p->outputs);
  if (p->gpu_on) {
    gpuprof_measure_gpu_stop (p->measure);
    gpuprof_cupti_stop ();
    p->gpu_on = FALSE;
  }
}

void
gpuprof_profiler_free (GpuprofProfiler * p)
{
  gpuprof_profiler_shutdown (p);
  gpuprof_outputs_free (p->outputs);
  p->trace = NULL;
  g_free (p->gpu_off_reason);
  g_clear_pointer (&p->sampler, gpuprof_ticker_free);
  g_clear_pointer (&p->measure->cpu, gpuprof_cpu_sampler_free);
  g_clear_pointer (&p->nvml, gpuprof_nvml_sampler_free);
  g_free (p->window_start_line);
  g_free (p->window_stop_line);
  g_strfreev (p->argv);
  g_mutex_clear (&p->window_lock);
  gpuprof_measure_free (p->measure);
  gpuprof_bus_free (p->bus);
  g_mutex_clear (&p->report_lock);
  g_clear_pointer (&p->live_previous, g_hash_table_unref);
  g_clear_pointer (&p->stall, gpuprof_stall_free);
  g_free (p->last_report);
  gpuprof_params_clear (&p->params);
  g_free (p);
}

/* -------------------------------------------------------------- report */

/* The GPU tables, part of the snapshot so saved summaries print them too */
static void
gpu_section (GpuprofProfiler * p, GpuprofSnapshot * snap, guint64 first,
    guint64 last)
{
  /* GPU records are on the monotonic clock */
  guint64 start = gpuprof_clock_start_monotonic ();

  const GpuprofGpuElementRow *top;

  gpuprof_gpu_tables_fill (snap, GPUPROF_GPU_CHANNEL_TRACER,
      gpuprof_measure_element_path, p->measure, first ? start + first : 0,
      last ? start + last : 0);
  /* the next step, Nsight Compute on the top stage's kernels: this very
   * command line, inside the window */
  top = gpuprof_gpu_verdict_top_stage (snap, NULL);
  if (top && snap->gpu->len) {
    GpuprofGpuRow *row = &g_array_index (snap->gpu, GpuprofGpuRow, 0);

    g_free (row->ncu);
    row->ncu = gpuprof_gpu_ncu_command (snap, top->path, p->params.window,
        (const gchar * const *) p->argv);
  }
}

/* The GPU's engines (NVML) over the run of @pl, [@first, @last] on the
 * tracer clock (0: unbounded), for the devices it uses. Call after
 * gpu_section: CUPTI's devices tell which. */
static void
resources_section (GpuprofProfiler * p, GpuprofPipeline * pl,
    GpuprofSnapshot * snap, guint64 first, guint64 last)
{
  guint64 start = gpuprof_clock_start_monotonic ();
  guint64 playing = __atomic_load_n (&pl->playing_since, __ATOMIC_RELAXED);
  gchar *how = NULL;
  guint64 mask;

  if (p->nvml) {
    /* the run: from PLAYING (a thread of a pool may have been seen in an
     * earlier run), within the window */
    first = MAX (first, playing);
    gpuprof_stats_window_clamp (&first, &last);
    mask = gpuprof_nvml_sampler_pipeline_devices (p->nvml,
        p->measure->objects, pl, snap, &how);
    gpuprof_nvml_sampler_fill (p->nvml, snap, mask, how,
        first ? start + first : 0, last ? start + last : 0);
    g_free (how);
  }
  /* the resources table's GPU rows: NVML's engines, CUPTI's copies */
  gpuprof_gpu_verdict_fill_resources (snap);
  /* the verdict again, with the GPU tables filled after the snapshot's */
  gpuprof_limits_compute (snap);
}

/* What only a live run knows: why GPU attribution is off, each output's
 * line (the trace file). */
static void
append_live_sections (GpuprofProfiler * p, GString * out)
{
  if (!p->gpu_on && p->gpu_off_reason)
    g_string_append_printf (out, "\nGPU: %s\n", p->gpu_off_reason);
  if (p->nvml && p->params.nvml == GPUPROF_NVML_MODE_ON) {
    const gchar *reason = NULL;

    /* a run shorter than NVML's opening: wait for it, a report is rare */
    if (gpuprof_nvml_sampler_state (p->nvml, 2 * G_USEC_PER_SEC, &reason) ==
        GPUPROF_NVML_SAMPLER_FAILED)
      g_string_append_printf (out, "\nGPU resources: %s\n", reason);
  }
  gpuprof_outputs_describe (p->outputs, out);
}

/* Records of destroyed objects whose runs were reported: freed while no
 * report reads them (report lock held). Their trace events are written
 * first, while their names can still be looked up. */
static void
sweep_locked (GpuprofProfiler * p)
{
  GpuprofObjects *o = p->measure->objects;
  GPtrArray *pipelines = gpuprof_objects_pipelines (o);
  GpuprofCpuSampler *cpu = __atomic_load_n (&p->measure->cpu,
      __ATOMIC_ACQUIRE);
  GArray *elements, *pads;
  guint i;

  /* what elements that left a running pipeline measured goes to its
   * removed totals first: then their records can go */
  for (i = 0; i < pipelines->len; i++)
    gpuprof_measure_fold (p->measure, g_ptr_array_index (pipelines, i), NULL);
  g_ptr_array_unref (pipelines);
  /* the sampler's passes read the records */
  if (cpu)
    gpuprof_cpu_sampler_lock (cpu);
  if (!p->trace) {
    gpuprof_objects_sweep (o, NULL, NULL);
    if (cpu)
      gpuprof_cpu_sampler_unlock (cpu);
    return;
  }
  gpuprof_bus_flush (p->bus);
  elements = g_array_new (FALSE, FALSE, sizeof (guint32));
  pads = g_array_new (FALSE, FALSE, sizeof (guint32));
  gpuprof_objects_sweep (o, elements, pads);
  if (cpu)
    gpuprof_cpu_sampler_unlock (cpu);
  /* not under the registry lock: the writer takes it to look names up */
  gpuprof_trace_forget_names (p->trace, elements, pads);
  g_array_unref (elements);
  g_array_unref (pads);
}

/* Releases the report lock. A sweep asked for while it was held (a camera
 * bin destroyed during a snapshot or a scrape) is made first, so removed
 * objects' records do not wait for the next destruction */
static void
report_unlock (GpuprofProfiler * p)
{
  do {
    if (__atomic_exchange_n (&p->sweep_owed, 0, __ATOMIC_SEQ_CST))
      sweep_locked (p);
    g_mutex_unlock (&p->report_lock);
    /* asked for after the look above, while held: the asker's trylock
     * failed, so whoever holds the lock next sweeps */
  } while (__atomic_load_n (&p->sweep_owed, __ATOMIC_SEQ_CST)
      && g_mutex_trylock (&p->report_lock));
}

/* a top-level bin was destroyed after all it held, or elements taken out
 * of a running pipeline were (GpuprofMeasureFuncs): their records can go.
 * Never waits (the application's thread): when a report is being made,
 * its end sweeps (report_unlock) */
static void
pipeline_destroyed (gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  __atomic_store_n (&p->sweep_owed, 1, __ATOMIC_SEQ_CST);
  if (g_mutex_trylock (&p->report_lock))
    report_unlock (p);
}

/* ---------------------------------------------------------------- live */

/* interval=: the live thread (a GpuprofTicker) wakes every interval and
 * snapshots each running pipeline, also when no buffer flows (no main
 * loop, no buffer arrival drives it). The snapshot reads the counters the
 * hooks keep, as get-snapshot does: streaming threads are never waited
 * for. stall=: the watchdog looks on the same thread. */

/* trace=: each sink's rate over the interval, a counter beside the queue
 * levels the hooks write */
static void
live_trace_rates (GpuprofProfiler * p, GpuprofPipeline * pl,
    const GpuprofInterval * iv, guint64 now)
{
  GPtrArray *all;
  guint i, j;

  if (!gpuprof_bus_active (p->bus) || iv->final || iv->interval_s <= 0.0)
    return;
  all = gpuprof_objects_elements (p->measure->objects);
  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);

    if (e->pipeline != pl || e->role != GPUPROF_ROLE_SINK)
      continue;
    for (j = 0; j < iv->elements->len; j++) {
      const GpuprofIntervalElementRow *r =
          &g_array_index (iv->elements, GpuprofIntervalElementRow, j);
      GpuprofEvent ev;

      if (g_strcmp0 (r->path, e->path))
        continue;
      gpuprof_event_init (&ev, GPUPROF_EVENT_RATE, e->id, 0, 0, now);
      ev.self = r->buffers;
      ev.dur = (guint64) (iv->interval_s * GST_SECOND);
      gpuprof_bus_push_locked (p->bus, &ev);
    }
  }
  g_ptr_array_unref (all);
}

static void
live_emit_locked (GpuprofProfiler * p, GpuprofPipeline * pl,
    GpuprofSnapshot * snap, guint64 now, gboolean final)
{
  GpuprofInterval iv = { snap, NULL, ++p->live_seq, now / 1e9,
    (now - MIN (now, p->live_last_ns)) / 1e9, final
  };

  iv.previous = g_hash_table_lookup (p->live_previous,
      GUINT_TO_POINTER (pl->id));
  gpuprof_live_interval_fill (&iv);
  live_trace_rates (p, pl, &iv, now);
  gpuprof_outputs_interval (p->outputs, &iv);
  gpuprof_live_interval_clear (&iv);
}

/* report lock held */
static void
live_tick_locked (GpuprofProfiler * p)
{
  GPtrArray *pipelines = gpuprof_objects_pipelines (p->measure->objects);
  guint64 now = gpuprof_clock_now ();
  guint i;

  for (i = 0; i < pipelines->len; i++) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i);
    GpuprofSnapshot *snap;
    guint64 first = 0, last = 0;

    if (!gpuprof_measure_pipeline_active (p->measure, pl))
      continue;
    snap = gpuprof_measure_snapshot (p->measure, pl, &first, &last);
    resources_section (p, pl, snap, first, last);
    live_emit_locked (p, pl, snap, now, FALSE);
    g_hash_table_replace (p->live_previous, GUINT_TO_POINTER (pl->id), snap);
  }
  g_ptr_array_unref (pipelines);
  p->live_last_ns = now;
}

/* the run ended: its last line is the run-end snapshot itself */
static void
live_final_locked (GpuprofProfiler * p, GpuprofPipeline * pl,
    GpuprofSnapshot * snap)
{
  if (!p->live_previous)
    return;
  live_emit_locked (p, pl, snap, gpuprof_clock_now (), TRUE);
  g_hash_table_remove (p->live_previous, GUINT_TO_POINTER (pl->id));
}

/* the watchdog looks this often (or every interval, when shorter) */
#define STALL_CHECK_US (G_USEC_PER_SEC / 4)

static gboolean
stall_tick (gint64 now_us, gpointer data)
{
  GpuprofProfiler *p = data;

  g_mutex_lock (&p->report_lock);
  gpuprof_stall_check (p->stall, p->measure->objects, gpuprof_clock_now ());
  /* records of elements taken out of a running pipeline, fewer than a
   * sweep batch: freed here, off the application's thread */
  if (__atomic_exchange_n (&p->measure->n_freeable, 0, __ATOMIC_RELAXED))
    __atomic_store_n (&p->sweep_owed, 1, __ATOMIC_SEQ_CST);
  report_unlock (p);
  return FALSE;
}

static gboolean
snapshot_tick (gint64 now_us, gpointer data)
{
  GpuprofProfiler *p = data;

  g_mutex_lock (&p->report_lock);
  live_tick_locked (p);
  report_unlock (p);
  return FALSE;
}

static void
live_start (GpuprofProfiler * p)
{
  gint64 period = (gint64) (p->params.interval * G_USEC_PER_SEC);

  if (p->params.interval <= 0.0 && p->params.stall <= 0.0)
    return;
  if (period > 0)
    p->live_previous = g_hash_table_new_full (NULL, NULL, NULL,
        (GDestroyNotify) gpuprof_snapshot_free);
  p->stall = gpuprof_stall_new (p->params.stall);
  p->live_last_ns = gpuprof_clock_now ();
  p->live = gpuprof_ticker_new ("gpuprof-live");
  /* the watchdog first: on a wake for both, it looks before the snapshot */
  gpuprof_ticker_add (p->live, period > 0 ? MIN (period, STALL_CHECK_US) :
      STALL_CHECK_US, stall_tick, p);
  if (period > 0)
    gpuprof_ticker_add (p->live, period, snapshot_tick, p);
}

static void
live_stop (GpuprofProfiler * p)
{
  g_clear_pointer (&p->live, gpuprof_ticker_free);
}

/* The report of a run that went to PLAYING and got no buffer on any pad
 * (a udpsrc with no sender, an appsrc never fed): where it waited. */
static gchar *
nothing_flowed (GpuprofProfiler * p, GpuprofPipeline * pl, guint64 playing)
{
  GPtrArray *all = gpuprof_objects_elements (p->measure->objects);
  gchar *where = gpuprof_stall_sources (all, pl);
  guint64 now = gpuprof_clock_now ();
  gchar *text = g_strdup_printf ("\n=== gpuprof report: %s ===\nNothing "
      "flowed: PLAYING for %.1f s and no buffer reached any pad; waiting for "
      "input in %s.\n", pl->name, now > playing ? (now - playing) / 1e9 : 0.0,
      where);

  g_free (where);
  g_ptr_array_unref (all);
  return text;
}

/* report lock held */
static void
report_pipeline_locked (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  GpuprofSnapshot *snap;
  gchar *text;
  guint64 first = 0, last = 0;
  guint64 playing = __atomic_load_n (&pl->playing_since, __ATOMIC_RELAXED);
  gboolean flowed = gpuprof_measure_pipeline_active (p->measure, pl);

  if (!flowed && !playing)
    return;
  if (p->stall)
    gpuprof_stall_run_end (p->stall, pl);
  if (p->gpu_on)
    gpuprof_cupti_flush (TRUE);
  /* the window ends with the run at the latest (the process's window:
   * runs after it are not measured); without window= the phase reads OPEN
   * for good, and every run is measured */
  if (p->params.window
      && gpuprof_stats_get_window () == GPUPROF_STATS_WINDOW_OPEN)
    window_close (p);
  snap = gpuprof_measure_snapshot (p->measure, pl, &first, &last);
  if (p->gpu_on)
    gpu_section (p, snap, first, last);
  resources_section (p, pl, snap, first, last);
  window_section (p, snap);
  text = flowed ? gpuprof_report_format (snap) : nothing_flowed (p, pl,
      playing);
  {
    GString *full = g_string_new (text);
    append_live_sections (p, full);
    g_free (text);
    text = g_string_free (full, FALSE);
  }
  {
    GpuprofRunEnd end = { snap, text };
    gpuprof_outputs_run_end (p->outputs, &end);
  }
  live_final_locked (p, pl, snap);
  g_free (p->last_report);
  p->last_report = text;
  gpuprof_snapshot_free (snap);
  gpuprof_measure_reset (p->measure, pl);
}

/* the session's part of a run end (GpuprofMeasureFuncs) */
static void
run_end (GpuprofPipeline * pl, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  g_mutex_lock (&p->report_lock);
  report_pipeline_locked (p, pl);
  __atomic_store_n (&p->sweep_owed, 1, __ATOMIC_SEQ_CST);
  report_unlock (p);
}

void
gpuprof_profiler_report_unreported (GpuprofProfiler * p)
{
  GPtrArray *pipelines;
  guint i;

  g_mutex_lock (&p->report_lock);
  pipelines = gpuprof_objects_pipelines (p->measure->objects);
  for (i = 0; i < pipelines->len; i++)
    report_pipeline_locked (p, g_ptr_array_index (pipelines, i));
  g_ptr_array_unref (pipelines);
  report_unlock (p);
}

/* a live snapshot with the GPU tables when attribution is on (metrics=,
 * get-metrics); the caller holds the report lock and flushed CUPTI */
static GpuprofSnapshot *
snapshot_pipeline_gpu (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  guint64 first = 0, last = 0;
  GpuprofSnapshot *snap = gpuprof_measure_snapshot (p->measure, pl, &first, &last);

  if (p->gpu_on)
    gpu_section (p, snap, first, last);
  resources_section (p, pl, snap, first, last);
  window_section (p, snap);
  return snap;
}

static GpuprofSnapshot *
find_snapshot (GpuprofProfiler * p, const gchar * pipeline, gboolean gpu)
{
  GPtrArray *pipelines;
  GpuprofSnapshot *snap = NULL;
  guint i;

  /* the GPU records CUPTI completed: unforced, so none is settled before
   * its API record arrives (the run end forces) */
  if (gpu && p->gpu_on)
    gpuprof_cupti_flush (FALSE);
  /* records are freed under the report lock only */
  g_mutex_lock (&p->report_lock);
  pipelines = gpuprof_objects_pipelines (p->measure->objects);

  /* the named pipeline, or the last one with activity */
  for (i = pipelines->len; i > 0 && !snap; i--) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i - 1);
    if (pipeline ? !g_strcmp0 (pl->name, pipeline) :
        gpuprof_measure_pipeline_active (p->measure, pl))
      snap = gpu ? snapshot_pipeline_gpu (p, pl) :
          gpuprof_measure_snapshot (p->measure, pl, NULL, NULL);
  }
  g_ptr_array_unref (pipelines);
  report_unlock (p);
  return snap;
}

GpuprofSnapshot *
gpuprof_profiler_snapshot (GpuprofProfiler * p, const gchar * pipeline)
{
  return find_snapshot (p, pipeline, FALSE);
}

GpuprofSnapshot *
gpuprof_profiler_metrics_snapshot (GpuprofProfiler * p, const gchar * pipeline)
{
  return find_snapshot (p, pipeline, TRUE);
}

/* a snapshot, GPU tables included, of each pipeline with activity; report
 * lock held (the caller flushed CUPTI) */
static GPtrArray *
snapshot_active_locked (GpuprofProfiler * p)
{
  GPtrArray *snaps = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_snapshot_free);
  GPtrArray *pipelines = gpuprof_objects_pipelines (p->measure->objects);
  guint i;

  for (i = 0; i < pipelines->len; i++) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i);

    if (gpuprof_measure_pipeline_active (p->measure, pl))
      g_ptr_array_add (snaps, snapshot_pipeline_gpu (p, pl));
  }
  g_ptr_array_unref (pipelines);
  return snaps;
}

/* checkpoint=: the run so far of each running pipeline to the outputs that
 * keep files (stats=, html=), on the checkpoint thread. Under the report
 * lock, so a run end's final files are never overwritten by an older
 * checkpoint. */
static gboolean
checkpoint_tick (gint64 now_us, gpointer data)
{
  GpuprofProfiler *p = data;
  GPtrArray *snaps;
  guint i;

  if (p->gpu_on)
    gpuprof_cupti_flush (FALSE);
  g_mutex_lock (&p->report_lock);
  snaps = snapshot_active_locked (p);
  for (i = 0; i < snaps->len; i++) {
    GpuprofSnapshot *snap = g_ptr_array_index (snaps, i);

    snap->checkpoint = TRUE;
    gpuprof_outputs_checkpoint (p->outputs, snap);
  }
  report_unlock (p);
  g_ptr_array_unref (snaps);
  return FALSE;
}

/* checkpoint=: a thread of its own (a GpuprofTicker), from the first run
 * (starting()): checkpoint_tick every period, a late one not made up for;
 * no signal handler in the application's process (docs/outputs.md,
 * "Checkpoints") */
static void
start_checkpoints (GpuprofProfiler * p)
{
  if (p->params.checkpoint <= 0.0
      || !gpuprof_outputs_want_checkpoints (p->outputs))
    return;
  p->checkpoint = gpuprof_ticker_new ("gpuprof-checkpt");
  gpuprof_ticker_add (p->checkpoint, MAX ((gint64) (p->params.checkpoint *
              G_USEC_PER_SEC), 1000), checkpoint_tick, p);
}

/* metrics=: one scrape, on the server's thread; snapshots as get-snapshot
 * takes them, so streaming threads are never waited for */
static gchar *
metrics_body (gpointer data)
{
  GpuprofProfiler *p = data;
  guint64 start = gpuprof_clock_now ();
  GPtrArray *snaps;
  gchar *text;

  if (p->gpu_on)
    gpuprof_cupti_flush (FALSE);
  g_mutex_lock (&p->report_lock);
  snaps = snapshot_active_locked (p);
  report_unlock (p);
  text = gpuprof_metrics_format (snaps,
      __atomic_load_n (&p->metrics_scrape_ns, __ATOMIC_RELAXED));
  g_ptr_array_unref (snaps);
  __atomic_store_n (&p->metrics_scrape_ns, gpuprof_clock_now () - start,
      __ATOMIC_RELAXED);
  return text;
}

gchar *
gpuprof_profiler_last_report (GpuprofProfiler * p)
{
  gchar *text;

  g_mutex_lock (&p->report_lock);
  text = g_strdup (p->last_report);
  report_unlock (p);
  return text;
}

void
gpuprof_profiler_count_records (GpuprofProfiler * p, guint * elements,
    guint * pads, guint * pipelines)
{
  gpuprof_objects_count (p->measure->objects, elements, pads, pipelines);
}
