/* gpuprof: batches — how an aggregator forms them and how they travel.
 *
 * An aggregator (batching mux, compositor, funnel: gpuprof-objects.c tells)
 * pushes one buffer per batch; its number is the aggregator's output
 * sequence (1, 2, ...). Per batch: frames (inputs taken since the previous
 * push, at most batch-size), distinct inputs, formation wait (first of its
 * inputs -> push) and push reason. The batch is then followed downstream by
 * its buffer pointer (in-place elements), else as the next output of an
 * element that received it; each stage gets its self time per batch and the
 * sinks give the end-to-end latency. See docs/batches.md.
 *
 * Hooks are O(1) and take no lock after the first sight of an element; the
 * memory is fixed per element (rings, histograms).
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-ids.h"
#include "gpuprof-objects.h"
#include "gpuprof-snapshot.h"
#include "gpuprof-streams.h"

G_BEGIN_DECLS

typedef struct _GpuprofBatches GpuprofBatches;

/* streams: told the frames each batch carries to a sink (may be NULL);
 * objects: where batch ids find their aggregator */
GpuprofBatches *gpuprof_batches_new (GpuprofStreams * streams,
    GpuprofObjects * objects);
void gpuprof_batches_free (GpuprofBatches * b);
/* an element's slot (GpuprofElement.batch), made and freed with its record
 * (registry lock held); no hook runs for it after fini */
void gpuprof_batches_element_init (GpuprofBatches * b, GpuprofElement * e);
void gpuprof_batches_element_fini (GpuprofBatches * b, GpuprofElement * e);

/* Hot path. 'f' is the CHAIN frame just pushed (pre) or popped (post) on
 * t's stack. Returns the batch number the call processes, 0 when none.
 * 'origin': the buffer's own source frame (gpuprof_streams_chain), or
 * NULL. */
guint64 gpuprof_batches_chain_pre (GpuprofBatches * b, GpuprofThread * t,
    GpuprofFrame * f, GstBuffer * buffer, guint64 ts,
    const GpuprofOrigin * origin);
void gpuprof_batches_chain_post (GpuprofBatches * b, GpuprofThread * t,
    const GpuprofFrame * f, guint64 self_ns);
/* A buffer pushed from 'pad' as the pad's 'seq'-th: for an aggregator this
 * forms a batch, whose number it returns; else 0. */
guint64 gpuprof_batches_push_pre (GpuprofBatches * b, GpuprofPad * pad,
    GstBuffer * buffer, guint64 seq, guint64 ts);
/* Out of an asynchronous element (gpuprof-async.h): 'buffer' carries the
 * batch 'id' of the arrival it matched (same buffer, else arrival order),
 * never the last one received, which is often still inside. 0: none. */
void gpuprof_batches_carry (GpuprofBatches * b, GstBuffer * buffer,
    GpuprofBatchId id);

/**
 * gpuprof_batches_oldest_in_flight:
 * @e: an element
 *
 * The batch number (the aggregator's push number, as chain calls tell NVTX
 * and the GPU code) of the oldest batch inside the asynchronous element
 * @e: arrived in a chain call, not yet pushed out. 0 when none is, or @e
 * is not asynchronous (gpuprof-async.h). O(1), lock-free reads only: safe
 * on any thread, in CUPTI callbacks too.
 */
GPUPROF_API
guint64 gpuprof_batches_oldest_in_flight (GpuprofElement * e);
/* By element id (GpuprofElement.id), for GPU launches on threads the
 * element owns (gpuprof_gpu_set_owner_batch_func()): the oldest batch in
 * flight whose number is above @after (0: the oldest), 0 when none.
 * Lock-free. */
guint64 gpuprof_batches_in_flight_after_of_id (GpuprofBatches * b,
    guint32 element_id, guint64 after);
/* EOS pushed from 'pad': a partial last batch was pushed by EOS */
void gpuprof_batches_eos (GpuprofBatches * b, GpuprofPad * pad);

/* Off the streaming threads (state changes, reports): reads batch-size and
 * interval of elements that have them. */
void gpuprof_batches_read_properties (GpuprofBatches * b, GpuprofElement * e);
void gpuprof_batches_reset (GpuprofBatches * b, GpuprofElement * e);
/* Fills snap->batches and snap->stages from 'elements' (GpuprofElement*) */
void gpuprof_batches_snapshot (GpuprofBatches * b, GPtrArray * elements,
    GpuprofSnapshot * snap);

G_END_DECLS
