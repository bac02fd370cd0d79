/* Per-batch analysis on real pipelines of the analytics example elements:
 * batch formation, batches followed downstream, the verdict and its advice.
 * Counts are exact; times are only compared with each other, never with a
 * tight threshold, so a loaded 2-core machine passes too. */
#include "gpuprof-test-util.h"
#include "analytics-meta.h"
#include "gpuprof-test-async.h"

#include <math.h>
#include <string.h>

/* the line starting with 'prefix' + the pipeline's element 'name', after
 * the line starting with 'section' (NULL: anywhere) */
static gchar *
report_line (const gchar * report, const gchar * section,
    const gchar * prefix, GstElement * p, const gchar * name)
{
  gchar *path = gpuprof_test_path (p, name);
  gchar *needle = g_strdup_printf ("%s%s", prefix, path);
  const gchar *from = section ? strstr (report, section) : report;
  const gchar *at = from ? strstr (from, needle) : NULL;
  gchar *line = at ? g_strndup (at, strcspn (at, "\n")) : NULL;

  g_free (needle);
  g_free (path);
  return line;
}

/* n videotestsrc into m.sink_0 .. m.sink_<n-1> */
static gchar *
sources (guint n, guint frames, const gchar * extra, guint fps)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++)
    g_string_append_printf (s, " videotestsrc num-buffers=%u %s ! "
        "video/x-raw,format=RGBA,width=64,height=48,framerate=%u/1 ! "
        "m.sink_%u", frames, extra, fps, i);
  return g_string_free (s, FALSE);
}

static GstElement *
run_with_sources_fps (const gchar * head, guint n, guint frames,
    const gchar * extra, guint fps)
{
  gchar *srcs = sources (n, frames, extra, fps);
  gchar *desc = g_strdup_printf ("%s %s", head, srcs);
  GstElement *p = gpuprof_test_run (desc);

  g_free (desc);
  g_free (srcs);
  return p;
}

static GstElement *
run_with_sources (const gchar * head, guint n, guint frames,
    const gchar * extra)
{
  return run_with_sources_fps (head, n, frames, extra, 30);
}

GST_START_TEST (test_full_batches)
{
  GstElement *p = run_with_sources ("analyticsmux name=m batch-size=4 "
      "width=64 height=48 ! fakesink name=sink sync=false", 4, 100, "");
  GstStructure *s = gpuprof_test_batch_stats (p, "m");
  GstStructure *sink = gpuprof_test_batch_stats (p, "sink");
  gchar *report = gpuprof_test_live_report (p);
  gchar *line = report_line (report, "\nBatches (", "  ", p, "m ");

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batches"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frames"), 400);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frames_p99"), 4);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batch_size"), 4);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "full"), 100);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "timeout"), 0);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "eos"), 0);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "inputs"), 4);
  fail_unless (gpuprof_test_get_double (s, "frames_mean") == 4.0);
  fail_unless (gpuprof_test_get_double (s, "fill") == 1.0);
  /* frames are counted in arrival order, so on a loaded machine a source
   * running ahead lowers the figure: more than one input per batch, at most
   * four */
  fail_unless (gpuprof_test_get_double (s, "inputs_mean") > 1.0
      && gpuprof_test_get_double (s, "inputs_mean") <= 4.0,
      "inputs per batch %f", gpuprof_test_get_double (s, "inputs_mean"));
  fail_unless (gpuprof_test_get_u64 (s, "interval_ns") > 0);
  /* 30/1 caps: buffer durations give the inputs' frame interval */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frame_interval_ns"),
      33333333);
  /* every batch reached the sink */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (sink, "batches"), 100);
  fail_unless (gpuprof_test_get_u64 (s, "latency_p99_ns") > 0);
  /* the report's Batches section */
  fail_unless (strstr (report, "\nBatches (") != NULL, "%s",
      gpuprof_test_said (report));
  fail_unless (line != NULL, "%s", gpuprof_test_said (report));
  fail_unless (strstr (line, " 100 ") && strstr (line, " 4.00 ")
      && strstr (line, " 100.0 "), "%s", line);
  g_free (line);
  g_free (report);
  gst_structure_free (sink);
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* What the mux itself says of each batch it pushed (its meta): the truth
 * the tracer's batch statistics are compared with. */
