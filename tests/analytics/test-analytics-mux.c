/* Tests of analyticsmux: exact batch counts, layout and scaling, timeout
 * pushes on live inputs, EOS when all inputs end. */
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "analytics-test-util.h"
#include "analytics-meta.h"

#define SECOND (GST_SECOND)

typedef struct
{
  guint batches;
  guint frames;
  guint per_reason[3];
  guint64 next_batch_num;
  guint max_frames;
  guint min_frames;
  guint max_timeout_frames;
  GstClockTime min_timeout_wait;
  GstClockTime min_full_wait;
  guint64 frames_of_source[8];
  gboolean one_frame_per_source;        /* no source twice in any batch */
  gboolean in_order;            /* frame_num rises per source */
  gint caps_height;
  gint caps_batch_size;
} BatchStats;

static void
batch_stats_init (BatchStats * s)
{
  memset (s, 0, sizeof (*s));
  s->min_frames = G_MAXUINT;
  s->min_timeout_wait = GST_CLOCK_TIME_NONE;
  s->min_full_wait = GST_CLOCK_TIME_NONE;
  s->one_frame_per_source = TRUE;
  s->in_order = TRUE;
}

static GstPadProbeReturn
count_batches (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  BatchStats *s = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  AnalyticsBatchMeta *meta = analytics_buffer_get_batch_meta (buf);
  guint seen = 0, i;
  GstCaps *caps;

  fail_unless (meta != NULL, "batch without AnalyticsBatchMeta");
  fail_unless_equals_uint64 (meta->batch_num, s->next_batch_num);
  s->next_batch_num++;
  s->batches++;
  s->frames += meta->n_frames;
  s->per_reason[meta->reason]++;
  s->max_frames = MAX (s->max_frames, meta->n_frames);
  s->min_frames = MIN (s->min_frames, meta->n_frames);
  if (meta->reason == ANALYTICS_BATCH_PUSH_TIMEOUT) {
    s->min_timeout_wait = MIN (s->min_timeout_wait, meta->wait);
    s->max_timeout_frames = MAX (s->max_timeout_frames, meta->n_frames);
  }
  if (meta->reason == ANALYTICS_BATCH_PUSH_FULL)
    s->min_full_wait = MIN (s->min_full_wait, meta->wait);

  for (i = 0; i < meta->n_frames; i++) {
    guint src = meta->frames[i].source_id;

    fail_unless (src < G_N_ELEMENTS (s->frames_of_source));
    if (seen & (1u << src))
      s->one_frame_per_source = FALSE;
    seen |= 1u << src;
    if (meta->frames[i].frame_num != s->frames_of_source[src])
      s->in_order = FALSE;
    s->frames_of_source[src]++;
  }

  caps = gst_pad_get_current_caps (pad);
  if (caps) {
    GstStructure *st = gst_caps_get_structure (caps, 0);

    gst_structure_get_int (st, "height", &s->caps_height);
    gst_structure_get_int (st, "batch-size", &s->caps_batch_size);
    fail_unless_equals_int (gst_buffer_get_size (buf),
        meta->stride * meta->frame_height * s->caps_batch_size);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

/* Runs @desc to EOS, its analyticsmux named "m", counting the batches. */
static void
count_batches_to_eos (const gchar * desc, BatchStats * s)
{
  batch_stats_init (s);
  fail_unless_equals_int (analytics_test_run (desc, "m", count_batches, s,
          20 * SECOND), GST_MESSAGE_EOS);
}

/* analyticsmux with @mux_props, scaling to 32x24, fed by 4 videotestsrc
 * with @src_props, to EOS */
static void
run_mux (const gchar * mux_props, const gchar * src_props, BatchStats * s)
{
  gchar *srcs = analytics_test_sources (4, src_props);
  gchar *desc = g_strdup_printf ("analyticsmux name=m %s width=32 height=24 "
      "! fakesink %s", mux_props, srcs);

  count_batches_to_eos (desc, s);
  g_free (desc);
  g_free (srcs);
}

GST_START_TEST (test_full_batches)
{
  BatchStats s;

  run_mux ("batch-size=4", "num-buffers=100 ! video/x-raw,width=64,height=48",
      &s);
  fail_unless_equals_int (s.batches, 100);
  fail_unless_equals_int (s.frames, 400);
  fail_unless_equals_int (s.per_reason[ANALYTICS_BATCH_PUSH_FULL], 100);
  fail_unless_equals_int (s.min_frames, 4);
  fail_unless (s.one_frame_per_source);
  fail_unless (s.in_order);
  fail_unless_equals_int (s.caps_batch_size, 4);
  fail_unless_equals_int (s.caps_height, 24 * 4);
}

GST_END_TEST;

/* batch-size 2 on 4 inputs: batches of two frames, all inputs served. (Which
 * two depends on which non-live input is ahead; one input may fill a batch
 * alone once the others ended.) */
GST_START_TEST (test_batch_smaller_than_inputs)
{
  BatchStats s;
  guint i;

  run_mux ("batch-size=2", "num-buffers=30 ! video/x-raw,width=64,height=48",
      &s);
  fail_unless_equals_int (s.batches, 60);
  fail_unless_equals_int (s.per_reason[ANALYTICS_BATCH_PUSH_FULL], 60);
  fail_unless (s.in_order);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (s.frames_of_source[i], 30);
}

GST_END_TEST;

/* Every frame is scaled into its own rows: a solid colour per input, in
 * different sizes and formats, must come out in the rows of its frame. */
typedef struct
{
  guint batches;
  guint checked;
} LayoutCheck;

static const guint8 pattern_rgb[3][3] = {
  {255, 0, 0}, {0, 255, 0}, {0, 0, 255}       /* red, green, blue */
};

static GstPadProbeReturn
check_layout (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  LayoutCheck *c = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  AnalyticsBatchMeta *meta = analytics_buffer_get_batch_meta (buf);
  GstMapInfo map;
  guint i, y, x;

  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->frame_width, 40);
  fail_unless_equals_int (meta->frame_height, 20);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  for (i = 0; i < meta->n_frames; i++) {
    const guint8 *want = pattern_rgb[meta->frames[i].source_id];

    for (y = 0; y < meta->frame_height; y += 7) {
      for (x = 0; x < meta->frame_width; x += 9) {
        const guint8 *p = map.data + (gsize) (i * meta->frame_height + y) *
            meta->stride + x * 4;

        /* I420 -> RGBA rounds a little. */
        fail_unless (ABS (p[0] - want[0]) < 8 && ABS (p[1] - want[1]) < 8 &&
            ABS (p[2] - want[2]) < 8, "frame %u of source %u at %u,%u: "
            "%u %u %u", i, meta->frames[i].source_id, x, y, p[0], p[1], p[2]);
        c->checked++;
      }
    }
  }
  gst_buffer_unmap (buf, &map);
  c->batches++;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_scaling_and_layout)
{
  const gchar *desc = "analyticsmux name=m batch-size=3 width=40 height=20 "
      "! fakesink "
      "videotestsrc pattern=red num-buffers=5 "
      "! video/x-raw,format=I420,width=320,height=240 ! m.sink_0 "
      "videotestsrc pattern=green num-buffers=5 "
      "! video/x-raw,format=RGBA,width=40,height=20 ! m.sink_1 "
      "videotestsrc pattern=blue num-buffers=5 "
      "! video/x-raw,format=BGRx,width=17,height=9 ! m.sink_2";
  LayoutCheck c = { 0, };

  fail_unless_equals_int (analytics_test_run (desc, "m", check_layout, &c,
          20 * SECOND), GST_MESSAGE_EOS);
  fail_unless_equals_int (c.batches, 5);
  fail_unless (c.checked > 0);
}

GST_END_TEST;

/* Live inputs at 10 fps, batch-size 8 > 4 inputs, 20 ms timeout: every
 * batch waits 20 ms after its first frame and leaves with the 4 frames that
 * arrived together, pushed by the timeout. A loaded machine may stall the
 * mux's thread past the next round (100 ms): that batch then fills up, but
 * only after it waited longer than the timeout, as the element's own
 * record of the wait shows. */
GST_START_TEST (test_timeout_live)
{
  BatchStats s;

  run_mux ("batch-size=8 batched-push-timeout=20000", "is-live=true "
      "num-buffers=6 ! video/x-raw,width=64,height=48,framerate=10/1", &s);
  fail_unless_equals_int (s.frames, 24);
  fail_unless (s.per_reason[ANALYTICS_BATCH_PUSH_TIMEOUT] >= 4,
      "only %u of %u batches pushed by timeout",
      s.per_reason[ANALYTICS_BATCH_PUSH_TIMEOUT], s.batches);
  fail_unless (s.per_reason[ANALYTICS_BATCH_PUSH_FULL] <= 1,
      "%u full batches", s.per_reason[ANALYTICS_BATCH_PUSH_FULL]);
  fail_unless (s.per_reason[ANALYTICS_BATCH_PUSH_FULL] == 0
      || s.min_full_wait >= 20 * GST_MSECOND,
      "a full batch left after %" GST_TIME_FORMAT ", before the timeout",
      GST_TIME_ARGS (s.min_full_wait));
  fail_unless (s.max_timeout_frames < 8);
  fail_unless (s.min_timeout_wait >= 20 * GST_MSECOND,
      "timeout batch left after %" GST_TIME_FORMAT,
      GST_TIME_ARGS (s.min_timeout_wait));
  fail_unless_equals_int (s.caps_batch_size, 8);
}

GST_END_TEST;

/* Without a timeout the same live inputs fill batches of 8. */
GST_START_TEST (test_no_timeout_live)
{
  BatchStats s;

  run_mux ("batch-size=8", "is-live=true num-buffers=8 "
      "! video/x-raw,width=64,height=48,framerate=30/1", &s);
  fail_unless_equals_int (s.batches, 4);
  fail_unless_equals_int (s.per_reason[ANALYTICS_BATCH_PUSH_FULL], 4);
  fail_unless_equals_int (s.per_reason[ANALYTICS_BATCH_PUSH_TIMEOUT], 0);
}

GST_END_TEST;

/* Inputs ending at different times: EOS comes once all of them ended, after
 * the last partial batch, and no frame is lost. */
GST_START_TEST (test_eos_all_inputs)
{
  const gchar *desc = "analyticsmux name=m batch-size=3 width=32 height=24 "
      "! fakesink "
      "videotestsrc num-buffers=7 ! video/x-raw,width=64,height=48 ! m.sink_0 "
      "videotestsrc num-buffers=13 ! video/x-raw,width=64,height=48 ! m.sink_1 "
      "videotestsrc num-buffers=20 ! video/x-raw,width=64,height=48 ! m.sink_2";
  BatchStats s;

  count_batches_to_eos (desc, &s);
  fail_unless_equals_int (s.frames, 40);
  fail_unless_equals_int (s.frames_of_source[0], 7);
  fail_unless_equals_int (s.frames_of_source[1], 13);
  fail_unless_equals_int (s.frames_of_source[2], 20);
  /* 40 = 13 full batches + 1 frame pushed at EOS. */
  fail_unless_equals_int (s.per_reason[ANALYTICS_BATCH_PUSH_FULL], 13);
  fail_unless_equals_int (s.per_reason[ANALYTICS_BATCH_PUSH_EOS], 1);
  fail_unless (s.in_order);
}

GST_END_TEST;

GST_START_TEST (test_request_release)
{
  GstElement *mux = gst_element_factory_make ("analyticsmux", NULL);
  GstPad *a, *b, *c;

  fail_unless (mux != NULL);
  a = gst_element_request_pad_simple (mux, "sink_%u");
  b = gst_element_request_pad_simple (mux, "sink_5");
  c = gst_element_request_pad_simple (mux, "sink_%u");
  fail_unless_equals_string (GST_PAD_NAME (a), "sink_0");
  fail_unless_equals_string (GST_PAD_NAME (b), "sink_5");
  fail_unless_equals_string (GST_PAD_NAME (c), "sink_6");
  gst_element_release_request_pad (mux, b);
  gst_element_release_request_pad (mux, a);
  gst_element_release_request_pad (mux, c);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
  fail_unless_equals_int (mux->numsinkpads, 0);
  gst_object_unref (mux);
}

GST_END_TEST;

static Suite *
analyticsmux_suite (void)
{
  Suite *s = suite_create ("analyticsmux");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_full_batches);
  tcase_add_test (tc, test_batch_smaller_than_inputs);
  tcase_add_test (tc, test_scaling_and_layout);
  tcase_add_test (tc, test_timeout_live);
  tcase_add_test (tc, test_no_timeout_live);
  tcase_add_test (tc, test_eos_all_inputs);
  tcase_add_test (tc, test_request_release);
  return s;
}

GST_CHECK_MAIN (analyticsmux);
