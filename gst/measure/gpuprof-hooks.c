/* gpuprof: what each tracer hook does (the buffer path, events, queries,
 * messages, state changes), on a GpuprofMeasure (gpuprof-measure.h). */
#include "config.h"
#include "gpuprof-hooks.h"

#include "gpuprof-async.h"
#include "gpuprof-batch.h"
#include "gpuprof-bus.h"
#include "gpuprof-clock.h"
#include "gpuprof-cpu-sampler.h"
#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"
#include "gpuprof-nvtx.h"
#include "gpuprof-objects.h"
#include "gpuprof-owners.h"
#include "gpuprof-pools.h"
#include "gpuprof-queue.h"
#include "gpuprof-stats.h"
#include "gpuprof-thread.h"
#include "gpuprof-workers.h"

/* GStreamer's own chain-list function, which splits a list into chain calls
 * (each with its own hooks): read from a new pad once */
static GstPadChainListFunction default_chain_list;

void
gpuprof_hooks_init (void)
{
  if (!default_chain_list) {
    GstPad *pad = gst_pad_new (NULL, GST_PAD_SINK);
    default_chain_list = GST_PAD_CHAINLISTFUNC (pad);
    gst_object_unref (pad);
  }
}

/* ------------------------------------------------------------ threads */

static void
name_thread (GpuprofMeasure * m, GpuprofThread * t)
{
  if (m->nvtx)
    gpuprof_nvtx_name_thread (t->tid, t->name);
  if (m->gpu_on)
    gpuprof_gpu_set_thread_name (t->name);
  if (t->ring) {
    GpuprofEvent ev;
    gpuprof_event_init (&ev, GPUPROF_EVENT_THREAD_NAME, 0, 0, t->id,
        gpuprof_clock_now ());
    gpuprof_ring_push (t->ring, &ev);
  }
}

/* First hook on a thread: it gets a trace ring and its name is told */
static void
announce_thread (GpuprofMeasure * m, GpuprofThread * t)
{
  t->announced = TRUE;
  if (gpuprof_bus_active (m->bus))
    t->ring = gpuprof_bus_ring_for_thread (m->bus, t->id);
  name_thread (m, t);
}

static inline GpuprofThread *
enter_thread (GpuprofMeasure * m, guint64 ts)
{
  GpuprofThread *t = gpuprof_thread_get ();

  gpuprof_clock_observe_hook (ts);
  if (G_UNLIKELY (!t->announced))
    announce_thread (m, t);
  gpuprof_thread_touch (t, ts);
  return t;
}

/* Post hooks find the frame their pre hook pushed. Frames left above it
 * (a hook missed, e.g. the tracer attached mid-call) are discarded. */
static GpuprofFrame *
pop_frame (GpuprofThread * t, GpuprofFrameKind kind, GpuprofPad * pad);

/* The usual case costs no lookup: the top frame is the one for this pad. */
static inline GpuprofFrame *
pop_frame_for (GpuprofMeasure * m, GpuprofThread * t, GpuprofFrameKind kind,
    GstPad * pad)
{
  GpuprofFrame *top = gpuprof_thread_top (t);
  GpuprofPad *gp;

  if (G_LIKELY (top && top->gstpad == pad && top->kind == kind)) {
    t->depth--;
    return top;
  }
  gp = gpuprof_objects_pad (m->objects, t, pad);
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

/* Back from a call: the thread is again in the enclosing call's element
 * (a chain, a getrange, its push), else outside any (the stall watchdog
 * reads it). */
static inline void
doing_after_call (GpuprofThread * t, guint64 ts)
{
  GpuprofFrame *parent = gpuprof_thread_top (t);

  if (parent && parent->element)
    gpuprof_thread_set_doing (t, GPUPROF_DOING_CHAIN, parent->element->id,
        parent->start);
  else if (!parent)
    gpuprof_thread_set_doing (t, GPUPROF_DOING_NOTHING, 0, ts);
}

/* A new frame on t's stack with what every kind has; NULL past the
 * deepest stack (that call is not timed). */
static inline GpuprofFrame *
open_frame (GpuprofThread * t, GpuprofFrameKind kind, GpuprofPad * gp,
    gconstpointer gstpad, GpuprofElement * e, guint64 ts)
{
  GpuprofFrame *f = gpuprof_thread_push_frame (t);

  if (G_UNLIKELY (!f))
    return NULL;
  f->kind = kind;
  f->pad = gp;
  f->gstpad = gstpad;
  f->element = e;
  f->start = ts;
  f->child_ns = 0;
  f->blocked_start = 0;
  f->nvtx_open = FALSE;
  return f;
}

/* An element seen before it had a pipeline is resolved when it streams */
static inline guint32
element_pipeline_id (GpuprofMeasure * m, GpuprofElement * e)
{
  guint32 id = __atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED);

  return G_LIKELY (id) ? id : gpuprof_objects_resolve_streaming (m->objects,
      e);
}

/* ------------------------------------------------------- call windows */

/* Threads an element starts lazily (x264enc's, avdec_h264's, a task pool's)
 * appear in one of its first calls: each of those lists /proc/self/task at
 * its start and end (a call window, gpuprof-owners.h), a bounded number per
 * element; afterwards the buffer path pays one load and a test. */
static void
open_call_window (GpuprofThread * t, GpuprofElement * e)
{
  if (t->n_windows >= GPUPROF_THREAD_WINDOWS
      || __atomic_fetch_add (&e->stats->window_calls, 1,
          __ATOMIC_RELAXED) >= GPUPROF_OWNERS_FIRST_CALLS)
    return;
  gpuprof_owners_call_window (e->id, TRUE);
  t->window_frames[t->n_windows++] = t->depth - 1;
}

static inline gboolean
wants_call_window (GpuprofElement * e)
{
  return __atomic_load_n (&e->stats->window_calls, __ATOMIC_RELAXED) <
      GPUPROF_OWNERS_FIRST_CALLS;
}

/* the frame at index @depth ended: its window closes, and any left open
 * above it (a frame discarded) */
static void
close_call_windows (GpuprofThread * t, guint depth)
{
  while (t->n_windows && t->window_frames[t->n_windows - 1] >= depth) {
    t->n_windows--;
    gpuprof_owners_call_window (0, FALSE);
  }
}

/* A thread's first loops (a source's, an aggregator's task: compositor
 * starts its pool there) are windows of the element that pushes */
static void
open_loop_window (GpuprofThread * t, guint32 element_id)
{
  if (t->loop_window || t->loop_windows_left <= 0)
    return;
  t->loop_windows_left--;
  t->loop_window = TRUE;
  gpuprof_owners_call_window (element_id, TRUE);
}

static void
close_loop_window (GpuprofThread * t)
{
  t->loop_window = FALSE;
  gpuprof_owners_call_window (0, FALSE);
}

/* ------------------------------------------------------------- queues */

static guint64
list_size (GstBufferList * list)
{
  guint i, n = gst_buffer_list_length (list);
  guint64 size = 0;

  for (i = 0; i < n; i++)
    size += gst_buffer_get_size (gst_buffer_list_get (list, i));
  return size;
}

