/* gpuprof: the tracer's own time on the buffer path, sampled.
 *
 * One push in GPUPROF_OVERHEAD_EVERY on each thread is a sample: the four
 * hooks of that push (push-pre, the peer's chain-pre and chain-post,
 * push-post) read the monotonic clock around themselves; the readings,
 * less the cost of a clock read pair calibrated at start, are that push's
 * hook time (a window preempted is dropped). The run's estimate is the
 * mean over the samples times the pushes (docs/metrics.md#overhead). Off a
 * sample, a hook costs a counter (push-pre) or a test of the level (the
 * other three, tracers/gstgpuproftracer.c): no clock read, no lock. Nested pushes inside the sampled chain call count as pushes but are
 * not part of the sample.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

#define GPUPROF_OVERHEAD_EVERY 1024

/* the clock for a sampled hook */
GPUPROF_API
guint64 gpuprof_overhead_begin (void);
/* a sampled hook is over: adds its time to the thread's; @sample_done:
 * the push's last hook (push-post) */
GPUPROF_API
void gpuprof_overhead_end (guint64 cpu_begin, gboolean sample_done);
/* the cost of one clock read pair, measured once (ns) */
guint64 gpuprof_overhead_clock_pair_ns (void);

G_END_DECLS
