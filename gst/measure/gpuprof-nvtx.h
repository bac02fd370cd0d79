/* gpuprof: NVTX emission, so Nsight Systems shows each element as a row.
 *
 * One NVTX domain per element (named by its path), a registered string per
 * pad, categories per hook kind, payload = buffer sequence. With no NVTX tool
 * attached each call is a pointer check inside NVTX. Built without NVTX
 * headers, every function is a no-op.
 */
#pragma once

#include "gpuprof-objects.h"

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_NVTX_CAT_CHAIN = 1,
  GPUPROF_NVTX_CAT_PULL,
  GPUPROF_NVTX_CAT_QUEUE,
  GPUPROF_NVTX_CAT_EVENT,
  GPUPROF_NVTX_CAT_STATE,
} GpuprofNvtxCategory;

gboolean gpuprof_nvtx_available (void);
void gpuprof_nvtx_element_init (GpuprofElement * e);
void gpuprof_nvtx_pad_init (GpuprofPad * p);
void gpuprof_nvtx_push (GpuprofElement * e, gpointer msg, guint64 payload,
    GpuprofNvtxCategory cat);
void gpuprof_nvtx_pop (GpuprofElement * e);
guint64 gpuprof_nvtx_start (GpuprofElement * e, gpointer msg,
    guint64 payload);
void gpuprof_nvtx_end (GpuprofElement * e, guint64 range);
void gpuprof_nvtx_mark (GpuprofElement * e, const gchar * text,
    guint64 payload, GpuprofNvtxCategory cat);
void gpuprof_nvtx_name_thread (gint tid, const gchar * name);

G_END_DECLS
