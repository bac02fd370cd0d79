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

#include "gpuprof-ids.h"
#include "gpuprof-objects.h"
#include "gpuprof-snapshot.h"
#include "gpuprof-streams.h"

G_BEGIN_DECLS

/**
 * GpuprofBatchId:
 *
 * A batch being followed downstream (a buffer's slot, GpuprofFrame.batch_id):
 * the aggregator's element id (gpuprof-objects) in the top 24 bits, its
 * batch number (from 1) in the low 40; 0 is "no batch". Its own encoding,
 * not a GPU external correlation id (GpuprofGpuExternalId): the GPU code is
 * told only the batch number, as the sequence of the chain call.
 */
typedef guint64 GpuprofBatchId;

#define GPUPROF_BATCH_NUM_BITS 40
#define GPUPROF_BATCH_NUM_MASK GPUPROF_ID_LO_MASK (GPUPROF_BATCH_NUM_BITS)
#define GPUPROF_BATCH_AGGREGATOR_MAX GPUPROF_ID_HI_MAX (GPUPROF_BATCH_NUM_BITS)

/* aggregator id and batch number in, and back out (gpuprof-ids.h) */
#define gpuprof_batch_id_make(aggregator_id, num) \
  ((GpuprofBatchId) gpuprof_id_pack ((aggregator_id), (num), \
      GPUPROF_BATCH_NUM_BITS))
#define gpuprof_batch_id_aggregator(id) \
  gpuprof_id_hi ((id), GPUPROF_BATCH_NUM_BITS)
#define gpuprof_batch_id_num(id) gpuprof_id_lo ((id), GPUPROF_BATCH_NUM_BITS)

typedef struct _GpuprofBatches GpuprofBatches;

/* streams: told the frames each batch carries to a sink (may be NULL) */
GpuprofBatches *gpuprof_batches_new (GpuprofStreams * streams);
void gpuprof_batches_free (GpuprofBatches * b);

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
guint64 gpuprof_batches_oldest_in_flight (GpuprofElement * e);
/* By element id (GpuprofElement.id), for GPU launches on threads the
 * element owns (gpuprof_gpu_set_owner_batch_func()): the oldest batch in
 * flight whose number is above @after (0: the oldest), 0 when none */
guint64 gpuprof_batches_in_flight_after_of_id (guint32 element_id,
    guint64 after);
/* EOS pushed from 'pad': a partial last batch was pushed by EOS */
void gpuprof_batches_eos (GpuprofBatches * b, GpuprofPad * pad);

/* Off the streaming threads (state changes, reports): reads batch-size and
 * interval of elements that have them. */
void gpuprof_batches_read_properties (GpuprofBatches * b, GpuprofElement * e);
void gpuprof_batches_reset (GpuprofBatches * b, GpuprofElement * e);
/* the element's record is about to be freed: no hook runs for it again */
void gpuprof_batches_forget (GpuprofBatches * b, GpuprofElement * e);
/* Fills snap->batches and snap->stages from 'elements' (GpuprofElement*) */
void gpuprof_batches_snapshot (GpuprofBatches * b, GPtrArray * elements,
    GpuprofSnapshot * snap);

G_END_DECLS
