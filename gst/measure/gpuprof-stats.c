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
slot_of (GpuprofElementStats * s, GpuprofThread * thread)
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
    if (owner == thread)
      return &s->slots[i];
  }
  return NULL;
}

static GpuprofThreadSlot *
add_to_thread_slot (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 ns)
{
  GpuprofThreadSlot *slot = slot_of (s, thread);

  __atomic_fetch_add (slot ? &slot->self_ns : &s->other_threads_ns, ns,
      __ATOMIC_RELAXED);
  return slot;
}

void
gpuprof_stats_add_event (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 ns)
{
  GpuprofThreadSlot *slot;

  if (ns && (slot = slot_of (s, thread)))
    __atomic_fetch_add (&slot->event_ns, ns, __ATOMIC_RELAXED);
}

static gint window_phase;       /* GpuprofStatsWindow (atomic) */
static guint64 window_open_ts, window_close_ts;        /* atomic */

void
gpuprof_stats_set_window (GpuprofStatsWindow phase, guint64 ts)
{
  if (phase == GPUPROF_STATS_WINDOW_OPEN)
    __atomic_store_n (&window_open_ts, ts, __ATOMIC_RELAXED);
  else if (phase == GPUPROF_STATS_WINDOW_CLOSED)
    __atomic_store_n (&window_close_ts, ts, __ATOMIC_RELAXED);
  else
    window_open_ts = window_close_ts = 0;
  __atomic_store_n (&window_phase, phase, __ATOMIC_RELAXED);
}

void
gpuprof_stats_window_edges (guint64 * open_ts, guint64 * close_ts)
{
  *open_ts = __atomic_load_n (&window_open_ts, __ATOMIC_RELAXED);
  *close_ts = __atomic_load_n (&window_close_ts, __ATOMIC_RELAXED);
}

void
gpuprof_stats_window_clamp (guint64 * first, guint64 * last)
{
  guint64 open_ts, close_ts;

  gpuprof_stats_window_edges (&open_ts, &close_ts);
  if (open_ts && *first < open_ts)
    *first = MIN (open_ts, *last);
  if (close_ts && *last > close_ts)
    *last = MAX (close_ts, *first);
}

GpuprofStatsWindow
gpuprof_stats_get_window (void)
{
  return __atomic_load_n (&window_phase, __ATOMIC_RELAXED);
}

/* a start-up call: its first, or any before the window opened */
static G_GNUC_NO_INLINE gboolean
take_first (GpuprofElementStats * s, GpuprofThread * thread, gint phase,
    guint64 self_ns, guint64 incl_ns, guint64 gpu_wait_ns)
{
  GpuprofThreadSlot *slot;
  gint expected = 0;

  if (G_LIKELY (__atomic_load_n (&s->first_done, __ATOMIC_RELAXED))
      && phase != GPUPROF_STATS_WINDOW_BEFORE)
    return FALSE;
  if (__atomic_compare_exchange_n (&s->first_done, &expected, 1, FALSE,
          __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    /* the one first call: its wall time comes off its thread's */
    s->first_incl_ns = incl_ns;
    __atomic_store_n (&s->first_thread, thread, __ATOMIC_RELEASE);
  } else if (phase != GPUPROF_STATS_WINDOW_BEFORE) {
    return FALSE;
  }
  __atomic_fetch_add (&s->first_ns, self_ns, __ATOMIC_RELAXED);
  __atomic_fetch_add (&s->first_calls, 1, __ATOMIC_RELAXED);
  /* its thread's self time keeps it, marked as start-up: the CPU sampler
   * hands the thread's CPU out by self time, the steady state leaves it */
  if (self_ns && (slot = add_to_thread_slot (s, thread, self_ns)))
    __atomic_fetch_add (&slot->first_ns, self_ns - MIN (gpu_wait_ns,
            self_ns), __ATOMIC_RELAXED);
  gpuprof_thread_add_busy (thread, self_ns);
  return TRUE;
}

/* What every call does first: nothing once the window closed, its
 * inclusive time, and its start-up apart. FALSE: the call is counted
 * (start-up or outside the window); TRUE: the caller counts it as steady */
static inline gboolean
steady_call (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 self_ns, guint64 incl_ns, guint64 gpu_wait_ns)
{
  gint phase = __atomic_load_n (&window_phase, __ATOMIC_RELAXED);

  /* the steady state, no call: the window open and the element's first
   * call taken */
  if (G_LIKELY (phase == GPUPROF_STATS_WINDOW_OPEN
          && __atomic_load_n (&s->first_done, __ATOMIC_RELAXED))) {
    __atomic_fetch_add (&s->incl_ns, incl_ns, __ATOMIC_RELAXED);
    return TRUE;
  }
  if (phase == GPUPROF_STATS_WINDOW_CLOSED)
    return FALSE;
  __atomic_fetch_add (&s->incl_ns, incl_ns, __ATOMIC_RELAXED);
  return !take_first (s, thread, phase, self_ns, incl_ns, gpu_wait_ns);
}

void
gpuprof_stats_add_call (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 self_ns, guint64 incl_ns, guint64 gpu_wait_ns)
{
  if (!steady_call (s, thread, self_ns, incl_ns, gpu_wait_ns))
    return;
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

  /* a call read on the CPU clock can be the first too (GPU host: the
   * last of 14 nvh264dec had its 800 ms creation in its steady figures) */
  if (!steady_call (s, thread, self_ns, incl_ns, 0))
    return;
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

  if (!ns || G_UNLIKELY (gpuprof_stats_get_window () ==
          GPUPROF_STATS_WINDOW_CLOSED))
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

static guint64
slot_steady_ns (const GpuprofThreadSlot * slot)
{
  guint64 self = __atomic_load_n (&slot->self_ns, __ATOMIC_RELAXED);
  guint64 first = __atomic_load_n (&slot->first_ns, __ATOMIC_RELAXED);

  return self - MIN (first, self);
}

const GpuprofThreadSlot *
gpuprof_stats_main_slot (const GpuprofElementStats * s)
{
  const GpuprofThreadSlot *best = NULL;
  guint i;

  for (i = 0; i < GPUPROF_THREAD_SLOTS; i++) {
    /* a slot with events only (gpuprof_stats_add_event) is no call's */
    if (!s->slots[i].thread || !s->slots[i].self_ns)
      continue;
    if (!best || slot_steady_ns (&s->slots[i]) > slot_steady_ns (best))
      best = &s->slots[i];
  }
  return best;
}

guint64
gpuprof_stats_startup_wall (const GpuprofElementStats * s, gint tid)
{
  GpuprofThread *t = __atomic_load_n (&s->first_thread, __ATOMIC_ACQUIRE);
  guint64 open_ts, close_ts;

  gpuprof_stats_window_edges (&open_ts, &close_ts);
  if (open_ts || !t || t->tid != tid)
    return 0;
  return s->first_incl_ns;
}

void
gpuprof_stats_steady (const GpuprofElementStats * s,
    const GpuprofThreadSlot * slot, guint64 * self, guint64 * wall)
{
  *self = slot_steady_ns (slot);
  *wall -= MIN (gpuprof_stats_startup_wall (s, slot->thread->tid), *wall);
}
