/* gpuprof: queue residency, levels, leaky drops and backpressure. */
#include "gpuprof-queue.h"

#include "gpuprof-clock.h"
#include "gpuprof-nvtx.h"

#include <stdlib.h>
#include <string.h>

/* residency ids of the trace: one per queue FIFO ever created */
static guint32 last_uid;

gchar *
gpuprof_queue_dup_path (const GpuprofQueue * q)
{
  const GpuprofElement *e = q->element;

  if (e->factory && !strcmp (e->factory, "multiqueue"))
    return g_strdup_printf ("%s:%u", e->path, q->index);
  return g_strdup (e->path);
}

static GpuprofQueue *
queue_new (GpuprofElement * element, guint index)
{
  GpuprofQueue *q = g_new0 (GpuprofQueue, 1);

  g_mutex_init (&q->lock);
  q->element = element;
  q->index = index;
  q->uid = __atomic_add_fetch (&last_uid, 1, __ATOMIC_RELAXED);
  /* grows by doubling: no allocation once the queue's depth has been seen */
  q->cap = 64;
  q->items = g_new0 (GpuprofQueueItem, q->cap);
  return q;
}

/* multiqueue pairs sink_N with src_N */
static guint
pad_index (const gchar * name)
{
  const gchar *us = strrchr (name, '_');

  return us ? (guint) strtoul (us + 1, NULL, 10) : 0;
}

GpuprofQueue *
gpuprof_queue_for_pad (GpuprofElement * e, const gchar * pad_name)
{
  guint i, index = pad_index (pad_name);
  GpuprofQueue *q;

  for (i = 0; i < e->queue->fifos->len; i++) {
    q = g_ptr_array_index (e->queue->fifos, i);
    if (q->index == index)
      return q;
  }
  q = queue_new (e, index);
  g_ptr_array_add (e->queue->fifos, q);
  return q;
}

void
gpuprof_queue_free (GpuprofQueue * q)
{
  g_mutex_clear (&q->lock);
  g_free (q->items);
  g_free (q);
}

/* read when the element settled (gpuprof_queue_element_settle()) */
static inline gboolean
leaks (const GpuprofQueue * q)
{
  return __atomic_load_n (&q->element->queue->leaky, __ATOMIC_RELAXED);
}

static GpuprofQueueItem *
item_at (GpuprofQueue * q, guint i)
{
  return &q->items[(q->head + i) % q->cap];
}

static void
grow (GpuprofQueue * q)
{
  GpuprofQueueItem *items = g_new0 (GpuprofQueueItem, q->cap * 2);
  guint i;

  for (i = 0; i < q->len; i++)
    items[i] = *item_at (q, i);
  g_free (q->items);
  q->items = items;
  q->head = 0;
  q->cap *= 2;
}

/* an entry left: the level drops, and the entry keeps the level after it;
 * lock held */
static void
leave (GpuprofQueue * q, GpuprofQueueItem * it)
{
  q->len--;
  q->level_buffers -= MIN (q->level_buffers, it->n_buffers);
  q->level_bytes -= MIN (q->level_bytes, it->size);
  q->level_time -= MIN (q->level_time, it->duration);
  it->level_buffers = q->level_buffers;
  it->level_bytes = q->level_bytes;
}

/* removes the head; lock held */
static GpuprofQueueItem
pop_head (GpuprofQueue * q)
{
  GpuprofQueueItem it = *item_at (q, 0);

  q->head = (q->head + 1) % q->cap;
  leave (q, &it);
  return it;
}

/* The trace's id of one entry (residency and its arrow): unique per FIFO,
 * so the streams of a multiqueue, whose pads number their buffers each
 * from 1, do not collide; below 2^53 so JavaScript keeps it (17 bits of
 * FIFO, 36 of sequence: ids repeat only after 131071 queues). */
guint64
gpuprof_queue_residency_id (const GpuprofQueue * q, guint64 seq)
{
  return ((guint64) (q->uid & 0x1ffff) << 36) | (seq &
      G_GUINT64_CONSTANT (0xfffffffff));
}

/* ------------------------------------------------------------- events */

