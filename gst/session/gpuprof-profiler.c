/* gpuprof: the profiling session — set-up, run end, reports. The hooks are
 * gpuprof-hooks.c. */
#include "config.h"
#include "gpuprof-profiler.h"
#include "gpuprof-profiler-private.h"

#include "gpuprof-advice.h"
#include "gpuprof-async.h"
#include "gpuprof-batch.h"
#include "gpuprof-clock.h"
#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"
#include "gpuprof-gpu-tables.h"
#include "gpuprof-links.h"
#include "gpuprof-metrics.h"
#include "gpuprof-live.h"
#include "gpuprof-gputrace.h"
#include "gpuprof-nvtx.h"
#include "gpuprof-objects.h"
#include "gpuprof-owners.h"
#include "gpuprof-output.h"
#include "gpuprof-queue.h"
#include "gpuprof-report.h"
#include "gpuprof-thread.h"
#include "gpuprof-trace.h"
#include "gpuprof-workers.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_debug);
#define GST_CAT_DEFAULT gpuprof_debug

/* ---------------------------------------------------------------- setup */

/* registry lock held: no hook can run into us here */
static void
element_init (GpuprofElement * e, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  /* per-stream following costs ~140 instructions per pad crossed: paid
   * only where streams differ from the pipeline's own figures */
  if ((e->role == GPUPROF_ROLE_SOURCE
          && __atomic_add_fetch (&p->n_sources, 1, __ATOMIC_RELAXED) >= 2)
      || e->role == GPUPROF_ROLE_AGGREGATOR)
    __atomic_store_n (&p->streams_on, TRUE, __ATOMIC_RELAXED);
  /* NVTX rows are named by the path in the pipeline: an element with none
   * yet gets its domain when it has one (element_resolved) */
  if (p->params.nvtx && e->pipeline)
    gpuprof_nvtx_element_init (e);
}

static void
pad_init (GpuprofPad * pad, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  if (p->params.nvtx)
    gpuprof_nvtx_pad_init (pad);
}

/* registry lock held: the element seen before it had a pipeline has one */
static void
element_resolved (GpuprofElement * e, gpointer user_data)
{
  GpuprofProfiler *p = user_data;
  guint i;

  if (!p->params.nvtx || e->nvtx_domain)
    return;
  gpuprof_nvtx_element_init (e);
  for (i = 0; i < e->pads->len; i++)
    gpuprof_nvtx_pad_init (g_ptr_array_index (e->pads, i));
}

/* registry lock held: the element is destroyed and its run reported */
static void
element_fini (GpuprofElement * e, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  gpuprof_batches_forget (p->batches, e);
  gpuprof_streams_forget (p->streams, e);
  g_clear_pointer (&e->async, gpuprof_async_free);
  g_clear_pointer (&e->workers, g_free);
}

/* Names for the trace writer and the GPU report: called off the streaming
 * threads, under the registry's own locks. */
static gchar *
element_path_cb (guint32 id, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  return gpuprof_objects_dup_element_path (p->objects, id);
}

static gchar *
pad_name_cb (guint32 id, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  return gpuprof_objects_dup_pad_name (p->objects, id);
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

  return gpuprof_objects_dup_last_pipeline_name (p->objects);
}

/* the trace writer thread hands drained events to outputs that want them */
static void
output_events_cb (const GpuprofEvent * events, guint n, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  gpuprof_outputs_events (p->outputs, events, n);
}

static void
open_outputs (GpuprofProfiler * p)
{
  GpuprofTraceNames names = { p, element_path_cb, pad_name_cb,
    thread_name_cb, pipeline_name_cb
  };
  GpuprofOutputContext ctx = { &names };

  p->outputs = gpuprof_outputs_open (&p->params, &ctx);
  p->trace = gpuprof_output_trace_get (gpuprof_outputs_find (p->outputs,
          "trace"));
  if (p->trace && gpuprof_outputs_want_events (p->outputs))
    gpuprof_trace_set_event_func (p->trace, output_events_cb, p);
}

/* owners.c learnt a thread's owner: GPU work launched on it outside calls
 * is the owner's (issue 9) */
