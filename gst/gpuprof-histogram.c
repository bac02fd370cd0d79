/* gpuprof: bounded-memory latency histogram. */
#include "gpuprof-histogram.h"

#include <string.h>

guint
gpuprof_histogram_bucket_index (guint64 v)
{
  guint e;

  if (v < GPUPROF_HIST_SUB)
    return (guint) v;
  e = 63 - __builtin_clzll (v);
  if (e > GPUPROF_HIST_MAX_EXP) {
    e = GPUPROF_HIST_MAX_EXP;
    v = (G_GUINT64_CONSTANT (2) << e) - 1;
  }
  return (e - GPUPROF_HIST_SUB_BITS + 1) * GPUPROF_HIST_SUB +
      (guint) ((v >> (e - GPUPROF_HIST_SUB_BITS)) & (GPUPROF_HIST_SUB - 1));
}

guint64
gpuprof_histogram_bucket_low (guint idx)
{
  guint e, sub;

  if (idx < GPUPROF_HIST_SUB)
    return idx;
  e = idx / GPUPROF_HIST_SUB + GPUPROF_HIST_SUB_BITS - 1;
  sub = idx % GPUPROF_HIST_SUB;
  return ((guint64) (GPUPROF_HIST_SUB + sub)) << (e - GPUPROF_HIST_SUB_BITS);
}

static guint64
bucket_width (guint idx)
{
  if (idx < GPUPROF_HIST_SUB)
    return 1;
  return G_GUINT64_CONSTANT (1) << (idx / GPUPROF_HIST_SUB - 1);
}

void
gpuprof_histogram_reset (GpuprofHistogram * h)
{
  memset (h, 0, sizeof (*h));
}

void
gpuprof_histogram_record (GpuprofHistogram * h, guint64 v)
{
  guint64 cur;

  __atomic_fetch_add (&h->count, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add (&h->sum, v, __ATOMIC_RELAXED);
  __atomic_fetch_add (&h->buckets[gpuprof_histogram_bucket_index (v)], 1,
      __ATOMIC_RELAXED);
  cur = __atomic_load_n (&h->max, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange_n (&h->max, &cur, v, TRUE,
          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* p in [0,1]. Returns the middle of the bucket holding the rank, never more
 * than the exact maximum. */
guint64
gpuprof_histogram_percentile (const GpuprofHistogram * h, gdouble p)
{
  guint64 count = __atomic_load_n (&h->count, __ATOMIC_RELAXED);
  guint64 max = __atomic_load_n (&h->max, __ATOMIC_RELAXED);
  guint64 rank, seen = 0;
  guint i;

  if (count == 0)
    return 0;
  rank = (guint64) (p * count + 0.999999);
  if (rank < 1)
    rank = 1;
  for (i = 0; i < GPUPROF_HIST_N_BUCKETS; i++) {
    seen += __atomic_load_n (&h->buckets[i], __ATOMIC_RELAXED);
    if (seen >= rank) {
      guint64 mid = gpuprof_histogram_bucket_low (i) + bucket_width (i) / 2;
      return MIN (mid, max);
    }
  }
  return max;
}