static void
trace_level (const GpuprofQueueOutputs * out, GpuprofThread * t,
    GpuprofQueue * q, guint64 ts, const GpuprofQueueItem * item)
{
  GpuprofEvent ev;

  gpuprof_event_init (&ev, GPUPROF_EVENT_QUEUE_LEVEL, q->element->id, 0,
      t ? t->id : 0, ts);
  ev.self = item->level_buffers;
  ev.size = item->level_bytes;
  gpuprof_bus_emit (out->bus, t, &ev);
}

/* An entry left the mirror, called outside the queue's lock (NVTX) */
static void
item_end (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    const GpuprofQueueItem * item, guint64 ts, GpuprofQueueOutcome outcome)
{
  if (out->nvtx && item->nvtx_range)
    gpuprof_nvtx_end (q->element, item->nvtx_range);
  if (out->bus) {
    GpuprofThread *t = gpuprof_thread_peek ();
    GpuprofEvent ev;

    gpuprof_event_init (&ev, GPUPROF_EVENT_QUEUE_OUT, q->element->id, 0,
        t ? t->id : 0, ts);
    ev.seq = item->seq;
    ev.size = item->size;
    ev.self = item->n_buffers;
    ev.flow = gpuprof_queue_residency_id (q, item->seq);
    /* where the buffer's arrow starts: the enqueuing chain call */
    ev.dur = ts > item->in_ts ? ts - item->in_ts : 0;
    ev.arg0 = gpuprof_event_queue_out (outcome, item->in_thread);
    gpuprof_bus_emit (out->bus, t, &ev);
    trace_level (out, t, q, ts, item);
  }
}

/* ------------------------------------------------------------- mirror */

static void
enqueue (GpuprofQueue * q, GpuprofQueueItem * item)
{
  g_mutex_lock (&q->lock);
  if (q->len == q->cap)
    grow (q);
  *item_at (q, q->len) = *item;
  q->len++;
  q->level_buffers += item->n_buffers;
  q->pending += item->n_buffers;
  q->level_bytes += item->size;
  q->level_time += item->duration;
  item->level_buffers = q->level_buffers;
  item->level_bytes = q->level_bytes;
  g_mutex_unlock (&q->lock);
}

/* The chain call that enqueued has returned: its buffer is inside. Our
 * mirror can run one buffer ahead of the queue (the queue pops before the
 * src push we see), so returns TRUE when the level may be a new maximum and
 * the caller should confirm it from the queue itself. */
static gboolean
chain_done (GpuprofQueue * q, guint n_buffers,
    guint64 * buffers, guint64 * bytes, guint64 * time)
{
  gboolean candidate;

  g_mutex_lock (&q->lock);
  q->pending -= MIN (q->pending, n_buffers);
  *buffers = q->level_buffers > q->pending ? q->level_buffers - q->pending : 0;
  *bytes = q->level_bytes;
  *time = q->level_time;
  candidate = *buffers >= q->max_level_buffers
      || *bytes > q->max_level_bytes || *time > q->max_level_time;
  g_mutex_unlock (&q->lock);
  return candidate;
}

/* The chain call blocked on a full queue: the buffer entered only when it
 * returned. Residency counts from then. */
static void
mark_entered (GpuprofQueue * q, gconstpointer key, guint64 ts)
{
  guint i;

  g_mutex_lock (&q->lock);
  for (i = q->len; i > 0; i--) {
    GpuprofQueueItem *it = item_at (q, i - 1);
    if (it->key == key) {
      it->ts = ts;
      break;
    }
  }
  g_mutex_unlock (&q->lock);
}

static void
update_max (GpuprofQueue * q, guint64 buffers, guint64 bytes,
    guint64 time)
{
  g_mutex_lock (&q->lock);
  q->max_level_buffers = MAX (q->max_level_buffers, buffers);
  q->max_level_bytes = MAX (q->max_level_bytes, bytes);
  q->max_level_time = MAX (q->max_level_time, time);
  g_mutex_unlock (&q->lock);
}

/* Empties the mirror, counting every entry as 'outcome'; the end callback
 * (NVTX, trace) runs outside the lock. */
