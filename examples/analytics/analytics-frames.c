/* Where the frames of a batch buffer lie. See analytics-frames.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "analytics-frames.h"

/* A buffer without AnalyticsBatchMeta is one frame of the negotiated size, so
 * the stand-ins also run on plain RGBA video. */
gboolean
analytics_frame_layout_init (AnalyticsFrameLayout * layout, GstBuffer * buffer,
    const GstVideoInfo * info)
{
  const AnalyticsBatchMeta *meta = analytics_buffer_get_batch_meta (buffer);

  if (meta) {
    layout->n_frames = meta->n_frames;
    layout->width = meta->frame_width;
    layout->height = meta->frame_height;
    layout->stride = meta->stride;
  } else {
    layout->n_frames = 1;
    layout->width = GST_VIDEO_INFO_WIDTH (info);
    layout->height = GST_VIDEO_INFO_HEIGHT (info);
    layout->stride = GST_VIDEO_INFO_PLANE_STRIDE (info, 0);
  }
  layout->batch = meta;
  return layout->width * 4 <= layout->stride &&
      (gsize) layout->n_frames * layout->height * layout->stride <=
      gst_buffer_get_size (buffer);
}

guint
analytics_frame_layout_source (const AnalyticsFrameLayout * layout, guint frame)
{
  return layout->batch ? layout->batch->frames[frame].source_id : 0;
}