static inline guint64
data_size (GstBuffer * buffer, GstBufferList * list)
{
  return buffer ? gst_buffer_get_size (buffer) : list_size (list);
}

/* -------------------------------------------------------- buffer path */

void
gpuprof_hooks_chain_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofPad *gp;
  GpuprofElement *e;
  GpuprofFrame *f;
  GpuprofOrigin origin;
  gboolean has_origin;
  GpuprofAsync *async;
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
  gp = gpuprof_objects_pad (m->objects, t, pad);
  e = gp->element;
  if (!e)
    return;
  f = gpuprof_thread_top (t);
  if (G_UNLIKELY (f && f->kind == GPUPROF_FRAME_PUSH && f->split))
    f->split_calls++;
  f = open_frame (t, GPUPROF_FRAME_CHAIN, gp, pad, e, ts);
  if (!f)
    return;
  n = list ? gst_buffer_list_length (list) : 1;
  f->n_buffers = n;
  f->seq = gpuprof_pad_advance (gp, n);
  f->pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
  f->size = 0;
  f->key = buffer ? (gconstpointer) buffer : list;
  f->batch_id = 0;
  f->cpu_start = 0;
  gpuprof_thread_set_doing (t, GPUPROF_DOING_CHAIN, e->id, ts);
  t->pipeline_id = element_pipeline_id (m, e);
  if (__atomic_load_n (&e->task_pushes, __ATOMIC_RELAXED))
    __atomic_store_n (&e->stats->last_input_ts, ts, __ATOMIC_RELAXED);

  if (G_UNLIKELY (gp->queue)) {
    GpuprofQueueOutputs out = gpuprof_measure_queue_outputs (m);
    f->size = data_size (buffer, list);
    gpuprof_queue_chain_pre (gp->queue, &out, t, f, buffer, list);
  } else if (t->ring) {
    f->size = data_size (buffer, list);
  }
  /* a call processing a batch is labelled with the batch number, so NVTX
   * and GPU records land per batch */
  has_origin = __atomic_load_n (&m->streams_on, __ATOMIC_RELAXED)
      && gpuprof_streams_chain (m->streams, e, gp, buffer, ts, &origin);
  batch = gpuprof_batches_chain_pre (m->batches, t, f, buffer, ts,
      has_origin ? &origin : NULL);
  payload = batch ? batch : f->seq;
  /* an asynchronous element: the buffer stays inside after the call; the
   * call can wait for room, so its work is read on the CPU clock */
  async = __atomic_load_n (&e->async, __ATOMIC_ACQUIRE);
  if (G_UNLIKELY (async)) {
    gpuprof_async_arrive (async, f->key, f->batch_id,
        m->nvtx ? gp->nvtx_msg : NULL, payload, ts);
    f->cpu_start = gpuprof_thread_cpu_now ();
    t->cpu_calls++;
  } else if (G_UNLIKELY (e->waits_on_clock)) {
    /* it syncs (sync=true): its call waits on the clock, so its work is
     * read on the CPU clock (sync_chain_wait) */
    f->cpu_start = gpuprof_thread_cpu_now ();
    t->cpu_calls++;
  }
  if (m->nvtx) {
    gpuprof_nvtx_push (e, gp->nvtx_msg, payload, GPUPROF_NVTX_CAT_CHAIN);
    f->nvtx_open = TRUE;
  }
  gpuprof_gpu_chain_enter (e->id, payload);
  if (G_UNLIKELY (wants_call_window (e)))
    open_call_window (t, e);
  /* a flush or a stop that reached the pad while this hook ran: the pad's
   * check after the hook refuses the data (chain_post takes it back). One
   * that lands between here and that check still counts (docs/tracer.md,
   * known miscounts) */
  f->refused = (__atomic_load_n (&GST_OBJECT_FLAGS (pad), __ATOMIC_RELAXED)
      & (GST_PAD_FLAG_FLUSHING | GST_PAD_FLAG_EOS)) != 0;
}

static void
trace_call (GpuprofMeasure * m, GpuprofThread * t, GpuprofFrame * f,
    guint64 incl, guint64 self)
{
  GpuprofEvent ev;

  gpuprof_event_init (&ev, GPUPROF_EVENT_CHAIN, f->element->id, f->pad->id,
      t->id, f->start);
  ev.dur = incl;
  ev.seq = f->seq;
  ev.pts = f->pts;
  ev.size = f->size;
  ev.self = self;
  gpuprof_ring_push (t->ring, &ev);
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

/* A chain call the pad's own check refused after the pre hook had counted
 * it (refused): the data never reached the element. Not in; the push that
 * made it takes it back (push_post), of a split list only the calls that
 * got through */
static void
refused_late (GpuprofThread * t, const GpuprofFrame * f)
{
  GpuprofFrame *up = gpuprof_thread_top (t);

  __atomic_store_n (&f->pad->seq, f->seq - f->n_buffers, __ATOMIC_RELAXED);
  if (up && up->kind == GPUPROF_FRAME_PUSH && up->split && up->split_calls)
    up->split_calls--;
}

/* An asynchronous element's chain call: its work is the thread's CPU
 * time over it, the rest waited (for room, at max-in-flight). A buffer it
 * kept is in flight until the push that takes it out. */
static guint64
async_chain_wait (GpuprofElement * e, const GpuprofFrame * f, guint64 incl,
    GstFlowReturn res)
{
  guint64 cpu = gpuprof_thread_cpu_now (), work;

  if (res == GST_FLOW_OK)
    gpuprof_async_hold (e->async, 1);
  cpu = cpu > f->cpu_start ? cpu - f->cpu_start : 0;
  work = incl > f->child_ns ? incl - f->child_ns : 0;
  return work > cpu ? work - cpu : 0;
}

/* A call of an element that syncs: its own wall time (less its pushes)
 * off its own CPU time (its pushes' CPU shifted out of cpu_start, see
 * gpuprof_hooks_push_post) waited on the clock (or, in a sink's render,
 * for a display or an application that pulls). Not work. */
static guint64
sync_chain_wait (const GpuprofFrame * f, guint64 incl)
{
  guint64 cpu = gpuprof_thread_cpu_now (), own;

  cpu = cpu > f->cpu_start ? cpu - f->cpu_start : 0;
  own = incl > f->child_ns ? incl - f->child_ns : 0;
  return own > cpu ? own - cpu : 0;
}

void
gpuprof_hooks_chain_post (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstFlowReturn res)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofFrame *f = pop_frame_for (m, t, GPUPROF_FRAME_CHAIN, pad);
  GpuprofPad *gp;
  GpuprofElement *e;
  guint64 incl, blocked = 0, clock = 0, self, gpu_wait;

  if (!f)
    return;
  if (G_UNLIKELY (t->n_windows))
    close_call_windows (t, t->depth);
  gp = f->pad;
  e = f->element;
  gpu_wait = gpuprof_gpu_chain_exit ();
  if (f->nvtx_open)
    gpuprof_nvtx_pop (e);
  incl = ts > f->start ? ts - f->start : 0;
  if (f->blocked_start)
    blocked = ts > f->blocked_start ? ts - f->blocked_start : 0;
  else if (G_UNLIKELY (f->cpu_start)) {
    if (e->async)
      blocked = async_chain_wait (e, f, incl, res);
    else
      clock = sync_chain_wait (f, incl);
  } else if (__atomic_load_n (&e->task_pushes, __ATOMIC_RELAXED)
      && e->role != GPUPROF_ROLE_QUEUE)
    /* a muxer fed here works on its own thread: this thread only hands the
     * buffer over, or waits for room */
    blocked = incl > f->child_ns ? incl - f->child_ns : 0;
  if (blocked)
    __atomic_fetch_add (&e->stats->blocked_ns, blocked, __ATOMIC_RELAXED);
  if (clock)
    __atomic_fetch_add (&e->stats->clock_wait_ns, clock, __ATOMIC_RELAXED);
  blocked += clock;
  self = incl > f->child_ns + blocked ? incl - f->child_ns - blocked : 0;
  if (G_UNLIKELY (f->cpu_start)) {
    if (t->cpu_calls)
      t->cpu_calls--;
    if (!f->blocked_start)
      gpuprof_stats_add_cpu_call (e->stats, t, self, incl);
    else
      gpuprof_stats_add_call (e->stats, t, self, incl, gpu_wait);
  } else {
    gpuprof_stats_add_call (e->stats, t, self, incl, gpu_wait);
  }
  gpuprof_batches_chain_post (m->batches, t, f, self);
  if (t->ring)
    trace_call (m, t, f, incl, self);
  if (G_UNLIKELY (gp->queue)) {
    GpuprofQueueOutputs out = gpuprof_measure_queue_outputs (m);
    gpuprof_queue_chain_post (gp->queue, &out, f, blocked, res, ts);
  }
  if (G_UNLIKELY (res != GST_FLOW_OK)) {
    if (f->refused && (res == GST_FLOW_FLUSHING || res == GST_FLOW_EOS))
      refused_late (t, f);
    else
      mark_crossed (t);
  }
  charge_to_parent (t, incl);
  doing_after_call (t, ts);
}

