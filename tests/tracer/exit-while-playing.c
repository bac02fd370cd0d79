/* An application that exits while its pipeline is still PLAYING: the
 * tracer must still print the report, once, from its exit handler. */
#include <gst/gst.h>

int
main (int argc, char **argv)
{
  GstElement *p;
  GstBus *bus;
  GstMessage *msg;

  gst_init (&argc, &argv);
  p = gst_parse_launch ("fakesrc num-buffers=20 ! identity ! fakesink", NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  bus = gst_element_get_bus (p);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_EOS);
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  /* no set_state (NULL), no unref: exit() as many applications do */
  return 0;
}
