/* gpuprof: the profiling session — what each tracer hook does. */
#include "config.h"
#include "gpuprof-profiler.h"

#include "gpuprof-advice.h"
#include "gpuprof-batch.h"
#include "gpuprof-clock.h"
#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"
#include "gpuprof-gpu-tables.h"
#include "gpuprof-gputrace.h"
#include "gpuprof-nvtx.h"
#include "gpuprof-objects.h"
#include "gpuprof-queue.h"
#include "gpuprof-report.h"
#include "gpuprof-summary.h"
#include "gpuprof-thread.h"
#include "gpuprof-trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_debug);
#define GST_CAT_DEFAULT gpuprof_debug

/* GStreamer's own chain-list function, which splits a list into chain calls
 * (each with its own hooks): read from a new pad once */
static GstPadChainListFunction default_chain_list;

struct _GpuprofProfiler
{
  GpuprofParams params;
  GpuprofObjects *objects;
  GpuprofTrace *trace;          /* NULL: no trace= or it could not be opened */
  gsize gpu_started;            /* g_once: CUPTI tried when a run starts */
  gboolean gpu_on;              /* CUPTI attribution running */
  gchar *gpu_off_reason;        /* why not, for the report (cupti=on) */
  GpuprofBatches *batches;      /* per-batch analysis (gpuprof-batch.h) */

  GMutex report_lock;           /* guards below; reports are rare */
  gchar *last_report;
  gboolean report_file_opened;  /* first report truncates, later ones append */
};

/* ---------------------------------------------------------------- setup */

static void
queue_overrun_cb (GstElement * queue, gpointer user_data)
{
  gpuprof_profiler_queue_overrun (user_data, queue);
}

/* registry lock held: no hook can run into us here */
static void
element_init (GpuprofElement * e, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  /* NVTX rows are named by the path in the pipeline: an element with none
   * yet gets its domain when it has one (element_resolved) */
  if (p->params.nvtx && e->pipeline)
    gpuprof_nvtx_element_init (e);
  if (e->role == GPUPROF_ROLE_QUEUE && e->element) {
    if (g_signal_lookup ("overrun", G_OBJECT_TYPE (e->element))) {
      g_signal_connect (e->element, "overrun", G_CALLBACK (queue_overrun_cb),
          p);
      e->queue_has_overrun = TRUE;
    } else {
      guint max_buffers = 0, max_bytes = 0;
      if (g_object_class_find_property (G_OBJECT_GET_CLASS (e->element),
              "max-size-buffers"))
        g_object_get (e->element, "max-size-buffers", &max_buffers,
            "max-size-bytes", &max_bytes, NULL);
      e->queue_limit_buffers = max_buffers;
      e->queue_limit_bytes = max_bytes;
    }
  }
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
  GPtrArray *threads = gpuprof_thread_list ();
  gchar *name = NULL;
  guint i;

  for (i = 0; i < threads->len && !name; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    if (t->id == id)
      name = gpuprof_thread_dup_name (t);
  }
  g_ptr_array_unref (threads);
  return name;
}

static gchar *
pipeline_name_cb (gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  return gpuprof_objects_dup_last_pipeline_name (p->objects);
}

static void
open_trace (GpuprofProfiler * p)
{
  GpuprofTraceNames names = { p, element_path_cb, pad_name_cb,
    thread_name_cb, pipeline_name_cb
  };
  GRegex *filter = NULL;
  GError *err = NULL;

  if (p->params.trace_elements)
    filter = g_regex_new (p->params.trace_elements, 0, 0, NULL);
  /* an error was printed once by the writer; the run goes on without */
  p->trace = gpuprof_trace_new (p->params.trace_path, &names,
      (guint64) p->params.trace_max_mb << 20, filter, &err);
  g_clear_error (&err);
  if (filter)
    g_regex_unref (filter);
}

