/* gpuprof: per-thread event ring.
 *
 * One streaming thread (the producer) pushes GpuprofEvents; one writer (the
 * consumer) drains them. Push is a copy and two atomic operations: no lock,
 * no allocation, no I/O, and it never waits. When the ring is full the event
 * is dropped and counted, so a slow or stopped writer costs events, never
 * pipeline time.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>
#include "gpuprof-event.h"

G_BEGIN_DECLS

/* 16384 events x 80 bytes = 1.25 MiB per thread: about 20 ms of a thread
 * producing 800k events/s, the writer's drain period. */
#define GPUPROF_RING_DEFAULT_CAPACITY 16384

/**
 * GpuprofRing:
 *
 * A single-producer/single-consumer ring of #GpuprofEvent. Fields are
 * private; they are in the header only so that gpuprof_ring_push() inlines
 * into the hooks.
 */
typedef struct _GpuprofRing GpuprofRing;

struct _GpuprofRing
{
  /* written by the producer only, read by the consumer */
  guint64 head;
  guint64 lost;
  /* keep producer and consumer indexes on separate cache lines */
  guint8 _pad0[64 - 2 * sizeof (guint64)];
  /* written by the consumer only, read by the producer */
  guint64 tail;
  guint8 _pad1[64 - sizeof (guint64)];
  /* constant after creation */
  guint64 mask;
  guint32 thread_id;
  GpuprofEvent *events;
};

GPUPROF_API
GpuprofRing *gpuprof_ring_new (guint32 thread_id, guint capacity);
GPUPROF_API
void gpuprof_ring_free (GpuprofRing * ring);
GPUPROF_API
guint gpuprof_ring_capacity (const GpuprofRing * ring);
GPUPROF_API
guint gpuprof_ring_pop (GpuprofRing * ring, GpuprofEvent * out, guint max);
GPUPROF_API
guint gpuprof_ring_level (const GpuprofRing * ring);
GPUPROF_API
guint64 gpuprof_ring_lost (const GpuprofRing * ring);

/**
 * gpuprof_ring_push:
 * @ring: the calling thread's ring
 * @ev: event to copy in
 *
 * Producer side; only the thread that owns @ring may call it. O(1), never
 * blocks: when the ring is full, @ev is counted as lost.
 *
 * Returns: %TRUE if @ev was stored, %FALSE if it was lost.
 */
static inline gboolean
gpuprof_ring_push (GpuprofRing * ring, const GpuprofEvent * ev)
{
  guint64 head = ring->head;
  guint64 tail = __atomic_load_n (&ring->tail, __ATOMIC_ACQUIRE);

  if (G_UNLIKELY (head - tail > ring->mask)) {
    __atomic_store_n (&ring->lost, ring->lost + 1, __ATOMIC_RELAXED);
    return FALSE;
  }
  ring->events[head & ring->mask] = *ev;
  /* release: the consumer sees the event before the new head */
  __atomic_store_n (&ring->head, head + 1, __ATOMIC_RELEASE);
  return TRUE;
}

G_END_DECLS