static void
empty_as (GpuprofQueue * q, const GpuprofQueueOutputs * out, guint64 ts,
    GpuprofQueueOutcome outcome)
{
  GpuprofQueueItem it;

  for (;;) {
    g_mutex_lock (&q->lock);
    if (q->len == 0) {
      g_mutex_unlock (&q->lock);
      break;
    }
    it = pop_head (q);
    if (outcome == GPUPROF_QUEUE_DROPPED)
      q->drops += it.n_buffers;
    else if (outcome == GPUPROF_QUEUE_LEFT)
      q->left += it.n_buffers;
    else
      q->flushed += it.n_buffers;
    g_mutex_unlock (&q->lock);
    item_end (q, out, &it, ts, outcome);
  }
}

void
gpuprof_queue_pushed (GpuprofQueue * q, GstFlowReturn res)
{
  __atomic_store_n (&q->last_push, (gint) res, __ATOMIC_RELAXED);
}

gboolean
gpuprof_queue_downstream_stopped (GpuprofQueue * q)
{
  return __atomic_load_n (&q->last_push, __ATOMIC_RELAXED) != GST_FLOW_OK;
}

/* EOS left the queue: the queue holds nothing more. Normally what the
 * mirror still has was dropped by a leaky queue; when downstream had
 * stopped (the last push returned EOS, not-linked, an error) the queue
 * threw its content away unpushed, and a queue that never leaks has only
 * such entries: they are "left", not drops. */
void
gpuprof_queue_eos (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    gboolean downstream_stopped, guint64 ts)
{
  empty_as (q, out, ts, leaks (q) && !downstream_stopped ?
      GPUPROF_QUEUE_DROPPED : GPUPROF_QUEUE_LEFT);
}

/* The queue element stopped (PAUSED to READY), or the tracer ends with
 * the pipeline still running: what is inside was never pushed. */
void
gpuprof_queue_end_element (GpuprofElement * e,
    const GpuprofQueueOutputs * out, guint64 ts)
{
  guint i;

  for (i = 0; e->queue && i < e->queue->fifos->len; i++) {
    GpuprofQueue *q = g_ptr_array_index (e->queue->fifos, i);
    empty_as (q, out, ts, GPUPROF_QUEUE_LEFT);
    /* its pads start again (activated) with nothing refused */
    gpuprof_queue_pushed (q, GST_FLOW_OK);
  }
}

static gboolean
same_fingerprint (const GpuprofQueueItem * a, const GpuprofQueueItem * b)
{
  return a->pts == b->pts && a->dts == b->dts && a->offset == b->offset
      && a->size == b->size;
}

/* The entry a leaky queue pushed, or -1: the oldest with the same pointer
 * and fingerprint; else the same fingerprint (the queue copied the buffer
 * to mark it DISCONT after a drop); else the same pointer. A pooled buffer
 * that was dropped comes back with its pointer and a new fingerprint, so the
 * pointer alone could pick a stale entry. Lock held. */
static gint
find_pushed (GpuprofQueue * q, const GpuprofQueueItem * pushed)
{
  gint by_fingerprint = -1, by_key = -1;
  guint i;

  for (i = 0; i < q->len; i++) {
    const GpuprofQueueItem *it = item_at (q, i);
    gboolean fp = same_fingerprint (it, pushed);

    if (fp && it->key == pushed->key)
      return (gint) i;
    if (fp && by_fingerprint < 0)
      by_fingerprint = (gint) i;
    if (it->key == pushed->key && by_key < 0)
      by_key = (gint) i;
  }
  return by_fingerprint >= 0 ? by_fingerprint : by_key;
}

/* A buffer (or list) left the queue: every push counts. A queue that never
 * leaks pushes in order: its oldest entry, whatever the pointer (a copy, or
 * queue2's file modes). A leaky queue's entry is found by find_pushed();
 * entries before it were dropped. Returns FALSE when no entry is known (a
 * buffer never seen entering): no residency then. */
