/* gpuprof: per-thread event ring (see gpuprof-ring.h). */
#include "gpuprof-ring.h"

/**
 * gpuprof_ring_new:
 * @thread_id: gpuprof thread id of the producer (kept for the writer)
 * @capacity: events; rounded up to a power of two, 0 for the default
 *
 * Returns: (transfer full): a new empty ring
 */
GpuprofRing *
gpuprof_ring_new (guint32 thread_id, guint capacity)
{
  GpuprofRing *ring;
  guint64 cap = 1;

  if (capacity == 0)
    capacity = GPUPROF_RING_DEFAULT_CAPACITY;
  while (cap < capacity)
    cap <<= 1;

  ring = g_new0 (GpuprofRing, 1);
  ring->mask = cap - 1;
  ring->thread_id = thread_id;
  ring->events = g_new (GpuprofEvent, cap);
  return ring;
}

/**
 * gpuprof_ring_free:
 * @ring: (transfer full) (nullable): a ring no thread pushes to any more
 */
void
gpuprof_ring_free (GpuprofRing * ring)
{
  if (ring == NULL)
    return;
  g_free (ring->events);
  g_free (ring);
}

/**
 * gpuprof_ring_capacity:
 * @ring: a ring
 *
 * Returns: how many events @ring holds when full
 */
guint
gpuprof_ring_capacity (const GpuprofRing * ring)
{
  return (guint) (ring->mask + 1);
}

/**
 * gpuprof_ring_pop:
 * @ring: a ring
 * @out: (out caller-allocates) (array length=max): where to copy events
 * @max: room in @out
 *
 * Consumer side; one consumer at a time (the trace writer serialises
 * drains). Copies out the oldest events, in push order.
 *
 * Returns: the number of events copied, 0 when the ring is empty
 */
guint
gpuprof_ring_pop (GpuprofRing * ring, GpuprofEvent * out, guint max)
{
  guint64 tail = ring->tail;
  guint64 head = __atomic_load_n (&ring->head, __ATOMIC_ACQUIRE);
  guint64 n = head - tail, i;

  if (n > max)
    n = max;
  for (i = 0; i < n; i++)
    out[i] = ring->events[(tail + i) & ring->mask];
  /* release: the slots may be reused only after we copied them */
  __atomic_store_n (&ring->tail, tail + n, __ATOMIC_RELEASE);
  return (guint) n;
}

/**
 * gpuprof_ring_level:
 * @ring: a ring
 *
 * Returns: events waiting to be drained (a racy but safe estimate)
 */
guint
gpuprof_ring_level (const GpuprofRing * ring)
{
  guint64 head = __atomic_load_n (&ring->head, __ATOMIC_ACQUIRE);
  guint64 tail = __atomic_load_n (&ring->tail, __ATOMIC_ACQUIRE);

  return (guint) (head - tail);
}

/**
 * gpuprof_ring_lost:
 * @ring: a ring
 *
 * Returns: events dropped so far because @ring was full
 */
guint64
gpuprof_ring_lost (const GpuprofRing * ring)
{
  return __atomic_load_n (&ring->lost, __ATOMIC_RELAXED);
}
