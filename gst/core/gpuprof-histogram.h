/* gpuprof: bounded-memory latency histogram.
 *
 * Log-linear buckets (32 per power of two): any value is placed within
 * 1/32 (3 %) of itself, percentiles cost a walk over ~1200 counters, memory
 * is fixed at ~10 KiB. count, sum and max are exact. Records are lock-free
 * (relaxed atomics), so several threads may record into one histogram.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

#define GPUPROF_HIST_SUB_BITS 5
#define GPUPROF_HIST_SUB (1 << GPUPROF_HIST_SUB_BITS)
#define GPUPROF_HIST_MAX_EXP 42 /* values clamp at 2^43 ns, ~2.4 hours */
#define GPUPROF_HIST_N_BUCKETS ((GPUPROF_HIST_MAX_EXP - GPUPROF_HIST_SUB_BITS + 2) * GPUPROF_HIST_SUB)

typedef struct _GpuprofHistogram
{
  guint64 count;
  guint64 sum;
  guint64 max;
  guint64 buckets[GPUPROF_HIST_N_BUCKETS];
} GpuprofHistogram;

void gpuprof_histogram_reset (GpuprofHistogram * h);
GPUPROF_API
guint64 gpuprof_histogram_percentile (const GpuprofHistogram * h, gdouble p);
guint64 gpuprof_histogram_bucket_low (guint index);
/* cumulative counts of the samples <= first * 2^k into cum[k], k < n;
 * returns the samples in all buckets (the +Inf count) */
guint64 gpuprof_histogram_ladder (const GpuprofHistogram * h, guint64 first,
    guint64 * cum, guint n);

/* inline: one record per element per buffer */
static inline guint
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

/* n samples of the same value (the buffers of one list) */
static inline void
gpuprof_histogram_record_n (GpuprofHistogram * h, guint64 v, guint64 n)
{
  guint64 cur;

  __atomic_fetch_add (&h->count, n, __ATOMIC_RELAXED);
  __atomic_fetch_add (&h->sum, v * n, __ATOMIC_RELAXED);
  __atomic_fetch_add (&h->buckets[gpuprof_histogram_bucket_index (v)], n,
      __ATOMIC_RELAXED);
  cur = __atomic_load_n (&h->max, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange_n (&h->max, &cur, v, TRUE,
          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static inline void
gpuprof_histogram_record (GpuprofHistogram * h, guint64 v)
{
  gpuprof_histogram_record_n (h, v, 1);
}

G_END_DECLS