static gboolean
dequeue (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    const GpuprofQueueItem * pushed, guint64 ts)
{
  GpuprofQueueItem gone[16];
  GpuprofQueueItem it;
  guint i, n_gone = 0;
  gint pos;

  g_mutex_lock (&q->lock);
  q->dequeued += pushed->n_buffers;
  if (q->len == 0)
    pos = -1;
  else if (!leaks (q))
    pos = 0;
  else
    pos = find_pushed (q, pushed);
  if (pos < 0) {
    g_mutex_unlock (&q->lock);
    return FALSE;
  }
  for (i = 0; i < (guint) pos; i++) {
    it = pop_head (q);
    q->drops += it.n_buffers;
    /* ends may emit NVTX: outside the lock, in batches */
    if (n_gone == G_N_ELEMENTS (gone)) {
      g_mutex_unlock (&q->lock);
      for (n_gone = 0; n_gone < G_N_ELEMENTS (gone); n_gone++)
        item_end (q, out, &gone[n_gone], ts, GPUPROF_QUEUE_DROPPED);
      n_gone = 0;
      g_mutex_lock (&q->lock);
    }
    gone[n_gone++] = it;
  }
  it = pop_head (q);
  gpuprof_histogram_record_n (&q->residency, ts > it.ts ? ts - it.ts : 0,
      it.n_buffers);
  g_mutex_unlock (&q->lock);

  for (i = 0; i < n_gone; i++)
    item_end (q, out, &gone[i], ts, GPUPROF_QUEUE_DROPPED);
  item_end (q, out, &it, ts, GPUPROF_QUEUE_PUSHED);
  return TRUE;
}

/* The chain call that enqueued 'key' failed (flushing, EOS): the queue did
 * not keep it. Only the newest entry can be it. */
static void
unenqueue (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    gconstpointer key, guint n_buffers, guint64 ts)
{
  GpuprofQueueItem it;
  gboolean found = FALSE;

  g_mutex_lock (&q->lock);
  if (q->len > 0 && item_at (q, q->len - 1)->key == key) {
    it = *item_at (q, q->len - 1);
    leave (q, &it);
    q->flushed += it.n_buffers;
    found = TRUE;
  }
  q->pending -= MIN (q->pending, n_buffers);
  g_mutex_unlock (&q->lock);
  if (found)
    item_end (q, out, &it, ts, GPUPROF_QUEUE_FLUSHED);
}

/* A push from the queue was refused before it reached downstream (the
 * peer flushing, EOS, a list cut short by a failing chain call): those
 * buffers were not pushed out; the queue threw them away. */
void
gpuprof_queue_take_back (GpuprofQueue * q, guint n_buffers, gboolean flushing)
{
  g_mutex_lock (&q->lock);
  n_buffers = MIN (q->dequeued, n_buffers);
  q->dequeued -= n_buffers;
  if (flushing)
    q->flushed += n_buffers;
  else
    q->left += n_buffers;
  g_mutex_unlock (&q->lock);
}

void
gpuprof_queue_flush (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    guint64 ts)
{
  empty_as (q, out, ts, GPUPROF_QUEUE_FLUSHED);
}

/* For queues without an "overrun" signal (queue2): full by our own count
 * against the limits read when the queue was first seen. */
static gboolean
is_full (GpuprofQueue * q)
{
  gboolean full;

  g_mutex_lock (&q->lock);
  full = (q->element->queue->limit_buffers
      && q->level_buffers >= q->element->queue->limit_buffers)
      || (q->element->queue->limit_bytes
      && q->level_bytes >= q->element->queue->limit_bytes);
  g_mutex_unlock (&q->lock);
  return full;
}

/* ---------------------------------------------------------- the hooks */

/* The element said "overrun": the thread in its chain call blocks now. */
static void
on_overrun (GstElement * queue, gpointer user_data)
{
  GpuprofThread *t = gpuprof_thread_peek ();
  GpuprofFrame *f = t ? gpuprof_thread_top (t) : NULL;

  /* only the upstream thread, inside the queue's chain, blocks */
  if (f && f->kind == GPUPROF_FRAME_CHAIN && f->element->element == queue
      && !f->blocked_start)
    f->blocked_start = gpuprof_clock_now ();
}

GpuprofQueueElement *
gpuprof_queue_element_new (GpuprofElement * e)
{
  GpuprofQueueElement *qe = g_new0 (GpuprofQueueElement, 1);

  qe->fifos = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_queue_free);
  return qe;
}