static void
start_gpu (GpuprofProfiler * p)
{
  GpuprofCuptiSettings s = { p->params.cupti, p->params.cupti_lib, 0, 0 };
  gchar *reason = NULL;

  if (p->params.cupti == GPUPROF_CUPTI_OFF)
    return;
  p->gpu_on = gpuprof_cupti_start (&s, &reason);
  if (p->gpu_on) {
    gpuprof_gpu_set_path_func (GPUPROF_GPU_CHANNEL_TRACER, element_path_cb,
        p);
    gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
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
  if (transition == GST_STATE_CHANGE_NULL_TO_READY
      && g_once_init_enter (&p->gpu_started)) {
    start_gpu (p);
    g_once_init_leave (&p->gpu_started, 1);
  }
}

GpuprofProfiler *
gpuprof_profiler_new (const GpuprofParams * params)
{
  GpuprofProfiler *p = g_new0 (GpuprofProfiler, 1);

  if (!gpuprof_debug)
    GST_DEBUG_CATEGORY_INIT (gpuprof_debug, "gpuprof", 0, "gpuprof tracer");
  if (!default_chain_list) {
    GstPad *pad = gst_pad_new (NULL, GST_PAD_SINK);
    default_chain_list = GST_PAD_CHAINLISTFUNC (pad);
    gst_object_unref (pad);
  }
  gpuprof_params_copy (&p->params, params);
  if (p->params.nvtx && !gpuprof_nvtx_available ())
    GST_INFO ("built without NVTX headers: nvtx=on has no effect");
  g_mutex_init (&p->report_lock);
  p->objects = gpuprof_objects_new (element_init, pad_init, element_resolved,
      element_fini, p);
  p->batches = gpuprof_batches_new ();
  if (p->params.trace_path)
    open_trace (p);
  return p;
}

static void end_queues (GpuprofProfiler * p, GpuprofElement * e, guint64 ts);

/* Queues still holding buffers at the end (a pipeline never stopped): they
 * are left, so the report says so and every residency in the trace ends. */
static void
end_all_queues (GpuprofProfiler * p)
{
  GPtrArray *all = gpuprof_objects_elements (p->objects);
  guint64 ts = gpuprof_clock_now ();
  guint i;

  for (i = 0; i < all->len; i++)
    end_queues (p, g_ptr_array_index (all, i), ts);
  g_ptr_array_unref (all);
}

/* End of the process (or of the tracer): pending reports, then the files
 * and CUPTI are closed. Hooks that still run afterwards are harmless. */
void
gpuprof_profiler_shutdown (GpuprofProfiler * p)
{
  end_all_queues (p);
  gpuprof_profiler_report_unreported (p);
  if (p->trace) {
    GError *err = NULL;
    gpuprof_gputrace_detach (p->trace);
    if (!gpuprof_trace_close (p->trace, NULL, &err) && err)
      g_printerr ("gpuprof: %s\n", err->message);
    g_clear_error (&err);
  }
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
  if (p->trace)
    gpuprof_trace_free (p->trace);
  g_free (p->gpu_off_reason);
  gpuprof_objects_free (p->objects);
  gpuprof_batches_free (p->batches);
  g_mutex_clear (&p->report_lock);
  g_free (p->last_report);
  gpuprof_params_clear (&p->params);
  g_free (p);
}

const GpuprofParams *
gpuprof_profiler_get_params (GpuprofProfiler * p)
{
  return &p->params;
}

/* ------------------------------------------------------------ threads */

/* Events for the trace: into the thread's own ring (no lock), or, for a
 * thread that has none yet, through the writer's lock. */
static inline void
trace_event (GpuprofProfiler * p, GpuprofThread * t, const GpuprofEvent * ev)
{
  if (t && t->trace_ring)
    gpuprof_trace_push (t->trace_ring, ev);
  else if (p->trace)
    gpuprof_trace_push_locked (p->trace, ev);
}

static void
name_thread (GpuprofProfiler * p, GpuprofThread * t)
{
  if (p->params.nvtx)
    gpuprof_nvtx_name_thread (t->tid, t->name);
  if (p->gpu_on)
    gpuprof_gpu_set_thread_name (t->name);
  if (t->trace_ring) {
    GpuprofEvent ev = { GPUPROF_EVENT_THREAD_NAME };
    ev.thread_id = t->id;
    ev.ts = gpuprof_clock_now ();
    gpuprof_trace_push (t->trace_ring, &ev);
  }
}

/* First hook on a thread: it gets a trace ring and its name is told */
static void
announce_thread (GpuprofProfiler * p, GpuprofThread * t)
{
  t->announced = TRUE;
  if (p->trace)
    t->trace_ring = gpuprof_trace_ring_for_thread (p->trace, t->id);
  name_thread (p, t);
}

static inline GpuprofThread *
enter_thread (GpuprofProfiler * p, guint64 ts)
{
  GpuprofThread *t = gpuprof_thread_get ();

  gpuprof_clock_observe_hook (ts);
  if (G_UNLIKELY (!t->announced))
    announce_thread (p, t);
  gpuprof_thread_touch (t, ts);
  return t;
}

/* Post hooks find the frame their pre hook pushed. Frames left above it
 * (a hook missed, e.g. the tracer attached mid-call) are discarded. */
static GpuprofFrame *
pop_frame (GpuprofThread * t, GpuprofFrameKind kind, GpuprofPad * pad);

/* The usual case costs no lookup: the top frame is the one for this pad. */
static inline GpuprofFrame *
pop_frame_for (GpuprofProfiler * p, GpuprofThread * t, GpuprofFrameKind kind,
    GstPad * pad)
{
  GpuprofFrame *top = gpuprof_thread_top (t);
  GpuprofPad *gp;

  if (G_LIKELY (top && top->gstpad == pad && top->kind == kind)) {
    t->depth--;
    return top;
  }
  gp = gpuprof_objects_pad (p->objects, t, pad);
  return gp->element ? pop_frame (t, kind, gp) : NULL;
}

static GpuprofFrame *
pop_frame (GpuprofThread * t, GpuprofFrameKind kind, GpuprofPad * pad)
{
  gint i;

  for (i = (gint) t->depth - 1; i >= 0; i--) {
    GpuprofFrame *f = &t->frames[i];
    if (f->kind == kind && f->pad == pad) {
      t->depth = i;
      return f;
    }
  }
  return NULL;
}

/* Time spent in a call made from inside another is not the caller's own:
 * give it to the enclosing call, or to the thread's loop at top level. */
static inline void
charge_to_parent (GpuprofThread * t, guint64 ns)
{
  GpuprofFrame *parent = gpuprof_thread_top (t);

  if (!parent)
    t->loop_child_ns += ns;
  else if (parent->kind == GPUPROF_FRAME_CHAIN
      || parent->kind == GPUPROF_FRAME_PULL)
    parent->child_ns += ns;
  /* PUSH and CALL frames measure their own duration, which includes this */
}

/* An element seen before it had a pipeline is resolved when it streams */
static inline guint32
element_pipeline_id (GpuprofProfiler * p, GpuprofElement * e)
{
  guint32 id = __atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED);

  return G_LIKELY (id) ? id : gpuprof_objects_resolve_streaming (p->objects,
      e);
}

/* ------------------------------------------------------------- queues */

static void
trace_queue_level (GpuprofProfiler * p, GpuprofThread * t, GpuprofQueue * q,
    guint64 ts, const GpuprofQueueItem * item)
{
  GpuprofEvent ev = { GPUPROF_EVENT_QUEUE_LEVEL };

  ev.element_id = q->element->id;
  ev.thread_id = t ? t->id : 0;
  ev.ts = ts;
  ev.self = item->level_buffers;
  ev.size = item->level_bytes;
  trace_event (p, t, &ev);
}

