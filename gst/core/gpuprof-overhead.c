/* gpuprof: the tracer's own time on the buffer path, sampled (see
 * gpuprof-overhead.h). */
#include "gpuprof-overhead.h"
#include "gpuprof-thread.h"

#include <time.h>

/* A window longer than this was disturbed (preempted, interrupted, a page
 * fault; the hooks take well under a microsecond): dropped rather than
 * counted, as each sampled ns stands for ~1024 */
#define PREEMPTED_NS 5000

/* The monotonic clock, not the thread CPU clock: it is read in the vDSO
 * (~20 ns, no system call). A thread CPU clock read is a system call whose
 * kernel entry and exit slow the hook around it: measured that way a
 * sampled push cost 4-5x what the hooks add to the process's CPU time. */
static inline guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* the time between two back-to-back reads: what each sampled window
 * measures on top of the hook itself. The least of a few pairs: a pair
 * that was interrupted is longer, never shorter */
static gpointer
calibrate (gpointer unused)
{
  guint64 best = G_MAXUINT64;
  guint i;

  for (i = 0; i < 64; i++) {
    guint64 a = now_ns ();
    guint64 b = now_ns ();
    if (b >= a && b - a < best)
      best = b - a;
  }
  return GSIZE_TO_POINTER ((gsize) (best == G_MAXUINT64 ? 0 : best) + 1);
}

guint64
gpuprof_overhead_clock_pair_ns (void)
{
  static GOnce once = G_ONCE_INIT;

  return GPOINTER_TO_SIZE (g_once (&once, calibrate, NULL)) - 1;
}

guint64
gpuprof_overhead_begin (void)
{
  return now_ns ();
}

void
gpuprof_overhead_end (guint64 cpu_begin, gboolean sample_done)
{
  guint64 end = now_ns ();
  guint64 pair = gpuprof_overhead_clock_pair_ns ();
  GpuprofThread *t = gpuprof_thread_peek ();

  if (!t)
    return;
  /* only the owning thread writes; snapshots read */
  if (end > cpu_begin + pair && end - cpu_begin < PREEMPTED_NS)
    __atomic_store_n (&t->ovh_ns, t->ovh_ns + (end - cpu_begin - pair),
        __ATOMIC_RELAXED);
  if (sample_done)
    __atomic_store_n (&t->ovh_samples, t->ovh_samples + 1, __ATOMIC_RELAXED);
}
