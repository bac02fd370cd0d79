/* gpuprof: how the hooks and the queue module hand an event to the trace.
 *
 * Into the calling thread's own ring (no lock), or, for a thread that has
 * none yet (not announced, or not a streaming thread), through the
 * writer's lock. Nothing when there is no trace.
 */
#pragma once

#include "gpuprof-thread.h"
#include "gpuprof-trace.h"

G_BEGIN_DECLS

static inline void
gpuprof_emit (GpuprofTrace * trace, GpuprofThread * t,
    const GpuprofEvent * ev)
{
  if (t && t->trace_ring)
    gpuprof_trace_push (t->trace_ring, ev);
  else if (trace)
    gpuprof_trace_push_locked (trace, ev);
}

G_END_DECLS
