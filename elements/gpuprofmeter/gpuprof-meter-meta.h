/* GpuprofGpuMeta: a buffer's GPU cost, attached by gpuprofmeter
 * (attach-meta=true).
 *
 * The meta is registered by the gpuprofmeter plugin; an application reads
 * it with gpuprof_buffer_get_gpu_meta() from this header (and gpuprof-gpu.h
 * for GpuprofGpuCost), with no library to link: the API type is looked up
 * by name, and is 0 (no meta) until the gpuprofmeter plugin is loaded.
 */
#pragma once

#include <gst/gst.h>
#include "gpuprof-gpu.h"          /* GpuprofGpuCost, inline only */

G_BEGIN_DECLS

#define GPUPROF_GPU_META_MAX_ELEMENTS 16

/**
 * GpuprofGpuMetaElement:
 * @name: upstream element name, as a GQuark
 * @cost: GPU work its chain call launched for this buffer
 */
typedef struct
{
  GQuark name;
  GpuprofGpuCost cost;
} GpuprofGpuMetaElement;

/**
 * GpuprofGpuMeta:
 * @meta: parent
 * @sequence: the buffer's number at the meter, from 0
 * @total: sum over @elements
 * @n_elements: valid entries of @elements
 * @elements: per upstream element, nearest first (at most 16)
 *
 * Attached by gpuprofmeter with attach-meta=true. Read with
 * gpuprof_buffer_get_gpu_meta().
 */
typedef struct
{
  GstMeta meta;
  guint64 sequence;
  GpuprofGpuCost total;
  guint n_elements;
  GpuprofGpuMetaElement elements[GPUPROF_GPU_META_MAX_ELEMENTS];
} GpuprofGpuMeta;

#define GPUPROF_GPU_META_API_NAME "GpuprofGpuMetaAPI"

/* 0 until the gpuprofmeter plugin registered it */
static inline GType
gpuprof_gpu_meta_api_get_type (void)
{
  return g_type_from_name (GPUPROF_GPU_META_API_NAME);
}

static inline GpuprofGpuMeta *
gpuprof_buffer_get_gpu_meta (GstBuffer * buffer)
{
  GType api = gpuprof_gpu_meta_api_get_type ();

  return api ? (GpuprofGpuMeta *) gst_buffer_get_meta (buffer, api) : NULL;
}

/* in the gpuprofmeter plugin only */
const GstMetaInfo *gpuprof_gpu_meta_get_info (void);
GpuprofGpuMeta *gpuprof_buffer_add_gpu_meta (GstBuffer * buffer);

G_END_DECLS
