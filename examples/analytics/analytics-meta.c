/* gpuprof analytics examples: metas carried by the batch buffers.
 * See analytics-meta.h and docs/examples.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "analytics-meta.h"

/* The API type @api, registered at the first call (*@type caches it).
 * Looked up before it is registered: a test program that links this file
 * and loads the plugin would otherwise register it twice. */
static GType
api_type_once (GType * type, const gchar * api)
{
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (type)) {
    GType t = g_type_from_name (api);

    g_once_init_leave (type, t ? t : gst_meta_api_type_register (api, tags));
  }
  return *type;
}

/* The meta implementation @impl, registered at the first call (*@info
 * caches it), looked up first as the API type is. */
static const GstMetaInfo *
meta_info_once (const GstMetaInfo ** info, GType api, const gchar * impl,
    gsize size, GstMetaInitFunction init, GstMetaFreeFunction free_func,
    GstMetaTransformFunction transform)
{
  if (g_once_init_enter ((GstMetaInfo **) info)) {
    const GstMetaInfo *mi = gst_meta_get_info (impl);

    if (!mi)
      mi = gst_meta_register (api, impl, size, init, free_func, transform);
    g_once_init_leave ((GstMetaInfo **) info, (GstMetaInfo *) mi);
  }
  return *info;
}

/* --- batch meta ---------------------------------------------------------- */

GType
analytics_batch_meta_api_get_type (void)
{
  static GType type = 0;

  return api_type_once (&type, "AnalyticsBatchMetaAPI");
}

static gboolean
batch_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  AnalyticsBatchMeta *bmeta = (AnalyticsBatchMeta *) meta;

  memset ((guint8 *) bmeta + sizeof (GstMeta), 0,
      sizeof (AnalyticsBatchMeta) - sizeof (GstMeta));
  return TRUE;
}

static void
batch_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  AnalyticsBatchMeta *bmeta = (AnalyticsBatchMeta *) meta;

  g_free (bmeta->frames);
  bmeta->frames = NULL;
}

static gboolean
batch_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  AnalyticsBatchMeta *src = (AnalyticsBatchMeta *) meta, *dst;
  AnalyticsBatchFrame *frames;

  /* Only plain copies keep the layout the meta describes. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  dst = analytics_buffer_add_batch_meta (dest, src->n_frames);
  frames = dst->frames;
  memcpy ((guint8 *) dst + sizeof (GstMeta), (guint8 *) src + sizeof (GstMeta),
      sizeof (AnalyticsBatchMeta) - sizeof (GstMeta));
  dst->frames = frames;
  memcpy (dst->frames, src->frames,
      src->n_frames * sizeof (AnalyticsBatchFrame));
  return TRUE;
}

const GstMetaInfo *
analytics_batch_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  return meta_info_once (&info, ANALYTICS_BATCH_META_API_TYPE,
      "AnalyticsBatchMeta", sizeof (AnalyticsBatchMeta), batch_meta_init,
      batch_meta_free, batch_meta_transform);
}

/**
 * analytics_buffer_add_batch_meta:
 * @buffer: a writable batch buffer
 * @n_frames: frames in the batch
 *
 * Returns: (transfer none): a meta with @n_frames zeroed frames; the caller
 * fills in every field.
 */
AnalyticsBatchMeta *
analytics_buffer_add_batch_meta (GstBuffer * buffer, guint n_frames)
{
  AnalyticsBatchMeta *meta;

  meta = (AnalyticsBatchMeta *) gst_buffer_add_meta (buffer,
      analytics_batch_meta_get_info (), NULL);
  meta->n_frames = n_frames;
  meta->frames = g_new0 (AnalyticsBatchFrame, MAX (n_frames, 1));
  return meta;
}

const gchar *
analytics_batch_push_reason_name (AnalyticsBatchPushReason reason)
{
  switch (reason) {
    case ANALYTICS_BATCH_PUSH_FULL:
      return "full";
    case ANALYTICS_BATCH_PUSH_TIMEOUT:
      return "timeout";
    case ANALYTICS_BATCH_PUSH_EOS:
      return "eos";
  }
  return "unknown";
}

/* --- detection meta ------------------------------------------------------ */

GType
analytics_detection_meta_api_get_type (void)
{
  static GType type = 0;

  return api_type_once (&type, "AnalyticsDetectionMetaAPI");
}

static gboolean
detection_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  AnalyticsDetectionMeta *dmeta = (AnalyticsDetectionMeta *) meta;

  dmeta->inferred = FALSE;
  dmeta->objects = g_array_new (FALSE, TRUE, sizeof (AnalyticsObject));
  return TRUE;
}

static void
detection_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  AnalyticsDetectionMeta *dmeta = (AnalyticsDetectionMeta *) meta;

  g_clear_pointer (&dmeta->objects, g_array_unref);
}

static gboolean
detection_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  AnalyticsDetectionMeta *src = (AnalyticsDetectionMeta *) meta, *dst;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;

  dst = analytics_buffer_add_detection_meta (dest, src->inferred);
  g_array_append_vals (dst->objects, src->objects->data, src->objects->len);
  return TRUE;
}

const GstMetaInfo *
analytics_detection_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  return meta_info_once (&info, ANALYTICS_DETECTION_META_API_TYPE,
      "AnalyticsDetectionMeta", sizeof (AnalyticsDetectionMeta),
      detection_meta_init, detection_meta_free, detection_meta_transform);
}

/**
 * analytics_buffer_add_detection_meta:
 * @buffer: a writable buffer
 * @inferred: whether inference produced the objects
 *
 * Returns: (transfer none): a meta with an empty object array.
 */
AnalyticsDetectionMeta *
analytics_buffer_add_detection_meta (GstBuffer * buffer, gboolean inferred)
{
  AnalyticsDetectionMeta *meta;

  meta = (AnalyticsDetectionMeta *) gst_buffer_add_meta (buffer,
      analytics_detection_meta_get_info (), NULL);
  meta->inferred = inferred;
  return meta;
}
