/* Helpers shared by the analytics element tests. */
#include <gst/check/gstcheck.h>

#include "analytics-test-util.h"
#include "gpuprof-test-util.h"

GstMessageType
analytics_test_run (const gchar * description, const gchar * probe_element,
    GstPadProbeCallback probe, gpointer data, GstClockTime timeout)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  GstMessageType type;
  gchar *text = NULL;

  fail_unless (pipeline != NULL, "%s: %s", description,
      error ? error->message : "?");
  g_clear_error (&error);

  if (probe) {
    GstElement *el = gst_bin_get_by_name (GST_BIN (pipeline), probe_element);
    GstPad *pad;

    fail_unless (el != NULL, "no element %s", probe_element);
    pad = gst_element_get_static_pad (el, "src");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, probe, data, NULL);
    gst_object_unref (pad);
    gst_object_unref (el);
  }

  type = gpuprof_test_play (pipeline, timeout, &text);
  if (type == GST_MESSAGE_ERROR)
    GST_WARNING ("pipeline error: %s", text);
  g_free (text);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return type;
}

gchar *
analytics_test_sources (guint n, const gchar * src_props)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++)
    g_string_append_printf (s, " videotestsrc %s ! m.sink_%u", src_props, i);
  return g_string_free (s, FALSE);
}

GstHarness *
analytics_test_rgba_harness (const gchar * factory, gint width, gint height)
{
  GstHarness *h = gst_harness_new (factory);
  gchar *caps = g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
      "framerate=30/1", width, height);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}
