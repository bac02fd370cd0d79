/* gpuprof: queue residency, levels, leaky drops and backpressure. */
#include "gpuprof-queue.h"

#include <string.h>

static gchar *
queue_path (GpuprofElement * element, guint index)
{
  if (element->factory && !strcmp (element->factory, "multiqueue"))
    return g_strdup_printf ("%s:%u", element->path, index);
  return g_strdup (element->path);
}

GpuprofQueue *
gpuprof_queue_new (GpuprofElement * element, guint index)
{
  GpuprofQueue *q = g_new0 (GpuprofQueue, 1);

  g_mutex_init (&q->lock);
  q->element = element;
  q->index = index;
  q->path = queue_path (element, index);
  /* grows by doubling: no allocation once the queue's depth has been seen */
  q->cap = 64;
  q->items = g_new0 (GpuprofQueueItem, q->cap);
  return q;
}

gchar *
gpuprof_queue_update_path (GpuprofQueue * q)
{
  gchar *old = q->path;

  q->path = queue_path (q->element, q->index);
  return old;
}

void
gpuprof_queue_free (GpuprofQueue * q)
{
  g_mutex_clear (&q->lock);
  g_free (q->items);
  g_free (q->path);
  g_free (q);
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

/* removes the head; lock held */
static GpuprofQueueItem
pop_head (GpuprofQueue * q)
{
  GpuprofQueueItem it = *item_at (q, 0);

  q->head = (q->head + 1) % q->cap;
  q->len--;
  q->level_bytes -= MIN (q->level_bytes, it.size);
  q->level_time -= MIN (q->level_time, it.duration);
  it.level_buffers = q->len;
  it.level_bytes = q->level_bytes;
  return it;
}

void
gpuprof_queue_enqueue (GpuprofQueue * q, GpuprofQueueItem * item)
{
  g_mutex_lock (&q->lock);
  if (q->len == q->cap)
    grow (q);
  *item_at (q, q->len) = *item;
  q->len++;
  q->pending++;
  q->level_bytes += item->size;
  q->level_time += item->duration;
  item->level_buffers = q->len;
  item->level_bytes = q->level_bytes;
  g_mutex_unlock (&q->lock);
}

/* The chain call that enqueued has returned: its buffer is inside. Our
 * mirror can run one buffer ahead of the queue (the queue pops before the
 * src push we see), so returns TRUE when the level may be a new maximum and
 * the caller should confirm it from the queue itself. */
gboolean
gpuprof_queue_chain_done (GpuprofQueue * q, guint64 * buffers,
    guint64 * bytes, guint64 * time)
{
  gboolean candidate;

  g_mutex_lock (&q->lock);
  if (q->pending)
    q->pending--;
  *buffers = q->len > q->pending ? q->len - q->pending : 0;
  *bytes = q->level_bytes;
  *time = q->level_time;
  candidate = *buffers >= q->max_level_buffers
      || *bytes > q->max_level_bytes || *time > q->max_level_time;
  g_mutex_unlock (&q->lock);
  return candidate;
}

/* The chain call blocked on a full queue: the buffer entered only when it
 * returned. Residency counts from then. */
void
gpuprof_queue_mark_entered (GpuprofQueue * q, gconstpointer key, guint64 ts)
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

void
gpuprof_queue_update_max (GpuprofQueue * q, guint64 buffers, guint64 bytes,
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
empty_as (GpuprofQueue * q, guint64 ts, GpuprofQueueOutcome outcome,
    GpuprofQueueEndFunc end, gpointer user_data)
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
      q->drops++;
    else
      q->flushed++;
    g_mutex_unlock (&q->lock);
    end (q, &it, ts, outcome, user_data);
  }
}

/* EOS left the queue: whatever it still holds was dropped (leaky). */
void
gpuprof_queue_drain_as_drops (GpuprofQueue * q, guint64 ts,
    GpuprofQueueEndFunc end, gpointer user_data)
{
  empty_as (q, ts, GPUPROF_QUEUE_DROPPED, end, user_data);
}

/* Finds the buffer leaving the queue; entries before it were dropped by a
 * leaky queue. Returns FALSE (and changes nothing) for a buffer never seen
 * entering, e.g. one queued before the tracer saw the queue. */