static void
owner_to_gpu (gint tid, guint32 element_id, gpointer user_data)
{
  gpuprof_gpu_set_thread_owner ((guint32) tid, element_id);
}

/* GPU work launched on a thread an element owns goes to a batch in flight
 * in it (an asynchronous element, gpuprof-async.h): the oldest above
 * @after (gpuprof_gpu_set_owner_batch_func()) */
static guint64
owner_batch_cb (guint32 element_id, guint64 after, gpointer user_data)
{
  return gpuprof_batches_in_flight_after_of_id (element_id, after);
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
    gpuprof_gpu_set_path_func (GPUPROF_GPU_CHANNEL_TRACER, element_path_cb,
        p);
    gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
    gpuprof_owners_set_listener (owner_to_gpu, NULL);
    gpuprof_gpu_set_owner_batch_func (owner_batch_cb, NULL);
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

/* CUPTI starts when the first element leaves NULL, before any CUDA work of
 * a run, not with the tracer: gst-inspect-1.0 creates the tracer too and
 * runs nothing. */
void
gpuprof_profiler_state_change_pre (GpuprofProfiler * p, GstElement * element,
    GstStateChange transition)
{
  GpuprofElement *e = gpuprof_objects_element_peek (element);
  GpuprofAsync *a = e ? __atomic_load_n (&e->async, __ATOMIC_ACQUIRE) : NULL;
  GpuprofWorkers *own = e ? __atomic_load_n (&e->workers,
      __ATOMIC_ACQUIRE) : NULL;

  /* threads that appeared since the last state change are not this
   * element's (gpuprof-owners.h) */
  gpuprof_owners_scan (0);
  /* it is about to stop its worker threads: read them while they live */
  if (a && transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gpuprof_workers_sample_named (gpuprof_async_get_workers (a));
  if (own && transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gpuprof_workers_sample_named (own);
  if (transition == GST_STATE_CHANGE_NULL_TO_READY
      && g_once_init_enter (&p->gpu_started)) {
    start_gpu (p);
    g_once_init_leave (&p->gpu_started, 1);
  }
  gpuprof_hooks_gpu_state_enter (p, element);
}

static void live_start (GpuprofProfiler * p);
static void live_stop (GpuprofProfiler * p);
static gchar *metrics_body (gpointer data);

GpuprofProfiler *
gpuprof_profiler_new (const GpuprofParams * params)
{
  GpuprofProfiler *p = g_new0 (GpuprofProfiler, 1);

  if (!gpuprof_debug)
    GST_DEBUG_CATEGORY_INIT (gpuprof_debug, "gpuprof", 0, "gpuprof tracer");
  gpuprof_hooks_init ();
  gpuprof_params_copy (&p->params, params);
  if (p->params.nvtx && !gpuprof_nvtx_available ())
    GST_INFO ("built without NVTX headers: nvtx=on has no effect");
  g_mutex_init (&p->report_lock);
  p->objects = gpuprof_objects_new (element_init, pad_init, element_resolved,
      element_fini, p);
  p->streams = gpuprof_streams_new ();
  p->batches = gpuprof_batches_new (p->streams);
  open_outputs (p);
  live_start (p);
  if (p->params.metrics)
    p->metrics = gpuprof_metrics_server_start (p->params.metrics,
        metrics_body, p);
  return p;
}

/* Queues still holding buffers at the end (a pipeline never stopped): they
 * are left, so the report says so and every residency in the trace ends. */
static void
end_all_queues (GpuprofProfiler * p)
{
  GPtrArray *all = gpuprof_objects_elements (p->objects);
  guint64 ts = gpuprof_clock_now ();
  guint i;

  for (i = 0; i < all->len; i++)
    gpuprof_hooks_end_queues (p, g_ptr_array_index (all, i), ts);
  g_ptr_array_unref (all);
}

/* End of the process (or of the tracer): pending reports, then the files
 * and CUPTI are closed. Hooks that still run afterwards are harmless. */
void
gpuprof_profiler_shutdown (GpuprofProfiler * p)
{
  live_stop (p);
  g_clear_pointer (&p->metrics, gpuprof_metrics_server_stop);
  end_all_queues (p);
  gpuprof_profiler_report_unreported (p);
  gpuprof_outputs_close (p->outputs);
  if (p->gpu_on) {
    gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, FALSE);
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
  gpuprof_objects_free (p->objects);
  gpuprof_batches_free (p->batches);
  gpuprof_streams_free (p->streams);
  g_mutex_clear (&p->report_lock);
  g_clear_pointer (&p->live_previous, g_hash_table_unref);
  g_clear_pointer (&p->stall, gpuprof_stall_free);
  g_mutex_clear (&p->live_lock);
  g_cond_clear (&p->live_cond);
  g_free (p->last_report);
  gpuprof_params_clear (&p->params);
  g_free (p);
}

const GpuprofParams *
gpuprof_profiler_get_params (GpuprofProfiler * p)
{
  return &p->params;
}

/* -------------------------------------------------------------- report */

static gboolean
element_active (GpuprofProfiler * p, GpuprofElement * e)
{
  guint64 in, out;

  if (gpuprof_stats_calls (&e->stats))
    return TRUE;
  gpuprof_objects_buffer_counts (p->objects, e, &in, &out);
  return in || out;
}

/* An asynchronous element's work includes its workers' CPU; its busiest
 * thread may be a worker, which runs no hook */
static void
fill_async_row (GpuprofElementRow * row, GpuprofAsync * a)
{
  GpuprofAsyncFigures f;

  gpuprof_async_figures (a, &f);
  row->async = TRUE;
  row->worker_ns = f.worker_ns;
  row->self_ns += f.worker_ns;
  row->residency_p50_ns = f.residency_p50;
  row->residency_p99_ns = f.residency_p99;
  row->residency_mean_ns = f.residency_mean;
  row->in_flight_mean = f.in_flight_mean;
  row->in_flight_max = f.in_flight_max;
  if (f.worker_top_ns > row->thread_self_ns && f.span_ns) {
    g_free (row->thread);
    row->thread = g_strdup (f.worker_name);
    row->thread_self_ns = f.worker_top_ns;
    row->thread_wall_ns = f.span_ns;
    row->busy = (gdouble) f.worker_top_ns / f.span_ns;
  }
}

/* Waiting on the GPU is not work: the self time of the calls it happened
 * in (wall clock) loses it, and so does its main thread's, for what waited
 * there; the percentiles keep it. Waits on its own threads outside calls
 * are not in self time (worker time is on the thread CPU clock). */
static void
fill_gpu_wait (GpuprofElementRow * row, GpuprofElement * e,
    const GpuprofThreadSlot * slot)
{
  GpuprofGpuWait w;

  gpuprof_gpu_get_wait (GPUPROF_GPU_CHANNEL_TRACER, e->id,
      slot ? (guint32) slot->thread->tid : 0, &w);
  row->gpu_wait_ns = w.wait_ns;
  row->self_ns -= MIN (w.in_call_ns, row->self_ns);
  row->thread_self_ns -= MIN (w.in_call_tid_ns, row->thread_self_ns);
  row->busy = row->thread_wall_ns ?
      (gdouble) row->thread_self_ns / row->thread_wall_ns : 0.0;
}

static void
fill_element_row (GpuprofProfiler * p, GpuprofElementRow * row,
    GpuprofElement * e)
{
  const GpuprofElementStats *s = &e->stats;
  const GpuprofThreadSlot *slot = gpuprof_stats_main_slot (s);

  row->path = g_strdup (e->path);
  row->factory = g_strdup (e->factory);
  row->role = g_strdup (gpuprof_role_name (e->role));
  gpuprof_objects_buffer_counts (p->objects, e, &row->buffers_in,
      &row->buffers_out);
  row->calls = gpuprof_stats_calls (s);
  row->self_ns = gpuprof_stats_self_ns (s);
  row->incl_ns = s->incl_ns;
  row->self_p50_ns = gpuprof_histogram_percentile (&s->self_hist, 0.50);
  row->self_p95_ns = gpuprof_histogram_percentile (&s->self_hist, 0.95);
  row->self_p99_ns = gpuprof_histogram_percentile (&s->self_hist, 0.99);
  row->self_max_ns = s->self_hist.max;
  row->waits_on_clock = e->waits_on_clock;
  row->blocked_ns = s->blocked_ns;
  row->wait_input_ns = __atomic_load_n (&s->wait_input_ns, __ATOMIC_RELAXED);
  if (slot) {
    GpuprofThread *t = slot->thread;
    guint64 first = __atomic_load_n (&t->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&t->last_ts, __ATOMIC_RELAXED);
    row->thread = gpuprof_thread_dup_name (t);
    row->thread_self_ns = slot->self_ns;
    row->thread_wall_ns = last > first ? last - first : 0;
    row->busy = row->thread_wall_ns ?
        (gdouble) row->thread_self_ns / row->thread_wall_ns : 0.0;
  } else {
    row->thread = g_strdup ("");
  }
  if (p->gpu_on)
    fill_gpu_wait (row, e, slot);
  if (G_UNLIKELY (e->async) && gpuprof_async_confirmed (e->async))
    fill_async_row (row, e->async);
}

static void
fill_queue_row (GpuprofQueueRow * row, GpuprofQueue * q)
{
  GpuprofQueueFigures f;

  gpuprof_queue_figures (q, &f);
  row->path = g_strdup (q->path);
  row->buffers = f.dequeued;
  row->residency_p50_ns = f.residency_p50;
  row->residency_p99_ns = f.residency_p99;
  row->residency_max_ns = f.residency_max;
  row->residency_mean_ns = f.residency_mean;
  row->max_level_buffers = f.max_level_buffers;
  row->max_level_bytes = f.max_level_bytes;
  row->max_level_time_ns = f.max_level_time;
  row->level_buffers = f.level_buffers;
  row->level_bytes = f.level_bytes;
  row->drops = f.drops;
  row->flushed = f.flushed;
  row->left = f.left;
  row->backpressure_ns = f.backpressure_ns;
  row->upstream_wall_ns = f.upstream_wall_ns;
}

/* A thread an element owns that runs none of its calls, read on its CPU
 * clock (gpuprof-workers.h) */
typedef struct
{
  GpuprofWorker w;
  const GpuprofElement *owner;
} OwnedWorker;

static gboolean is_owned_worker (GArray * workers, gint tid);

/* @e's threads listed in @ws into @out: those still its workers, once */
static void
add_owned (GArray * out, const GpuprofElement * e,
    const GpuprofWorker ws[GPUPROF_WORKERS_MAX], guint n)
{
  guint k;

  for (k = 0; k < n; k++) {
    OwnedWorker ow = { ws[k], e };
    GpuprofThreadKind kind;

    if (gpuprof_owners_lookup (ws[k].tid, &kind) == e->id
        && kind == GPUPROF_THREAD_KIND_WORKER
        && !is_owned_worker (out, ws[k].tid))
      g_array_append_val (out, ow);
  }
}

/* The worker threads of @elements: an asynchronous element's that never
 * pushed (those that push were dropped from its workers and have hook
 * records), then the threads other elements created (a sink's, a
 * source's). A thread seen appearing in a state change that turned out to
 * be a pad task (its stream-status came after) is a streaming thread, not
 * a worker */
static GArray *
owned_workers (GPtrArray * elements)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (OwnedWorker));
  GpuprofWorker ws[GPUPROF_WORKERS_MAX];
  guint i;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    GpuprofAsync *a = __atomic_load_n (&e->async, __ATOMIC_ACQUIRE);
    GpuprofWorkers *own = __atomic_load_n (&e->workers, __ATOMIC_ACQUIRE);

    if (a)
      add_owned (out, e, ws, gpuprof_workers_list (gpuprof_async_get_workers (a), ws));
    if (own)
      add_owned (out, e, ws, gpuprof_workers_list (own, ws));
  }
  return out;
}