/* A push from a task loop: the time since the previous push, less the
 * calls it made (pulls, events), is the element's loop. Its work is the
 * thread's CPU time over the loop (read here and at the previous push's
 * end, top-level pushes only); the rest is waiting for input (appsrc, a
 * socket, the clock). An element fed on other threads (muxer, aggregator)
 * waits for input in its loop: its work starts at most when the last input
 * arrived. A queue's loop only waits, so is never charged. */
/* Loops shorter than this have no room for a wait worth telling: the next
 * one is not read on the CPU clock (two syscalls per loop; a fakesrc loop
 * takes ~2 µs) */
#define GPUPROF_LOOP_CPU_MIN_NS 20000
/* A loop can wait after a short one (udpsrc: the packets of a frame back
 * to back, then the wait for the next frame): a live source, and a loop
 * that waited this long in the run, is read on the CPU clock every time */
#define GPUPROF_LOOP_WAITED_NS (1000 * 1000)

static inline gboolean
loop_may_wait (const GpuprofElement * e)
{
  return (e->waits_on_clock && e->role == GPUPROF_ROLE_SOURCE)
      || __atomic_load_n (&e->stats->wait_input_ns, __ATOMIC_RELAXED) >=
      GPUPROF_LOOP_WAITED_NS;
}

/* @e's record of an asynchronous element, made (with @skip) when it has
 * none and @make or it has worker threads; its workers (gpuprof-owners.h)
 * are read from now (@ts). Off the buffer path: a lock and a list. */
static GpuprofAsync *
async_record (GpuprofElement * e, gboolean make, guint64 skip, guint64 ts)
{
  GpuprofAsync *a = __atomic_load_n (&e->async, __ATOMIC_ACQUIRE), *none =
      NULL;
  GArray *tids = gpuprof_owners_workers (e->id);

  if (!a && (make || tids->len)) {
    a = gpuprof_async_new (e, skip);
    /* two threads at once: one record */
    if (!__atomic_compare_exchange_n (&e->async, &none, a, FALSE,
            __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
      gpuprof_async_free (a);
      a = none;
    }
  }
  if (a)
    gpuprof_workers_set (gpuprof_async_get_workers (a), e->id,
        (const gint *) tids->data, tids->len, ts);
  g_array_unref (tids);
  return a;
}

/* A filter whose own thread pushes outside its chain calls: its buffers
 * leave on another thread than they arrived on (once per thread). Not
 * followed before (no worker seen in a state change): the buffers inside
 * now arrived unrecorded. */
static void
follow_async (GpuprofMeasure * m, GpuprofElement * e, GpuprofThread * t,
    guint n, guint64 ts)
{
  guint64 in = 0, out = 0;
  GpuprofAsync *a;

  if (e->role != GPUPROF_ROLE_FILTER
      || gpuprof_owners_lookup (t->tid, NULL) != e->id)
    return;
  /* this push counted already */
  if (!__atomic_load_n (&e->async, __ATOMIC_ACQUIRE))
    gpuprof_measure_buffer_counts (m, e, &in, &out);
  a = async_record (e, TRUE, in + n > out ? in + n - out : 0, ts);
  /* its CPU is read here, as its output loop's */
  gpuprof_workers_drop (gpuprof_async_get_workers (a), t->tid);
  gpuprof_async_confirm (a);
}

static void
charge_loop (GpuprofMeasure * m, GpuprofElement * e, GpuprofThread * t,
    guint n, guint64 ts)
{
  guint64 start = t->loop_mark, child = t->loop_child_ns, loop, full;
  guint64 input, cpu, cpu_mark = t->loop_cpu_mark;
  gboolean first = !t->loop_owner_set;

  /* its task thread sets it, chain threads read it (atomic) */
  if (!__atomic_load_n (&e->task_pushes, __ATOMIC_RELAXED)
      && e->role != GPUPROF_ROLE_SOURCE)
    __atomic_store_n (&e->task_pushes, TRUE, __ATOMIC_RELAXED);
  /* a thread pushing on its src pad outside a chain call is its output
   * thread (a pad task stays a streaming thread); once per thread */
  if (G_UNLIKELY (first)) {
    t->loop_owner_set = TRUE;
    gpuprof_owners_set_here (t->tid, e->id, GPUPROF_THREAD_KIND_OUTPUT,
        GPUPROF_OWNER_BY_PUSH, gpuprof_thread_cpu_now ());
    follow_async (m, e, t, n, ts);
  }
  /* GPU work launched in this loop, outside chain calls, is its */
  if (G_UNLIKELY (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER)))
    gpuprof_gpu_set_thread_element (GPUPROF_GPU_CHANNEL_TRACER, e->id);
  full = ts > start ? ts - start : 0;
  full = full > child ? full - child : 0;
  input = __atomic_load_n (&e->stats->last_input_ts, __ATOMIC_RELAXED);
  if (input > start) {
    start = input;
    child = 0;
  }
  loop = ts > start ? ts - start : 0;
  loop = loop > child ? loop - child : 0;
  cpu = cpu_mark ? gpuprof_thread_cpu_now () : 0;
  /* the CPU clock also counts the calls' own work: never more than the
   * wall time of the loop */
  if (cpu > cpu_mark && cpu - cpu_mark < loop)
    loop = cpu - cpu_mark;
  else if (cpu && cpu <= cpu_mark)
    loop = 0;
  /* the first loop began at the thread's first hook, just before: its
   * length says nothing of the next, so that one is read on the CPU clock
   * too (on wall time it counted an output thread's sleeps as work) */
  t->loop_long = first || full >= GPUPROF_LOOP_CPU_MIN_NS;
  /* an asynchronous element's output loop waits for its own worker, not
   * for input; its calls are its chain calls */
  if (G_UNLIKELY (e->async) && gpuprof_async_confirmed (e->async)) {
    gpuprof_stats_add_work (e->stats, t, loop);
    return;
  }
  if (full > loop)
    __atomic_fetch_add (&e->stats->wait_input_ns, full - loop,
        __ATOMIC_RELAXED);
  if (cpu)
    gpuprof_stats_add_cpu_call (e->stats, t, loop, loop);
  else
    gpuprof_stats_add_call (e->stats, t, loop, loop, 0);
}

