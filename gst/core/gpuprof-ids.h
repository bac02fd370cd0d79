/* gpuprof: 64-bit ids packed from two parts, an owner in the high bits and a
 * number in the low @lo_bits (GPU external correlation ids, gpuprof-gpu.h;
 * batch ids, gpuprof-batch.h). Inline: these run on the buffer path. */
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

G_END_DECLS
