/* Buffer lists through a queue: the queue table counts buffers, a list of
 * n as n, like the elements table and like the queue itself. Every count
 * is compared with pad probes on the queue's own pads in the same run,
 * which count a list as its length. */
#include "gpuprof-test-util.h"

/* rtpvrawpay with a small mtu pushes one list of many packets per frame */
#define LISTS "videotestsrc num-buffers=12 ! " \
  "video/x-raw,format=RGB,width=160,height=120 ! rtpvrawpay name=pay mtu=600 ! "

GST_START_TEST (test_list_counts_as_its_buffers)
{
  GpuprofTestCount truth = { 0 };
  GstElement *p = gpuprof_test_parse_counting (LISTS
      "queue name=q ! fakesink", "q", &truth);
  GstStructure *q, *pay, *sink;

  gpuprof_test_play_to_eos (p);
  fail_unless (truth.lists_in > 0 && truth.in > 2 * truth.lists_in,
      "no lists of several buffers (in %d, lists %d): the test did not test",
      truth.in, truth.lists_in);
  q = gpuprof_test_queue_stats ("pipeline0/q");
  pay = gpuprof_test_element_stats ("pipeline0/pay");
  sink = gpuprof_test_element_stats ("pipeline0/fakesink0");
  fail_unless (q && pay && sink);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "buffers"),
      (guint64) truth.out);
  /* consistent with the elements table */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "buffers"),
      gpuprof_test_get_u64 (sink, "buffers_in"));
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (pay, "buffers_out"),
      (guint64) truth.in);
  /* a level of one list is its buffers */
  fail_unless (gpuprof_test_get_u64 (q, "max_level_buffers") >=
      (guint64) (truth.in / truth.lists_in) / 2,
      "max level %" G_GUINT64_FORMAT " buffers, lists of %d",
      gpuprof_test_get_u64 (q, "max_level_buffers"),
      truth.in / truth.lists_in);
  gst_structure_free (q);
  gst_structure_free (pay);
  gst_structure_free (sink);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* Stopped while lists are inside (no EOS): what came in went out or was
 * left, counted in buffers. identity has no chain-list function: GStreamer
 * chains a list's buffers one by one, and stops at the first that fails
 * (the stop flushes identity's pad): what went out is what identity's sink
 * pad took, not what the queue's src pad probe saw leave. */
static GstPadProbeReturn
taken_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc (&((GpuprofTestCount *) user_data)->in);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_lists_left_count_their_buffers)
{
  GpuprofTestCount truth = { 0 }, taken = { 0 };
  GstElement *p =
      gpuprof_test_parse_counting ("videotestsrc num-buffers=1000 ! "
      "video/x-raw,format=RGB,width=160,height=120 ! rtpvrawpay mtu=600 ! "
      "queue name=q max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "
      "identity name=slow sleep-time=20000 ! fakesink sync=false", "q",
      &truth);
  GstElement *slow = gst_bin_get_by_name (GST_BIN (p), "slow");
  GstPad *pad;
  GstStructure *s;
  guint64 out, left, drops, flushed;
  gint i;

  /* the split's chain calls: a BUFFER-only probe on identity's sink pad
   * (a list probe would also see the list before it is split) */
  pad = gst_element_get_static_pad (slow, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, taken_cb, &taken, NULL);
  gst_object_unref (pad);
  gst_object_unref (slow);

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* until lists wait inside behind the slow identity */
  for (i = 0; i < 500 && (g_atomic_int_get (&truth.out) < 3
          || g_atomic_int_get (&truth.lists_in) < 3); i++)
    g_usleep (10000);
  fail_unless (g_atomic_int_get (&truth.lists_in) >= 3);
  fail_unless (gst_element_set_state (p, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  s = gpuprof_test_queue_stats ("pipeline0/q");
  fail_unless (s != NULL);
  out = gpuprof_test_get_u64 (s, "buffers");
  left = gpuprof_test_get_u64 (s, "left");
  drops = gpuprof_test_get_u64 (s, "drops");
  flushed = gpuprof_test_get_u64 (s, "flushed");
  fail_unless_equals_uint64 (out, (guint64) taken.in);
  fail_unless_equals_uint64 (drops, 0);
  fail_unless (left > 0, "nothing left: the test did not test");
  /* a list pushed into q just as READY flushes its pad may be seen by the
   * probe and not by the tracer's chain hook (the race of docs/tracer.md,
   * "buffers in/out"; seen 1 run in 5 beside 2 CPU burners), or be counted
   * flushed by the tracer while the pad refuses it before the probe (the
   * flush emptied the mirror during that chain call; docs/tracer.md,
   * "Queues"; seen once, 10 buffers): at most that one list apart, either
   * way. Without the list fixes this is off by thousands. */
  {
    gint64 diff = (gint64) truth.in - (gint64) (out + left + flushed);
    gint64 list = truth.in / MAX (truth.lists_in, 1) + 1;
    fail_unless (diff >= -list && diff <= list,
        "in %d != out %" G_GUINT64_FORMAT " + left %" G_GUINT64_FORMAT
        " + flushed %" G_GUINT64_FORMAT " (one list ~%" G_GINT64_FORMAT ")",
        truth.in, out, left, flushed, list);
  }
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
queue_lists_suite (void)
{
  Suite *s = suite_create ("gpuprof-queue-lists");
  TCase *tc = tcase_create ("lists");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_list_counts_as_its_buffers);
  tcase_add_test (tc, test_lists_left_count_their_buffers);
  return s;
}

GPUPROF_TEST_MAIN (queue_lists, "gpuprof-queue-lists",
    "gpuprof(report=off,cupti=off)");
