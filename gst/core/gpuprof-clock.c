/* gpuprof: tracer clock <-> monotonic clock. */
#include "gpuprof-clock.h"

#include <time.h>

/* GStreamer's start time is private. Each hook tells us ts = now - start, so
 * start <= now_read_after_hook - ts; the smallest such difference over the
 * first hooks is within a dispatch cost (~100 ns) of the truth. */
#define SAMPLES 256

static gint64 start_monotonic = G_MAXINT64;
gint _gpuprof_clock_samples_left = SAMPLES;

void
_gpuprof_clock_sample_hook (guint64 hook_ts)
{
  gint64 cand, cur;

  g_atomic_int_add (&_gpuprof_clock_samples_left, -1);
  cand = (gint64) gst_util_get_timestamp () - (gint64) hook_ts;
  cur = __atomic_load_n (&start_monotonic, __ATOMIC_RELAXED);
  while (cand < cur &&
      !__atomic_compare_exchange_n (&start_monotonic, &cur, cand, TRUE,
          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

guint64
gpuprof_clock_start_monotonic (void)
{
  gint64 s = __atomic_load_n (&start_monotonic, __ATOMIC_RELAXED);

  /* before any hook ran: take "now" as the start, refined by later hooks */
  if (s == G_MAXINT64) {
    s = (gint64) gst_util_get_timestamp ();
    gint64 exp = G_MAXINT64;
    __atomic_compare_exchange_n (&start_monotonic, &exp, s, FALSE,
        __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    s = __atomic_load_n (&start_monotonic, __ATOMIC_RELAXED);
  }
  return (guint64) s;
}

guint64
gpuprof_clock_from_monotonic (guint64 monotonic_ns)
{
  guint64 start = gpuprof_clock_start_monotonic ();

  return monotonic_ns > start ? monotonic_ns - start : 0;
}

guint64
gpuprof_clock_now (void)
{
  return gpuprof_clock_from_monotonic (gst_util_get_timestamp ());
}

guint64
gpuprof_clock_monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}