/* Out of an asynchronous element: the arrival it matches, the batch it
 * carries on; its workers' CPU is read here, while they live */
static void
push_out_of_async (GpuprofMeasure * m, GpuprofAsync * async,
    GstBuffer * buffer, GstBufferList * list, guint64 ts)
{
  guint64 carried;

  gpuprof_async_depart (async, buffer ? (gconstpointer) buffer : list, ts,
      &carried);
  gpuprof_batches_carry (m->batches, buffer, carried);
  gpuprof_async_sample (async, ts);
}

void
gpuprof_hooks_push_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofPad *gp = gpuprof_objects_pad (m->objects, t, pad);
  GpuprofElement *e = gp->element;
  GpuprofFrame *f, *up;
  GpuprofAsync *async;
  guint64 batch, seq;
  gboolean cpu_caller;
  guint n;

  if (!e)
    return;
  n = list ? gst_buffer_list_length (list) : 1;
  seq = gpuprof_pad_advance (gp, n);
  t->pipeline_id = element_pipeline_id (m, e);

  if (t->depth == 0) {
    if (G_UNLIKELY (t->loop_window))
      close_loop_window (t);
    if (e->role != GPUPROF_ROLE_QUEUE)
      charge_loop (m, e, t, n, ts);
  }
  if (G_UNLIKELY (gp->queue)) {
    GpuprofQueueOutputs out = gpuprof_measure_queue_outputs (m);
    gpuprof_queue_push_pre (gp->queue, &out, buffer, list, n,
        data_size (buffer, list), ts);
  }

  async = __atomic_load_n (&e->async, __ATOMIC_ACQUIRE);
  if (G_UNLIKELY (async))
    push_out_of_async (m, async, buffer, list, ts);
  /* read before open_frame(), which may move the frame stack; only where
   * such a call may be open: no frame read per push otherwise */
  cpu_caller = FALSE;
  if (G_UNLIKELY (t->cpu_calls)) {
    up = gpuprof_thread_top (t);
    cpu_caller = up && up->kind == GPUPROF_FRAME_CHAIN && up->cpu_start;
    if (!up)
      t->cpu_calls = 0;         /* none open: a discarded one's count */
  }
  f = open_frame (t, GPUPROF_FRAME_PUSH, gp, pad, e, ts);
  if (!f) {
    if (async)
      gpuprof_async_hold (async, -1);
    return;
  }
  /* out of a call read on the CPU clock (it syncs, or is asynchronous):
   * the push's CPU is not the caller's (push_post) */
  f->cpu_start = 0;
  if (G_UNLIKELY (cpu_caller))
    f->cpu_start = gpuprof_thread_cpu_now ();
  /* push-post: the buffer is no longer held */
  f->key = async;
  f->crossed = FALSE;
  f->split = FALSE;
  f->split_calls = 0;
  f->n_buffers = n;
  f->seq = seq;
  /* an aggregator's push forms a batch: a range with its number */
  batch = gpuprof_batches_push_pre (m->batches, gp, buffer, f->seq, ts);
  if (__atomic_load_n (&m->streams_on, __ATOMIC_RELAXED))
    gpuprof_streams_push (m->streams, e, buffer, n, ts);
  if (batch && m->nvtx) {
    gpuprof_nvtx_push (e, gp->nvtx_msg, batch, GPUPROF_NVTX_CAT_CHAIN);
    f->nvtx_open = TRUE;
  }
}

void
gpuprof_hooks_push_post (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstFlowReturn res)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofFrame *f = pop_frame_for (m, t, GPUPROF_FRAME_PUSH, pad);

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
      if (f->element && __atomic_load_n (&m->streams_on, __ATOMIC_RELAXED))
        gpuprof_streams_take_back (m->streams, f->element, back);
      if (f->pad->queue)
        gpuprof_queue_take_back (f->pad->queue, back,
            res == GST_FLOW_FLUSHING);
    }
  }
  if (G_UNLIKELY (f->pad->queue))
    gpuprof_queue_pushed (f->pad->queue, res);
  if (f->nvtx_open)
    gpuprof_nvtx_pop (f->element);
  if (G_UNLIKELY (f->key))
    gpuprof_async_hold ((GpuprofAsync *) f->key, -1);
  if (G_UNLIKELY (f->cpu_start)) {
    GpuprofFrame *up = gpuprof_thread_top (t);
    guint64 cpu = gpuprof_thread_cpu_now ();
    /* the caller's CPU clock start moves by the push's CPU: what it reads
     * at its end is its own work */
    if (up && up->kind == GPUPROF_FRAME_CHAIN && up->cpu_start
        && cpu > f->cpu_start)
      up->cpu_start += cpu - f->cpu_start;
  }
  if (t->depth == 0) {
    if (f->element)
      gpuprof_thread_set_doing (t, GPUPROF_DOING_LOOP, f->element->id, ts);
    t->loop_mark = ts;
    t->loop_child_ns = 0;
    /* the loop's work is read on the CPU clock where it can wait (its
     * last loop was long, a live source, a loop that waited before); a
     * queue's loop is not */
    t->loop_cpu_mark = (t->loop_long || f->key || (f->element
            && loop_may_wait (f->element))) && f->element
        && f->element->role != GPUPROF_ROLE_QUEUE ?
        gpuprof_thread_cpu_now () : 0;
    if (G_UNLIKELY (t->loop_windows_left > 0) && f->element
        && f->element->role != GPUPROF_ROLE_QUEUE)
      open_loop_window (t, f->element->id);
  } else {
    charge_to_parent (t, ts > f->start ? ts - f->start : 0);
  }
}

/* The pad a pull really reaches: ghost and proxy pads only forward (their
 * own nested pull is ignored), so follow them to the element's pad. No
 * lock (docs/tracer.md, "What the hooks read"): peers and parents are read
 * directly, as GStreamer's stats tracer does. A ghost pad's internal pad
 * leads to the ghost pad (its parent) and on to that one's peer; the way
 * into a bin through its ghost pad is only gst_proxy_pad_get_internal(),
 * which takes the pad's lock: NULL then, with *enters set, and the pull is
 * placed when the ghost pad forwards it (the nested pull on its internal
 * pad, pull_pre). Not reffed. */