static void
queue_item_end (GpuprofQueue * q, const GpuprofQueueItem * item, guint64 ts,
    GpuprofQueueOutcome outcome, gpointer user_data)
{
  GpuprofProfiler *p = user_data;

  if (p->params.nvtx && item->nvtx_range)
    gpuprof_nvtx_end (q->element, item->nvtx_range);
  if (p->trace) {
    GpuprofThread *t = gpuprof_thread_peek ();
    GpuprofEvent ev = { GPUPROF_EVENT_QUEUE_OUT };
    ev.element_id = q->element->id;
    ev.thread_id = t ? t->id : 0;
    ev.ts = ts;
    ev.seq = item->seq;
    ev.size = item->size;
    ev.pts = GST_CLOCK_TIME_NONE;
    ev.self = item->n_buffers;
    ev.flow = gpuprof_queue_residency_id (q, item->seq);
    /* where the buffer's arrow starts: the enqueuing chain call */
    ev.dur = ts > item->in_ts ? ts - item->in_ts : 0;
    ev.arg0 = gpuprof_event_queue_out (outcome, item->in_thread);
    trace_event (p, t, &ev);
    trace_queue_level (p, t, q, ts, item);
  }
}

/* what a copy of the buffer keeps, to find it again (gpuprof-queue.h) */
static void
queue_fingerprint (GpuprofQueueItem * item, GstBuffer * buffer,
    GstBufferList * list)
{
  if (!buffer && list && gst_buffer_list_length (list))
    buffer = gst_buffer_list_get (list, 0);
  item->pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
  item->dts = buffer ? GST_BUFFER_DTS (buffer) : GST_CLOCK_TIME_NONE;
  item->offset = buffer ? GST_BUFFER_OFFSET (buffer) : GST_BUFFER_OFFSET_NONE;
}

static void
queue_enqueue (GpuprofProfiler * p, GpuprofThread * t, GpuprofPad * pad,
    guint64 ts, gconstpointer key, GstBuffer * buffer, GstBufferList * list,
    guint n_buffers, guint64 size, guint64 seq)
{
  GpuprofQueueItem item = { key, ts, n_buffers, t->id, ts, size, 0, 0, seq };

  if (buffer && GST_BUFFER_DURATION_IS_VALID (buffer))
    item.duration = GST_BUFFER_DURATION (buffer);
  queue_fingerprint (&item, buffer, list);
  if (p->params.nvtx)
    item.nvtx_range = gpuprof_nvtx_start (pad->element, pad->nvtx_msg, seq);
  gpuprof_queue_enqueue (pad->queue, &item);
  if (t->trace_ring) {
    GpuprofEvent ev = { GPUPROF_EVENT_QUEUE_IN };
    ev.element_id = pad->element->id;
    ev.pad_id = pad->id;
    ev.thread_id = t->id;
    ev.ts = ts;
    ev.seq = seq;
    ev.pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
    ev.size = size;
    ev.self = n_buffers;
    ev.flow = gpuprof_queue_residency_id (pad->queue, seq);
    gpuprof_trace_push (t->trace_ring, &ev);
    trace_queue_level (p, t, pad->queue, ts, &item);
  }
}

static guint64
list_size (GstBufferList * list)
{
  guint i, n = gst_buffer_list_length (list);
  guint64 size = 0;

  for (i = 0; i < n; i++)
    size += gst_buffer_get_size (gst_buffer_list_get (list, i));
  return size;
}

/* A possible new maximum level: queue and queue2 say their true level (our
 * mirror may be one buffer ahead); a multiqueue pad pair has only ours.
 * Read after the chain returned, the queue's thread may already have taken
 * the buffer: the level was at least the buffers and bytes it was given.
 * Reached rarely, except on a full queue, whose upstream waits anyway. */
static void
update_queue_level (GpuprofElement * e, GpuprofQueue * q, guint n_buffers,
    guint64 size)
{
  guint64 buffers, bytes, time;
  guint real_buffers, real_bytes;

  if (!gpuprof_queue_chain_done (q, n_buffers, &buffers, &bytes, &time))
    return;
  if (e->element && g_object_class_find_property (G_OBJECT_GET_CLASS
          (e->element), "current-level-buffers")) {
    g_object_get (e->element, "current-level-buffers", &real_buffers,
        "current-level-bytes", &real_bytes, "current-level-time", &time,
        NULL);
    buffers = real_buffers;
    bytes = real_bytes;
  }
  gpuprof_queue_update_max (q, MAX (buffers, n_buffers), MAX (bytes, size),
      time);
}

/* The queue stopped or the trace closes: what it still holds was never
 * pushed, and every residency gets its end. */
static void
end_queues (GpuprofProfiler * p, GpuprofElement * e, guint64 ts)
{
  guint i;

  for (i = 0; e->queues && i < e->queues->len; i++)
    gpuprof_queue_end_run (g_ptr_array_index (e->queues, i), ts,
        queue_item_end, p);
}

void
gpuprof_profiler_queue_overrun (GpuprofProfiler * p, GstElement * queue)
{
  GpuprofThread *t = gpuprof_thread_peek ();
  GpuprofFrame *f = t ? gpuprof_thread_top (t) : NULL;

  /* only the upstream thread, inside the queue's chain, blocks */
  if (f && f->kind == GPUPROF_FRAME_CHAIN && f->element->element == queue
      && !f->blocked_start)
    f->blocked_start = gpuprof_clock_now ();
}

/* -------------------------------------------------------- buffer path */

