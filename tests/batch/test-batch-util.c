/* Stage utilisation is a share of time: never above 100 %.
 * A synced sink in a short run waits for the clock on its last batch after
 * the aggregator's last push; its span, compared with the times its pads
 * saw in the same run, holds that wait, and the wait is not work. */
#include "gpuprof-test-util.h"

#include <string.h>

typedef struct
{
  gint64 first_arrival;         /* first batch at the sink's pad, µs */
  gint64 last_handoff;          /* the sink rendering its last batch, µs */
  gint batches;
} SinkTruth;

static GstPadProbeReturn
arrival_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SinkTruth *truth = user_data;

  if (!truth->first_arrival)
    truth->first_arrival = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static void
handoff_cb (GstElement * sink, GstBuffer * buffer, GstPad * pad,
    gpointer user_data)
{
  SinkTruth *truth = user_data;

  truth->last_handoff = g_get_monotonic_time ();
  truth->batches++;
}

GST_START_TEST (test_synced_sink_util_at_most_100)
{
  GError *err = NULL;
  /* the mux stamps a batch with the running time when it forms it: the
   * sink's ts-offset puts every batch 100 ms ahead, so that it waits for
   * the clock, as it did with batches at their frames' times */
  GstElement *p = gst_parse_launch ("analyticsmux name=m batch-size=4 ! "
      "fakesink name=sink sync=true ts-offset=100000000 signal-handoffs=true "
      "videotestsrc num-buffers=10 ! "
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! m.sink_0",
      &err);
  GstElement *sink;
  GstPad *pad;
  SinkTruth truth = { 0, 0, 0 };
  GstStructure *s;
  gint64 start, wall_us;
  guint64 span, self;
  gdouble util;
  gchar *report;

  fail_unless (p != NULL, "%s", err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, arrival_cb, &truth,
      NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (handoff_cb), &truth);
  gst_object_unref (pad);
  gst_object_unref (sink);

  start = g_get_monotonic_time ();
  gpuprof_test_play_to_eos (p);
  wall_us = g_get_monotonic_time () - start;

  s = gpuprof_test_batch_stats (p, "sink");
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batches"),
      (guint64) truth.batches);
  span = gpuprof_test_get_u64 (s, "span_ns");
  self = gpuprof_test_get_u64 (s, "self_ns");
  util = gpuprof_test_get_double (s, "util");
  /* the span holds every batch the sink saw: from before the first one
   * reached its pad to after it rendered the last (1 ms for the clocks) */
  fail_unless (span + 1000000 >= (guint64) (truth.last_handoff -
          truth.first_arrival) * 1000, "span %" G_GUINT64_FORMAT " ns < "
      "first arrival to last render %" G_GINT64_FORMAT " µs", span,
      truth.last_handoff - truth.first_arrival);
  fail_unless (span <= (guint64) wall_us * 1000, "span %" G_GUINT64_FORMAT
      " ns longer than the run, %" G_GINT64_FORMAT " µs", span, wall_us);
  fail_unless (util <= 1.0, "util %.0f %% (self %" G_GUINT64_FORMAT
      " ns, span %" G_GUINT64_FORMAT " ns)", util * 100, self, span);
  /* not clamped: its own self time fits in its span */
  fail_unless (self <= span, "self %" G_GUINT64_FORMAT " ns > span %"
      G_GUINT64_FORMAT " ns", self, span);
  fail_unless (util > 0.99 * self / span && util < 1.01 * self / span,
      "util %.3f != self / span %.3f", util, (gdouble) self / span);
  /* it waits for the clock nearly all the time it has batches: waits that
   * are not work (clock_wait_ns), so it is not busy */
  {
    GstStructure *e = gpuprof_test_element_stats_of (p, "sink");
    guint64 clock = gpuprof_test_get_u64 (e, "clock_wait_ns");

    fail_unless (clock >= span / 2, "synced sink waited on the clock %"
        G_GUINT64_FORMAT " ns of a %" G_GUINT64_FORMAT " ns span", clock,
        span);
    fail_unless (util < 0.5, "synced sink busy %.0f %%: its clock waits "
        "counted as work", util * 100);
    gst_structure_free (e);
  }

  /* every stage of the table, the aggregator's own row included */
  report = gpuprof_test_live_report (p);
  {
    GRegex *re = g_regex_new ("^  \\S+ .* ([0-9.]+)$", G_REGEX_MULTILINE, 0,
        NULL);
    const gchar *table = strstr (report, "Batch stages");
    GMatchInfo *mi;
    guint rows = 0;

    fail_unless (table != NULL, "%s", gpuprof_test_said (report));
    table = strchr (table, '\n') + 1;
    table = strchr (table, '\n') + 1;   /* past the header */
    g_regex_match (re, table, 0, &mi);
    while (g_match_info_matches (mi)) {
      gchar *pct = g_match_info_fetch (mi, 1);
      fail_unless (g_ascii_strtod (pct, NULL) <= 100.0, "util %s %%:\n%s",
          pct, report);
      g_free (pct);
      rows++;
      g_match_info_next (mi, NULL);
      if (rows == 2)
        break;
    }
    fail_unless_equals_int (rows, 2);
    g_match_info_free (mi);
    g_regex_unref (re);
  }
  g_free (report);
  gst_structure_free (s);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
batch_util_suite (void)
{
  Suite *s = suite_create ("gpuprof-batch-util");
  TCase *tc = tcase_create ("util");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_synced_sink_util_at_most_100);
  return s;
}

GPUPROF_TEST_MAIN (batch_util, "gpuprof-batch-util",
    "gpuprof(report=off,cupti=off)");
