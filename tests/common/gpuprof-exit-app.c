/* An application that plays a pipeline and returns from main() without
 * gst_deinit(), as most applications (Python ones included) do: the tracer
 * reports and CUPTI stops from exit handlers. With --keep-playing it exits
 * while the pipeline is still PLAYING (no set_state (NULL), no unref).
 * Used by tests/gpu/test-cupti-exit.sh and tests/tracer/test-params.sh. */
#include <gst/gst.h>

int
main (int argc, char **argv)
{
  GstElement *pipe;
  GstMessage *msg;
  GstBus *bus;

  gst_init (&argc, &argv);
  pipe = gst_parse_launch ("fakesrc num-buffers=20 ! identity ! fakesink",
      NULL);
  g_assert (pipe);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  /* left PLAYING when asked to: the report then comes from the exit handler */
  if (argc < 2 || g_strcmp0 (argv[1], "--keep-playing") != 0)
    gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  if (argc < 2)
    gst_object_unref (pipe);
  return 0;
}