static gboolean
is_owned_worker (GArray * workers, gint tid)
{
  guint i;

  for (i = 0; i < workers->len; i++) {
    if (g_array_index (workers, OwnedWorker, i).w.tid == tid)
      return TRUE;
  }
  return FALSE;
}

/* A worker runs no element call: its work is its CPU time, the rest of
 * its wall time it waited (for input, on a lock, on the GPU) */
static void
add_worker_rows (GpuprofSnapshot * snap, GArray * workers)
{
  guint i;

  for (i = 0; i < workers->len; i++) {
    const OwnedWorker *ow = &g_array_index (workers, OwnedWorker, i);
    GpuprofThreadRow row = { 0 };

    row.name = g_strdup (ow->w.name[0] ? ow->w.name : "worker");
    row.wall_ns = ow->w.last_ts > ow->w.first_ts ?
        ow->w.last_ts - ow->w.first_ts : 0;
    row.busy_ns = MIN (ow->w.cpu_ns, row.wall_ns);
    row.top_element = g_strdup (ow->owner->path);
    row.owner = g_strdup (ow->owner->path);
    row.kind = g_strdup (gpuprof_thread_kind_name
        (GPUPROF_THREAD_KIND_WORKER));
    g_array_append_val (snap->threads, row);
  }
}