static GstPad *
pull_source_pad (GstPad * pad, gboolean * enters)
{
  GstPad *peer = __atomic_load_n (&GST_PAD_PEER (pad), __ATOMIC_ACQUIRE);
  guint hops;

  *enters = FALSE;
  /* bins nest: bounded, in case of a loop while relinking */
  for (hops = 0; peer && GST_IS_PROXY_PAD (peer) && hops < 64; hops++) {
    GstObject *ghost = __atomic_load_n (&GST_OBJECT_PARENT (peer),
        __ATOMIC_ACQUIRE);

    if (GST_IS_GHOST_PAD (peer)) {
      *enters = TRUE;
      return NULL;
    }
    peer = ghost && GST_IS_GHOST_PAD (ghost) ?
        __atomic_load_n (&GST_PAD_PEER (ghost), __ATOMIC_ACQUIRE) : NULL;
  }
  return peer;
}

/* the PULL frame of @gp's pull (started at @ts) served by @peer's element */
static void
open_pull (GpuprofMeasure * m, GpuprofThread * t, GpuprofPad * gp,
    GstPad * peer, guint64 ts)
{
  GpuprofPad *gpeer = gpuprof_objects_pad (m->objects, t, peer);
  GpuprofFrame *f;

  t->pull_waiting = NULL;
  /* gstpad never a GstPad: pulls take the slow path */
  if (!gpeer->element || !(f = open_frame (t, GPUPROF_FRAME_PULL, gp, gp,
              gpeer->element, ts)))
    return;
  f->seq = gpuprof_pad_advance (gpeer, 1);
  f->key = gpeer;               /* the upstream pad, for a failed pull */
  f->pts = GST_CLOCK_TIME_NONE;
  f->size = 0;
  f->nvtx_open = m->nvtx;
  gpuprof_thread_set_doing (t, GPUPROF_DOING_CHAIN, gpeer->element->id, ts);
  if (f->nvtx_open)
    gpuprof_nvtx_push (gpeer->element, gpeer->nvtx_msg, f->seq,
        GPUPROF_NVTX_CAT_PULL);
  gpuprof_gpu_chain_enter (gpeer->element->id, f->seq);
}

/* pull mode: the upstream element produces the data in its getrange */
void
gpuprof_hooks_pull_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofPad *gp = gpuprof_objects_pad (m->objects, t, pad);
  GstPad *peer;
  gboolean enters;

  if (!gp->element) {
    /* a ghost pad forwarding a pull into its bin: its internal pad's
     * peer is where the waiting pull goes (or another bin's ghost pad) */
    if (t->pull_waiting && GST_IS_PROXY_PAD (pad)
        && (peer = pull_source_pad (pad, &enters)))
      open_pull (m, t, t->pull_waiting, peer, t->pull_waiting_ts);
    return;
  }
  /* a thread that only pulls (a sink's or demuxer's loop) is the
   * pipeline's too */
  t->pipeline_id = element_pipeline_id (m, gp->element);
  t->pull_waiting = NULL;
  if ((peer = pull_source_pad (pad, &enters))) {
    open_pull (m, t, gp, peer, ts);
  } else if (enters) {
    t->pull_waiting = gp;
    t->pull_waiting_ts = ts;
  }
}

void
gpuprof_hooks_pull_post (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofPad *gp = gpuprof_objects_pad (m->objects, t, pad);
  GpuprofFrame *f;
  guint64 incl, self, gpu_wait;

  if (t->pull_waiting == gp)    /* never reached an element */
    t->pull_waiting = NULL;
  if (!gp->element || !(f = pop_frame (t, GPUPROF_FRAME_PULL, gp)))
    return;
  gpu_wait = gpuprof_gpu_chain_exit ();
  if (f->nvtx_open)
    gpuprof_nvtx_pop (f->element);
  incl = ts > f->start ? ts - f->start : 0;
  self = incl > f->child_ns ? incl - f->child_ns : 0;
  gpuprof_stats_add_call (f->element->stats, t, self, incl, gpu_wait);
  if (t->ring) {
    f->size = buffer && res == GST_FLOW_OK ? gst_buffer_get_size (buffer) : 0;
    trace_call (m, t, f, incl, self);
  }
  /* the upstream pad's sequence counted the pull; the puller's sink pad
   * did not */
  if (res == GST_FLOW_OK) {
    gpuprof_stats_add_buffers_in (gp->element->stats, 1);
  } else {
    GpuprofPad *up = (GpuprofPad *) f->key;
    __atomic_store_n (&up->seq, f->seq - 1, __ATOMIC_RELAXED);
  }
  charge_to_parent (t, incl);
  doing_after_call (t, ts);
}

/* ------------------------------------------------------ events, queries */

static GpuprofFrame *
push_call_frame (GpuprofThread * t, GpuprofPad * gp, GstPad * pad, guint64 ts)
{
  return open_frame (t, GPUPROF_FRAME_CALL, gp, pad, gp->element, ts);
}

static void
pop_call_frame (GpuprofThread * t, GpuprofPad * gp, guint64 ts)
{
  GpuprofFrame *f = pop_frame (t, GPUPROF_FRAME_CALL, gp);

  if (!f)
    return;
  if (G_UNLIKELY (t->n_windows))
    close_call_windows (t, t->depth);
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

/* an instant on the element's row: an event passed, its state changed */
static void
trace_mark (GpuprofMeasure * m, GpuprofThread * t, GpuprofElement * e,
    GpuprofPad * gp, guint64 ts, GpuprofMarkType type, guint64 seq)
{
  GpuprofEvent ev;

  gpuprof_event_init (&ev, GPUPROF_EVENT_MARK, e->id, gp ? gp->id : 0,
      t ? t->id : 0, ts);
  ev.seq = seq;
  ev.arg0 = type;
  gpuprof_bus_emit (m->bus, t, &ev);
}

/* @pad's peer, read without its lock (it may be held around an event
 * hook: docs/tracer.md, "What the hooks read"), as GStreamer's own
 * tracers do; not reffed, looked up at once */
static inline GstPad *
peer_of (GstPad * pad)
{
  return __atomic_load_n (&GST_PAD_PEER (pad), __ATOMIC_ACQUIRE);
}

static void
flush_peer_queue (GpuprofMeasure * m, GpuprofThread * t, GstPad * pad,
    guint64 ts)
{
  GstPad *peer = peer_of (pad);
  GpuprofPad *gpeer;

  if (!peer)
    return;
  gpeer = gpuprof_objects_pad (m->objects, t, peer);
  if (gpeer->queue) {
    GpuprofQueueOutputs out = gpuprof_measure_queue_outputs (m);
    gpuprof_queue_flush (gpeer->queue, &out, ts);
  }
}

/* GPU work launched while an event or a query is handled (a decoder
 * draining at EOS, a pool allocated for an allocation query) is the
 * handler's: the element of @pad's peer, which the push runs into; @pad's
 * own element when unlinked. */
static guint32
gpu_handler_id (GpuprofMeasure * m, GpuprofThread * t, GpuprofPad * gp,
    GstPad * pad)
{
  GstPad *peer = peer_of (pad);
  guint32 id = gp->element->id;

  if (peer) {
    GpuprofPad *gpeer = gpuprof_objects_pad (m->objects, t, peer);
    if (gpeer->element)
      id = gpeer->element->id;
  }
  return id;
}

/* An asynchronous element at the end of its data: its workers' CPU is
 * read before they end; a flush emptied it. */
static void
async_event (GpuprofPad * gp, GstEvent * event, guint64 ts)
{
  GpuprofAsync *a = __atomic_load_n (&gp->element->async, __ATOMIC_ACQUIRE);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && gp->direction == GST_PAD_SRC)
    gpuprof_async_sample (a, ts);
  else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP
      && gp->direction == GST_PAD_SINK)
    gpuprof_async_drain (a);
}

