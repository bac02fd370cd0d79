/* gpuprof: one time base.
 *
 * Every gpuprof time is on the tracer clock: nanoseconds since gst_init, the
 * `ts` GStreamer passes to each hook (gst_util_get_timestamp() minus its start
 * time). Code that reads a clock itself (signal handlers, CUPTI) converts a
 * monotonic reading with gpuprof_clock_from_monotonic().
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

G_BEGIN_DECLS

void _gpuprof_clock_sample_hook (guint64 hook_ts);
extern gint _gpuprof_clock_samples_left;

/* the first hooks refine the start time; afterwards one load */
static inline void
gpuprof_clock_observe_hook (guint64 hook_ts)
{
  if (G_UNLIKELY (__atomic_load_n (&_gpuprof_clock_samples_left,
              __ATOMIC_RELAXED) > 0))
    _gpuprof_clock_sample_hook (hook_ts);
}
guint64 gpuprof_clock_now (void);
/* CLOCK_MONOTONIC in ns: the clock of GPU timestamps (CUPTI's) and of
 * gst_util_get_timestamp() */
GPUPROF_API
guint64 gpuprof_clock_monotonic_ns (void);
guint64 gpuprof_clock_from_monotonic (guint64 monotonic_ns);
GPUPROF_API
guint64 gpuprof_clock_start_monotonic (void);

G_END_DECLS
