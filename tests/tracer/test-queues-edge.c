/* Queue counts on the shapes that once miscounted them: a leaky queue
 * behind a tee (copied and pooled buffers), the level read after the
 * queue's thread took the buffer, buffers a queue still held when
 * downstream stopped or the pipeline stopped. Every count is compared with
 * pad probes on the queue's own pads in the same run. */
#define _GNU_SOURCE             /* sched_setaffinity, SCHED_IDLE */
#include "gpuprof-test-util.h"

#include <sched.h>

/* buffers = pushes seen on its src pad; what came in went out, was dropped,
 * flushed, or left */
static void
check_balance (const GstStructure * s, const GpuprofTestCount * truth)
{
  guint64 out = gpuprof_test_get_u64 (s, "buffers");
  guint64 drops = gpuprof_test_get_u64 (s, "drops");
  guint64 flushed = gpuprof_test_get_u64 (s, "flushed");
  guint64 left = gpuprof_test_get_u64 (s, "left");

  fail_unless_equals_uint64 (out, (guint64) truth->out);
  fail_unless (out + drops + flushed + left == (guint64) truth->in,
      "in %d != out %" G_GUINT64_FORMAT " + drops %" G_GUINT64_FORMAT
      " + flushed %" G_GUINT64_FORMAT " + left %" G_GUINT64_FORMAT,
      truth->in, out, drops, flushed, left);
}

/* Plays to EOS: the statistics of the queue q, balanced against @truth. */
static GstStructure *
queue_stats_at_eos (GstElement * p, const GpuprofTestCount * truth)
{
  GstStructure *s;

  gpuprof_test_play_to_eos (p);
  s = gpuprof_test_queue_stats ("pipeline0/q");
  check_balance (s, truth);
  return s;
}

/* A tee holds a second reference, so after a drop the queue copies the
 * next buffer to mark it DISCONT (a pointer never seen entering), and
 * dropped buffers return from videotestsrc's pool with their old pointers.
 * The other branch is synced too, so it holds its buffers a while; buffers
 * come every 2 ms, the synced sink takes one per 8 ms: most are dropped. */
static void
run_leaky_behind_tee (const gchar * leaky)
{
  GpuprofTestCount truth = { 0 };
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=60 ! "
      "video/x-raw,width=160,height=120,framerate=120/1,format=NV12 ! "
      "identity sleep-time=2000 ! tee name=t t. ! queue2 ! fakesink sync=true "
      "t. ! queue name=q "
      "max-size-buffers=1 max-size-bytes=0 max-size-time=0 leaky=%s ! "
      "fakesink sync=true", leaky);
  GstElement *p = gpuprof_test_parse_counting (desc, "q", &truth);
  GstStructure *s;

  s = queue_stats_at_eos (p, &truth);
  /* EOS left a drained queue: nothing was still inside */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "left"), 0);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "flushed"), 0);
  fail_unless (gpuprof_test_get_u64 (s, "drops") > 0, "nothing dropped: "
      "the test did not test (in %d, out %d)", truth.in, truth.out);
  gst_structure_free (s);
  gpuprof_test_stop (p);
  g_free (desc);
}

GST_START_TEST (test_leaky_upstream_behind_tee)
{
  run_leaky_behind_tee ("upstream");
}

GST_END_TEST;

GST_START_TEST (test_leaky_downstream_behind_tee)
{
  run_leaky_behind_tee ("downstream");
}

GST_END_TEST;

/* Runs in the upstream thread: it yields the CPU to any other thread. */
static GstPadProbeReturn
idle_priority_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  struct sched_param none = { 0 };

  sched_setscheduler (0, SCHED_IDLE, &none);
  return GST_PAD_PROBE_REMOVE;
}

/* Each buffer enters an empty queue whose thread waits for it. All threads
 * share one CPU and the upstream one has idle priority: the queue's thread
 * runs as soon as it is woken and takes the buffer before the chain
 * returns, when the level is read. A buffer was inside all the same. */