typedef struct
{
  guint64 batches, frames;
  guint64 per_reason[3];
} MuxTruth;

static GstPadProbeReturn
mux_truth_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  MuxTruth *t = data;
  AnalyticsBatchMeta *meta =
      analytics_buffer_get_batch_meta (GST_PAD_PROBE_INFO_BUFFER (info));

  /* one streaming thread (the mux's task) writes; read after EOS */
  if (meta) {
    t->batches++;
    t->frames += meta->n_frames;
    t->per_reason[meta->reason]++;
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_timeout_pushes)
{
  /* 4 live inputs at 10 fps never fill a batch of 8: the 20 ms timeout
   * pushes each round of frames. (A stalled machine may let two rounds
   * meet in one full batch; the mux's meta says so, and the tracer must
   * say the same.) */
  gchar *srcs = sources (4, 5, "is-live=true", 10);
  gchar *desc = g_strdup_printf ("analyticsmux name=m batch-size=8 "
      "batched-push-timeout=20000 width=64 height=48 ! fakesink sync=false "
      "%s", srcs);
  GstElement *p = gpuprof_test_parse (desc);
  GstElement *m = gst_bin_get_by_name (GST_BIN (p), "m");
  GstPad *src = gst_element_get_static_pad (m, "src");
  MuxTruth truth = { 0, };
  GstStructure *s;
  guint64 batches;

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, mux_truth_probe, &truth,
      NULL);
  gpuprof_test_play_to_eos (p);
  s = gpuprof_test_batch_stats (p, "m");
  batches = gpuprof_test_get_u64 (s, "batches");

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frames"), 20);
  fail_unless_equals_uint64 (truth.frames, 20);
  fail_unless_equals_uint64 (batches, truth.batches);
  /* the scenario: most batches left by the timeout (under sanitizers or
   * valgrind, GPUPROF_TEST_NO_TIMING, stalled live sources let rounds meet
   * in full batches: the comparisons with the mux's record below stay) */
  if (gpuprof_test_timing ())
    fail_unless (truth.per_reason[ANALYTICS_BATCH_PUSH_TIMEOUT] * 2 > batches,
        "%" GST_PTR_FORMAT, s);
  /* the tracer tells full from timeout as the mux did; the last partial
   * batch, pushed at EOS, is the mux's EOS */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "full"),
      truth.per_reason[ANALYTICS_BATCH_PUSH_FULL]);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "timeout")
      + gpuprof_test_get_u64 (s, "eos"),
      truth.per_reason[ANALYTICS_BATCH_PUSH_TIMEOUT]
      + truth.per_reason[ANALYTICS_BATCH_PUSH_EOS]);
  /* frames over batches of 8 */
  fail_unless (fabs (gpuprof_test_get_double (s, "fill") -
          20.0 / (8.0 * batches)) < 1e-9, "%" GST_PTR_FORMAT, s);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frame_interval_ns"),
      100000000);
  gst_structure_free (s);
  gst_object_unref (src);
  gst_object_unref (m);
  g_free (desc);
  g_free (srcs);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static void
assert_stage (GstElement * p, const gchar * name, guint64 batches,
    guint64 frames)
{
  GstStructure *s = gpuprof_test_batch_stats (p, name);
  gchar *agg = gpuprof_test_path (p, "m");

  fail_unless_equals_string (gst_structure_get_string (s, "aggregator"), agg);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batches"), batches);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frames"), frames);
  fail_unless (gpuprof_test_get_u64 (s, "self_ns") > 0, "%s: %" GST_PTR_FORMAT,
      name, s);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "ns_per_frame"),
      gpuprof_test_get_u64 (s, "self_ns") / frames);
  g_free (agg);
  gst_structure_free (s);
}

