/* gpuprof: bounded-memory latency histogram.
 *
 * Log-linear buckets (32 per power of two): any value is placed within
 * 1/32 (3 %) of itself, percentiles cost a walk over ~1200 counters, memory
 * is fixed at ~10 KiB. count, sum and max are exact. Records are lock-free
 * (relaxed atomics), so several threads may record into one histogram.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GPUPROF_HIST_SUB_BITS 5
#define GPUPROF_HIST_SUB (1 << GPUPROF_HIST_SUB_BITS)
#define GPUPROF_HIST_MAX_EXP 42 /* values clamp at 2^43 ns, ~2.4 hours */
#define GPUPROF_HIST_N_BUCKETS ((GPUPROF_HIST_MAX_EXP - GPUPROF_HIST_SUB_BITS + 2) * GPUPROF_HIST_SUB)

typedef struct
{
  guint64 count;
  guint64 sum;
  guint64 max;
  guint64 buckets[GPUPROF_HIST_N_BUCKETS];
} GpuprofHistogram;

void gpuprof_histogram_reset (GpuprofHistogram * h);
void gpuprof_histogram_record (GpuprofHistogram * h, guint64 value);
guint64 gpuprof_histogram_percentile (const GpuprofHistogram * h, gdouble p);
guint gpuprof_histogram_bucket_index (guint64 value);
guint64 gpuprof_histogram_bucket_low (guint index);

G_END_DECLS
