/* gpuprof: GPU attribution, the hot path (gpuprof-gpu-hotpath.c).
 *
 * On streaming threads, around chain calls: gpuprof_gpu_chain_enter() /
 * _exit() push/pop an external correlation id through a backend (CUPTI)
 * and keep a per-thread "last active element" and owner. O(1), no
 * allocation, no lock; one branch when GPU attribution is off. The rest of
 * the GPU code (gpuprof-gpu.h) is the record side, which reads these
 * threads' state (gpuprof-gpu-threads.h).
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

#include "gpuprof-ids.h"

G_BEGIN_DECLS

/**
 * GpuprofGpuChannel:
 * @GPUPROF_GPU_CHANNEL_TRACER: ids pushed by the gpuprof tracer's hooks
 *   (CUPTI external correlation kind CUSTOM0)
 * @GPUPROF_GPU_CHANNEL_METER: ids pushed by gpuprofmeter's chain wrappers
 *   (kind CUSTOM1)
 *
 * CUPTI keeps one id stack per external correlation kind, and emits a record
 * for each kind with a non-empty stack, so the tracer and gpuprofmeter can
 * both attribute the same kernel without seeing each other's ids. Each
 * channel has its own element ids and statistics.
 */
typedef enum
{
  GPUPROF_GPU_CHANNEL_TRACER = 0,
  GPUPROF_GPU_CHANNEL_METER = 1,
} GpuprofGpuChannel;

#define GPUPROF_GPU_N_CHANNELS 2

/**
 * GpuprofGpuExternalId:
 *
 * The external correlation id pushed around a chain call and found again in
 * CUPTI's external correlation records: the channel's element id in the top
 * 24 bits, the buffer/batch sequence in the low 40 bits (10^12 buffers; a
 * PTS in ns, the meter's sequence, wraps after 18 minutes, which only
 * matters within the ring of recent buffers). Made by
 * gpuprof_gpu_encode_id(), read by gpuprof_gpu_id_element() and
 * gpuprof_gpu_id_seq(); it means nothing outside the GPU code (batch ids
 * have their own encoding, gpuprof-ids.h).
 */
typedef guint64 GpuprofGpuExternalId;

#define GPUPROF_GPU_ELEMENT_BITS 24
#define GPUPROF_GPU_SEQ_BITS 40
#define GPUPROF_GPU_SEQ_MASK GPUPROF_ID_LO_MASK (GPUPROF_GPU_SEQ_BITS)
#define GPUPROF_GPU_ELEMENT_MAX GPUPROF_ID_HI_MAX (GPUPROF_GPU_SEQ_BITS)
/* sequence meaning "no buffer": cost goes to the element, not to a buffer */
#define GPUPROF_GPU_SEQ_NONE GPUPROF_GPU_SEQ_MASK

/* element id and sequence in, and back out (gpuprof-ids.h) */
#define gpuprof_gpu_encode_id(element_id, seq) \
  ((GpuprofGpuExternalId) gpuprof_id_pack ((element_id), (seq), \
      GPUPROF_GPU_SEQ_BITS))
#define gpuprof_gpu_id_element(id) gpuprof_id_hi ((id), GPUPROF_GPU_SEQ_BITS)
#define gpuprof_gpu_id_seq(id) gpuprof_id_lo ((id), GPUPROF_GPU_SEQ_BITS)

/* ---- backend: who pushes the ids (CUPTI, or a test's fake) ---- */

/**
 * GpuprofGpuBackend:
 * @push: (nullable): push @id on the calling thread's stack for @channel
 * @pop: (nullable): pop the calling thread's stack for @channel
 *
 * Set by gpuprof-cupti.c when CUPTI is active, by tests otherwise.
 */
typedef struct
{
  void (*push) (GpuprofGpuChannel channel, GpuprofGpuExternalId id);
  void (*pop) (GpuprofGpuChannel channel);
} GpuprofGpuBackend;

