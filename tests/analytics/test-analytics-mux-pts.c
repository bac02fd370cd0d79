/* analyticsmux stamps each batch, as the new nvstreammux, with the running
 * time of the clock when it forms the batch (wall clock since play start),
 * not with its frames' times; the frames keep theirs in the batch meta.
 * Truth from the same run: the running time read in a probe on the mux's
 * src pad. Its one task forms a batch after the push of the one before
 * returned, so batch k's PTS lies between the probe's readings for batch
 * k - 1 and batch k. */
#include <gst/check/gstcheck.h>

#include "analytics-meta.h"

typedef struct
{
  GstElement *mux;
  GArray *pts;                  /* GstClockTime per batch */
  GArray *rt;                   /* running time at the probe; NONE: no clock */
  GArray *frame_pts;            /* the first frame's PTS in the meta */
} Stamps;

static GstClockTime
running_time_now (GstElement * e)
{
  GstClock *clock = gst_element_get_clock (e);
  GstClockTime now, base = gst_element_get_base_time (e);

  /* the base time counts from PLAYING */
  if (!clock || GST_STATE (e) != GST_STATE_PLAYING) {
    if (clock)
      gst_object_unref (clock);
    return GST_CLOCK_TIME_NONE;
  }
  now = gst_clock_get_time (clock);
  gst_object_unref (clock);
  return now > base ? now - base : 0;
}

static GstPadProbeReturn
stamp_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stamps *st = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  AnalyticsBatchMeta *meta = analytics_buffer_get_batch_meta (buf);
  GstClockTime rt, pts = GST_BUFFER_PTS (buf);

  /* the first batch prerolls the sink; the others wait here until the mux
   * plays, so that every later batch is formed while it plays, however
   * late the state change comes on a loaded machine */
  if (st->pts->len > 0)
    while (GST_STATE (st->mux) != GST_STATE_PLAYING)
      g_usleep (1000);
  rt = running_time_now (st->mux);

  fail_unless (meta != NULL);
  g_array_append_val (st->pts, pts);
  g_array_append_val (st->rt, rt);
  g_array_append_val (st->frame_pts, meta->frames[0].pts);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_batch_pts_is_running_time)
{
  /* non-live sources run far ahead of their frames' times (30 fps stamps,
   * drawn in microseconds): the two clocks tell apart */
  GstElement *p = gst_parse_launch ("analyticsmux name=m batch-size=2 "
      "width=32 height=32 ! fakesink sync=false "
      "videotestsrc num-buffers=60 ! video/x-raw,width=32,height=32,"
      "framerate=30/1 ! m.sink_0 "
      "videotestsrc num-buffers=60 ! video/x-raw,width=32,height=32,"
      "framerate=30/1 ! m.sink_1", NULL);
  Stamps st = { 0 };
  GstPad *src;
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint i, checked = 0, frame_ahead = 0;

  st.mux = gst_bin_get_by_name (GST_BIN (p), "m");
  st.pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  st.rt = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  st.frame_pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  src = gst_element_get_static_pad (st.mux, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, stamp_probe, &st, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);

  fail_unless_equals_int (st.pts->len, 60);
  for (i = 1; i < st.pts->len; i++) {
    GstClockTime pts = g_array_index (st.pts, GstClockTime, i);
    GstClockTime before = g_array_index (st.rt, GstClockTime, i - 1);
    GstClockTime at = g_array_index (st.rt, GstClockTime, i);

    /* monotonic always */
    fail_unless (pts >= g_array_index (st.pts, GstClockTime, i - 1));
    if (!GST_CLOCK_TIME_IS_VALID (before) || !GST_CLOCK_TIME_IS_VALID (at))
      continue;                 /* not playing yet */
    fail_unless (pts >= before && pts <= at, "batch %u: PTS %" GST_TIME_FORMAT
        " not within the running times %" GST_TIME_FORMAT " .. %"
        GST_TIME_FORMAT, i, GST_TIME_ARGS (pts), GST_TIME_ARGS (before),
        GST_TIME_ARGS (at));
    checked++;
    if (g_array_index (st.frame_pts, GstClockTime, i) > at)
      frame_ahead++;
  }
  /* all but the prerolled first one and the one formed before its probe
   * waited for PLAYING */
  fail_unless (checked >= st.pts->len - 2, "only %u batches checked",
      checked);
  /* the frames' own times stay in the meta (and here run ahead) */
  fail_unless (frame_ahead > 0);

  g_array_unref (st.pts);
  g_array_unref (st.rt);
  g_array_unref (st.frame_pts);
  gst_object_unref (src);
  gst_object_unref (st.mux);
  gst_object_unref (bus);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
analyticsmux_pts_suite (void)
{
  Suite *s = suite_create ("analyticsmux-pts");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_batch_pts_is_running_time);
  return s;
}

GST_CHECK_MAIN (analyticsmux_pts);