GST_START_TEST (test_followed_downstream)
{
  /* in place (infer, tracker), across a queue's thread, and through an
   * element that makes a new buffer (videoconvert) */
  GstElement *p = run_with_sources ("analyticsmux name=m batch-size=4 "
      "width=64 height=48 ! analyticsinfer name=infer device=cpu size=16 "
      "layers=1 ! queue name=q ! analyticstracker name=trk ! videoconvert "
      "name=conv ! video/x-raw,format=BGRA ! fakesink name=sink sync=false",
      4, 100, "pattern=ball");
  GstStructure *m = gpuprof_test_batch_stats (p, "m");
  gchar *report = gpuprof_test_live_report (p);
  gchar *row = report_line (report, "\nBatch stages (", "  ", p,
      "infer ");

  assert_stage (p, "infer", 100, 400);
  assert_stage (p, "trk", 100, 400);
  assert_stage (p, "conv", 100, 400);
  assert_stage (p, "sink", 100, 400);
  fail_unless (gpuprof_test_get_u64 (m, "latency_p50_ns") > 0);
  /* the queue is no stage; the stage table lists infer */
  {
    GstStructure *q = NULL;
    gchar *qpath = gpuprof_test_path (p, "q");
    g_signal_emit_by_name (gpuprof_test_tracer (), "get-batch-stats", qpath,
        &q);
    fail_unless (q == NULL);
    g_free (qpath);
  }
  fail_unless (strstr (report, "\nBatch stages (") != NULL, "%s",
      gpuprof_test_said (report));
  fail_unless (row != NULL, "%s", gpuprof_test_said (report));
  g_free (row);
  g_free (report);
  gst_structure_free (m);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* An nvinfer-shaped element (gpuprofasync) with several batches inside at
 * once, each pushed as a new buffer by its output thread: every batch is
 * followed through it (arrival order, no PTS), and its stage's time per
 * batch is the CPU its worker measured per batch on its own clock */
GST_START_TEST (test_followed_through_async)
{
  GstElement *p = run_with_sources ("analyticsmux name=m batch-size=4 "
      "width=64 height=48 ! gpuprofasync name=a work-us=2000 spin=true "
      "max-in-flight=4 copy=true ! identity name=after ! "
      "fakesink name=sink sync=false", 4, 100, "pattern=ball");
  GpuprofTestAsyncTruth truth = gpuprof_test_async_truth (p, "a");
  GstStructure *a = gpuprof_test_batch_stats (p, "a");

  fail_unless_equals_uint64 (truth.pushed, 100);
  fail_unless (truth.max_in_flight_seen > 1);
  assert_stage (p, "a", 100, 400);
  assert_stage (p, "after", 100, 400);
  assert_stage (p, "sink", 100, 400);
  /* one call per batch: the stage's work on the batches is the CPU of all
   * its threads, as the element read it on their clocks; the planted spin
   * is most of it */
  fail_unless_equals_uint64 (truth.work.calls, 100);
  gpuprof_test_assert_truth ("async stage self", gpuprof_test_get_u64 (a,
          "self_ns"), gpuprof_test_async_cpu_ns (&truth), truth.work.calls);
  fail_unless (truth.work.cpu_ns * 10 >= gpuprof_test_async_cpu_ns (&truth)
      * 8, "spun %" G_GUINT64_FORMAT " ns of %" G_GUINT64_FORMAT " ns",
      truth.work.cpu_ns, gpuprof_test_async_cpu_ns (&truth));
  gst_structure_free (a);
  gpuprof_test_stop (p);
}

GST_END_TEST;

GST_START_TEST (test_verdict_names_slow_osd)
{
  /* the OSD draws every box 60 times: it takes most of each batch */
  GstElement *p = run_with_sources ("analyticsmux name=m batch-size=4 "
      "width=160 height=120 ! analyticsinfer device=cpu size=16 layers=1 "
      "threshold=0.3 ! analyticstracker appearance=false ! analyticsosd "
      "name=osd cost=60 ! fakesink name=sink sync=false", 4, 40,
      "pattern=ball");
  gchar *report = gpuprof_test_live_report (p);
  gchar *limiting = report_line (report, NULL, "limiting stage: ", p, "osd ");
  gchar *advice = report_line (report, NULL, "advice: ", p, "osd: ");
  GstStructure *osd = gpuprof_test_batch_stats (p, "osd");

  fail_unless (limiting != NULL, "%s", gpuprof_test_said (report));
  fail_unless (advice != NULL, "%s", gpuprof_test_said (report));
  fail_unless (gst_structure_has_field (osd, "limiting"));
  {
    gboolean lim = FALSE;
    gst_structure_get_boolean (osd, "limiting", &lim);
    fail_unless (lim);
  }
  /* mux batch-size = inputs: no advice for the mux */
  fail_if (report_line (report, NULL, "advice: ", p, "m: "), "%s",
      gpuprof_test_said (report));
  gst_structure_free (osd);
  g_free (advice);
  g_free (limiting);
  g_free (report);
  gpuprof_test_stop (p);
}

GST_END_TEST;

GST_START_TEST (test_advice_names_mux)
{
  /* batch-size 1 with 8 inputs: one push per frame */
  GstElement *p = run_with_sources ("analyticsmux name=m batch-size=1 "
      "width=64 height=48 ! analyticsinfer device=cpu size=16 layers=1 ! "
      "fakesink sync=false", 8, 20, "");
  gchar *report = gpuprof_test_live_report (p);
  gchar *advice = report_line (report, NULL, "advice: ", p, "m: ");
  GstStructure *s = gpuprof_test_batch_stats (p, "m");

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batches"), 160);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "inputs"), 8);
  fail_unless (advice != NULL, "%s", gpuprof_test_said (report));
  fail_unless (strstr (advice, "batch-size=8 batched-push-timeout=33333"),
      "%s", advice);
  gst_structure_free (s);
  g_free (advice);
  g_free (report);
  gpuprof_test_stop (p);
}

GST_END_TEST;

GST_START_TEST (test_compositor_batches)
{
  GstElement *p = gpuprof_test_run ("compositor name=comp ! "
      "fakesink name=sink sync=false "
      "videotestsrc num-buffers=20 ! video/x-raw,width=64,height=48,"
      "framerate=30/1 ! comp.sink_0 "
      "videotestsrc num-buffers=20 ! video/x-raw,width=64,height=48,"
      "framerate=30/1 ! comp.sink_1");
  GstStructure *s = gpuprof_test_batch_stats (p, "comp");
  gchar *report = gpuprof_test_live_report (p);
  gchar *line = report_line (report, "\nBatches (", "  ", p, "comp ");
  gchar **cells;

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batches"), 20);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "frames"), 40);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "inputs"), 2);
  /* no batch-size: fill and push reasons are not judged */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batch_size"), 0);
  fail_unless (gpuprof_test_get_double (s, "fill") == 0.0);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "full")
      + gpuprof_test_get_u64 (s, "timeout"), 0);
  fail_unless (line != NULL, "%s", gpuprof_test_said (report));
  /* path, batches, frames/batch, p99, batch-size "-", fill "-" */
  cells = g_strsplit_set (g_strstrip (line), " ", -1);
  {
    GPtrArray *nonempty = g_ptr_array_new ();
    for (guint i = 0; cells[i]; i++)
      if (*cells[i])
        g_ptr_array_add (nonempty, cells[i]);
    fail_unless (nonempty->len > 6);
    fail_unless_equals_string (g_ptr_array_index (nonempty, 1), "20");
    fail_unless_equals_string (g_ptr_array_index (nonempty, 4), "-");
    fail_unless_equals_string (g_ptr_array_index (nonempty, 5), "-");
    g_ptr_array_unref (nonempty);
  }
  g_strfreev (cells);
  g_free (line);
  g_free (report);
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
batch_suite (void)
{
  Suite *s = suite_create ("gpuprof-batch");
  TCase *tc = tcase_create ("batch");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_full_batches);
  tcase_add_test (tc, test_timeout_pushes);
  tcase_add_test (tc, test_followed_downstream);
  tcase_add_test (tc, test_followed_through_async);
  tcase_add_test (tc, test_verdict_names_slow_osd);
  tcase_add_test (tc, test_advice_names_mux);
  tcase_add_test (tc, test_compositor_batches);
  return s;
}

GPUPROF_TEST_MAIN (batch, "gpuprof-batch", "gpuprof(report=off,nvtx=off)");