static void
fill_thread_rows (GpuprofSnapshot * snap, GPtrArray * elements,
    guint32 pipeline_id, guint64 * wall_first, guint64 * wall_last)
{
  GPtrArray *threads = gpuprof_thread_list ();
  GArray *workers = owned_workers (elements);
  guint i, j, k;

  for (i = 0; i < threads->len; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    guint64 first = __atomic_load_n (&t->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&t->last_ts, __ATOMIC_RELAXED);
    GpuprofThreadRow row = { 0 };
    guint64 top_ns = 0;
    GpuprofElement *top = NULL;
    GpuprofThreadKind kind;
    guint32 owner_id;
    guint64 in_call_wait;

    if (!first || t->pipeline_id != pipeline_id)
      continue;
    /* the sampled hook time, scaled in snapshot_pipeline_wall */
    snap->tracer_overhead_ns += __atomic_load_n (&t->ovh_ns, __ATOMIC_RELAXED);
    snap->tracer_overhead_samples += __atomic_load_n (&t->ovh_samples,
        __ATOMIC_RELAXED);
    /* a worker that ran a hook (an event, a query) but never pushed: its
     * row is its worker's (add_worker_rows), on its CPU clock */
    if (is_owned_worker (workers, t->tid))
      continue;
    *wall_first = *wall_first ? MIN (*wall_first, first) : first;
    *wall_last = MAX (*wall_last, last);
    row.name = gpuprof_thread_dup_name (t);
    row.wall_ns = last > first ? last - first : 0;
    row.busy_ns = __atomic_load_n (&t->busy_ns, __ATOMIC_RELAXED);
    /* its GPU waits inside calls are in the elements' self time: not work
     * (fill_gpu_wait); 0 with GPU attribution off */
    gpuprof_gpu_get_thread_wait (GPUPROF_GPU_CHANNEL_TRACER, (guint32) t->tid,
        &in_call_wait);
    row.busy_ns -= MIN (in_call_wait, row.busy_ns);
    for (j = 0; j < elements->len; j++) {
      GpuprofElement *e = g_ptr_array_index (elements, j);
      for (k = 0; k < GPUPROF_THREAD_SLOTS; k++) {
        if (e->stats.slots[k].thread == t && e->stats.slots[k].self_ns > top_ns) {
          top_ns = e->stats.slots[k].self_ns;
          top = e;
        }
      }
    }
    row.top_element = g_strdup (top ? top->path : "");
    owner_id = gpuprof_owners_lookup (t->tid, &kind);
    top = NULL;
    for (j = 0; owner_id && j < elements->len && !top; j++) {
      GpuprofElement *e = g_ptr_array_index (elements, j);
      if (e->id == owner_id)
        top = e;
    }
    row.owner = g_strdup (top ? top->path : "");
    row.kind = g_strdup (gpuprof_thread_kind_name (kind));
    g_array_append_val (snap->threads, row);
  }
  g_ptr_array_unref (threads);
  add_worker_rows (snap, workers);
  g_array_unref (workers);
}

