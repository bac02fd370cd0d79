/* analyticstracker: object tracker stand-in (like DeepStream's nvtracker). */
#pragma once

#include "gstanalyticsfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ANALYTICS_TRACKER (gst_analytics_tracker_get_type ())
G_DECLARE_FINAL_TYPE (GstAnalyticsTracker, gst_analytics_tracker, GST,
    ANALYTICS_TRACKER, GstAnalyticsFilter);

GST_ELEMENT_REGISTER_DECLARE (analyticstracker);

G_END_DECLS
