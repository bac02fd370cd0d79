/* gpuprof: 64-bit ids packed from two parts, an owner in the high bits and a
 * number in the low @lo_bits (GPU external correlation ids, gpuprof-gpu.h;
 * batch ids, below). Inline: these run on the buffer path. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GPUPROF_ID_LO_MASK(lo_bits) \
  ((G_GUINT64_CONSTANT (1) << (lo_bits)) - 1)
/* the largest owner that fits above @lo_bits */
#define GPUPROF_ID_HI_MAX(lo_bits) ((1u << (64 - (lo_bits))) - 1)

static inline guint64
gpuprof_id_pack (guint32 hi, guint64 lo, guint lo_bits)
{
  return ((guint64) (hi & GPUPROF_ID_HI_MAX (lo_bits)) << lo_bits) |
      (lo & GPUPROF_ID_LO_MASK (lo_bits));
}

static inline guint32
gpuprof_id_hi (guint64 id, guint lo_bits)
{
  return (guint32) (id >> lo_bits);
}

static inline guint64
gpuprof_id_lo (guint64 id, guint lo_bits)
{
  return id & GPUPROF_ID_LO_MASK (lo_bits);
}

/* Registrations kept in a GArray of structs that begin with their guint id
 * (the bus's sinks, the ticker's ticks, the GPU listeners): the index of
 * the one with @id, -1 when none. */
static inline gint
gpuprof_id_index (GArray * entries, guint id)
{
  guint size = g_array_get_element_size (entries), i;

  for (i = 0; i < entries->len; i++) {
    if (*(const guint *) (gconstpointer) (entries->data + i * size) == id)
      return (gint) i;
  }
  return -1;
}

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

/* aggregator id and batch number in, and back out */
#define gpuprof_batch_id_make(aggregator_id, num) \
  ((GpuprofBatchId) gpuprof_id_pack ((aggregator_id), (num), \
      GPUPROF_BATCH_NUM_BITS))
#define gpuprof_batch_id_aggregator(id) \
  gpuprof_id_hi ((id), GPUPROF_BATCH_NUM_BITS)
#define gpuprof_batch_id_num(id) gpuprof_id_lo ((id), GPUPROF_BATCH_NUM_BITS)

G_END_DECLS
