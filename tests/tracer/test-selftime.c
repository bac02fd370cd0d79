/* Accuracy of self time, source loop time, queue residency and
 * backpressure, compared with the truth measured in the same run: the
 * gpuprofwork elements (tests/common) record how long each call really
 * took, pad probes count buffers and time them through a queue. The planted
 * costs only shape the pipeline; no figure is compared with them. */
#include "gpuprof-test-util.h"

#include <sys/prctl.h>

GST_START_TEST (test_self_time_excludes_downstream)
{
  /* fast sits between two slow ones: a share of its downstream's time
   * charged to it shows */
  GstElement *p = gpuprof_test_run ("fakesrc num-buffers=100 sizetype=fixed "
      "sizemax=64 ! gpuprofwork name=head ! gpuprofwork name=slow "
      "work-us=2000 ! gpuprofwork name=fast work-us=500 ! "
      "gpuprofwork name=last work-us=2000 ! gpuprofwork name=end ! "
      "fakesink name=sink sync=false");
  GstStructure *s = gpuprof_test_element_stats ("pipeline0/slow");
  GpuprofTestTruth head = gpuprof_test_truth (p, "head");
  GpuprofTestTruth slow = gpuprof_test_truth (p, "slow");
  GpuprofTestTruth fast = gpuprof_test_truth (p, "fast");
  GpuprofTestTruth last = gpuprof_test_truth (p, "last");
  GpuprofTestTruth end = gpuprof_test_truth (p, "end");

  fail_unless_equals_uint64 (slow.calls, 100);
  /* self and inclusive time; slow's inclusive time holds all three */
  gpuprof_test_assert_element_truth ("pipeline0/slow", &head, &slow, &fast);
  gpuprof_test_assert_element_truth ("pipeline0/fast", &slow, &fast, &last);
  gpuprof_test_assert_element_truth ("pipeline0/last", &fast, &last, &end);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers_in"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers_out"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "calls"), 100);
  /* the histogram's median agrees with the median call (its buckets are
   * 3 % wide) */
  gpuprof_test_assert_truth ("slow p50", gpuprof_test_get_u64 (s,
          "self_p50_ns"), slow.self_p50_ns, 1);
  gst_structure_free (s);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_source_loop_time)
{
  /* spin: a source's work is its CPU time (a sleep is waiting for input,
   * test-waits.c) */
  GstElement *p = gpuprof_test_run ("gpuprofworksrc name=src work-us=1000 "
      "spin=true num-buffers=100 ! identity name=id ! fakesink sync=false");
  GpuprofTestTruth src = gpuprof_test_truth (p, "src");
  GstStructure *s = gpuprof_test_element_stats ("pipeline0/src");
  GstStructure *id = gpuprof_test_element_stats ("pipeline0/id");

  /* the loop's CPU time between pushes is the source's work, create()'s
   * and GstBaseSrc's own; the spin is preempted on a loaded machine, so
   * compare with the CPU time create() measured */
  gpuprof_test_assert_truth ("source work", gpuprof_test_get_u64 (s,
          "self_ns"), src.cpu_ns, src.calls);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers_out"), 100);
  fail_unless_equals_string (gst_structure_get_string (s, "role"), "source");
  /* identity does almost nothing: the source's time is not its (the median,
   * so that a preempted call does not count) */
  fail_unless (!gpuprof_test_timing ()
      || gpuprof_test_get_u64 (id, "self_p50_ns") < src.self_p50_ns / 10,
      "identity p50 %" G_GUINT64_FORMAT " ns, source's create() %"
      G_GUINT64_FORMAT " ns", gpuprof_test_get_u64 (id, "self_p50_ns"),
      src.self_p50_ns);
  gst_structure_free (s);
  gst_structure_free (id);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_queue_residency_and_backpressure)
{
  /* a 2-buffer queue before a 2 ms consumer: the producer is blocked on the
   * full queue nearly all the time, and a buffer waits for the two ahead.
   * up measures how long its pushes into the queue really took. */
  GstElement *p = gpuprof_test_parse ("fakesrc num-buffers=100 "
      "sizetype=fixed sizemax=1000 ! gpuprofwork name=up ! "
      "queue name=q max-size-buffers=2 max-size-bytes=0 max-size-time=0 ! "
      "gpuprofwork name=slow work-us=2000 ! fakesink sync=false");
  GpuprofTestPadWatch *w = gpuprof_test_watch (p, "q");
  GstStructure *q, *e;
  GpuprofTestTruth up;
  guint64 bp, wall, qself;

  gpuprof_test_play_to_eos (p);
  q = gpuprof_test_queue_stats ("pipeline0/q");
  e = gpuprof_test_element_stats ("pipeline0/q");
  up = gpuprof_test_truth (p, "up");
  bp = gpuprof_test_get_u64 (q, "backpressure_ns");
  wall = gpuprof_test_get_u64 (q, "upstream_wall_ns");
  qself = gpuprof_test_get_u64 (e, "self_ns");

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "buffers"),
      gpuprof_test_watch_out (w));
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "buffers"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "max_level_buffers"),
      2);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "max_level_bytes"),
      2000);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "drops"), 0);
  /* the pushes into the queue are its enqueue work plus the wait for room */
  gpuprof_test_assert_truth ("backpressure + queue self", bp + qself,
      up.push_ns, 100);
  fail_unless (!gpuprof_test_timing () || bp > 0.8 * wall,
      "backpressure %" G_GUINT64_FORMAT
      " ns of %" G_GUINT64_FORMAT " ns", bp, wall);
  /* blocked time is not the queue's work */
  fail_unless (!gpuprof_test_timing () || qself < bp / 10);
  /* residency as pad probes on the queue see it */
  gpuprof_test_assert_truth ("residency p50",
      gpuprof_test_get_u64 (q, "residency_p50_ns"),
      gpuprof_test_residency_p50 (w, p, "up"), 1);
  gst_structure_free (q);
  gst_structure_free (e);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_leaky_queue_drops)
{
  /* leaky downstream queue of 1 before a slower consumer: most buffers are
   * dropped, and every one is accounted for */
  GstElement *p = gpuprof_test_parse ("fakesrc num-buffers=200 "
      "sizetype=fixed sizemax=10 ! gpuprofwork work-us=100 ! queue name=q "
      "leaky=downstream max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! "
      "gpuprofwork work-us=1000 ! fakesink sync=false");
  GpuprofTestPadWatch *w = gpuprof_test_watch (p, "q");
  GstStructure *q;
  guint64 in, out;

  gpuprof_test_play_to_eos (p);
  q = gpuprof_test_queue_stats ("pipeline0/q");
  in = gpuprof_test_watch_in (w);
  out = gpuprof_test_watch_out (w);
  fail_unless_equals_uint64 (in, 200);
  /* the scenario: some buffers were dropped (the consumer is 10x slower) */
  fail_unless (out < in, "no drops: %" G_GUINT64_FORMAT " in, %"
      G_GUINT64_FORMAT " out", in, out);
  /* EOS drains the queue: what did not leave was dropped */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "buffers"), out);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "drops"), in - out);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "flushed"), 0);
  gst_structure_free (q);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_aggregator_input_wait_is_not_work)
{
  /* two fast sources into a compositor before a 4 ms consumer: the sources'
   * threads wait inside the compositor's sink pads; that waiting is its
   * "blocked" time, not its work, and the consumer is the bottleneck. in0
   * and in1 measure how long their pushes into the compositor took. */
  GstElement *p = gpuprof_test_run ("videotestsrc num-buffers=40 ! "
      "video/x-raw,width=32,height=24,framerate=30/1 ! gpuprofwork name=in0 ! "
      "comp.sink_0 videotestsrc num-buffers=40 ! "
      "video/x-raw,width=32,height=24,framerate=30/1 ! gpuprofwork name=in1 ! "
      "comp.sink_1 compositor name=comp ! gpuprofwork name=head ! "
      "gpuprofwork name=slow work-us=4000 ! gpuprofwork name=end ! "
      "fakesink sync=false");
  GstStructure *c = gpuprof_test_element_stats ("pipeline0/comp");
  GpuprofTestTruth in0 = gpuprof_test_truth (p, "in0");
  GpuprofTestTruth in1 = gpuprof_test_truth (p, "in1");
  GpuprofTestTruth slow = gpuprof_test_truth (p, "slow");
  GpuprofTestTruth head = gpuprof_test_truth (p, "head");
  GpuprofTestTruth end = gpuprof_test_truth (p, "end");
  guint64 calls;

  fail_unless_equals_string (gst_structure_get_string (c, "role"),
      "aggregator");
  fail_unless_equals_string (gst_structure_get_string (c, "thread"),
      "comp:src");
  /* the scenario: the inputs waited for the slow consumer */
  fail_unless (!gpuprof_test_timing ()
      || in0.push_ns + in1.push_ns > slow.self_ns / 2,
      "inputs waited only %" G_GUINT64_FORMAT " ns",
      in0.push_ns + in1.push_ns);
  gpuprof_test_assert_truth ("compositor inputs blocked",
      gpuprof_test_get_u64 (c, "blocked_ns"), in0.push_ns + in1.push_ns,
      in0.calls + in1.calls);
  /* its work per batch is well under the consumer's */
  calls = MAX (gpuprof_test_get_u64 (c, "calls"), 1);
  fail_unless (!gpuprof_test_timing ()
      || gpuprof_test_get_u64 (c, "self_ns") / calls < slow.self_ns / 2
      / slow.calls, "compositor %" G_GUINT64_FORMAT " ns per call",
      gpuprof_test_get_u64 (c, "self_ns") / calls);
  gpuprof_test_assert_element_truth ("pipeline0/slow", &head, &slow, &end);
  gst_structure_free (c);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Pull mode: qtdemux pulls the file from filesrc in its own loop; the
 * pulls are filesrc's work, the loop between pushes is qtdemux's. */
GST_START_TEST (test_pull_mode_charged_upstream)
{
  const gchar *clip = gpuprof_test_clip ();
  gchar *desc;
  GstElement *p;
  GstStructure *src, *demux;

  if (!clip) {
    GST_INFO ("no test clip (GPUPROF_TEST_CLIP): skipped");
    return;
  }
  desc = g_strdup_printf ("filesrc name=src location=\"%s\" ! "
      "qtdemux name=demux ! fakesink sync=false", clip);
  p = gpuprof_test_run (desc);
  src = gpuprof_test_element_stats ("pipeline0/src");
  demux = gpuprof_test_element_stats ("pipeline0/demux");
  /* every pull is a call of filesrc; each but the one past the end gives a
   * buffer */
  fail_unless (gpuprof_test_get_u64 (src, "buffers_out") > 0);
  fail_unless (gpuprof_test_get_u64 (src, "calls") >=
      gpuprof_test_get_u64 (src, "buffers_out"));
  fail_unless (gpuprof_test_get_u64 (src, "calls") <=
      gpuprof_test_get_u64 (src, "buffers_out") + 1);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (src, "buffers_out"),
      gpuprof_test_get_u64 (demux, "buffers_in"));
  fail_unless (gpuprof_test_get_u64 (src, "self_ns") > 0);
  /* the demuxer pushes the 300 frames from its loop */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (demux, "buffers_out"),
      300);
  fail_unless (gpuprof_test_get_u64 (demux, "self_ns") > 0);
  /* both run on the demuxer's sink-pad task */
  fail_unless_equals_string (gst_structure_get_string (src, "thread"),
      gst_structure_get_string (demux, "thread"));
  gst_structure_free (src);
  gst_structure_free (demux);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;

static Suite *
selftime_suite (void)
{
  Suite *s = suite_create ("gpuprof-selftime");
  TCase *tc = tcase_create ("accuracy");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_self_time_excludes_downstream);
  tcase_add_test (tc, test_source_loop_time);
  tcase_add_test (tc, test_queue_residency_and_backpressure);
  tcase_add_test (tc, test_leaky_queue_drops);
  tcase_add_test (tc, test_aggregator_input_wait_is_not_work);
  tcase_add_test (tc, test_pull_mode_charged_upstream);
  return s;
}

int
main (int argc, char **argv)
{
  /* shorter sleeps, closer to the planted costs (streaming threads inherit
   * it); the truth is measured anyway */
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  return gpuprof_test_main (&argc, &argv, "gpuprof(report=off)",
      selftime_suite, "gpuprof-selftime", __FILE__);
}
