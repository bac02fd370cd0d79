/* gpuprofasync, the nvinfer-shaped test element, on its own: what it pushes
 * (count, order, events after the buffers before them), on which threads it
 * works, that the chain blocks at max-in-flight, that a flush drops what was
 * queued and a stop mid-stream neither hangs nor leaks. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "gpuprof-test-async.h"
#include "gpuprof-test-harness.h"

/* Buffers and the buffer count when EOS passed, seen on the src pad. */
typedef struct
{
  gint buffers;
  gint buffers_at_eos;
  gint probe_hits;              /* the blocking probe's */
} SrcSeen;

static GstPadProbeReturn
seen_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  SrcSeen *seen = data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER)
    g_atomic_int_inc (&seen->buffers);
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS)
    g_atomic_int_set (&seen->buffers_at_eos,
        g_atomic_int_get (&seen->buffers));
  return GST_PAD_PROBE_OK;
}

static GstHarness *
new_harness (const gchar * props, SrcSeen * seen)
{
  GstHarness *h = gst_harness_new ("gpuprofasync");
  gchar **kv = g_strsplit (props, " ", -1), **p;
  GstPad *src = gst_element_get_static_pad (h->element, "src");

  for (p = kv; *p && **p; p++) {
    gchar **nv = g_strsplit (*p, "=", 2);

    gst_util_set_object_arg (G_OBJECT (h->element), nv[0], nv[1]);
    g_strfreev (nv);
  }
  g_strfreev (kv);
  if (seen)
    gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, seen_probe, seen, NULL);
  gst_object_unref (src);
  gst_harness_set_src_caps_str (h, "application/x-test");
  return h;
}

static GstBuffer *
buffer_at (guint64 pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16, NULL);

  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

static GpuprofTestAsyncTruth
truth (GstHarness * h)
{
  return gpuprof_test_async_truth_of (h->element);
}

