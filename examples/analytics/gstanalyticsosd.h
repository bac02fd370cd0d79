/* analyticsosd: on-screen display stand-in (like DeepStream's nvdsosd). */
#pragma once

#include "gstanalyticsfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_ANALYTICS_OSD (gst_analytics_osd_get_type ())
G_DECLARE_FINAL_TYPE (GstAnalyticsOsd, gst_analytics_osd, GST,
    ANALYTICS_OSD, GstAnalyticsFilter);

GST_ELEMENT_REGISTER_DECLARE (analyticsosd);

G_END_DECLS
