/* gpuprof: per-stream figures — each source's frames followed to a sink.
 *
 * A stream is a source element. Its pushes are numbered and stamped with
 * their time (the frame's origin); the origin follows the buffer downstream
 * as a batch does (gpuprof-batch.c): by pointer through in-place elements
 * and queues, else as the next output of an element that received it. A
 * batching mux's input keeps the origins of the frames it takes (its sink
 * pad is the stream's source_id); when a sink receives the frame or the
 * batch that carries it, the stream gets the source -> sink latency and the
 * frame counts as delivered. Drops are the frames older than the newest one
 * delivered that never reached a sink (leaky queues, mux or QoS drops).
 * See docs/summary-schema.md ("streams").
 *
 * Hooks are O(1) and allocation-free; a stream is created at the source's
 * first push (a lock, once), its memory is fixed.
 */
#pragma once

#include "gpuprof-objects.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* frames of one batch whose origins a batch keeps for the sink */
#define GPUPROF_STREAM_BATCH_FRAMES 32

/**
 * GpuprofOrigin:
 * @tag: stream index + 1 in the top 16 bits, the frame's number (from 1)
 *   in the low 48; 0 is "no origin"
 * @ts: when the source pushed it (gpuprof clock, ns)
 */
typedef struct
{
  guint64 tag;
  guint64 ts;
} GpuprofOrigin;

typedef struct _GpuprofStreams GpuprofStreams;

GpuprofStreams *gpuprof_streams_new (void);
void gpuprof_streams_free (GpuprofStreams * s);

/* Hot path. A buffer pushed from e's src pad (buffer NULL: a list of n) */
void gpuprof_streams_push (GpuprofStreams * s, GpuprofElement * e,
    GstBuffer * buffer, guint n, guint64 ts);
/* @e's push of @n frames was refused before they left (flushing, a
 * source stopping): a source's frames count them no more, as its pad's
 * count (gpuprof-hooks.c, push-post) */
void gpuprof_streams_take_back (GpuprofStreams * s, GpuprofElement * e,
    guint n);
/* A chain call of e (on its sink pad) with buffer: a sink delivers the
 * frame; an aggregator's input gets its origin in 'origin' (TRUE returned);
 * any other element passes it on to its next output. */
gboolean gpuprof_streams_chain (GpuprofStreams * s, GpuprofElement * e,
    GpuprofPad * pad, GstBuffer * buffer, guint64 ts, GpuprofOrigin * origin);
/* a sink received a batch carrying these frames */
void gpuprof_streams_deliver (GpuprofStreams * s, const GpuprofOrigin * o,
    guint n, guint64 ts);

/* an element's slot (GpuprofElement.stream), made and freed with its
 * record (registry lock held) */
void gpuprof_streams_element_init (GpuprofStreams * s, GpuprofElement * e);
void gpuprof_streams_element_fini (GpuprofStreams * s, GpuprofElement * e);

/* Off the streaming threads */
void gpuprof_streams_reset (GpuprofStreams * s, GpuprofElement * e);
/* a source that left its pipeline (gpuprof-removed.h): its stream's
 * frames, delivered and drops into @row, and its slot recycled (a frame
 * of it still in flight is counted nowhere) */
void gpuprof_streams_fold (GpuprofStreams * s, GpuprofElement * e,
    GpuprofRemovedRow * row);
/* Fills snap->streams from 'elements' (GpuprofElement*), those of one
 * pipeline */
void gpuprof_streams_snapshot (GpuprofStreams * s, GpuprofObjects * o,
    GPtrArray * elements, GpuprofSnapshot * snap);

G_END_DECLS
