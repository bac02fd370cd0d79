/* GstAnalyticsFilter: base of the in-place stand-ins (infer, tracker, OSD):
 * caps, pad templates and where the frames of each batch lie. */
#pragma once

#include <gst/base/gstbasetransform.h>

#include "analytics-frames.h"

G_BEGIN_DECLS

#define GST_TYPE_ANALYTICS_FILTER (gst_analytics_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstAnalyticsFilter, gst_analytics_filter, GST,
    ANALYTICS_FILTER, GstBaseTransform);

/**
 * GstAnalyticsFilterClass:
 * @process: work on one writable batch buffer whose frames lie as @layout
 *     says (checked against the buffer size)
 */
struct _GstAnalyticsFilterClass
{
  GstBaseTransformClass parent_class;

  GstFlowReturn (*process) (GstAnalyticsFilter * filter, GstBuffer * buffer,
      const AnalyticsFrameLayout * layout);
};

G_END_DECLS