GST_START_TEST (test_order_threads_eos)
{
  SrcSeen seen = { 0 };
  GstHarness *h = new_harness ("work-us=500 spin=true", &seen);
  GpuprofTestAsyncTruth t;
  const guint n = 40;
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, buffer_at (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < n; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless (buf != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i);
    gst_buffer_unref (buf);
  }
  gpuprof_test_pull_to_eos (h);
  /* EOS left after every buffer, none after it */
  fail_unless_equals_int (g_atomic_int_get (&seen.buffers_at_eos), n);
  fail_unless_equals_int (g_atomic_int_get (&seen.buffers), n);

  t = truth (h);
  fail_unless_equals_uint64 (t.chained, n);
  fail_unless_equals_uint64 (t.work.calls, n);
  fail_unless_equals_uint64 (t.pushed, n);
  fail_unless_equals_uint64 (t.dropped, 0);
  fail_unless (t.max_in_flight_seen <= 2);
  /* worked and pushed on its own two threads, not the caller's */
  fail_unless (t.worker_thread != NULL && t.output_thread != NULL);
  fail_unless (t.worker_thread != t.output_thread);
  fail_unless (t.worker_thread != g_thread_self ());
  fail_unless (t.output_thread != g_thread_self ());
  /* the spin's CPU is measured on the worker's clock and fits its wall */
  fail_unless (t.work.cpu_ns > 0);
  fail_unless (t.work.cpu_ns <= t.work.self_ns + n * GST_USECOND,
      "cpu %" G_GUINT64_FORMAT " > wall %" G_GUINT64_FORMAT, t.work.cpu_ns,
      t.work.self_ns);
  fail_unless (t.work.self_ns >= n * 500 * GST_USECOND);
  fail_unless (t.work.self_p50_ns >= 500 * GST_USECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gpointer
push_one (gpointer data)
{
  GstHarness *h = data;

  return GINT_TO_POINTER (gst_harness_push (h, buffer_at (2)));
}

GST_START_TEST (test_chain_blocks_at_max_in_flight)
{
  SrcSeen seen = { 0 };
  GstHarness *h = new_harness ("max-in-flight=2", &seen);
  gulong block = gpuprof_test_hold_src (h, &seen.probe_hits);
  GpuprofTestAsyncTruth t;
  GThread *pusher;
  guint i;

  /* two buffers go in flight: the chain returns at once for each */
  fail_unless_equals_int (gst_harness_push (h, buffer_at (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buffer_at (1)), GST_FLOW_OK);
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen.probe_hits) == 1);
  /* the third waits for room while the first is held downstream */
  pusher = g_thread_new ("pusher", push_one, h);
  GPUPROF_TEST_WAIT_UNTIL (truth (h).chain_waiting);
  t = truth (h);
  fail_unless_equals_uint64 (t.chained, 3);
  fail_unless_equals_uint64 (t.pushed, 0);
  fail_unless_equals_uint64 (t.chain_waits, 1);
  fail_unless_equals_int (t.max_in_flight_seen, 2);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);

  gpuprof_test_release_src (h, block);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (pusher)),
      GST_FLOW_OK);
  for (i = 0; i < 3; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i);
    gst_buffer_unref (buf);
  }
  t = truth (h);
  fail_unless_equals_int (t.max_in_flight_seen, 2);
  fail_unless (!t.chain_waiting);
  fail_unless (t.chain_wait_ns > 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush_drops_queued)
{
  SrcSeen seen = { 0 };
  GstHarness *h = new_harness ("max-in-flight=4", &seen);
  gulong block = gpuprof_test_hold_src (h, &seen.probe_hits);
  GpuprofTestAsyncTruth t;
  GstSegment segment;
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, buffer_at (i)), GST_FLOW_OK);
  /* one held in the push, the other two worked and waiting behind it */
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen.probe_hits) == 1
      && truth (h).work.calls == 3);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gpuprof_test_release_src (h, block);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (i = 100; i < 105; i++)
    fail_unless_equals_int (gst_harness_push (h, buffer_at (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* only what came after the flush */
  for (i = 100; i < 105; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i);
    gst_buffer_unref (buf);
  }
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen.buffers_at_eos) > 0);
  fail_unless_equals_int (g_atomic_int_get (&seen.buffers_at_eos), 5);
  fail_unless_equals_int (gst_harness_buffers_received (h), 5);
  t = truth (h);
  fail_unless_equals_uint64 (t.chained, 8);
  fail_unless_equals_uint64 (t.pushed, 5);
  fail_unless_equals_uint64 (t.dropped, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The chain waits for room and the output thread is held in a push: going
 * to NULL frees both and drops the rest. */
GST_START_TEST (test_null_mid_stream)
{
  SrcSeen seen = { 0 };
  GstHarness *h = new_harness ("max-in-flight=1", &seen);
  GpuprofTestAsyncTruth t;
  GThread *pusher;

  gpuprof_test_hold_src (h, &seen.probe_hits);
  fail_unless_equals_int (gst_harness_push (h, buffer_at (0)), GST_FLOW_OK);
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen.probe_hits) == 1);
  pusher = g_thread_new ("pusher", push_one, h);
  GPUPROF_TEST_WAIT_UNTIL (truth (h).chain_waiting);
  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (pusher)),
      GST_FLOW_FLUSHING);
  t = truth (h);
  fail_unless_equals_uint64 (t.pushed, 0);
  /* the one held in the push, the one refused */
  fail_unless_equals_uint64 (t.dropped, 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A real pipeline to NULL while buffers stream, then played again: the
 * truth starts over, the threads come back. */
GST_START_TEST (test_pipeline_restart)
{
  GstElement *pipeline = gst_parse_launch ("fakesrc sizetype=fixed "
      "sizemax=64 ! gpuprofasync name=a work-us=200 ! fakesink sync=false",
      NULL);
  GstElement *a = gst_bin_get_by_name (GST_BIN (pipeline), "a");
  gint round;

  fail_unless (pipeline != NULL && a != NULL);
  for (round = 0; round < 3; round++) {
    GpuprofTestAsyncTruth t;

    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
        != GST_STATE_CHANGE_FAILURE);
    GPUPROF_TEST_WAIT_UNTIL (gpuprof_test_async_truth_of (a).pushed >= 20);
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    t = gpuprof_test_async_truth_of (a);
    fail_unless (t.pushed >= 20);
    /* every buffer chained was pushed or dropped */
    fail_unless_equals_uint64 (t.chained, t.pushed + t.dropped);
  }
  gst_object_unref (a);
  gst_object_unref (pipeline);
}

GST_END_TEST;

static Suite *
async_element_suite (void)
{
  Suite *s = suite_create ("async-element");
  TCase *tc = tcase_create ("general");

  gpuprof_test_register_async ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_order_threads_eos);
  tcase_add_test (tc, test_chain_blocks_at_max_in_flight);
  tcase_add_test (tc, test_flush_drops_queued);
  tcase_add_test (tc, test_null_mid_stream);
  tcase_add_test (tc, test_pipeline_restart);
  return s;
}

GST_CHECK_MAIN (async_element);
