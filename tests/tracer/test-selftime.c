/* Accuracy of self time, source loop time, queue residency and
 * backpressure on synthetic loads whose true cost is known. */
#include "gpuprof-test-util.h"

#include <gst/base/gstbasesrc.h>
#include <sys/prctl.h>

/* Per-call means within 10 % of the planted costs. */
#define TOLERANCE 0.10

static gdouble
mean_self_us (const gchar * path)
{
  GstStructure *s = gpuprof_test_element_stats (path);
  gdouble mean = (gdouble) gpuprof_test_get_u64 (s, "self-ns") /
      MAX (gpuprof_test_get_u64 (s, "calls"), 1) / 1000.0;

  gst_structure_free (s);
  return mean;
}

GST_START_TEST (test_self_time_excludes_downstream)
{
  GstElement *p = gpuprof_test_run ("fakesrc num-buffers=100 sizetype=fixed "
      "sizemax=64 ! identity name=slow sleep-time=2000 ! "
      "identity name=fast sleep-time=500 ! fakesink name=sink sync=false");
  GstStructure *s = gpuprof_test_element_stats ("pipeline0/slow");

  gpuprof_test_assert_near ("slow self µs", mean_self_us ("pipeline0/slow"),
      2000, TOLERANCE);
  gpuprof_test_assert_near ("fast self µs", mean_self_us ("pipeline0/fast"),
      500, TOLERANCE);
  /* inclusive time holds both: 2.5 ms */
  gpuprof_test_assert_near ("slow incl µs",
      gpuprof_test_get_u64 (s, "incl-ns") / 100.0 / 1000.0, 2500, TOLERANCE);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers-in"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers-out"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "calls"), 100);
  /* the median of the histogram agrees with the mean */
  gpuprof_test_assert_near ("slow p50 µs",
      gpuprof_test_get_u64 (s, "self-p50-ns") / 1000.0, 2000, TOLERANCE);
  gst_structure_free (s);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* A source whose create() costs a known 1 ms. */
typedef GstBaseSrc SlowSrc;
typedef GstBaseSrcClass SlowSrcClass;
GType slow_src_get_type (void);
G_DEFINE_TYPE (SlowSrc, slow_src, GST_TYPE_BASE_SRC);

static GstFlowReturn
slow_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** buf)
{
  g_usleep (1000);
  *buf = gst_buffer_new_allocate (NULL, 16, NULL);
  return GST_FLOW_OK;
}

static void
slow_src_class_init (SlowSrcClass * klass)
{
  static GstStaticPadTemplate src = GST_STATIC_PAD_TEMPLATE ("src",
      GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass), &src);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "slowsrc", "Source", "1 ms per buffer", "gpuprof");
  klass->create = slow_src_create;
}

static void
slow_src_init (SlowSrc * src)
{
}