void
gpuprof_profiler_chain_pre (GpuprofProfiler * p, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofPad *gp;
  GpuprofElement *e;
  GpuprofFrame *f;
  guint64 payload, batch;
  guint n;

  /* the hook runs before the pad's checks: a flushing or EOS pad refuses
   * the data, which never reaches the element (chain-post finds no frame) */
  if (G_UNLIKELY (GST_OBJECT_FLAGS (pad) & (GST_PAD_FLAG_FLUSHING |
              GST_PAD_FLAG_EOS)))
    return;
  /* a list the pad's default function splits: its chain calls count, and
   * the push that made it counts only those (push_post) */
  if (G_UNLIKELY (list) && GST_PAD_CHAINLISTFUNC (pad) == default_chain_list) {
    f = gpuprof_thread_top (t);
    if (f && f->kind == GPUPROF_FRAME_PUSH)
      f->split = TRUE;
    return;
  }
  gp = gpuprof_objects_pad (p->objects, t, pad);
  e = gp->element;
  if (!e)
    return;
  f = gpuprof_thread_top (t);
  if (G_UNLIKELY (f && f->kind == GPUPROF_FRAME_PUSH && f->split))
    f->split_calls++;
  f = gpuprof_thread_push_frame (t);
  if (!f)
    return;
  n = list ? gst_buffer_list_length (list) : 1;
  f->kind = GPUPROF_FRAME_CHAIN;
  f->pad = gp;
  f->gstpad = pad;
  f->element = e;
  f->start = ts;
  f->child_ns = 0;
  f->blocked_start = 0;
  f->n_buffers = n;
  f->seq = gpuprof_pad_advance (gp, n);
  f->pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
  f->size = 0;
  f->key = buffer ? (gconstpointer) buffer : list;
  f->batch_id = 0;
  t->pipeline_id = element_pipeline_id (p, e);
  if (__atomic_load_n (&e->task_pushes, __ATOMIC_RELAXED))
    __atomic_store_n (&e->last_input_ts, ts, __ATOMIC_RELAXED);

  if (G_UNLIKELY (gp->queue)) {
    f->size = buffer ? gst_buffer_get_size (buffer) : list_size (list);
    __atomic_store_n (&gp->queue->upstream_thread, t, __ATOMIC_RELAXED);
    /* queue2 has no "overrun": judge "full" before the chain blocks */
    if (!e->queue_has_overrun && gpuprof_queue_is_full (gp->queue))
      f->blocked_start = ts;
    queue_enqueue (p, t, gp, ts, f->key, buffer, list, n, f->size, f->seq);
  } else if (t->trace_ring) {
    f->size = buffer ? gst_buffer_get_size (buffer) : list_size (list);
  }
  /* a call processing a batch is labelled with the batch number, so NVTX
   * and GPU records land per batch */
  batch = gpuprof_batches_chain_pre (p->batches, t, f, buffer, ts);
  payload = batch ? batch : f->seq;
  if (p->params.nvtx) {
    gpuprof_nvtx_push (e, gp->nvtx_msg, payload, GPUPROF_NVTX_CAT_CHAIN);
    f->nvtx_open = TRUE;
  } else {
    f->nvtx_open = FALSE;
  }
  gpuprof_gpu_chain_enter (e->id, payload);
}

static void
trace_call (GpuprofProfiler * p, GpuprofThread * t, GpuprofFrame * f,
    guint64 incl, guint64 self)
{
  GpuprofEvent ev = { GPUPROF_EVENT_CHAIN };

  ev.element_id = f->element->id;
  ev.pad_id = f->pad->id;
  ev.thread_id = t->id;
  ev.ts = f->start;
  ev.dur = incl;
  ev.seq = f->seq;
  ev.pts = f->pts;
  ev.size = f->size;
  ev.self = self;
  gpuprof_trace_push (t->trace_ring, &ev);
}

/* A chain call that failed still got its data: the push that made it must
 * not take its buffers back (push_post) */
static void
mark_crossed (GpuprofThread * t)
{
  GpuprofFrame *up = gpuprof_thread_top (t);

  if (up && up->kind == GPUPROF_FRAME_PUSH)
    up->crossed = TRUE;
}

void
gpuprof_profiler_chain_post (GpuprofProfiler * p, guint64 ts, GstPad * pad,
    GstFlowReturn res)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofFrame *f = pop_frame_for (p, t, GPUPROF_FRAME_CHAIN, pad);
  GpuprofPad *gp;
  GpuprofElement *e;
  guint64 incl, blocked = 0, self;

  if (!f)
    return;
  gp = f->pad;
  e = f->element;
  gpuprof_gpu_chain_exit ();
  if (f->nvtx_open)
    gpuprof_nvtx_pop (e);
  incl = ts > f->start ? ts - f->start : 0;
  if (f->blocked_start)
    blocked = ts > f->blocked_start ? ts - f->blocked_start : 0;
  else if (__atomic_load_n (&e->task_pushes, __ATOMIC_RELAXED)
      && e->role != GPUPROF_ROLE_QUEUE)
    /* a muxer fed here works on its own thread: this thread only hands the
     * buffer over, or waits for room */
    blocked = incl > f->child_ns ? incl - f->child_ns : 0;
  if (blocked)
    __atomic_fetch_add (&e->stats.blocked_ns, blocked, __ATOMIC_RELAXED);
  self = incl > f->child_ns + blocked ? incl - f->child_ns - blocked : 0;
  gpuprof_stats_add_call (&e->stats, t, self, incl);
  gpuprof_batches_chain_post (p->batches, t, f, self);
  if (t->trace_ring)
    trace_call (p, t, f, incl, self);
  if (G_UNLIKELY (gp->queue)) {
    if (blocked) {
      gpuprof_queue_add_backpressure (gp->queue, blocked);
      gpuprof_queue_mark_entered (gp->queue, f->key, ts);
    }
    if (res != GST_FLOW_OK)
      gpuprof_queue_unenqueue (gp->queue, f->key, f->n_buffers,
          queue_item_end, ts, p);
    else
      update_queue_level (e, gp->queue, f->n_buffers, f->size);
  }
  if (G_UNLIKELY (res != GST_FLOW_OK))
    mark_crossed (t);
  charge_to_parent (t, incl);
}

/* A push from a task loop: the time since the previous push is the
 * element's work per buffer (sources, demuxers). An element fed on other
 * threads (muxer, aggregator) waits for input in its loop: its work starts
 * when the last input arrived. A queue's loop only waits, so is never
 * charged. */
static void
charge_loop (GpuprofElement * e, GpuprofThread * t, guint64 ts)
{
  guint64 start = t->loop_mark, child = t->loop_child_ns, loop;
  guint64 input;

  /* its task thread sets it, chain threads read it (atomic) */
  if (!__atomic_load_n (&e->task_pushes, __ATOMIC_RELAXED)
      && e->role != GPUPROF_ROLE_SOURCE)
    __atomic_store_n (&e->task_pushes, TRUE, __ATOMIC_RELAXED);
  /* GPU work launched in this loop, outside chain calls, is its */
  if (G_UNLIKELY (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER)))
    gpuprof_gpu_set_thread_element (GPUPROF_GPU_CHANNEL_TRACER, e->id);
  input = __atomic_load_n (&e->last_input_ts, __ATOMIC_RELAXED);
  if (input > start) {
    start = input;
    child = 0;
  }
  loop = ts > start ? ts - start : 0;
  loop = loop > child ? loop - child : 0;
  gpuprof_stats_add_call (&e->stats, t, loop, loop);
}

