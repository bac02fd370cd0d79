/* Helpers shared by the analytics element tests. */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>

G_BEGIN_DECLS

/* Runs a gst_parse_launch() description until EOS, an error or timeout,
 * calling probe (when not NULL) on every buffer leaving the src pad of the
 * element named probe_element. Returns GST_MESSAGE_EOS, GST_MESSAGE_ERROR or
 * 0 on timeout. */
GstMessageType analytics_test_run (const gchar * description,
    const gchar * probe_element, GstPadProbeCallback probe, gpointer data,
    GstClockTime timeout);

/* "videotestsrc ... ! m.sink_0 videotestsrc ... ! m.sink_1 ..." */
gchar *analytics_test_sources (guint n, const gchar * src_props);

/* A harness around a new @factory element fed RGBA frames of this size. */
GstHarness *analytics_test_rgba_harness (const gchar * factory, gint width,
    gint height);

G_END_DECLS