GST_START_TEST (test_max_level_counts_buffers_taken_at_once)
{
  GpuprofTestCount truth = { 0 };
  GstElement *p = gpuprof_test_parse_counting (
      "fakesrc num-buffers=30 sizetype=fixed "
      "sizemax=100 ! identity name=up sleep-time=2000 ! queue name=q ! "
      "fakesink sync=false", "q", &truth);
  GstElement *up = gst_bin_get_by_name (GST_BIN (p), "up");
  GstPad *pad = gst_element_get_static_pad (up, "src");
  GstStructure *s;
  cpu_set_t one;

  CPU_ZERO (&one);
  CPU_SET (sched_getcpu (), &one);
  /* streaming threads are created later, from this one: they inherit it */
  fail_unless (sched_setaffinity (0, sizeof (one), &one) == 0);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, idle_priority_cb, NULL,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (up);

  s = queue_stats_at_eos (p, &truth);
  fail_unless (truth.out > 0);
  fail_unless (gpuprof_test_get_u64 (s, "max_level_buffers") >= 1,
      "max level 0 buffers though %d buffers passed", truth.out);
  fail_unless (gpuprof_test_get_u64 (s, "max_level_bytes") >= 100,
      "max level %" G_GUINT64_FORMAT " bytes though buffers of 100 passed",
      gpuprof_test_get_u64 (s, "max_level_bytes"));
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* The sink takes one buffer and says EOS while the queue holds the others
 * (the identity takes 200 ms over the first): the queue throws them away
 * unpushed. That is not a leaky drop, also for a leaky queue (which then
 * pushes EOS after a refused push: its last push result says so). */
static void
check_downstream_stopped (const gchar * queue_props)
{
  GpuprofTestCount truth = { 0 };
  gchar *desc = g_strdup_printf ("fakesrc num-buffers=5 sizetype=fixed "
      "sizemax=10 ! queue name=q %s ! identity sleep-time=200000 ! "
      "fakesink num-buffers=1", queue_props);
  GstElement *p = gpuprof_test_parse_counting (desc, "q", &truth);
  GstStructure *s;

  s = queue_stats_at_eos (p, &truth);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "drops"), 0);
  fail_unless (gpuprof_test_get_u64 (s, "left") > 0,
      "%s: in %d, out %d: nothing left", queue_props, truth.in, truth.out);
  gst_structure_free (s);
  gpuprof_test_stop (p);
  g_free (desc);
}

GST_START_TEST (test_downstream_stopped_is_left_not_drops)
{
  check_downstream_stopped ("");
}

GST_END_TEST;

GST_START_TEST (test_downstream_stopped_leaky_is_left_not_drops)
{
  check_downstream_stopped ("leaky=downstream");
}

GST_END_TEST;

/* Stopped while full (no EOS): what the queue held at PAUSED -> READY is
 * left, and the next run starts with an empty mirror. */
GST_START_TEST (test_stopped_while_full_is_left)
{
  GpuprofTestCount truth = { 0 };
  GstElement *p = gpuprof_test_parse_counting (
      "fakesrc name=src num-buffers=1000 "
      "sizetype=fixed sizemax=10 ! queue name=q max-size-buffers=5 ! "
      "identity sleep-time=20000 ! fakesink sync=false", "q", &truth);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstStructure *s;
  gint i;

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* until the queue is full behind the slow identity */
  for (i = 0; i < 500 && g_atomic_int_get (&truth.out) < 3; i++)
    g_usleep (10000);
  fail_unless (g_atomic_int_get (&truth.out) >= 3);
  fail_unless (gst_element_set_state (p, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  /* the statistics stay until NULL */
  s = gpuprof_test_queue_stats ("pipeline0/q");
  check_balance (s, &truth);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "drops"), 0);
  fail_unless (gpuprof_test_get_u64 (s, "left") >= 1);
  gst_structure_free (s);

  /* played again from READY: residency and counts of the new buffers only */
  truth.in = truth.out = 0;
  gst_element_set_state (p, GST_STATE_NULL);
  g_object_set (src, "num-buffers", 10, NULL);
  gst_object_unref (src);
  s = queue_stats_at_eos (p, &truth);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "left"), 0);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers"), 10);
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
queues_edge_suite (void)
{
  Suite *s = suite_create ("gpuprof-queues-edge");
  TCase *tc = tcase_create ("queues");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_leaky_upstream_behind_tee);
  tcase_add_test (tc, test_leaky_downstream_behind_tee);
  tcase_add_test (tc, test_max_level_counts_buffers_taken_at_once);
  tcase_add_test (tc, test_downstream_stopped_is_left_not_drops);
  tcase_add_test (tc, test_downstream_stopped_leaky_is_left_not_drops);
  tcase_add_test (tc, test_stopped_while_full_is_left);
  return s;
}

GPUPROF_TEST_MAIN (queues_edge, "gpuprof-queues-edge",
    "gpuprof(report=off,cupti=off)");