void
gpuprof_profiler_push_pre (GpuprofProfiler * p, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofPad *gp = gpuprof_objects_pad (p->objects, t, pad);
  GpuprofElement *e = gp->element;
  GpuprofFrame *f;
  guint64 batch, seq;
  guint n;

  if (!e)
    return;
  n = list ? gst_buffer_list_length (list) : 1;
  seq = gpuprof_pad_advance (gp, n);
  t->pipeline_id = element_pipeline_id (p, e);

  if (t->depth == 0 && e->role != GPUPROF_ROLE_QUEUE)
    charge_loop (e, t, ts);
  if (G_UNLIKELY (gp->queue)) {
    GpuprofQueueItem pushed = { buffer ? (gconstpointer) buffer : list };
    pushed.n_buffers = n;
    pushed.size = buffer ? gst_buffer_get_size (buffer) : list_size (list);
    queue_fingerprint (&pushed, buffer, list);
    gpuprof_queue_dequeue (gp->queue, &pushed, ts, queue_item_end, p);
  }

  f = gpuprof_thread_push_frame (t);
  if (!f)
    return;
  f->kind = GPUPROF_FRAME_PUSH;
  f->pad = gp;
  f->gstpad = pad;
  f->element = e;
  f->start = ts;
  f->child_ns = 0;
  f->nvtx_open = FALSE;
  f->crossed = FALSE;
  f->split = FALSE;
  f->split_calls = 0;
  f->n_buffers = n;
  f->seq = seq;
  /* an aggregator's push forms a batch: a range with its number */
  batch = gpuprof_batches_push_pre (p->batches, gp, buffer, f->seq, ts);
  if (batch && p->params.nvtx) {
    gpuprof_nvtx_push (e, gp->nvtx_msg, batch, GPUPROF_NVTX_CAT_CHAIN);
    f->nvtx_open = TRUE;
  }
}

void
gpuprof_profiler_push_post (GpuprofProfiler * p, guint64 ts, GstPad * pad,
    GstFlowReturn res)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofFrame *f = pop_frame_for (p, t, GPUPROF_FRAME_PUSH, pad);

  if (!f)
    return;
  /* refused before the peer's chain function (flushing, EOS, not linked,
   * shutdown): the buffers did not leave; of a split list, those after the
   * chain call that failed never left either. One thread at a time pushes
   * on a pad, so the sequence is still ours. */
  if (G_UNLIKELY (res != GST_FLOW_OK)) {
    guint back = 0;

    if (f->split)
      back = f->n_buffers - MIN (f->split_calls, f->n_buffers);
    else if (!f->crossed)
      back = f->n_buffers;
    if (back) {
      __atomic_store_n (&f->pad->seq, f->seq - back, __ATOMIC_RELAXED);
      if (f->pad->queue)
        gpuprof_queue_take_back (f->pad->queue, back,
            res == GST_FLOW_FLUSHING);
    }
  }
  if (f->nvtx_open)
    gpuprof_nvtx_pop (f->element);
  if (t->depth == 0) {
    t->loop_mark = ts;
    t->loop_child_ns = 0;
  } else {
    charge_to_parent (t, ts > f->start ? ts - f->start : 0);
  }
}

/* The pad a pull really reaches: ghost and proxy pads only forward (their
 * own nested pull is ignored), so follow them to the element's pad.
 * Reffed, or NULL. */
static GstPad *
pull_source_pad (GstPad * pad)
{
  GstPad *peer = gst_pad_get_peer (pad);
  guint hops;

  /* bins nest: bounded, in case of a loop while relinking */
  for (hops = 0; peer && GST_IS_PROXY_PAD (peer) && hops < 64; hops++) {
    GstProxyPad *internal = gst_proxy_pad_get_internal (GST_PROXY_PAD (peer));

    gst_object_unref (peer);
    peer = internal ? gst_pad_get_peer (GST_PAD_CAST (internal)) : NULL;
    if (internal)
      gst_object_unref (internal);
  }
  return peer;
}

/* pull mode: the upstream element produces the data in its getrange */
void
gpuprof_profiler_pull_pre (GpuprofProfiler * p, guint64 ts, GstPad * pad)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofPad *gp = gpuprof_objects_pad (p->objects, t, pad);
  GstPad *peer;
  GpuprofPad *gpeer;
  GpuprofFrame *f;

  if (!gp->element)
    return;
  /* a thread that only pulls (a sink's or demuxer's loop) is the
   * pipeline's too */
  t->pipeline_id = element_pipeline_id (p, gp->element);
  if (!(peer = pull_source_pad (pad)))
    return;
  gpeer = gpuprof_objects_pad (p->objects, t, peer);
  gst_object_unref (peer);
  if (!gpeer->element || !(f = gpuprof_thread_push_frame (t)))
    return;
  f->kind = GPUPROF_FRAME_PULL;
  f->pad = gp;
  f->gstpad = gp;               /* never a GstPad: pulls take the slow path */
  f->element = gpeer->element;
  f->start = ts;
  f->child_ns = 0;
  f->blocked_start = 0;
  f->seq = gpuprof_pad_advance (gpeer, 1);
  f->key = gpeer;               /* the upstream pad, for a failed pull */
  f->pts = GST_CLOCK_TIME_NONE;
  f->size = 0;
  f->nvtx_open = p->params.nvtx;
  if (f->nvtx_open)
    gpuprof_nvtx_push (gpeer->element, gpeer->nvtx_msg, f->seq,
        GPUPROF_NVTX_CAT_PULL);
  gpuprof_gpu_chain_enter (gpeer->element->id, f->seq);
}

