/* gpuprof: buffer pools, from GStreamer 1.28's pool hooks
 * (docs/tracer.md#pools).
 *
 * GStreamer 1.28 added two tracer hooks to GstBufferPool's default
 * implementation: "pool-buffer-dequeued" when a buffer leaves the pool's
 * free list (an acquire that did not allocate, or a buffer freed as the
 * pool stops) and "pool-buffer-queued" when one goes back on it (a
 * release, or a buffer made at start). From these, per pool: what was
 * taken and given back, the distinct buffers seen, how many are out now
 * and at most, and how long the free list stayed empty: a decoder or
 * converter acquiring from a pool at its max_buffers waits all of that
 * time. The hooks do not say whether an acquire waited (1.28 has no hook
 * around the wait), so the empty time bounds the waits; max_buffers,
 * read from the pool's config at the snapshot, says whether the pool
 * could have grown instead.
 *
 * The hooks are registered only where the running GStreamer has them
 * (gpuprof_pools_hooks_supported()): on older releases
 * gst_tracing_register_hook() with an unknown name would hook every
 * call. Built against any release: the callback types are declared here.
 *
 * The hooks find a pool's record through its qdata (no lookup table, no
 * global lock) and update it under the record's own lock, taken by the
 * two threads that acquire from and release to that pool: O(1), no
 * GStreamer lock, no I/O. A destroyed pool keeps its row till its
 * pipeline's run ends; past 16 in one pipeline the oldest are folded into
 * one "(destroyed)" row: bounded however many come and go. */
#pragma once

#include <gst/gst.h>

#include "gpuprof-measure.h"

G_BEGIN_DECLS

/* GStreamer 1.28's hook types, as gst/gsttracerutils.h declares them there
 * (GstTracerHookPoolBufferQueued, GstTracerHookPoolBufferDequeued) */
typedef void (*GpuprofHookPoolBuffer) (GObject * self, GstClockTime ts,
    GstBufferPool * pool, GstBuffer * buffer);
#define GPUPROF_HOOK_POOL_BUFFER_QUEUED "pool-buffer-queued"
#define GPUPROF_HOOK_POOL_BUFFER_DEQUEUED "pool-buffer-dequeued"

typedef struct _GpuprofPools GpuprofPools;

/* TRUE for a GStreamer that has the pool hooks (1.28.0 on; a 1.27
 * development release is not relied on) */
GPUPROF_API
gboolean gpuprof_pools_hooks_supported (guint major, guint minor);

GpuprofPools *gpuprof_pools_new (void);
void gpuprof_pools_free (GpuprofPools * p);

/* the hooks: @buffer went back on @pool's free list / left it */
GPUPROF_API
void gpuprof_pools_queued (GpuprofMeasure * m, guint64 ts,
    GstBufferPool * pool, GstBuffer * buffer);
GPUPROF_API
void gpuprof_pools_dequeued (GpuprofMeasure * m, guint64 ts,
    GstBufferPool * pool, GstBuffer * buffer);
/* object-destroyed of a pool: its row stays till its pipeline's run ends;
 * beyond GONE_ROWS such in a pipeline, the oldest joins its "(destroyed)"
 * row */
void gpuprof_pools_destroyed (GpuprofMeasure * m, guint64 ts,
    GstObject * pool);
/* reads the live pools' configs (min, max buffers): takes each pool's
 * lock, so never from the buffer hooks; at state changes (before an
 * element stopping drops its pools) and snapshots */
void gpuprof_pools_read_configs (GpuprofMeasure * m);

/* the pools of @pipeline_id into @snap->pools; @now: the tracer clock,
 * an empty free list counts up to it */
void gpuprof_pools_snapshot (GpuprofMeasure * m, guint32 pipeline_id,
    guint64 now, GpuprofSnapshot * snap);
/* a new run of @pipeline_id counts from zero */
void gpuprof_pools_reset (GpuprofMeasure * m, guint32 pipeline_id);

G_END_DECLS
