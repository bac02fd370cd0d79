/* gpuprof: the event bus (see gpuprof-bus.h).
 *
 * Threads: producers only push into their rings. Draining runs on the
 * bus's thread (a ticker of its own, gpuprof-ticker.h) every
 * DRAIN_PERIOD_US, or on the caller of gpuprof_bus_flush(), serialised by
 * drain_lock.
 */
#include "gpuprof-bus.h"
#include "gpuprof-ids.h"
#include "gpuprof-ticker.h"

#define DRAIN_PERIOD_US (20 * G_TIME_SPAN_MILLISECOND)
#define BATCH_EVENTS 1024
/* a drain this large means producers are fast: drain again at once */
#define BUSY_DRAIN_EVENTS 4096
#define SHARED_RING_CAPACITY 4096

typedef struct
{
  guint id;
  GpuprofBusSink funcs;
  gpointer user_data;
} Sink;

struct _GpuprofBus
{
  /* lock guards: rings, ring_by_id, drain */
  GMutex lock;
  GPtrArray *rings;
  GHashTable *ring_by_id;
  GpuprofTicker *ticker;        /* the drain thread */
  guint drain;                  /* its tick, 0 until the first sink */
  gint active;                  /* sinks.len > 0 (atomic) */

  /* for threads without a ring of their own; shared_lock serialises pushes */
  GMutex shared_lock;
  GpuprofRing *shared_ring;

  /* drain_lock guards everything below */
  GMutex drain_lock;
  GArray *sinks;                /* Sink */
  guint next_sink_id;
  GpuprofEvent *batch;
  GPtrArray *drain_rings;
};

GpuprofBus *
gpuprof_bus_new (void)
{
  GpuprofBus *bus = g_new0 (GpuprofBus, 1);

  g_mutex_init (&bus->lock);
  g_mutex_init (&bus->shared_lock);
  g_mutex_init (&bus->drain_lock);
  bus->rings = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_ring_free);
  bus->ring_by_id = g_hash_table_new (NULL, NULL);
  bus->shared_ring = gpuprof_ring_new (0, SHARED_RING_CAPACITY);
  bus->sinks = g_array_new (FALSE, FALSE, sizeof (Sink));
  bus->next_sink_id = 1;
  bus->batch = g_new (GpuprofEvent, BATCH_EVENTS);
  bus->drain_rings = g_ptr_array_new ();
  bus->ticker = gpuprof_ticker_new ("gpuprof-bus");
  return bus;
}

void
gpuprof_bus_free (GpuprofBus * bus)
{
  if (bus == NULL)
    return;
  gpuprof_ticker_free (bus->ticker);
  g_warn_if_fail (bus->sinks->len == 0);
  g_ptr_array_unref (bus->rings);
  g_hash_table_unref (bus->ring_by_id);
  gpuprof_ring_free (bus->shared_ring);
  g_array_unref (bus->sinks);
  g_free (bus->batch);
  g_ptr_array_unref (bus->drain_rings);
  g_mutex_clear (&bus->lock);
  g_mutex_clear (&bus->shared_lock);
  g_mutex_clear (&bus->drain_lock);
  g_free (bus);
}

/* drain_lock held */
static void
hand_over (GpuprofBus * bus, guint n)
{
  guint i;

  for (i = 0; i < bus->sinks->len; i++) {
    Sink *s = &g_array_index (bus->sinks, Sink, i);
    s->funcs.events (bus->batch, n, s->user_data);
  }
}

/* drain_lock held: each sink's begin (@end FALSE) or end */
static void
tell_sinks (GpuprofBus * bus, gboolean end)
{
  guint i;

  for (i = 0; i < bus->sinks->len; i++) {
    Sink *s = &g_array_index (bus->sinks, Sink, i);
    void (*f) (gpointer) = end ? s->funcs.end : s->funcs.begin;
    if (f)
      f (s->user_data);
  }
}

/* drain_lock held. Returns the number of events drained. */
static guint
drain_locked (GpuprofBus * bus)
{
  guint total = 0, i, n;

  g_mutex_lock (&bus->lock);
  g_ptr_array_set_size (bus->drain_rings, 0);
  for (i = 0; i < bus->rings->len; i++)
    g_ptr_array_add (bus->drain_rings, g_ptr_array_index (bus->rings, i));
  g_mutex_unlock (&bus->lock);

  tell_sinks (bus, FALSE);
  g_mutex_lock (&bus->shared_lock);
  while ((n = gpuprof_ring_pop (bus->shared_ring, bus->batch,
              BATCH_EVENTS)) > 0) {
    hand_over (bus, n);
    total += n;
  }
  g_mutex_unlock (&bus->shared_lock);

  for (i = 0; i < bus->drain_rings->len; i++) {
    GpuprofRing *ring = g_ptr_array_index (bus->drain_rings, i);
    /* take only what is there now, so a busy thread cannot starve others */
    guint level = gpuprof_ring_level (ring);

    while (level > 0 && (n = gpuprof_ring_pop (ring, bus->batch,
                MIN (level, BATCH_EVENTS))) > 0) {
      hand_over (bus, n);
      level -= n;
      total += n;
    }
  }
  tell_sinks (bus, TRUE);
  return total;
}

