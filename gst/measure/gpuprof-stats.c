/* gpuprof: per-element statistics. */
#include "gpuprof-stats.h"
#include "gpuprof-thread.h"

#include <string.h>

GpuprofElementStats *
gpuprof_stats_new (void)
{
  return g_new0 (GpuprofElementStats, 1);
}

void
gpuprof_stats_free (GpuprofElementStats * s)
{
  g_free (s);
}

void
gpuprof_stats_reset (GpuprofElementStats * s)
{
  memset (s, 0, sizeof (*s));
}

gboolean
gpuprof_stats_pending (const GpuprofElementStats * s)
{
  return gpuprof_stats_calls (s) != 0
      || __atomic_load_n (&s->buffers_in, __ATOMIC_RELAXED) != 0;
}

static GpuprofThreadSlot *
add_to_thread_slot (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 ns)
{
  guint i;

  for (i = 0; i < GPUPROF_THREAD_SLOTS; i++) {
    GpuprofThread *owner =
        __atomic_load_n (&s->slots[i].thread, __ATOMIC_ACQUIRE);

    if (owner == NULL) {
      GpuprofThread *expected = NULL;
      if (__atomic_compare_exchange_n (&s->slots[i].thread, &expected, thread,
              FALSE, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        owner = thread;
      else
        owner = expected;
    }
    if (owner == thread) {
      __atomic_fetch_add (&s->slots[i].self_ns, ns, __ATOMIC_RELAXED);
      return &s->slots[i];
    }
  }
  __atomic_fetch_add (&s->other_threads_ns, ns, __ATOMIC_RELAXED);
  return NULL;
}

void
gpuprof_stats_add_call (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 self_ns, guint64 incl_ns)
{
  __atomic_fetch_add (&s->incl_ns, incl_ns, __ATOMIC_RELAXED);
  gpuprof_histogram_record (&s->self_hist, self_ns);
  /* threads that only handed buffers over do not take a slot */
  if (self_ns)
    add_to_thread_slot (s, thread, self_ns);
  gpuprof_thread_add_busy (thread, self_ns);
}

void
gpuprof_stats_add_cpu_call (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 self_ns, guint64 incl_ns)
{
  GpuprofThreadSlot *slot;

  __atomic_fetch_add (&s->incl_ns, incl_ns, __ATOMIC_RELAXED);
  gpuprof_histogram_record (&s->self_hist, self_ns);
  if (self_ns && (slot = add_to_thread_slot (s, thread, self_ns)))
    __atomic_fetch_add (&slot->cpu_self_ns, self_ns, __ATOMIC_RELAXED);
  gpuprof_thread_add_busy (thread, self_ns);
}

void
gpuprof_stats_add_work (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 ns)
{
  GpuprofThreadSlot *slot;

  if (!ns)
    return;
  __atomic_fetch_add (&s->self_hist.sum, ns, __ATOMIC_RELAXED);
  /* an asynchronous element's output loop: read on the CPU clock */
  if ((slot = add_to_thread_slot (s, thread, ns)))
    __atomic_fetch_add (&slot->cpu_self_ns, ns, __ATOMIC_RELAXED);
  gpuprof_thread_add_busy (thread, ns);
}

void
gpuprof_stats_add_buffers_in (GpuprofElementStats * s, guint64 n)
{
  __atomic_fetch_add (&s->buffers_in, n, __ATOMIC_RELAXED);
}

const GpuprofThreadSlot *
gpuprof_stats_main_slot (const GpuprofElementStats * s)
{
  const GpuprofThreadSlot *best = NULL;
  guint i;

  for (i = 0; i < GPUPROF_THREAD_SLOTS; i++) {
    if (!s->slots[i].thread)
      continue;
    if (!best || s->slots[i].self_ns > best->self_ns)
      best = &s->slots[i];
  }
  return best;
}