GPUPROF_API
void gpuprof_gpu_set_backend (const GpuprofGpuBackend * backend);
GPUPROF_API
void gpuprof_gpu_enable_channel (GpuprofGpuChannel channel, gboolean enable);
GPUPROF_API
gboolean gpuprof_gpu_channel_enabled (GpuprofGpuChannel channel);

/* ---- hot path (streaming threads) ---- */

/* bit per enabled channel, 0 when no backend: the only thing the off path reads */
GPUPROF_API volatile gint _gpuprof_gpu_channels_on;

GPUPROF_API
void _gpuprof_gpu_enter (GpuprofGpuChannel channel, guint32 element_id,
    guint64 seq);
GPUPROF_API
guint64 _gpuprof_gpu_exit (GpuprofGpuChannel channel);

/**
 * gpuprof_gpu_channel_enter:
 * @channel: the channel
 * @element_id: 1..GPUPROF_GPU_ELEMENT_MAX, the caller's id for the element
 * @seq: buffer/batch sequence (or PTS for the meter), GPUPROF_GPU_SEQ_NONE
 *
 * Marks the start of a chain call: GPU work launched on this thread until the
 * matching gpuprof_gpu_channel_exit() belongs to (@element_id, @seq). Nests.
 */
static inline void
gpuprof_gpu_channel_enter (GpuprofGpuChannel channel, guint32 element_id,
    guint64 seq)
{
  if (G_LIKELY (!(_gpuprof_gpu_channels_on & (1 << channel))))
    return;
  _gpuprof_gpu_enter (channel, element_id, seq);
}

/* Returns: the time this thread waited on the GPU (synchronize calls)
 * in the call that ends, its nested calls' waits not included: what its
 * self time includes (0 when the channel is off) */
static inline guint64
gpuprof_gpu_channel_exit (GpuprofGpuChannel channel)
{
  if (G_LIKELY (!(_gpuprof_gpu_channels_on & (1 << channel))))
    return 0;
  return _gpuprof_gpu_exit (channel);
}

/**
 * gpuprof_gpu_chain_enter:
 * @element_id: the tracer's element id (gpuprof-objects)
 * @seq: the buffer sequence on the sink pad, or the batch number
 *
 * Call at pad-chain-pre / pad-chain-list-pre (and pull-range-pre, with the
 * upstream element); pair with gpuprof_gpu_chain_exit() at the -post hook.
 */
static inline void
gpuprof_gpu_chain_enter (guint32 element_id, guint64 seq)
{
  gpuprof_gpu_channel_enter (GPUPROF_GPU_CHANNEL_TRACER, element_id, seq);
}

static inline guint64
gpuprof_gpu_chain_exit (void)
{
  return gpuprof_gpu_channel_exit (GPUPROF_GPU_CHANNEL_TRACER);
}

GPUPROF_API
void gpuprof_gpu_set_thread_name (const gchar * name);
GPUPROF_API
void gpuprof_gpu_set_thread_element (GpuprofGpuChannel channel,
    guint32 element_id);
GPUPROF_API
guint32 gpuprof_gpu_current_thread_id (void);
GPUPROF_API
void gpuprof_gpu_set_thread_owner (guint32 tid, guint32 element_id);

/* element_id's oldest batch in flight whose number is above @after (0: the
 * oldest), 0 for none (gst/measure/gpuprof-batch.h) */
typedef guint64 (*GpuprofGpuOwnerBatchFunc) (guint32 element_id,
    guint64 after, gpointer user_data);
GPUPROF_API
void gpuprof_gpu_set_owner_batch_func (GpuprofGpuOwnerBatchFunc func,
    gpointer user_data);

/* CUPTI reports pthread ids, not gettid() (cupti-path=callback): thread
 * slots go by those */
void gpuprof_gpu_use_pthread_ids (gboolean use);

/* after a host wait (gpuprof-gpu-wait.c) or an event record (both paths):
 * closes the calling thread's batch */
void gpuprof_gpu_close_batch (void);

G_END_DECLS
