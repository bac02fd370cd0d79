/* analyticsinfer's threads (as nvinfer's): the chain queues, an input thread
 * infers, an output thread ("infer-output") pushes; the chain blocks at
 * max-in-flight; EOS leaves after every batch; a flush drops what was
 * queued; NULL with the chain waiting and a push held neither hangs nor
 * leaks. */
#define _GNU_SOURCE
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analytics-meta.h"
#include "analytics-test-util.h"
#include "gpuprof-test-harness.h"

#define W 64
#define H 48

typedef struct
{
  gint buffers;                 /* left the src pad */
  gint buffers_at_eos;          /* -1 until EOS */
  gint held;                    /* hits of the blocking probe */
  gint chained;                 /* buffers into the sink pad */
  gint with_meta;               /* buffers with detection meta */
  GThread *src_thread;
  gchar src_thread_name[16];
} Seen;

static GstPadProbeReturn
seen_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Seen *seen = data;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

    seen->src_thread = g_thread_self ();
    pthread_getname_np (pthread_self (), seen->src_thread_name,
        sizeof (seen->src_thread_name));
    if (analytics_buffer_get_detection_meta (buf))
      g_atomic_int_inc (&seen->with_meta);
    g_atomic_int_inc (&seen->buffers);
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) ==
      GST_EVENT_EOS) {
    g_atomic_int_set (&seen->buffers_at_eos,
        g_atomic_int_get (&seen->buffers));
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
chained_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&((Seen *) data)->chained);
  return GST_PAD_PROBE_OK;
}

static GstHarness *
new_harness (guint max_in_flight, Seen * seen)
{
  GstHarness *h = analytics_test_rgba_harness ("analyticsinfer", W, H);
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");

  g_object_set (h->element, "device", 1 /* cpu */ , "size", 32,
      "max-in-flight", max_in_flight, NULL);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, chained_probe, seen,
      NULL);
  gst_object_unref (sink);
  seen->buffers_at_eos = -1;
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, seen_probe, seen, NULL);
  gst_object_unref (src);
  return h;
}

static GstBuffer *
frame_at (guint64 pts)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H * 4, NULL);

  gst_buffer_memset (buf, 0, (guint8) (pts * 37), W * H * 4);
  GST_BUFFER_PTS (buf) = pts * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = GST_MSECOND;
  return buf;
}

/* Pushes the frames @from to @to - 1, each accepted */
static void
push_frames (GstHarness * h, guint from, guint to)
{
  guint i;

  for (i = from; i < to; i++)
    fail_unless_equals_int (gst_harness_push (h, frame_at (i)), GST_FLOW_OK);
}

/* Pulls the frames @from to @to - 1, in order */
static void
pull_frames (GstHarness * h, guint from, guint to)
{
  guint i;

  for (i = from; i < to; i++) {
    GstBuffer *buf = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), i * GST_MSECOND);
    gst_buffer_unref (buf);
  }
}

/* A harness whose first output is held on its src pad: @n frames pushed,
 * the first of them blocked there (in @hold, for release) */
static GstHarness *
held_harness (guint max_in_flight, Seen * seen, guint n, gulong * hold)
{
  GstHarness *h = new_harness (max_in_flight, seen);

  *hold = gpuprof_test_hold_src (h, &seen->held);
  push_frames (h, 0, n);
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen->held) == 1);
  return h;
}

typedef struct
{
  GstHarness *h;
  GstFlowReturn ret;
  guint received_at_return;     /* buffers downstream had when it returned */
  gint tid;
  gint done;
} Pusher;

static gpointer
push_third (gpointer data)
{
  Pusher *p = data;

  g_atomic_int_set (&p->tid, (gint) syscall (SYS_gettid));
  p->ret = gst_harness_push (p->h, frame_at (2));
  p->received_at_return = gst_harness_buffers_received (p->h);
  g_atomic_int_set (&p->done, 1);
  return NULL;
}

/* Pushes the third frame into @h on a thread of its own */
static GThread *
start_pusher (Pusher * p, GstHarness * h)
{
  memset (p, 0, sizeof (*p));
  p->h = h;
  p->ret = GST_FLOW_ERROR;
  return g_thread_new ("pusher", push_third, p);
}

/* Joins @pusher; its push returned @expected */
static void
join_pusher (GThread * pusher, Pusher * p, GstFlowReturn expected)
{
  g_thread_join (pusher);
  fail_unless_equals_int (p->ret, expected);
}

/* Whether the pusher sleeps (state S in /proc): waiting for room, once it
 * is in the chain. */
static gboolean
pusher_sleeps (Pusher * p)
{
  gint tid = g_atomic_int_get (&p->tid);
  gchar *path, *stat = NULL, *end;
  gboolean sleeps = FALSE;

  if (!tid)
    return FALSE;
  path = g_strdup_printf ("/proc/self/task/%d/stat", tid);
  if (g_file_get_contents (path, &stat, NULL, NULL)
      && (end = strrchr (stat, ')')))
    sleeps = end[1] == ' ' && end[2] == 'S';
  g_free (stat);
  g_free (path);
  return sleeps;
}