/* every DRAIN_PERIOD_US on the bus's thread; a large drain means the
 * producers are fast: drain again at once */
static gboolean
drain_tick (gint64 now_us, gpointer data)
{
  GpuprofBus *bus = data;
  guint n;

  g_mutex_lock (&bus->drain_lock);
  n = drain_locked (bus);
  g_mutex_unlock (&bus->drain_lock);
  return n >= BUSY_DRAIN_EVENTS;
}

guint
gpuprof_bus_add_sink (GpuprofBus * bus, const GpuprofBusSink * sink,
    gpointer user_data)
{
  Sink s = { 0, *sink, user_data };

  g_return_val_if_fail (sink->events != NULL, 0);
  g_mutex_lock (&bus->drain_lock);
  s.id = bus->next_sink_id++;
  g_array_append_val (bus->sinks, s);
  __atomic_store_n (&bus->active, 1, __ATOMIC_RELEASE);
  g_mutex_unlock (&bus->drain_lock);

  g_mutex_lock (&bus->lock);
  if (!bus->drain)
    bus->drain = gpuprof_ticker_add (bus->ticker, DRAIN_PERIOD_US,
        drain_tick, bus);
  g_mutex_unlock (&bus->lock);
  return s.id;
}

void
gpuprof_bus_remove_sink (GpuprofBus * bus, guint id)
{
  gint i;

  g_mutex_lock (&bus->drain_lock);
  if ((i = gpuprof_id_index (bus->sinks, id)) >= 0)
    g_array_remove_index (bus->sinks, i);
  /* rings taken stay: producers keep pushing, and nothing drains them
   * once the last sink is gone */
  g_mutex_unlock (&bus->drain_lock);
}

gboolean
gpuprof_bus_active (GpuprofBus * bus)
{
  return __atomic_load_n (&bus->active, __ATOMIC_ACQUIRE) != 0;
}

GpuprofRing *
gpuprof_bus_ring_for_thread (GpuprofBus * bus, guint32 thread_id)
{
  return gpuprof_bus_ring_for_producer (bus, thread_id,
      GPUPROF_RING_DEFAULT_CAPACITY);
}

GpuprofRing *
gpuprof_bus_ring_for_producer (GpuprofBus * bus, guint32 producer_id,
    guint capacity)
{
  GpuprofRing *ring;

  g_mutex_lock (&bus->lock);
  ring = g_hash_table_lookup (bus->ring_by_id, GUINT_TO_POINTER (producer_id));
  if (ring == NULL) {
    ring = gpuprof_ring_new (producer_id, capacity);
    g_ptr_array_add (bus->rings, ring);
    g_hash_table_insert (bus->ring_by_id, GUINT_TO_POINTER (producer_id),
        ring);
  }
  g_mutex_unlock (&bus->lock);
  return ring;
}

void
gpuprof_bus_push_locked (GpuprofBus * bus, const GpuprofEvent * ev)
{
  g_mutex_lock (&bus->shared_lock);
  gpuprof_ring_push (bus->shared_ring, ev);
  g_mutex_unlock (&bus->shared_lock);
}

void
gpuprof_bus_wake (GpuprofBus * bus)
{
  guint drain;

  g_mutex_lock (&bus->lock);
  drain = bus->drain;
  g_mutex_unlock (&bus->lock);
  if (drain)
    gpuprof_ticker_wake (bus->ticker, drain);
}

void
gpuprof_bus_flush_then (GpuprofBus * bus, GFunc func, gpointer user_data)
{
  g_mutex_lock (&bus->drain_lock);
  drain_locked (bus);
  if (func)
    func (bus, user_data);
  g_mutex_unlock (&bus->drain_lock);
}

void
gpuprof_bus_flush (GpuprofBus * bus)
{
  gpuprof_bus_flush_then (bus, NULL, NULL);
}

guint64
gpuprof_bus_lost (GpuprofBus * bus)
{
  guint64 lost;
  guint i;

  g_mutex_lock (&bus->lock);
  lost = gpuprof_ring_lost (bus->shared_ring);
  for (i = 0; i < bus->rings->len; i++)
    lost += gpuprof_ring_lost (g_ptr_array_index (bus->rings, i));
  g_mutex_unlock (&bus->lock);
  return lost;
}
