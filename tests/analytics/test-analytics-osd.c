/* Tests of analyticsosd: it draws the objects of the detection meta, and
 * its cost property sets how long that takes. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "analytics-meta.h"
#include "analytics-test-util.h"
#include "gpuprof-test-work.h"

static GstHarness *
osd_harness (gint width, gint height, guint cost)
{
  GstHarness *h = analytics_test_rgba_harness ("analyticsosd", width, height);

  g_object_set (h->element, "cost", cost, NULL);
  return h;
}

static GstBuffer *
gray_frame (GstHarness * h, gint width, gint height, guint n_objects,
    gint box_w, gint box_h)
{
  GstBuffer *buf = gst_harness_create_buffer (h, (gsize) width * height * 4);
  AnalyticsDetectionMeta *meta =
      analytics_buffer_add_detection_meta (buf, TRUE);
  guint i;

  gst_buffer_memset (buf, 0, 128, (gsize) width * height * 4);
  for (i = 0; i < n_objects; i++) {
    AnalyticsObject o = { 0, };

    o.class_id = 0;
    o.track_id = 7;
    o.x = 10 + (i * 37) % MAX (1, width - box_w - 10);
    o.y = 10 + (i * 23) % MAX (1, height - box_h - 10);
    o.w = box_w;
    o.h = box_h;
    g_array_append_val (meta->objects, o);
  }
  return buf;
}

static void
pixel (GstBuffer * buf, gint width, gint x, gint y, guint8 rgb[3])
{
  gst_buffer_extract (buf, ((gsize) y * width + x) * 4, rgb, 3);
}

/* One box of class 0 (colour 255,64,64) at 10,10 20x16 on grey 128. */
GST_START_TEST (test_draws_boxes)
{
  GstHarness *h1 = osd_harness (64, 48, 1), *h2 = osd_harness (64, 48, 2);
  GstBuffer *b1, *b2;
  guint8 p[3];

  b1 = gst_harness_push_and_pull (h1, gray_frame (h1, 64, 48, 1, 20, 16));
  b2 = gst_harness_push_and_pull (h2, gray_frame (h2, 64, 48, 1, 20, 16));

  pixel (b1, 64, 10, 10, p);    /* border */
  fail_unless (p[0] == 255 && p[1] == 64 && p[2] == 64);
  pixel (b1, 64, 25, 20, p);    /* fill: grey blended with a quarter red */
  fail_unless_equals_int (p[0], (128 * 192 + 255 * 64) >> 8);
  fail_unless_equals_int (p[1], (128 * 192 + 64 * 64) >> 8);
  pixel (b1, 64, 50, 40, p);    /* outside */
  fail_unless (p[0] == 128 && p[1] == 128 && p[2] == 128);
  pixel (b1, 64, 13, 13, p);    /* top-left pixel of the digit 7 */
  fail_unless (p[0] == 255 && p[1] == 64);

  /* cost=2 draws twice: the fill blends twice. */
  pixel (b2, 64, 25, 20, p);
  fail_unless_equals_int (p[0], ((((128 * 192 + 255 * 64) >> 8) * 192) +
          255 * 64) >> 8);

  gst_buffer_unref (b1);
  gst_buffer_unref (b2);
  gst_harness_teardown (h1);
  gst_harness_teardown (h2);
}

GST_END_TEST;

/* thread CPU time, ns: the OSD runs in the pushing thread, and CPU time
 * does not grow when a loaded machine preempts it */
static gint64
time_osd (guint cost)
{
  GstHarness *h = osd_harness (640, 360, cost);
  gint64 start = 0;
  guint i;

  for (i = 0; i < 12; i++) {
    GstBuffer *buf = gray_frame (h, 640, 360, 30, 100, 60);

    if (i == 2)                 /* after warm-up */
      start = gpuprof_test_thread_cpu_ns ();
    gst_buffer_unref (gst_harness_push_and_pull (h, buf));
  }
  start = gpuprof_test_thread_cpu_ns () - start;
  gst_harness_teardown (h);
  return start;
}

/* The cost property plants a slow OSD: its time grows with it. */
GST_START_TEST (test_cost_sets_time)
{
  gint64 t1 = time_osd (1), t40 = time_osd (40);

  GST_INFO ("cost=1: %" G_GINT64_FORMAT " ns, cost=40: %" G_GINT64_FORMAT
      " ns of CPU", t1, t40);
  fail_unless (t40 > 8 * t1, "cost=1 %" G_GINT64_FORMAT " ns, cost=40 %"
      G_GINT64_FORMAT " ns of CPU", t1, t40);
}

GST_END_TEST;

/* Buffers without objects pass untouched. */
GST_START_TEST (test_no_objects)
{
  GstHarness *h = osd_harness (64, 48, 5);
  GstBuffer *buf = gray_frame (h, 64, 48, 0, 0, 0);
  guint8 p[3];

  buf = gst_harness_push_and_pull (h, buf);
  pixel (buf, 64, 10, 10, p);
  fail_unless (p[0] == 128 && p[1] == 128 && p[2] == 128);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
analyticsosd_suite (void)
{
  Suite *s = suite_create ("analyticsosd");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_draws_boxes);
  tcase_add_test (tc, test_cost_sets_time);
  tcase_add_test (tc, test_no_objects);
  return s;
}

GST_CHECK_MAIN (analyticsosd);
