/* GpuprofGpuMeta registration, in the gpuprofmeter plugin: see
 * gpuprof-meter-meta.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-meter-meta.h"

#include <string.h>

static GType
meta_api_register (void)
{
  static GType type;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GPUPROF_GPU_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gpu_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GpuprofGpuMeta *m = (GpuprofGpuMeta *) meta;

  m->sequence = 0;
  memset (&m->total, 0, sizeof (m->total));
  m->n_elements = 0;
  return TRUE;
}

static gboolean
gpu_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GpuprofGpuMeta *src = (GpuprofGpuMeta *) meta, *dst;

  /* plain data: copy it along with the buffer, whatever the transform */
  dst = gpuprof_buffer_add_gpu_meta (dest);
  if (!dst)
    return FALSE;
  dst->sequence = src->sequence;
  dst->total = src->total;
  dst->n_elements = src->n_elements;
  memcpy (dst->elements, src->elements, sizeof (src->elements));
  return TRUE;
}

const GstMetaInfo *
gpuprof_gpu_meta_get_info (void)
{
  static const GstMetaInfo *info;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i = gst_meta_register (meta_api_register (),
        "GpuprofGpuMeta", sizeof (GpuprofGpuMeta), gpu_meta_init, NULL,
        gpu_meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

/**
 * gpuprof_buffer_add_gpu_meta:
 * @buffer: a writable buffer
 *
 * Returns: (transfer none): a zeroed GpuprofGpuMeta on @buffer
 */
GpuprofGpuMeta *
gpuprof_buffer_add_gpu_meta (GstBuffer * buffer)
{
  return (GpuprofGpuMeta *) gst_buffer_add_meta (buffer,
      gpuprof_gpu_meta_get_info (), NULL);
}