/* the hooks' own time: the mean sampled push times every push (the
 * buffers the elements pushed), gpuprof-overhead.h */
static void
scale_overhead (GpuprofSnapshot * snap)
{
  guint64 pushes = 0;
  guint i;

  for (i = 0; i < snap->elements->len; i++)
    pushes += g_array_index (snap->elements, GpuprofElementRow,
        i).buffers_out;
  snap->tracer_overhead_ns = snap->tracer_overhead_samples ?
      (guint64) ((gdouble) snap->tracer_overhead_ns * pushes /
      snap->tracer_overhead_samples) : 0;
}

static GpuprofSnapshot *
snapshot_pipeline_wall (GpuprofProfiler * p, GpuprofPipeline * pl,
    guint64 * wall_first, guint64 * wall_last)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new (pl->name);
  GPtrArray *all = gpuprof_objects_elements (p->objects);
  GPtrArray *mine = g_ptr_array_new ();
  guint64 first = 0, last = 0;
  guint i, j;

  gpuprof_objects_refresh_roles (p->objects);
  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    if (e->pipeline != pl)
      continue;
    g_ptr_array_add (mine, e);
    if (element_active (p, e)) {
      GpuprofElementRow row = { 0 };
      fill_element_row (p, &row, e);
      g_array_append_val (snap->elements, row);
      gpuprof_snapshot_add_histogram (snap, "element_self", e->path,
          &e->stats.self_hist, TRUE);
    }
    for (j = 0; e->queues && j < e->queues->len; j++) {
      GpuprofQueueRow row = { 0 };
      fill_queue_row (&row, g_ptr_array_index (e->queues, j));
      g_array_append_val (snap->queues, row);
    }
  }
  fill_thread_rows (snap, mine, pl->id, &first, &last);
  scale_overhead (snap);
  gpuprof_links_fill (snap, p->objects, mine);
  gpuprof_batches_snapshot (p->batches, mine, snap);
  gpuprof_streams_snapshot (p->streams, p->objects, mine, snap);
  gpuprof_advice_compute (snap);
  snap->wall_ns = last > first ? last - first : 0;
  gpuprof_snapshot_sort (snap);
  gpuprof_snapshot_compute_verdict (snap);
  g_ptr_array_unref (mine);
  g_ptr_array_unref (all);
  if (wall_first)
    *wall_first = first;
  if (wall_last)
    *wall_last = last;
  return snap;
}

