/* gpuprof analytics examples: metas carried by the batch buffers.
 * See gpuprof-analytics-meta.h and docs/examples.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gpuprof-analytics-meta.h"

/* Look the API type up before registering it: a test program that links
 * this file and loads the plugin would otherwise register it twice. */
static GType
register_api_once (const gchar * api)
{
  static const gchar *tags[] = { NULL };
  GType type = g_type_from_name (api);

  return type ? type : gst_meta_api_type_register (api, tags);
}

static const GstMetaInfo *
register_meta_once (GType api, const gchar * impl, gsize size,
    GstMetaInitFunction init, GstMetaFreeFunction free_func,
    GstMetaTransformFunction transform)
{
  const GstMetaInfo *info = gst_meta_get_info (impl);

  return info ? info : gst_meta_register (api, impl, size, init, free_func,
      transform);
}

/* --- batch meta ---------------------------------------------------------- */

GType
gpuprof_batch_meta_api_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, register_api_once ("GpuprofBatchMetaAPI"));
  return type;
}

static gboolean
batch_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GpuprofBatchMeta *bmeta = (GpuprofBatchMeta *) meta;

  memset ((guint8 *) bmeta + sizeof (GstMeta), 0,
      sizeof (GpuprofBatchMeta) - sizeof (GstMeta));
  return TRUE;
}

static void
batch_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GpuprofBatchMeta *bmeta = (GpuprofBatchMeta *) meta;

  g_free (bmeta->frames);
  bmeta->frames = NULL;
}

static gboolean
batch_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GpuprofBatchMeta *src = (GpuprofBatchMeta *) meta, *dst;
  GpuprofBatchFrame *frames;

  /* Only plain copies keep the layout the meta describes. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  dst = gpuprof_buffer_add_batch_meta (dest, src->n_frames);
  frames = dst->frames;
  memcpy ((guint8 *) dst + sizeof (GstMeta), (guint8 *) src + sizeof (GstMeta),
      sizeof (GpuprofBatchMeta) - sizeof (GstMeta));
  dst->frames = frames;
  memcpy (dst->frames, src->frames, src->n_frames * sizeof (GpuprofBatchFrame));
  return TRUE;
}

const GstMetaInfo *
gpuprof_batch_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = register_meta_once (GPUPROF_BATCH_META_API_TYPE,
        "GpuprofBatchMeta", sizeof (GpuprofBatchMeta), batch_meta_init,
        batch_meta_free, batch_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gpuprof_buffer_add_batch_meta:
 * @buffer: a writable batch buffer
 * @n_frames: frames in the batch
 *
 * Returns: (transfer none): a meta with @n_frames zeroed frames; the caller
 * fills in every field.
 */
GpuprofBatchMeta *
gpuprof_buffer_add_batch_meta (GstBuffer * buffer, guint n_frames)
{
  GpuprofBatchMeta *meta;

  meta = (GpuprofBatchMeta *) gst_buffer_add_meta (buffer,
      gpuprof_batch_meta_get_info (), NULL);
  meta->n_frames = n_frames;
  meta->frames = g_new0 (GpuprofBatchFrame, MAX (n_frames, 1));
  return meta;
}

const gchar *
gpuprof_batch_push_reason_name (GpuprofBatchPushReason reason)
{
  switch (reason) {
    case GPUPROF_BATCH_PUSH_FULL:
      return "full";
    case GPUPROF_BATCH_PUSH_TIMEOUT:
      return "timeout";
    case GPUPROF_BATCH_PUSH_EOS:
      return "eos";
  }
  return "unknown";
}

/* --- detection meta ------------------------------------------------------ */

GType
gpuprof_detection_meta_api_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, register_api_once ("GpuprofDetectionMetaAPI"));
  return type;
}

static gboolean
detection_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GpuprofDetectionMeta *dmeta = (GpuprofDetectionMeta *) meta;

  dmeta->inferred = FALSE;
  dmeta->objects = g_array_new (FALSE, TRUE, sizeof (GpuprofObject));
  return TRUE;
}

static void
detection_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GpuprofDetectionMeta *dmeta = (GpuprofDetectionMeta *) meta;

  g_clear_pointer (&dmeta->objects, g_array_unref);
}

static gboolean
detection_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GpuprofDetectionMeta *src = (GpuprofDetectionMeta *) meta, *dst;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  dst = gpuprof_buffer_add_detection_meta (dest, src->inferred);
  g_array_append_vals (dst->objects, src->objects->data, src->objects->len);
  return TRUE;
}

const GstMetaInfo *
gpuprof_detection_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi =
        register_meta_once (GPUPROF_DETECTION_META_API_TYPE,
        "GpuprofDetectionMeta", sizeof (GpuprofDetectionMeta),
        detection_meta_init, detection_meta_free, detection_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gpuprof_buffer_add_detection_meta:
 * @buffer: a writable buffer
 * @inferred: whether inference produced the objects
 *
 * Returns: (transfer none): a meta with an empty object array.
 */
GpuprofDetectionMeta *
gpuprof_buffer_add_detection_meta (GstBuffer * buffer, gboolean inferred)
{
  GpuprofDetectionMeta *meta;

  meta = (GpuprofDetectionMeta *) gst_buffer_add_meta (buffer,
      gpuprof_detection_meta_get_info (), NULL);
  meta->inferred = inferred;
  return meta;
}
