/* gpuprof: bounded-memory latency histogram. */
#include "gpuprof-histogram.h"

#include <string.h>

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

/* Off the buffer path (snapshots). A bucket counts under the first edge
 * its whole range lies under: with power-of-two edges (bucket edges
 * themselves) that is exact but for a sample of exactly an edge >= 64,
 * which shares its bucket with larger values and counts one edge up. The
 * total is read from the buckets, so +Inf equals the last cumulative count
 * plus what is above, even while threads record. */
guint64
gpuprof_histogram_ladder (const GpuprofHistogram * h, guint64 first,
    guint64 * cum, guint n)
{
  guint64 total = 0;
  guint i, k;

  memset (cum, 0, n * sizeof (guint64));
  for (i = 0; i < GPUPROF_HIST_N_BUCKETS; i++) {
    guint64 c = __atomic_load_n (&h->buckets[i], __ATOMIC_RELAXED);
    guint64 hi = gpuprof_histogram_bucket_low (i) + bucket_width (i) - 1;

    if (!c)
      continue;
    total += c;
    for (k = 0; k < n && (first << k) < hi; k++);
    if (k < n)
      cum[k] += c;
  }
  for (k = 1; k < n; k++)
    cum[k] += cum[k - 1];
  return total;
}