static GpuprofSnapshot *
snapshot_pipeline (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  return snapshot_pipeline_wall (p, pl, NULL, NULL);
}

/* The GPU tables, part of the snapshot so saved summaries print them too */
static void
gpu_section (GpuprofProfiler * p, GpuprofSnapshot * snap, guint64 first,
    guint64 last)
{
  /* GPU records are on the monotonic clock */
  guint64 start = gpuprof_clock_start_monotonic ();

  gpuprof_gpu_tables_fill (snap, GPUPROF_GPU_CHANNEL_TRACER, element_path_cb,
      p, first ? start + first : 0, last ? start + last : 0);
}

/* What only a live run knows: why GPU attribution is off, each output's
 * line (the trace file). */
static void
append_live_sections (GpuprofProfiler * p, GString * out)
{
  if (!p->gpu_on && p->gpu_off_reason)
    g_string_append_printf (out, "\nGPU: %s\n", p->gpu_off_reason);
  gpuprof_outputs_describe (p->outputs, out);
}

static gboolean
pipeline_active (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  GPtrArray *all = gpuprof_objects_elements (p->objects);
  gboolean active = FALSE;
  guint i;

  for (i = 0; i < all->len && !active; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    active = e->pipeline == pl && element_active (p, e);
  }
  g_ptr_array_unref (all);
  return active;
}

/* A new run starts from zero; nothing streams at NULL. */
static void
reset_pipeline (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  GPtrArray *all = gpuprof_objects_elements (p->objects);
  GPtrArray *threads = gpuprof_thread_list ();
  guint i, j;

  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    if (e->pipeline != pl)
      continue;
    gpuprof_stats_reset (&e->stats);
    gpuprof_objects_new_run (p->objects, e);
    gpuprof_batches_reset (p->batches, e);
    gpuprof_streams_reset (p->streams, e);
    if (e->async)
      gpuprof_async_reset (e->async);
    if (e->workers)
      gpuprof_workers_reset (e->workers);
    for (j = 0; e->queues && j < e->queues->len; j++)
      gpuprof_queue_reset (g_ptr_array_index (e->queues, j));
  }
  for (i = 0; i < threads->len; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    if (t->pipeline_id == pl->id)
      gpuprof_thread_reset_run (t);
  }
  g_ptr_array_unref (threads);
  g_ptr_array_unref (all);
  __atomic_store_n (&pl->playing_since, 0, __ATOMIC_RELAXED);
}