/* GStreamer >= 1.26.0 also runs the event hooks for the sticky events it
 * pushes itself (check_sticky(): nested in gst_pad_push_event() of the
 * same event, before a buffer, again after a relink): an EOS or segment
 * that left the pad already is not counted again. The record keeps a
 * reference to the last one, so a new event never has its address. */
static gboolean
sticky_seen (GpuprofPad * gp, GstEvent * event)
{
  GstEvent **last, *prev;

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    last = &gp->last_eos;
  else if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT)
    last = &gp->last_segment;
  else
    return FALSE;
  prev = __atomic_exchange_n (last, gst_event_ref (event), __ATOMIC_ACQ_REL);
  if (prev)
    gst_event_unref (prev);
  return prev == event;
}

/* What an event leaving @pad tells: marks, the end of batches or of an
 * asynchronous element's work, a queue's EOS or flush */
static void
event_leaves (GpuprofMeasure * m, GpuprofThread * t, GpuprofPad * gp,
    GstPad * pad, GstEvent * event, guint64 ts)
{
  const gchar *mark = event_mark_text (event);
  /* an application thread (a flush, EOS) may send while the streaming
   * thread advances the pad's sequence */
  guint64 seq = mark ? __atomic_load_n (&gp->seq, __ATOMIC_RELAXED) : 0;

  if (mark && m->nvtx)
    gpuprof_nvtx_mark (gp->element, mark, seq, GPUPROF_NVTX_CAT_EVENT);
  if (mark && t->ring)
    trace_mark (m, t, gp->element, gp, ts, event_mark_type (event), seq);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && GST_PAD_IS_SRC (pad))
    gpuprof_batches_eos (m->batches, gp);
  if (G_UNLIKELY (gp->element->async))
    async_event (gp, event, ts);
  /* EOS leaves a queue after all its data, or after downstream refused
   * more (the queue then threw the rest away): its last push said so, as
   * recorded at push-post (gst_pad_get_last_flow_return() would take the
   * pad's lock, which GStreamer 1.26.0-1.26.3 hold around this hook for
   * sticky events) */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && gp->queue
      && GST_PAD_IS_SRC (pad)) {
    GpuprofQueueOutputs out = gpuprof_measure_queue_outputs (m);
    gpuprof_queue_eos (gp->queue, &out,
        gpuprof_queue_downstream_stopped (gp->queue), ts);
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP && gp->queue
      && GST_PAD_IS_SRC (pad))
    gpuprof_queue_pushed (gp->queue, GST_FLOW_OK);
  /* a flush empties the queue downstream of this pad: its items are gone */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START
      && GST_PAD_IS_SRC (pad))
    flush_peer_queue (m, t, pad, ts);
}

/* An event is handled by the element of @pad's peer: one of its first
 * calls (a caps event: x264enc and avdec_h264 open their codec there) */
static void
event_window (GpuprofMeasure * m, GpuprofThread * t, GstPad * pad)
{
  GstPad *peer = peer_of (pad);
  GpuprofElement *handler;

  if (!peer)
    return;
  handler = gpuprof_objects_pad (m->objects, t, peer)->element;
  if (handler && G_UNLIKELY (wants_call_window (handler)))
    open_call_window (t, handler);
}

void
gpuprof_hooks_event_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstEvent * event)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofPad *gp = gpuprof_objects_pad (m->objects, t, pad);

  if (!gp->element)
    return;
  if (G_LIKELY (!sticky_seen (gp, event)))
    event_leaves (m, t, gp, pad, event, ts);
  if (push_call_frame (t, gp, pad, ts))
    event_window (m, t, pad);
  if (G_UNLIKELY (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER)))
    gpuprof_gpu_chain_enter (gpu_handler_id (m, t, gp, pad),
        GPUPROF_GPU_SEQ_NONE);
}

/* The time the peer of @f's pad spent handling its event (less the calls
 * it made) goes to its slot's event_ns: not its self time, but the CPU
 * sampler's share of the thread (an encoder drains its frames at EOS) */
static void
event_handled (GpuprofMeasure * m, GpuprofThread * t, const GpuprofFrame * f,
    guint64 ts)
{
  GstPad *peer = peer_of ((GstPad *) f->gstpad);
  GpuprofElement *handler = peer ? gpuprof_objects_pad (m->objects, t,
      peer)->element : NULL;
  guint64 incl = ts > f->start ? ts - f->start : 0;

  if (handler && incl > f->child_ns)
    gpuprof_stats_add_event (handler->stats, t, incl - f->child_ns);
}

void
gpuprof_hooks_event_post (GpuprofMeasure * m, guint64 ts, GstPad * pad)
{
  GpuprofThread *t = enter_thread (m, ts);
  GpuprofPad *gp = gpuprof_objects_pad (m->objects, t, pad);
  GpuprofFrame *top;

  if (gp->element) {
    top = gpuprof_thread_top (t);
    if (top && top->kind == GPUPROF_FRAME_CALL && top->gstpad == pad)
      event_handled (m, t, top, ts);
    pop_call_frame (t, gp, ts);
    gpuprof_gpu_chain_exit ();
  }
}

/* A query on a streaming thread (not an application's): its record */
static GpuprofPad *
streaming_query_pad (GpuprofMeasure * m, GstPad * pad, GpuprofThread ** t)
{
  GpuprofPad *gp;

  *t = gpuprof_thread_peek ();
  if (!*t || (*t)->first_ts == 0)
    return NULL;
  gp = gpuprof_objects_pad (m->objects, *t, pad);
  return gp->element ? gp : NULL;
}

/* The element answering a query on @pad: the query hooks fire for
 * gst_pad_peer_query() on the asking pad and again, nested, for
 * gst_pad_query() on the answering one, so the innermost push is the
 * handler. Also before a thread's first buffer and on application threads
 * (a pool allocated for the allocation query), which have no record here:
 * then the pad's parent, read without its lock (as a record is made), only
 * with GPU on. */
static guint32
gpu_query_handler_id (GpuprofMeasure * m, GpuprofPad * gp, GstPad * pad)
{
  GstObject *parent;

  if (gp)
    return gp->element->id;
  if (GST_IS_PROXY_PAD (pad))
    return 0;
  parent = __atomic_load_n (&GST_OBJECT_PARENT (pad), __ATOMIC_ACQUIRE);
  return parent && GST_IS_ELEMENT (parent) ?
      gpuprof_objects_element (m->objects, GST_ELEMENT (parent))->id : 0;
}

