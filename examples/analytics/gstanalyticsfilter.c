/* GstAnalyticsFilter: base of the in-place stand-ins. See the header.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstanalyticsfilter.h"

typedef struct
{
  GstVideoInfo info;            /* streaming thread only */
} GstAnalyticsFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstAnalyticsFilter, gst_analytics_filter,
    GST_TYPE_BASE_TRANSFORM);

/* The mux's batches, or any RGBA video (one frame per buffer). */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) RGBA"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) RGBA"));

static gboolean
gst_analytics_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstAnalyticsFilterPrivate *priv =
      gst_analytics_filter_get_instance_private (GST_ANALYTICS_FILTER (trans));

  return gst_video_info_from_caps (&priv->info, incaps);
}

static GstFlowReturn
gst_analytics_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstAnalyticsFilter *filter = GST_ANALYTICS_FILTER (trans);
  GstAnalyticsFilterPrivate *priv =
      gst_analytics_filter_get_instance_private (filter);
  AnalyticsFrameLayout layout;

  if (!analytics_frame_layout_init (&layout, buf, &priv->info)) {
    GST_ELEMENT_ERROR (filter, STREAM, FORMAT, (NULL),
        ("buffer of %" G_GSIZE_FORMAT " bytes smaller than its %u frames",
            gst_buffer_get_size (buf), layout.n_frames));
    return GST_FLOW_ERROR;
  }
  return GST_ANALYTICS_FILTER_GET_CLASS (filter)->process (filter, buf,
      &layout);
}

static void
gst_analytics_filter_class_init (GstAnalyticsFilterClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_analytics_filter_set_caps);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_analytics_filter_transform_ip);
  gst_type_mark_as_plugin_api (GST_TYPE_ANALYTICS_FILTER, 0);
}

static void
gst_analytics_filter_init (GstAnalyticsFilter * filter)
{
  /* All three work on the batch buffer itself. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (filter), TRUE);
}