/* Records of destroyed objects whose runs were reported: freed while no
 * report reads them (report lock held). Their trace events are written
 * first, while their names can still be looked up. */
void
gpuprof_profiler_sweep_locked (GpuprofProfiler * p)
{
  GArray *elements, *pads;

  if (!p->trace) {
    gpuprof_objects_sweep (p->objects, NULL, NULL);
    return;
  }
  gpuprof_trace_flush (p->trace);
  elements = g_array_new (FALSE, FALSE, sizeof (guint32));
  pads = g_array_new (FALSE, FALSE, sizeof (guint32));
  gpuprof_objects_sweep (p->objects, elements, pads);
  /* not under the registry lock: the writer takes it to look names up */
  gpuprof_trace_forget_names (p->trace, elements, pads);
  g_array_unref (elements);
  g_array_unref (pads);
}

/* ---------------------------------------------------------------- live */

/* interval=: a thread of our own wakes every interval and snapshots each
 * running pipeline, also when no buffer flows (no main loop, no buffer
 * arrival drives it). The snapshot reads the counters the hooks keep, as
 * get-snapshot does: streaming threads are never waited for. */

/* trace=: each sink's rate over the interval, a counter beside the queue
 * levels the hooks write */
static void
live_trace_rates (GpuprofProfiler * p, GpuprofPipeline * pl,
    const GpuprofInterval * iv, guint64 now)
{
  GPtrArray *all;
  guint i, j;

  if (!p->trace || iv->final || iv->interval_s <= 0.0)
    return;
  all = gpuprof_objects_elements (p->objects);
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
      gpuprof_trace_push_locked (p->trace, &ev);
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
  GPtrArray *pipelines = gpuprof_objects_pipelines (p->objects);
  guint64 now = gpuprof_clock_now ();
  guint i;

  for (i = 0; i < pipelines->len; i++) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i);
    GpuprofSnapshot *snap;

    if (!pipeline_active (p, pl))
      continue;
    snap = snapshot_pipeline (p, pl);
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

/* the watchdog looks this often; snapshots come every interval */
#define STALL_CHECK_US (G_USEC_PER_SEC / 4)

static gpointer
live_thread (gpointer data)
{
  GpuprofProfiler *p = data;
  gint64 period = (gint64) (p->params.interval * G_USEC_PER_SEC);
  gint64 wake = period > 0 ? MIN (period, STALL_CHECK_US) : STALL_CHECK_US;
  gint64 now = g_get_monotonic_time ();
  gint64 next = now + wake, next_snapshot = now + period;

  g_mutex_lock (&p->live_lock);
  while (!p->live_stop) {
    if (g_cond_wait_until (&p->live_cond, &p->live_lock, next))
      continue;                 /* woken: stop, or spurious */
    g_mutex_unlock (&p->live_lock);
    now = g_get_monotonic_time ();
    g_mutex_lock (&p->report_lock);
    gpuprof_stall_check (p->stall, p->objects, gpuprof_clock_now ());
    if (period > 0 && now >= next_snapshot) {
      live_tick_locked (p);
      /* a late snapshot (a loaded machine) is not made up for */
      next_snapshot += period;
      if (next_snapshot <= now)
        next_snapshot = now + period;
    }
    g_mutex_unlock (&p->report_lock);
    g_mutex_lock (&p->live_lock);
    next += wake;
    if (next <= now)
      next = now + wake;
    if (period > 0 && next > next_snapshot)
      next = next_snapshot;
  }
  g_mutex_unlock (&p->live_lock);
  return NULL;
}