GST_START_TEST (test_output_thread_order_eos)
{
  Seen seen = { 0 };
  GstHarness *h = new_harness (2, &seen);
  const guint n = 12;

  push_frames (h, 0, n);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_frames (h, 0, n);
  gpuprof_test_pull_to_eos (h);
  /* EOS after every batch; each inferred on the input thread */
  fail_unless_equals_int (g_atomic_int_get (&seen.buffers_at_eos), n);
  fail_unless_equals_int (g_atomic_int_get (&seen.with_meta), n);
  /* pushed from the element's own output thread */
  fail_unless (seen.src_thread != g_thread_self ());
  fail_unless_equals_string (seen.src_thread_name, "infer-output");
  gst_harness_teardown (h);
}

GST_END_TEST;

/* With the first batch held downstream, the third chain returns only once
 * a batch has left: max-in-flight=2 kept the chain waiting. */
GST_START_TEST (test_chain_blocks_at_max_in_flight)
{
  Seen seen = { 0 };
  gulong hold;
  GstHarness *h = held_harness (2, &seen, 2, &hold);
  Pusher p;
  GThread *pusher = start_pusher (&p, h);

  /* the chain was entered (a third buffer counted by the pad) and sleeps,
   * or it returned at once */
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&p.done)
      || (g_atomic_int_get (&seen.chained) == 3 && pusher_sleeps (&p)));
  gpuprof_test_release_src (h, hold);
  join_pusher (pusher, &p, GST_FLOW_OK);
  fail_unless (p.received_at_return >= 1,
      "the third chain returned before any batch left");
  pull_frames (h, 0, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush_drops_queued)
{
  Seen seen = { 0 };
  gulong hold;
  GstHarness *h = held_harness (4, &seen, 3, &hold);
  GstSegment segment;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gpuprof_test_release_src (h, hold);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  push_frames (h, 100, 104);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_frames (h, 100, 104);
  GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen.buffers_at_eos) >= 0);
  /* only what came after the flush went out */
  fail_unless_equals_int (g_atomic_int_get (&seen.buffers_at_eos), 4);
  fail_unless_equals_int (gst_harness_buffers_received (h), 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* To NULL with the chain waiting for room and a push held downstream. */
GST_START_TEST (test_null_mid_stream)
{
  Seen seen = { 0 };
  gulong hold;
  GstHarness *h = held_harness (1, &seen, 1, &hold);
  Pusher p;
  GThread *pusher = start_pusher (&p, h);

  fail_unless_equals_int (gst_element_set_state (h->element, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  join_pusher (pusher, &p, GST_FLOW_FLUSHING);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* analyticstracker: tracks on "tracker-proc", pushes from
 * "tracker-output", every batch with its meta, EOS after the last. */
GST_START_TEST (test_tracker_threads)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=25 "
      "pattern=ball ! video/x-raw,format=RGBA,width=%d,height=%d ! "
      "analyticsinfer device=cpu size=32 interval=1 ! analyticstracker "
      "name=t max-in-flight=1 ! fakesink sync=false", W, H);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *t = gst_bin_get_by_name (GST_BIN (pipeline), "t");
  GstPad *src = gst_element_get_static_pad (t, "src");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  Seen seen = { 0 };

  seen.buffers_at_eos = -1;
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, seen_probe, &seen, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_int (g_atomic_int_get (&seen.buffers_at_eos), 25);
  /* the inferred batches and the carried ones (interval) alike */
  fail_unless_equals_int (g_atomic_int_get (&seen.with_meta), 25);
  fail_unless_equals_string (seen.src_thread_name, "tracker-output");
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (t);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

/* A real pipeline to NULL mid-stream, three times. */
GST_START_TEST (test_pipeline_null_mid_stream)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=false ! "
      "video/x-raw,format=RGBA,width=%d,height=%d ! analyticsinfer name=i "
      "device=cpu size=32 ! analyticstracker ! fakesink name=s sync=false",
      W, H);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "s");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  Seen seen = { 0 };
  gint round;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, seen_probe, &seen,
      NULL);
  for (round = 0; round < 3; round++) {
    gint before = g_atomic_int_get (&seen.buffers);

    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
        != GST_STATE_CHANGE_FAILURE);
    GPUPROF_TEST_WAIT_UNTIL (g_atomic_int_get (&seen.buffers) >= before + 10);
    fail_unless_equals_int (gst_element_set_state (pipeline,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
}

GST_END_TEST;

static Suite *
analyticsinfer_threads_suite (void)
{
  Suite *s = suite_create ("analyticsinfer-threads");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_output_thread_order_eos);
  tcase_add_test (tc, test_chain_blocks_at_max_in_flight);
  tcase_add_test (tc, test_flush_drops_queued);
  tcase_add_test (tc, test_null_mid_stream);
  tcase_add_test (tc, test_tracker_threads);
  tcase_add_test (tc, test_pipeline_null_mid_stream);
  return s;
}

GST_CHECK_MAIN (analyticsinfer_threads);