void
gpuprof_queue_element_settle (GpuprofElement * e)
{
  GpuprofQueueElement *qe = e->queue;
  guint max_buffers = 0, max_bytes = 0;
  gint leaky = 0;

  if (!qe || !e->element)
    return;
  /* GstQueue only; queue2 and multiqueue never leak */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (e->element),
          "leaky"))
    g_object_get (e->element, "leaky", &leaky, NULL);
  /* with the FIFOs pad hooks made before it settled: they read it here */
  __atomic_store_n (&qe->leaky, leaky != 0, __ATOMIC_RELAXED);
  if (g_signal_lookup ("overrun", G_OBJECT_TYPE (e->element))) {
    g_signal_connect (e->element, "overrun", G_CALLBACK (on_overrun), NULL);
    qe->has_overrun = TRUE;
    return;
  }
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (e->element),
          "max-size-buffers"))
    g_object_get (e->element, "max-size-buffers", &max_buffers,
        "max-size-bytes", &max_bytes, NULL);
  qe->limit_buffers = max_buffers;
  qe->limit_bytes = max_bytes;
}

void
gpuprof_queue_element_free (GpuprofQueueElement * qe)
{
  if (!qe)
    return;
  g_ptr_array_unref (qe->fifos);
  g_free (qe);
}

/* what a copy of the buffer keeps, to find it again */
static void
fingerprint (GpuprofQueueItem * item, GstBuffer * buffer,
    GstBufferList * list)
{
  if (!buffer && list && gst_buffer_list_length (list))
    buffer = gst_buffer_list_get (list, 0);
  item->pts = buffer ? GST_BUFFER_PTS (buffer) : GST_CLOCK_TIME_NONE;
  item->dts = buffer ? GST_BUFFER_DTS (buffer) : GST_CLOCK_TIME_NONE;
  item->offset = buffer ? GST_BUFFER_OFFSET (buffer) : GST_BUFFER_OFFSET_NONE;
}

void
gpuprof_queue_chain_pre (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    GpuprofThread * t, GpuprofFrame * f, GstBuffer * buffer,
    GstBufferList * list)
{
  GpuprofElement *e = q->element;
  GpuprofQueueItem item = { f->key, f->start, f->n_buffers, t->id, f->start,
    f->size, 0, 0, f->seq
  };

  __atomic_store_n (&q->upstream_thread, t, __ATOMIC_RELAXED);
  /* queue2 has no "overrun": judge "full" before the chain blocks */
  if (!e->queue->has_overrun && is_full (q))
    f->blocked_start = f->start;
  if (buffer && GST_BUFFER_DURATION_IS_VALID (buffer))
    item.duration = GST_BUFFER_DURATION (buffer);
  fingerprint (&item, buffer, list);
  if (out->nvtx)
    item.nvtx_range = gpuprof_nvtx_start (e, f->pad->nvtx_msg, f->seq);
  enqueue (q, &item);
  if (t->ring) {
    GpuprofEvent ev;

    gpuprof_event_init (&ev, GPUPROF_EVENT_QUEUE_IN, e->id, f->pad->id,
        t->id, f->start);
    ev.seq = f->seq;
    ev.pts = f->pts;
    ev.size = f->size;
    ev.self = f->n_buffers;
    ev.flow = gpuprof_queue_residency_id (q, f->seq);
    gpuprof_ring_push (t->ring, &ev);
    trace_level (out, t, q, f->start, &item);
  }
}

/* A possible new maximum level: queue and queue2 say their true level (our
 * mirror may be one buffer ahead); a multiqueue pad pair has only ours.
 * Read after the chain returned, the queue's thread may already have taken
 * the buffer: the level was at least the buffers and bytes it was given.
 * Reached rarely, except on a full queue, whose upstream waits anyway. */
static void
update_level (GpuprofQueue * q, guint n_buffers, guint64 size)
{
  GpuprofElement *e = q->element;
  guint64 buffers, bytes, time;
  guint real_buffers, real_bytes;

  if (!chain_done (q, n_buffers, &buffers, &bytes, &time))
    return;
  if (e->element && g_object_class_find_property (G_OBJECT_GET_CLASS
          (e->element), "current-level-buffers")) {
    g_object_get (e->element, "current-level-buffers", &real_buffers,
        "current-level-bytes", &real_bytes, "current-level-time", &time,
        NULL);
    buffers = real_buffers;
    bytes = real_bytes;
  }
  update_max (q, MAX (buffers, n_buffers), MAX (bytes, size), time);
}