static void
live_start (GpuprofProfiler * p)
{
  g_mutex_init (&p->live_lock);
  g_cond_init (&p->live_cond);
  if (p->params.interval <= 0.0 && p->params.stall <= 0.0)
    return;
  if (p->params.interval > 0.0)
    p->live_previous = g_hash_table_new_full (NULL, NULL, NULL,
        (GDestroyNotify) gpuprof_snapshot_free);
  p->stall = gpuprof_stall_new (p->params.stall);
  p->live_last_ns = gpuprof_clock_now ();
  p->live_thread = g_thread_new ("gpuprof-live", live_thread, p);
}

static void
live_stop (GpuprofProfiler * p)
{
  if (!p->live_thread)
    return;
  g_mutex_lock (&p->live_lock);
  p->live_stop = TRUE;
  g_cond_signal (&p->live_cond);
  g_mutex_unlock (&p->live_lock);
  g_thread_join (p->live_thread);
  p->live_thread = NULL;
}

/* The report of a run that went to PLAYING and got no buffer on any pad
 * (a udpsrc with no sender, an appsrc never fed): where it waited. */
static gchar *
nothing_flowed (GpuprofProfiler * p, GpuprofPipeline * pl, guint64 playing)
{
  GPtrArray *all = gpuprof_objects_elements (p->objects);
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
  gboolean flowed = pipeline_active (p, pl);

  if (!flowed && !playing)
    return;
  if (p->stall)
    gpuprof_stall_run_end (p->stall, pl);
  if (p->gpu_on)
    gpuprof_cupti_flush (TRUE);
  snap = snapshot_pipeline_wall (p, pl, &first, &last);
  if (p->gpu_on)
    gpu_section (p, snap, first, last);
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
  reset_pipeline (p, pl);
}

void
gpuprof_profiler_report_pipeline (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  g_mutex_lock (&p->report_lock);
  report_pipeline_locked (p, pl);
  gpuprof_profiler_sweep_locked (p);
  g_mutex_unlock (&p->report_lock);
}

void
gpuprof_profiler_report_unreported (GpuprofProfiler * p)
{
  GPtrArray *pipelines;
  guint i;

  g_mutex_lock (&p->report_lock);
  pipelines = gpuprof_objects_pipelines (p->objects);
  for (i = 0; i < pipelines->len; i++)
    report_pipeline_locked (p, g_ptr_array_index (pipelines, i));
  g_ptr_array_unref (pipelines);
  g_mutex_unlock (&p->report_lock);
}

/* a live snapshot with the GPU tables when attribution is on (metrics=,
 * get-metrics); the caller holds the report lock and flushed CUPTI */
static GpuprofSnapshot *
snapshot_pipeline_gpu (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  guint64 first = 0, last = 0;
  GpuprofSnapshot *snap = snapshot_pipeline_wall (p, pl, &first, &last);

  if (p->gpu_on)
    gpu_section (p, snap, first, last);
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
  pipelines = gpuprof_objects_pipelines (p->objects);

  /* the named pipeline, or the last one with activity */
  for (i = pipelines->len; i > 0 && !snap; i--) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i - 1);
    if (pipeline ? !g_strcmp0 (pl->name, pipeline) : pipeline_active (p, pl))
      snap = gpu ? snapshot_pipeline_gpu (p, pl) : snapshot_pipeline (p, pl);
  }
  g_ptr_array_unref (pipelines);
  g_mutex_unlock (&p->report_lock);
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

/* metrics=: one scrape, on the server's thread; snapshots as get-snapshot
 * takes them, so streaming threads are never waited for */
static gchar *
metrics_body (gpointer data)
{
  GpuprofProfiler *p = data;
  guint64 start = gpuprof_clock_now ();
  GPtrArray *snaps = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_snapshot_free);
  GPtrArray *pipelines;
  gchar *text;
  guint i;

  if (p->gpu_on)
    gpuprof_cupti_flush (FALSE);
  g_mutex_lock (&p->report_lock);
  pipelines = gpuprof_objects_pipelines (p->objects);
  for (i = 0; i < pipelines->len; i++) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i);

    if (pipeline_active (p, pl))
      g_ptr_array_add (snaps, snapshot_pipeline_gpu (p, pl));
  }
  g_ptr_array_unref (pipelines);
  g_mutex_unlock (&p->report_lock);
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
  g_mutex_unlock (&p->report_lock);
  return text;
}