void
gpuprof_hooks_query_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad)
{
  GpuprofThread *t;
  GpuprofPad *gp = streaming_query_pad (m, pad, &t);

  if (gp)
    push_call_frame (t, gp, pad, ts);
  /* element 0 (a ghost pad): the launching thread's state is kept */
  if (G_UNLIKELY (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER)))
    gpuprof_gpu_chain_enter (gpu_query_handler_id (m, gp, pad),
        GPUPROF_GPU_SEQ_NONE);
}

void
gpuprof_hooks_query_post (GpuprofMeasure * m, guint64 ts, GstPad * pad)
{
  GpuprofThread *t;
  GpuprofPad *gp = streaming_query_pad (m, pad, &t);

  if (gp)
    pop_call_frame (t, gp, ts);
  gpuprof_gpu_chain_exit ();
}

/* ------------------------------------------------ messages, lifecycle */

/* A task left its thread (stream-status LEAVE, on it): the thread goes
 * back to GLib's pool, the process's, until a task takes it again */
static void
task_leaves (GpuprofThread * t)
{
  if (t->loop_window)
    close_loop_window (t);
  close_call_windows (t, 0);
  gpuprof_owners_release (t->tid, gpuprof_thread_cpu_now ());
  t->loop_owner_set = FALSE;
  t->loop_windows_left = GPUPROF_OWNERS_FIRST_LOOPS;
}

void
gpuprof_hooks_message (GpuprofMeasure * m, guint64 ts,
    GstElement * element, GstMessage * message)
{
  GstStreamStatusType type;
  GstElement *owner;
  const GValue *val;
  GpuprofThread *t;
  const gchar *name;

  /* the end of the data: the trace and GPU records are brought up to date,
   * so they are complete even if the process dies now */
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS && GST_IS_PIPELINE (element)
      && !GST_OBJECT_PARENT (element)) {
    if (m->gpu_on)
      gpuprof_cupti_flush (TRUE);
    if (gpuprof_bus_active (m->bus))
      gpuprof_bus_flush (m->bus);
    return;
  }
  if (GST_MESSAGE_TYPE (message) != GST_MESSAGE_STREAM_STATUS)
    return;
  gst_message_parse_stream_status (message, &type, &owner);
  if (type != GST_STREAM_STATUS_TYPE_ENTER
      && type != GST_STREAM_STATUS_TYPE_LEAVE)
    return;
  /* ENTER and LEAVE are posted from the task's thread itself */
  val = gst_message_get_stream_status_object (message);
  if (!val || !G_VALUE_HOLDS_OBJECT (val) || !GST_IS_TASK (g_value_get_object
          (val)))
    return;
  t = gpuprof_thread_get ();
  if (type == GST_STREAM_STATUS_TYPE_LEAVE) {
    task_leaves (t);
    return;
  }
  if (owner && !GST_IS_BIN (owner)) {
    guint32 id = gpuprof_objects_element (m->objects, owner)->id;
    guint64 cpu = gpuprof_thread_cpu_now ();

    /* the CPU it used before is its former owner's (GLib's pool hands a
     * thread from task to task) */
    gpuprof_owners_set_here (t->tid, id, GPUPROF_THREAD_KIND_STREAMING,
        GPUPROF_OWNER_BY_TASK, cpu);
    /* its first loop starts now, not at a former task's last push */
    if (t->depth == 0 && ts) {
      t->loop_mark = ts;
      t->loop_child_ns = 0;
      t->loop_cpu_mark = cpu;
    }
    /* its first loop, till its first push, may start threads */
    open_loop_window (t, id);
  }
  /* the pad named its task on this thread just before posting (and
   * renames no task with a running thread): no lock needed to read it */
  name = GST_OBJECT_NAME (g_value_get_object (val));
  if (name) {
    gpuprof_thread_set_name (t, name, TRUE);
    if (!t->announced)
      announce_thread (m, t);
    else
      name_thread (m, t);
  }
}

/* The threads @e created, when it is no filter (a sink's render thread, a
 * source's reader): read on their CPU clocks from now (@ts), for their rows
 * in the Threads table. Off the buffer path: a lock and a list. */
static void
owned_record (GpuprofElement * e, guint64 ts)
{
  GpuprofWorkers *ws = __atomic_load_n (&e->workers, __ATOMIC_ACQUIRE),
      *none = NULL;
  GArray *tids = gpuprof_owners_workers (e->id);

  if (!ws && tids->len) {
    ws = g_new0 (GpuprofWorkers, 1);
    if (!__atomic_compare_exchange_n (&e->workers, &none, ws, FALSE,
            __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
      g_free (ws);
      ws = none;
    }
  }
  if (ws)
    gpuprof_workers_set (ws, e->id, (const gint *) tids->data, tids->len,
        ts);
  g_array_unref (tids);
}

/* Threads that appeared during @e's state change are its workers; a
 * filter with some is followed from its first buffer as a candidate
 * asynchronous element (its output thread confirms it), another element's
 * are read for their rows */
static void
scan_workers (GpuprofElement * e, guint64 ts)
{
  gpuprof_owners_scan (e->id);
  if (e->role == GPUPROF_ROLE_FILTER)
    async_record (e, FALSE, 0, ts);
  else
    owned_record (e, ts);
}

/* element-change-state-pre: the session hears of an element leaving NULL
 * first (it starts its threads then: CUPTI's, the checkpoints'), so that
 * the scan after it finds them; threads that appeared since the last
 * state change are not this element's (gpuprof-owners.h); an element about
 * to stop its workers has them read while they live. GPU work the element
 * launches during its state change (buffer pools, CUDA contexts) is its
 * own: the exit is at the top of gpuprof_hooks_state_change(). */
/* A top-level pipeline leaving NULL starts its run window on the CPU
 * sampler; one about to stop its threads has them read while they live */
static void
cpu_sampler_state_change (GpuprofMeasure * m, GstElement * pipeline,
    GstStateChange transition)
{
  GpuprofCpuSampler *cpu = __atomic_load_n (&m->cpu, __ATOMIC_ACQUIRE);

  if (!cpu)
    return;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    gpuprof_cpu_sampler_run_start (cpu, gpuprof_objects_pipeline (m->objects,
            pipeline));
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gpuprof_cpu_sampler_pass (cpu);
}

void
gpuprof_hooks_state_change_pre (GpuprofMeasure * m, GstElement * element,
    GstStateChange transition)
{
  GpuprofElement *e = gpuprof_objects_element_peek (element);
  GpuprofAsync *a = e ? __atomic_load_n (&e->async, __ATOMIC_ACQUIRE) : NULL;
  GpuprofWorkers *own = e ? __atomic_load_n (&e->workers,
      __ATOMIC_ACQUIRE) : NULL;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && m->funcs.starting)
    m->funcs.starting (element, m->funcs_data);
  gpuprof_owners_scan (0);
  if (GST_IS_PIPELINE (element) && !GST_OBJECT_PARENT (element))
    cpu_sampler_state_change (m, element, transition);
  /* what appears till its end is its (scan_workers) */
  if (!GST_IS_BIN (element))
    gpuprof_owners_state_window (gpuprof_objects_element (m->objects,
            element)->id, TRUE);
  if (a && transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gpuprof_workers_sample_named (gpuprof_async_get_workers (a));
  /* the pools' configs while they live: an element stopping drops its */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && !GST_IS_BIN (element))
    gpuprof_pools_read_configs (m);
  if (own && transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gpuprof_workers_sample_named (own);
  if (G_UNLIKELY (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER)))
    gpuprof_gpu_chain_enter (gpuprof_objects_element (m->objects,
            element)->id, GPUPROF_GPU_SEQ_NONE);
}