void
gpuprof_queue_chain_post (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    const GpuprofFrame * f, guint64 blocked, GstFlowReturn res, guint64 ts)
{
  if (blocked) {
    __atomic_fetch_add (&q->backpressure_ns, blocked, __ATOMIC_RELAXED);
    mark_entered (q, f->key, ts);
  }
  if (res != GST_FLOW_OK)
    unenqueue (q, out, f->key, f->n_buffers, ts);
  else
    update_level (q, f->n_buffers, f->size);
}

void
gpuprof_queue_push_pre (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    GstBuffer * buffer, GstBufferList * list, guint n_buffers, guint64 size,
    guint64 ts)
{
  GpuprofQueueItem pushed = { buffer ? (gconstpointer) buffer : list };

  pushed.n_buffers = n_buffers;
  pushed.size = size;
  fingerprint (&pushed, buffer, list);
  dequeue (q, out, &pushed, ts);
}

/* New run: statistics restart; entries still inside stay (none at NULL). */
void
gpuprof_queue_reset (GpuprofQueue * q)
{
  g_mutex_lock (&q->lock);
  q->max_level_buffers = q->level_buffers;
  q->max_level_bytes = q->level_bytes;
  q->max_level_time = q->level_time;
  q->dequeued = q->drops = q->flushed = q->left = 0;
  gpuprof_histogram_reset (&q->residency);
  g_mutex_unlock (&q->lock);
  __atomic_store_n (&q->backpressure_ns, 0, __ATOMIC_RELAXED);
}

/* the level now, without the newest entries whose chain calls still run
 * (waiting for room: not in the queue yet); lock held. The mirror can run
 * one buffer ahead (the queue pops before the src push we see), so it is
 * capped by the most the queue said it held (update_level): the true level
 * is never above either. */
static void
current_level (GpuprofQueue * q, guint64 * buffers, guint64 * bytes)
{
  guint64 pending = q->pending;
  guint i;

  *buffers = q->level_buffers > pending ? q->level_buffers - pending : 0;
  *bytes = q->level_bytes;
  for (i = q->len; i > 0 && pending; i--) {
    const GpuprofQueueItem *it = item_at (q, i - 1);
    *bytes -= MIN (*bytes, it->size);
    pending -= MIN (pending, it->n_buffers);
  }
  *buffers = MIN (*buffers, q->max_level_buffers);
  *bytes = MIN (*bytes, q->max_level_bytes);
}

/**
 * gpuprof_queue_figures:
 * @q: a queue FIFO
 * @f: (out): its figures for the run so far
 */
void
gpuprof_queue_figures (GpuprofQueue * q, GpuprofQueueFigures * f)
{
  GpuprofThread *up;

  memset (f, 0, sizeof (*f));
  g_mutex_lock (&q->lock);
  f->dequeued = q->dequeued;
  f->drops = q->drops;
  f->flushed = q->flushed;
  f->left = q->left;
  f->residency_p50 = gpuprof_histogram_percentile (&q->residency, 0.50);
  f->residency_p99 = gpuprof_histogram_percentile (&q->residency, 0.99);
  f->residency_max = q->residency.max;
  f->residency_mean = q->residency.count ?
      q->residency.sum / q->residency.count : 0;
  f->max_level_buffers = q->max_level_buffers;
  f->max_level_bytes = q->max_level_bytes;
  f->max_level_time = q->max_level_time;
  current_level (q, &f->level_buffers, &f->level_bytes);
  g_mutex_unlock (&q->lock);
  f->backpressure_ns = __atomic_load_n (&q->backpressure_ns,
      __ATOMIC_RELAXED);
  up = __atomic_load_n (&q->upstream_thread, __ATOMIC_RELAXED);
  if (up) {
    guint64 first = __atomic_load_n (&up->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&up->last_ts, __ATOMIC_RELAXED);
    f->upstream_wall_ns = last > first ? last - first : 0;
  }
}
