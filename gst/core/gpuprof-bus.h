/* gpuprof: the event bus — per-producer rings, one drain thread, sinks.
 *
 * Producers (the hooks on streaming threads, the GPU op listener, the
 * session's live thread) put fixed-size GpuprofEvents into rings
 * (gpuprof-ring.h): no lock, no allocation, no I/O, never a wait. One
 * thread of the bus drains every ring every 20 ms (or when woken) and
 * hands the events to each sink in turn: the Chrome trace is one sink
 * (gst/outputs/gpuprof-trace.h), any output with an `events` function
 * another (docs/outputs.md). A slow or stopped sink costs events (counted
 * as lost when a ring is full), never pipeline time.
 *
 * With no sink nothing is drained: producers ask gpuprof_bus_active()
 * before they take a ring, so the hooks cost nothing for the bus then.
 *
 * Threads: sinks are called under the drain lock, on the drain thread or
 * on the thread that calls gpuprof_bus_flush(); they must not call back
 * into the bus (but gpuprof_bus_wake()).
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

#include "gpuprof-event.h"
#include "gpuprof-ring.h"
#include "gpuprof-thread.h"

G_BEGIN_DECLS

typedef struct _GpuprofBus GpuprofBus;

/**
 * GpuprofBusSink:
 * @begin: (nullable): a drain starts
 * @events: events drained, in each producer's order (producers apart are
 *   not ordered with each other)
 * @end: (nullable): the drain is over (a sink writes out its chunk here)
 *
 * A subscriber of the bus. All three run under the drain lock.
 */
typedef struct
{
  void (*begin) (gpointer user_data);
  void (*events) (const GpuprofEvent * events, guint n, gpointer user_data);
  void (*end) (gpointer user_data);
} GpuprofBusSink;

GPUPROF_API
GpuprofBus *gpuprof_bus_new (void);
/* stops the drain thread and frees the rings: no producer may push any
 * more, every sink must have been removed */
GPUPROF_API
void gpuprof_bus_free (GpuprofBus * bus);

/* Subscribes @sink (copied); the drain thread starts with the first.
 * Returns an id for gpuprof_bus_remove_sink(). */
GPUPROF_API
guint gpuprof_bus_add_sink (GpuprofBus * bus, const GpuprofBusSink * sink,
    gpointer user_data);
/* When it returns, the sink is not being called and will not be again. */
GPUPROF_API
void gpuprof_bus_remove_sink (GpuprofBus * bus, guint id);
/* someone subscribes: producers take rings (atomic read, any thread) */
gboolean gpuprof_bus_active (GpuprofBus * bus);

/* The ring of a streaming thread (its gpuprof thread id), created on its
 * first call (a lock, an allocation); only that thread pushes into it.
 * Rings live until gpuprof_bus_free(). */
GPUPROF_API
GpuprofRing *gpuprof_bus_ring_for_thread (GpuprofBus * bus,
    guint32 thread_id);
/* The same for a producer that is not one streaming thread (an id outside
 * the thread ids: GPUPROF_EVENT_GPU_TRACK_BASE for GPU ops); it serialises
 * its own pushes. @capacity: events, 0 for the default. */
GPUPROF_API
GpuprofRing *gpuprof_bus_ring_for_producer (GpuprofBus * bus,
    guint32 producer_id, guint capacity);
/* For rare events from threads with no ring (an application thread's state
 * change, the live thread): takes a lock. */
void gpuprof_bus_push_locked (GpuprofBus * bus, const GpuprofEvent * ev);
/* drain now rather than at the next period (a producer filling in bursts) */
void gpuprof_bus_wake (GpuprofBus * bus);
/* Drains every ring to the sinks now, on the calling thread. */
void gpuprof_bus_flush (GpuprofBus * bus);
/* Drains, then calls @func with the drain lock still held: nothing reaches
 * the sinks in between (a sink that closes writes its last bytes here). */
void gpuprof_bus_flush_then (GpuprofBus * bus, GFunc func,
    gpointer user_data);
/* Events dropped because a ring was full, over all rings. */
guint64 gpuprof_bus_lost (GpuprofBus * bus);

/**
 * gpuprof_bus_emit:
 * @bus: (nullable): the bus; %NULL: no one listens
 * @t: (nullable): the calling thread, when it is a gpuprof thread
 * @ev: the event; copied
 *
 * Into the calling thread's own ring when it has one (no lock), else
 * through the bus's lock (a thread not announced yet, or not a streaming
 * thread); nothing when the bus has no sink.
 */
static inline void
gpuprof_bus_emit (GpuprofBus * bus, GpuprofThread * t,
    const GpuprofEvent * ev)
{
  if (t && t->ring)
    gpuprof_ring_push (t->ring, ev);
  else if (bus && gpuprof_bus_active (bus))
    gpuprof_bus_push_locked (bus, ev);
}

G_END_DECLS