void
gpuprof_hooks_state_change (GpuprofMeasure * m, guint64 ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result)
{
  GpuprofElement *e = gpuprof_objects_element_peek (element);

  gpuprof_gpu_chain_exit ();    /* gpuprof_hooks_state_change_pre() */
  /* threads that appeared during its state change are its workers; what
   * needs its lock is read here, where GStreamer holds none */
  if (!GST_IS_BIN (element)) {
    scan_workers (gpuprof_objects_element_settle (m->objects, element), ts);
    gpuprof_owners_state_window (0, FALSE);
  }
  /* seen before it was in a bin: set up (or moved) without gst_bin_add? */
  if (e && !__atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED)
      && !GST_IS_BIN (element))
    gpuprof_objects_reparented (m->objects, element);
  if (m->nvtx && e && e->nvtx_domain) {
    gchar *text = g_strdup_printf ("%s -> %s",
        gst_element_state_get_name (GST_STATE_TRANSITION_CURRENT (transition)),
        gst_element_state_get_name (GST_STATE_TRANSITION_NEXT (transition)));
    gpuprof_nvtx_mark (e, text, (guint64) transition, GPUPROF_NVTX_CAT_STATE);
    g_free (text);
  }
  if (e && gpuprof_bus_active (m->bus))
    trace_mark (m, gpuprof_thread_peek (), e, NULL, ts,
        GPUPROF_MARK_STATE_CHANGE, (guint64) transition);
  /* batch-size and interval at the start of a run, off the streaming
   * threads */
  if ((transition == GST_STATE_CHANGE_READY_TO_PAUSED
          || transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
      && result != GST_STATE_CHANGE_FAILURE && !GST_IS_BIN (element)
      && (g_object_class_find_property (G_OBJECT_GET_CLASS (element),
              "batch-size") || g_object_class_find_property
          (G_OBJECT_GET_CLASS (element), "interval")))
    gpuprof_batches_read_properties (m->batches,
        gpuprof_objects_element (m->objects, element));
  /* a queue stopping empties itself unpushed; so does an asynchronous
   * element */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && e && e->queue)
    gpuprof_measure_end_element_queues (m, e, ts);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && e && e->async)
    gpuprof_async_drain (e->async);
  /* a run that never gets a buffer is still reported: since it was set
   * to PLAYING (a pipeline that cannot preroll stays on its way there) */
  if ((transition == GST_STATE_CHANGE_READY_TO_PAUSED
          || transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
      && result != GST_STATE_CHANGE_FAILURE && GST_IS_PIPELINE (element)
      && !GST_OBJECT_PARENT (element)
      && GST_STATE_TARGET (element) == GST_STATE_PLAYING) {
    GpuprofPipeline *pl = gpuprof_objects_pipeline (m->objects, element);
    guint64 none = 0;
    __atomic_compare_exchange_n (&pl->playing_since, &none, ts ? ts : 1,
        FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  /* the end of a run: a top-level pipeline back to NULL */
  if (transition == GST_STATE_CHANGE_READY_TO_NULL
      && GST_IS_PIPELINE (element) && !GST_OBJECT_PARENT (element)
      && m->funcs.run_end)
    m->funcs.run_end (gpuprof_objects_pipeline (m->objects, element),
        m->funcs_data);
}

void
gpuprof_hooks_element_added (GpuprofMeasure * m, GstBin * bin,
    GstElement * element, gboolean result)
{
  if (result)
    gpuprof_objects_reparented (m->objects, element);
}

/* a bin's "element-removed": the element is out, alive (the bin holds it
 * during the signal) */
void
gpuprof_hooks_element_removed (GpuprofMeasure * m, GstBin * bin,
    GstElement * element)
{
  /* our own records are walked, each parent chain read directly (no
   * bin's lock): itself and what it holds get their new pipeline */
  gpuprof_objects_reparented (m->objects, element);
}

/* The element whose code runs on @t now: the receiver of its innermost
 * chain call, the handler of its innermost event or query (the pad's
 * peer's element), the element changing state there, else the element
 * whose task or output loop the thread runs */
static GpuprofElement *
element_running (GpuprofMeasure * m, GpuprofThread * t)
{
  GpuprofFrame *f = gpuprof_thread_top (t);
  GstPad *peer;
  guint32 id;

  if (f && f->kind == GPUPROF_FRAME_CALL && f->gstpad
      && (peer = peer_of ((GstPad *) f->gstpad)))
    return gpuprof_objects_pad (m->objects, t, peer)->element;
  if (f && f->kind == GPUPROF_FRAME_CHAIN)
    return f->element;
  id = gpuprof_owners_window_element (t->tid);
  if (!id)
    id = gpuprof_owners_lookup (t->tid, NULL);
  return id ? gpuprof_objects_element_by_id (m->objects, id) : NULL;
}

void
gpuprof_hooks_object_created (GpuprofMeasure * m, GstObject * object)
{
#if GST_CHECK_VERSION(1, 20, 0)
  GpuprofThread *t;
  GpuprofElement *e;

  if (G_LIKELY (!GST_IS_SHARED_TASK_POOL (object)))
    return;
  t = gpuprof_thread_peek ();
  e = t ? element_running (m, t) : NULL;
  /* a thread that ran no hook yet: an element's state change there */
  if (!t) {
    guint32 id = gpuprof_owners_window_element (0);

    e = id ? gpuprof_objects_element_by_id (m->objects, id) : NULL;
  }
  if (e)
    __atomic_store_n (&e->pool_user, TRUE, __ATOMIC_RELAXED);
#endif
}

void
gpuprof_hooks_object_destroyed (GpuprofMeasure * m, guint64 ts,
    GstObject * object)
{
  gboolean freeable;

  if (G_UNLIKELY (GST_IS_BUFFER_POOL (object))) {
    gpuprof_pools_destroyed (m, ts, object);
    return;
  }
  if (!GST_IS_PAD (object) && !GST_IS_ELEMENT (object))
    return;
  freeable = gpuprof_objects_destroyed (m->objects, object);
  /* a top-level bin is destroyed after all it held: its records can go;
   * so can those of elements taken out of a running pipeline, a batch at
   * a time (a camera's elements, one after the other) */
  if (GST_IS_BIN (object) && !GST_OBJECT_PARENT (object)) {
    __atomic_store_n (&m->n_freeable, 0, __ATOMIC_RELAXED);
  } else if (!freeable || __atomic_add_fetch (&m->n_freeable, 1,
          __ATOMIC_RELAXED) < GPUPROF_MEASURE_SWEEP_BATCH) {
    return;
  } else {
    __atomic_store_n (&m->n_freeable, 0, __ATOMIC_RELAXED);
  }
  if (m->funcs.pipeline_destroyed)
    m->funcs.pipeline_destroyed (m->funcs_data);
}
