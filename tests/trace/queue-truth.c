/* Runs a pipeline and counts, with pad probes, the buffers into and out of
 * the element named "q" (all its pads: a multiqueue's streams too; a list
 * counts as its length). Prints "in N out M" on stdout at the end.
 *
 *   queue-truth eos DESCRIPTION     play to EOS, then NULL
 *   queue-truth exit DESCRIPTION    play until 3 buffers left q, pause, wait
 *                                   until nothing moves, and exit() with the
 *                                   pipeline still PAUSED and q holding
 *                                   buffers (an application that never
 *                                   stops its pipeline)
 */
#include <gst/gst.h>
#include <stdlib.h>

static gint in, out;

static GstPadProbeReturn
count_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint *n = GST_PAD_IS_SINK (pad) ? &in : &out;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    g_atomic_int_add (n, gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST
            (info)));
  else
    g_atomic_int_inc (n);
  return GST_PAD_PROBE_OK;
}

static void
probe (const GValue * v, gpointer user_data)
{
  gst_pad_add_probe (g_value_get_object (v), GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, count_cb, NULL, NULL);
}

int
main (int argc, char **argv)
{
  GstElement *p, *q;
  GstIterator *it;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gint i, still, last = -1;

  gst_init (&argc, &argv);
  if (argc != 3) {
    g_printerr ("usage: queue-truth eos|exit DESCRIPTION\n");
    return 2;
  }
  p = gst_parse_launch (argv[2], &err);
  if (!p) {
    g_printerr ("queue-truth: %s\n", err->message);
    return 2;
  }
  q = gst_bin_get_by_name (GST_BIN (p), "q");
  if (!q) {
    g_printerr ("queue-truth: no element named q\n");
    return 2;
  }
  it = gst_element_iterate_pads (q);
  gst_iterator_foreach (it, probe, NULL);
  gst_iterator_free (it);
  gst_object_unref (q);
  gst_element_set_state (p, GST_STATE_PLAYING);

  if (g_str_equal (argv[1], "eos")) {
    bus = gst_element_get_bus (p);
    msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (msg)
      gst_message_unref (msg);
    gst_object_unref (bus);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    g_print ("in %d out %d\n", in, out);
    return msg ? 0 : 1;
  }

  for (i = 0; i < 3000 && g_atomic_int_get (&out) < 3; i++)
    g_usleep (10000);
  gst_element_set_state (p, GST_STATE_PAUSED);
  /* the sink waits for preroll, the source on the full queue: nothing
   * moves for half a second (a loaded machine may starve a thread a while) */
  gst_element_get_state (p, NULL, NULL, 30 * GST_SECOND);
  for (i = 0, still = 0; i < 600 && still < 5; i++) {
    gint now = g_atomic_int_get (&in) + g_atomic_int_get (&out);
    still = now == last ? still + 1 : 0;
    last = now;
    g_usleep (100000);
  }
  g_print ("in %d out %d\n", g_atomic_int_get (&in), g_atomic_int_get (&out));
  /* no set_state (NULL), no unref: exit() as many applications do */
  exit (0);
}