void
gpuprof_profiler_pull_post (GpuprofProfiler * p, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofPad *gp = gpuprof_objects_pad (p->objects, t, pad);
  GpuprofFrame *f;
  guint64 incl, self;

  if (!gp->element || !(f = pop_frame (t, GPUPROF_FRAME_PULL, gp)))
    return;
  gpuprof_gpu_chain_exit ();
  if (f->nvtx_open)
    gpuprof_nvtx_pop (f->element);
  incl = ts > f->start ? ts - f->start : 0;
  self = incl > f->child_ns ? incl - f->child_ns : 0;
  gpuprof_stats_add_call (&f->element->stats, t, self, incl);
  if (t->trace_ring) {
    f->size = buffer && res == GST_FLOW_OK ? gst_buffer_get_size (buffer) : 0;
    trace_call (p, t, f, incl, self);
  }
  /* the upstream pad's sequence counted the pull; the puller's sink pad
   * did not */
  if (res == GST_FLOW_OK) {
    gpuprof_stats_add_buffers_in (&gp->element->stats, 1);
  } else {
    GpuprofPad *up = (GpuprofPad *) f->key;
    __atomic_store_n (&up->seq, f->seq - 1, __ATOMIC_RELAXED);
  }
  charge_to_parent (t, incl);
}

/* ------------------------------------------------------ events, queries */

static void
push_call_frame (GpuprofThread * t, GpuprofPad * gp, GstPad * pad, guint64 ts)
{
  GpuprofFrame *f = gpuprof_thread_push_frame (t);

  if (!f)
    return;
  f->kind = GPUPROF_FRAME_CALL;
  f->pad = gp;
  f->gstpad = pad;
  f->element = gp->element;
  f->start = ts;
  f->child_ns = 0;
  f->nvtx_open = FALSE;
}

static void
pop_call_frame (GpuprofThread * t, GpuprofPad * gp, guint64 ts)
{
  GpuprofFrame *f = pop_frame (t, GPUPROF_FRAME_CALL, gp);

  if (f)
    charge_to_parent (t, ts > f->start ? ts - f->start : 0);
}

static const gchar *
event_mark_text (GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      return "EOS";
    case GST_EVENT_FLUSH_START:
      return "flush-start";
    case GST_EVENT_FLUSH_STOP:
      return "flush-stop";
    case GST_EVENT_SEGMENT:
      return "segment";
    default:
      return NULL;
  }
}

static GpuprofMarkType
event_mark_type (GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      return GPUPROF_MARK_EOS;
    case GST_EVENT_FLUSH_START:
      return GPUPROF_MARK_FLUSH_START;
    case GST_EVENT_FLUSH_STOP:
      return GPUPROF_MARK_FLUSH_STOP;
    default:
      return GPUPROF_MARK_SEGMENT;
  }
}

static void
trace_mark (GpuprofThread * t, GpuprofPad * gp, guint64 ts,
    GpuprofMarkType type, guint64 seq)
{
  GpuprofEvent ev = { GPUPROF_EVENT_MARK };

  ev.element_id = gp->element->id;
  ev.pad_id = gp->id;
  ev.thread_id = t->id;
  ev.ts = ts;
  ev.seq = seq;
  ev.pts = GST_CLOCK_TIME_NONE;
  ev.arg0 = type;
  gpuprof_trace_push (t->trace_ring, &ev);
}

static void
flush_peer_queue (GpuprofProfiler * p, GpuprofThread * t, GstPad * pad,
    guint64 ts)
{
  GstPad *peer = gst_pad_get_peer (pad);
  GpuprofPad *gpeer;

  if (!peer)
    return;
  gpeer = gpuprof_objects_pad (p->objects, t, peer);
  if (gpeer->queue)
    gpuprof_queue_flush (gpeer->queue, ts, queue_item_end, p);
  gst_object_unref (peer);
}

void
gpuprof_profiler_event_pre (GpuprofProfiler * p, guint64 ts, GstPad * pad,
    GstEvent * event)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofPad *gp = gpuprof_objects_pad (p->objects, t, pad);
  const gchar *mark;

  if (!gp->element)
    return;
  mark = event_mark_text (event);
  if (mark && p->params.nvtx)
    gpuprof_nvtx_mark (gp->element, mark, gp->seq, GPUPROF_NVTX_CAT_EVENT);
  if (mark && t->trace_ring)
    trace_mark (t, gp, ts, event_mark_type (event), gp->seq);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && GST_PAD_IS_SRC (pad))
    gpuprof_batches_eos (p->batches, gp);
  /* EOS leaves a queue after all its data, or after downstream refused
   * more (the queue then threw the rest away) */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && gp->queue
      && GST_PAD_IS_SRC (pad))
    gpuprof_queue_drain_at_eos (gp->queue, ts,
        gst_pad_get_last_flow_return (pad) != GST_FLOW_OK, queue_item_end, p);
  /* a flush empties the queue downstream of this pad: its items are gone */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START
      && GST_PAD_IS_SRC (pad))
    flush_peer_queue (p, t, pad, ts);
  push_call_frame (t, gp, pad, ts);
}

void
gpuprof_profiler_event_post (GpuprofProfiler * p, guint64 ts, GstPad * pad)
{
  GpuprofThread *t = enter_thread (p, ts);
  GpuprofPad *gp = gpuprof_objects_pad (p->objects, t, pad);

  if (gp->element)
    pop_call_frame (t, gp, ts);
}

/* A query on a streaming thread (not an application's): its record */
static GpuprofPad *
streaming_query_pad (GpuprofProfiler * p, GstPad * pad, GpuprofThread ** t)
{
  GpuprofPad *gp;

  *t = gpuprof_thread_peek ();
  if (!*t || (*t)->first_ts == 0)
    return NULL;
  gp = gpuprof_objects_pad (p->objects, *t, pad);
  return gp->element ? gp : NULL;
}

void
gpuprof_profiler_query_pre (GpuprofProfiler * p, guint64 ts, GstPad * pad)
{
  GpuprofThread *t;
  GpuprofPad *gp = streaming_query_pad (p, pad, &t);

  if (gp)
    push_call_frame (t, gp, pad, ts);
}

