/* analyticsmux: batching mux stand-in (like DeepStream's nvstreammux). */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_ANALYTICS_MUX (gst_analytics_mux_get_type ())
G_DECLARE_FINAL_TYPE (GstAnalyticsMux, gst_analytics_mux, GST, ANALYTICS_MUX,
    GstElement);

#define GST_TYPE_ANALYTICS_MUX_PAD (gst_analytics_mux_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstAnalyticsMuxPad, gst_analytics_mux_pad, GST,
    ANALYTICS_MUX_PAD, GstPad);

GST_ELEMENT_REGISTER_DECLARE (analyticsmux);

G_END_DECLS
