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
#include "gpuprof-test-count.h"

#include <stdlib.h>

static GpuprofTestCount count;

int
main (int argc, char **argv)
{
  GstElement *p, *q;
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
  gpuprof_test_count_pads (q, &count);
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
    g_print ("in %d out %d\n", count.in, count.out);
    return msg ? 0 : 1;
  }

  for (i = 0; i < 3000 && g_atomic_int_get (&count.out) < 3; i++)
    g_usleep (10000);
  gst_element_set_state (p, GST_STATE_PAUSED);
  /* the sink waits for preroll, the source on the full queue: nothing
   * moves for half a second (a loaded machine may starve a thread a while) */
  gst_element_get_state (p, NULL, NULL, 30 * GST_SECOND);
  for (i = 0, still = 0; i < 600 && still < 5; i++) {
    gint now = g_atomic_int_get (&count.in) + g_atomic_int_get (&count.out);
    still = now == last ? still + 1 : 0;
    last = now;
    g_usleep (100000);
  }
  g_print ("in %d out %d\n", g_atomic_int_get (&count.in),
      g_atomic_int_get (&count.out));
  /* no set_state (NULL), no unref: exit() as many applications do */
  exit (0);
}