void
gpuprof_profiler_query_post (GpuprofProfiler * p, guint64 ts, GstPad * pad)
{
  GpuprofThread *t;
  GpuprofPad *gp = streaming_query_pad (p, pad, &t);

  if (gp)
    pop_call_frame (t, gp, ts);
}

/* ------------------------------------------------ messages, lifecycle */

void
gpuprof_profiler_message (GpuprofProfiler * p, guint64 ts,
    GstElement * element, GstMessage * message)
{
  GstStreamStatusType type;
  GstElement *owner;
  const GValue *val;
  GpuprofThread *t;
  gchar *name;

  /* the end of the data: the trace and GPU records are brought up to date,
   * so they are complete even if the process dies now */
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS && GST_IS_PIPELINE (element)
      && !GST_OBJECT_PARENT (element)) {
    if (p->gpu_on)
      gpuprof_cupti_flush (TRUE);
    if (p->trace)
      gpuprof_trace_flush (p->trace);
    return;
  }
  if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_STREAM_STATUS)
    return;
  gst_message_parse_stream_status (message, &type, &owner);
  if (type != GST_STREAM_STATUS_TYPE_ENTER)
    return;
  /* ENTER is posted from the new streaming thread itself */
  val = gst_message_get_stream_status_object (message);
  if (!val || !G_VALUE_HOLDS_OBJECT (val) || !GST_IS_TASK (g_value_get_object
          (val)))
    return;
  t = gpuprof_thread_get ();
  name = gst_object_get_name (GST_OBJECT (g_value_get_object (val)));
  if (name) {
    gpuprof_thread_set_name (t, name, TRUE);
    if (!t->announced)
      announce_thread (p, t);
    else
      name_thread (p, t);
  }
  g_free (name);
}

static void report_pipeline (GpuprofProfiler * p, GpuprofPipeline * pl);

void
gpuprof_profiler_state_change (GpuprofProfiler * p, guint64 ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result)
{
  GpuprofElement *e = gpuprof_objects_element_peek (element);

  /* seen before it was in a bin: set up (or moved) without gst_bin_add? */
  if (e && !__atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED)
      && !GST_IS_BIN (element))
    gpuprof_objects_reparented (p->objects, element);
  if (p->params.nvtx && e && e->nvtx_domain) {
    gchar *text = g_strdup_printf ("%s -> %s",
        gst_element_state_get_name (GST_STATE_TRANSITION_CURRENT (transition)),
        gst_element_state_get_name (GST_STATE_TRANSITION_NEXT (transition)));
    gpuprof_nvtx_mark (e, text, (guint64) transition, GPUPROF_NVTX_CAT_STATE);
    g_free (text);
  }
  if (p->trace && e) {
    GpuprofThread *t = gpuprof_thread_peek ();
    GpuprofEvent ev = { GPUPROF_EVENT_MARK };
    ev.element_id = e->id;
    ev.thread_id = t ? t->id : 0;
    ev.ts = ts;
    ev.seq = (guint64) transition;
    ev.pts = GST_CLOCK_TIME_NONE;
    ev.arg0 = GPUPROF_MARK_STATE_CHANGE;
    trace_event (p, t, &ev);
  }
  /* batch-size and interval at the start of a run, off the streaming
   * threads */
  if ((transition == GST_STATE_CHANGE_READY_TO_PAUSED
          || transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
      && result != GST_STATE_CHANGE_FAILURE && !GST_IS_BIN (element)
      && (g_object_class_find_property (G_OBJECT_GET_CLASS (element),
              "batch-size") || g_object_class_find_property
          (G_OBJECT_GET_CLASS (element), "interval")))
    gpuprof_batches_read_properties (p->batches,
        gpuprof_objects_element (p->objects, element));
  /* a queue stopping empties itself unpushed */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && e && e->queues)
    end_queues (p, e, ts);
  /* the end of a run: a top-level pipeline back to NULL */
  if (transition == GST_STATE_CHANGE_READY_TO_NULL
      && GST_IS_PIPELINE (element) && !GST_OBJECT_PARENT (element))
    report_pipeline (p, gpuprof_objects_pipeline (p->objects, element));
}

void
gpuprof_profiler_element_added (GpuprofProfiler * p, GstBin * bin,
    GstElement * element, gboolean result)
{
  if (result)
    gpuprof_objects_reparented (p->objects, element);
}

static void sweep_locked (GpuprofProfiler * p);

void
gpuprof_profiler_object_destroyed (GpuprofProfiler * p, guint64 ts,
    GstObject * object)
{
  if (!GST_IS_PAD (object) && !GST_IS_ELEMENT (object))
    return;
  gpuprof_objects_destroyed (p->objects, object);
  /* a top-level bin is destroyed after all it held: its records can go,
   * unless a report is being made (the next report's sweep frees them) */
  if (GST_IS_BIN (object) && !GST_OBJECT_PARENT (object)
      && g_mutex_trylock (&p->report_lock)) {
    sweep_locked (p);
    g_mutex_unlock (&p->report_lock);
  }
}

void
gpuprof_profiler_count_records (GpuprofProfiler * p, guint * elements,
    guint * pads, guint * pipelines)
{
  gpuprof_objects_count (p->objects, elements, pads, pipelines);
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
}

static void
fill_queue_row (GpuprofQueueRow * row, GpuprofQueue * q)
{
  GpuprofThread *up;

  row->path = g_strdup (q->path);
  g_mutex_lock (&q->lock);
  row->buffers = q->dequeued;
  row->residency_p50_ns = gpuprof_histogram_percentile (&q->residency, 0.50);
  row->residency_p99_ns = gpuprof_histogram_percentile (&q->residency, 0.99);
  row->residency_max_ns = q->residency.max;
  row->residency_mean_ns = q->residency.count ?
      q->residency.sum / q->residency.count : 0;
  row->max_level_buffers = q->max_level_buffers;
  row->max_level_bytes = q->max_level_bytes;
  row->max_level_time_ns = q->max_level_time;
  row->drops = q->drops;
  row->flushed = q->flushed;
  row->left = q->left;
  g_mutex_unlock (&q->lock);
  row->backpressure_ns = __atomic_load_n (&q->backpressure_ns,
      __ATOMIC_RELAXED);
  up = __atomic_load_n (&q->upstream_thread, __ATOMIC_RELAXED);
  if (up) {
    guint64 first = __atomic_load_n (&up->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&up->last_ts, __ATOMIC_RELAXED);
    row->upstream_wall_ns = last > first ? last - first : 0;
  }
}