gboolean
gpuprof_queue_dequeue (GpuprofQueue * q, gconstpointer key, guint64 ts,
    GpuprofQueueEndFunc end, gpointer user_data)
{
  GpuprofQueueItem gone[16];
  GpuprofQueueItem it;
  guint i, pos, n_gone = 0;
  gboolean found = FALSE;

  g_mutex_lock (&q->lock);
  for (pos = 0; pos < q->len; pos++) {
    if (item_at (q, pos)->key == key) {
      found = TRUE;
      break;
    }
  }
  if (!found) {
    g_mutex_unlock (&q->lock);
    return FALSE;
  }
  for (i = 0; i < pos; i++) {
    it = pop_head (q);
    q->drops++;
    /* end callbacks may emit NVTX: do it outside the lock, in batches */
    if (n_gone == G_N_ELEMENTS (gone)) {
      g_mutex_unlock (&q->lock);
      for (n_gone = 0; n_gone < G_N_ELEMENTS (gone); n_gone++)
        end (q, &gone[n_gone], ts, GPUPROF_QUEUE_DROPPED, user_data);
      n_gone = 0;
      g_mutex_lock (&q->lock);
    }
    gone[n_gone++] = it;
  }
  it = pop_head (q);
  q->dequeued++;
  gpuprof_histogram_record (&q->residency, ts > it.ts ? ts - it.ts : 0);
  g_mutex_unlock (&q->lock);

  for (i = 0; i < n_gone; i++)
    end (q, &gone[i], ts, GPUPROF_QUEUE_DROPPED, user_data);
  end (q, &it, ts, GPUPROF_QUEUE_PUSHED, user_data);
  return TRUE;
}

/* The chain call that enqueued 'key' failed (flushing, EOS): the queue did
 * not keep it. Only the newest entry can be it. */
void
gpuprof_queue_unenqueue (GpuprofQueue * q, gconstpointer key,
    GpuprofQueueEndFunc end, guint64 ts, gpointer user_data)
{
  GpuprofQueueItem it;
  gboolean found = FALSE;

  g_mutex_lock (&q->lock);
  if (q->len > 0 && item_at (q, q->len - 1)->key == key) {
    it = *item_at (q, q->len - 1);
    q->len--;
    q->level_bytes -= MIN (q->level_bytes, it.size);
    q->level_time -= MIN (q->level_time, it.duration);
    it.level_buffers = q->len;
    it.level_bytes = q->level_bytes;
    q->flushed++;
    found = TRUE;
  }
  if (q->pending)
    q->pending--;
  g_mutex_unlock (&q->lock);
  if (found)
    end (q, &it, ts, GPUPROF_QUEUE_FLUSHED, user_data);
}

void
gpuprof_queue_flush (GpuprofQueue * q, guint64 ts, GpuprofQueueEndFunc end,
    gpointer user_data)
{
  empty_as (q, ts, GPUPROF_QUEUE_FLUSHED, end, user_data);
}

/* For queues without an "overrun" signal (queue2): full by our own count
 * against the limits read when the queue was first seen. */
gboolean
gpuprof_queue_is_full (GpuprofQueue * q)
{
  gboolean full;

  g_mutex_lock (&q->lock);
  full = (q->element->queue_limit_buffers
      && q->len >= q->element->queue_limit_buffers)
      || (q->element->queue_limit_bytes
      && q->level_bytes >= q->element->queue_limit_bytes);
  g_mutex_unlock (&q->lock);
  return full;
}

void
gpuprof_queue_add_backpressure (GpuprofQueue * q, guint64 ns)
{
  __atomic_fetch_add (&q->backpressure_ns, ns, __ATOMIC_RELAXED);
}

/* New run: statistics restart; entries still inside stay (none at NULL). */
void
gpuprof_queue_reset (GpuprofQueue * q)
{
  g_mutex_lock (&q->lock);
  q->max_level_buffers = q->len;
  q->max_level_bytes = q->level_bytes;
  q->max_level_time = q->level_time;
  q->dequeued = q->drops = q->flushed = 0;
  gpuprof_histogram_reset (&q->residency);
  g_mutex_unlock (&q->lock);
  __atomic_store_n (&q->backpressure_ns, 0, __ATOMIC_RELAXED);
}
