/* Where the frames of a batch buffer lie: shared by analyticsinfer,
 * analyticstracker and analyticsosd. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "analytics-meta.h"

G_BEGIN_DECLS

typedef struct
{
  guint n_frames;
  guint width;
  guint height;
  guint stride;
  const AnalyticsBatchMeta *batch;        /* NULL for a plain single frame */
} AnalyticsFrameLayout;

gboolean analytics_frame_layout_init (AnalyticsFrameLayout * layout,
    GstBuffer * buffer, const GstVideoInfo * info);

guint analytics_frame_layout_source (const AnalyticsFrameLayout * layout,
    guint frame);

G_END_DECLS