static void
fill_thread_rows (GpuprofSnapshot * snap, GPtrArray * elements,
    guint32 pipeline_id, guint64 * wall_first, guint64 * wall_last)
{
  GPtrArray *threads = gpuprof_thread_list ();
  guint i, j, k;

  for (i = 0; i < threads->len; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    guint64 first = __atomic_load_n (&t->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&t->last_ts, __ATOMIC_RELAXED);
    GpuprofThreadRow row = { 0 };
    guint64 top_ns = 0;
    GpuprofElement *top = NULL;

    if (!first || t->pipeline_id != pipeline_id)
      continue;
    *wall_first = *wall_first ? MIN (*wall_first, first) : first;
    *wall_last = MAX (*wall_last, last);
    row.name = gpuprof_thread_dup_name (t);
    row.wall_ns = last > first ? last - first : 0;
    row.busy_ns = __atomic_load_n (&t->busy_ns, __ATOMIC_RELAXED);
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
    g_array_append_val (snap->threads, row);
  }
  g_ptr_array_unref (threads);
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
    }
    for (j = 0; e->queues && j < e->queues->len; j++) {
      GpuprofQueueRow row = { 0 };
      fill_queue_row (&row, g_ptr_array_index (e->queues, j));
      g_array_append_val (snap->queues, row);
    }
  }
  fill_thread_rows (snap, mine, pl->id, &first, &last);
  gpuprof_batches_snapshot (p->batches, mine, snap);
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

/* What only a live run knows: why GPU attribution is off, the trace file. */
static void
append_live_sections (GpuprofProfiler * p, GString * out)
{
  if (!p->gpu_on && p->gpu_off_reason)
    g_string_append_printf (out, "\nGPU: %s\n", p->gpu_off_reason);
  if (p->trace) {
    gchar *line = gpuprof_trace_describe (p->trace);
    g_string_append_printf (out, "%s\n", line);
    g_free (line);
  }
}

/* stats=<path>, GstTracerRecord lines, and the summary inside the trace */
static void
save_summary (GpuprofProfiler * p, const GpuprofSnapshot * snap)
{
  gpuprof_summary_log_records (snap);
  if (p->params.stats_path) {
    GError *err = NULL;
    if (!gpuprof_summary_save (snap, p->params.stats_path, &err)) {
      g_printerr ("gpuprof: %s\n", err ? err->message : "cannot save stats");
      g_clear_error (&err);
    }
  }
  if (p->trace) {
    gchar *json = gpuprof_summary_to_json (snap);
    gpuprof_trace_add_summary (p->trace, json);
    gpuprof_trace_flush (p->trace);
    g_free (json);
  }
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
}

static void
write_report (GpuprofProfiler * p, const gchar * text)
{
  FILE *f;

  switch (p->params.report) {
    case GPUPROF_REPORT_OFF:
      break;
    case GPUPROF_REPORT_STDOUT:
      fputs (text, stdout);
      fflush (stdout);
      break;
    case GPUPROF_REPORT_STDERR:
      fputs (text, stderr);
      break;
    case GPUPROF_REPORT_FILE:
      f = fopen (p->params.report_path, p->report_file_opened ? "a" : "w");
      if (!f) {
        g_printerr ("gpuprof: cannot write the report to '%s': %s\n",
            p->params.report_path, g_strerror (errno));
        fputs (text, stderr);
        break;
      }
      p->report_file_opened = TRUE;
      fputs (text, f);
      fclose (f);
      break;
  }
}

/* Records of destroyed objects whose runs were reported: freed while no
 * report reads them (report lock held). Their trace events are written
 * first, while their names can still be looked up. */
static void
sweep_locked (GpuprofProfiler * p)
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

/* report lock held */
static void
report_pipeline_locked (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  GpuprofSnapshot *snap;
  gchar *text;
  guint64 first = 0, last = 0;

  if (!pipeline_active (p, pl))
    return;
  if (p->gpu_on)
    gpuprof_cupti_flush (TRUE);
  snap = snapshot_pipeline_wall (p, pl, &first, &last);
  if (p->gpu_on)
    gpu_section (p, snap, first, last);
  text = gpuprof_report_format (snap);
  {
    GString *full = g_string_new (text);
    append_live_sections (p, full);
    g_free (text);
    text = g_string_free (full, FALSE);
  }
  save_summary (p, snap);
  write_report (p, text);
  g_free (p->last_report);
  p->last_report = text;
  gpuprof_snapshot_free (snap);
  reset_pipeline (p, pl);
}

static void
report_pipeline (GpuprofProfiler * p, GpuprofPipeline * pl)
{
  g_mutex_lock (&p->report_lock);
  report_pipeline_locked (p, pl);
  sweep_locked (p);
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

GpuprofSnapshot *
gpuprof_profiler_snapshot (GpuprofProfiler * p, const gchar * pipeline)
{
  GPtrArray *pipelines;
  GpuprofSnapshot *snap = NULL;
  guint i;

  /* records are freed under the report lock only */
  g_mutex_lock (&p->report_lock);
  pipelines = gpuprof_objects_pipelines (p->objects);

  /* the named pipeline, or the last one with activity */
  for (i = pipelines->len; i > 0 && !snap; i--) {
    GpuprofPipeline *pl = g_ptr_array_index (pipelines, i - 1);
    if (pipeline ? !g_strcmp0 (pl->name, pipeline) : pipeline_active (p, pl))
      snap = snapshot_pipeline (p, pl);
  }
  g_ptr_array_unref (pipelines);
  g_mutex_unlock (&p->report_lock);
  return snap;
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