GST_START_TEST (test_source_loop_time)
{
  GstElement *p;

  gst_element_register (NULL, "gpuprofslowsrc", GST_RANK_NONE,
      slow_src_get_type ());
  p = gpuprof_test_run ("gpuprofslowsrc name=src num-buffers=100 ! "
      "identity name=id ! fakesink sync=false");
  /* the loop time between pushes is the source's work; the first loop
   * also holds start-up, so compare the median */
  {
    GstStructure *s = gpuprof_test_element_stats ("pipeline0/src");
    gpuprof_test_assert_near ("source p50 µs",
        gpuprof_test_get_u64 (s, "self-p50-ns") / 1000.0, 1000, TOLERANCE);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers-out"), 100);
    fail_unless_equals_string (gst_structure_get_string (s, "role"),
        "source");
    gst_structure_free (s);
  }
  /* identity does almost nothing: the source's time is not its */
  if (gpuprof_test_timing ())
    fail_unless (mean_self_us ("pipeline0/id") < 200);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_queue_residency_and_backpressure)
{
  /* a 2-buffer queue before a 2 ms consumer: the producer is blocked on the
   * full queue nearly all the time, and a buffer waits for the two ahead */
  GstElement *p = gpuprof_test_run ("fakesrc num-buffers=100 sizetype=fixed "
      "sizemax=1000 ! queue name=q max-size-buffers=2 max-size-bytes=0 "
      "max-size-time=0 ! identity name=slow sleep-time=2000 ! "
      "fakesink sync=false");
  GstStructure *q = gpuprof_test_queue_stats ("pipeline0/q");
  GstStructure *e = gpuprof_test_element_stats ("pipeline0/q");
  guint64 bp = gpuprof_test_get_u64 (q, "backpressure-ns");
  guint64 wall = gpuprof_test_get_u64 (q, "upstream-wall-ns");

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "buffers"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "max-level-buffers"),
      2);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "max-level-bytes"),
      2000);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (q, "drops"), 0);
  /* ~97 of 100 pushes wait ~2 ms each for space */
  gpuprof_test_assert_near ("backpressure ms", bp / 1e6, 97 * 2.0, 0.15);
  fail_unless (!gpuprof_test_timing () || bp > 0.8 * wall,
      "backpressure %" G_GUINT64_FORMAT
      " ns of %" G_GUINT64_FORMAT " ns", bp, wall);
  /* a buffer leaves ~2 consumer periods after it entered */
  gpuprof_test_assert_near ("residency p50 ms",
      gpuprof_test_get_u64 (q, "residency-p50-ns") / 1e6, 4.0, 0.25);
  /* blocked time is not the queue's work */
  fail_unless (!gpuprof_test_timing ()
      || gpuprof_test_get_u64 (e, "self-ns") < bp / 10);
  gst_structure_free (q);
  gst_structure_free (e);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_leaky_queue_drops)
{
  /* leaky downstream queue of 1 before a slow consumer: most buffers are
   * dropped, and every one is accounted for */
  GstElement *p = gpuprof_test_run ("fakesrc num-buffers=200 sizetype=fixed "
      "sizemax=10 ! identity sleep-time=100 ! queue name=q leaky=downstream "
      "max-size-buffers=1 max-size-bytes=0 max-size-time=0 ! "
      "identity sleep-time=1000 ! fakesink sync=false");
  GstStructure *q = gpuprof_test_queue_stats ("pipeline0/q");
  guint64 out = gpuprof_test_get_u64 (q, "buffers");
  guint64 drops = gpuprof_test_get_u64 (q, "drops");
  guint64 flushed = gpuprof_test_get_u64 (q, "flushed");

  fail_unless (drops > 50, "only %" G_GUINT64_FORMAT " drops", drops);
  /* nothing lost: out + dropped = in (the last may still sit inside) */
  fail_unless (out + drops + flushed >= 199 && out + drops + flushed <= 200,
      "out %" G_GUINT64_FORMAT " + drops %" G_GUINT64_FORMAT, out, drops);
  gst_structure_free (q);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_aggregator_input_wait_is_not_work)
{
  /* two fast sources into a compositor before a 4 ms consumer: the sources'
   * threads wait inside the compositor's sink pads; that waiting is its
   * "blocked" time, not its work, and the consumer is the bottleneck */
  GstElement *p = gpuprof_test_run ("videotestsrc num-buffers=40 ! "
      "video/x-raw,width=32,height=24,framerate=30/1 ! comp.sink_0 "
      "videotestsrc num-buffers=40 ! "
      "video/x-raw,width=32,height=24,framerate=30/1 ! comp.sink_1 "
      "compositor name=comp ! identity name=slow sleep-time=4000 ! "
      "fakesink sync=false");
  GstStructure *c = gpuprof_test_element_stats ("pipeline0/comp");
  fail_unless_equals_string (gst_structure_get_string (c, "role"),
      "aggregator");
  fail_unless_equals_string (gst_structure_get_string (c, "thread"),
      "comp:src");
  fail_unless (gpuprof_test_get_u64 (c, "blocked-ns") > 40 * 2000000,
      "inputs waited only %" G_GUINT64_FORMAT " ns",
      gpuprof_test_get_u64 (c, "blocked-ns"));
  /* its work per batch is well under the consumer's 4 ms */
  if (gpuprof_test_timing ())
    fail_unless (mean_self_us ("pipeline0/comp") < 2000);
  gpuprof_test_assert_near ("slow self µs", mean_self_us ("pipeline0/slow"),
      4000, TOLERANCE);
  gst_structure_free (c);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Pull mode: qtdemux pulls the file from filesrc in its own loop; the
 * pulls are filesrc's work, the loop between pushes is qtdemux's. */
GST_START_TEST (test_pull_mode_charged_upstream)
{
  const gchar *clip = g_getenv ("GPUPROF_TEST_CLIP");
  gchar *desc;
  GstElement *p;
  GstStructure *src, *demux;

  if (!clip || !g_file_test (clip, G_FILE_TEST_EXISTS)) {
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
  fail_unless (gpuprof_test_get_u64 (src, "buffers-out") > 0);
  fail_unless (gpuprof_test_get_u64 (src, "calls") >=
      gpuprof_test_get_u64 (src, "buffers-out"));
  fail_unless (gpuprof_test_get_u64 (src, "calls") <=
      gpuprof_test_get_u64 (src, "buffers-out") + 1);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (src, "buffers-out"),
      gpuprof_test_get_u64 (demux, "buffers-in"));
  fail_unless (gpuprof_test_get_u64 (src, "self-ns") > 0);
  /* the demuxer pushes the 300 frames from its loop */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (demux, "buffers-out"),
      300);
  fail_unless (gpuprof_test_get_u64 (demux, "self-ns") > 0);
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
  /* sleeps are the planted costs: keep the kernel's timer slack (50 µs by
   * default) out of them; streaming threads inherit it */
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  g_setenv ("GST_TRACERS", "gpuprof(report=off)", TRUE);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (selftime_suite (), "gpuprof-selftime",
      __FILE__);
}
