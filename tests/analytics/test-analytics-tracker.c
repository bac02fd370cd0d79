/* Tests of analyticstracker on hand-made detections: ids follow moving
 * objects, new ids for jumps and other classes, tracks expire, carried
 * tracks on batches without inference, cost grows with detections. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "analytics-meta.h"
#include "analytics-test-util.h"
#include "gpuprof-test-work.h"

typedef struct
{
  guint class_id;
  gint x, y, w, h;
} Box;

static GstHarness *
tracker_harness (gint width, gint height, guint max_age)
{
  GstHarness *h =
      analytics_test_rgba_harness ("analyticstracker", width, height);

  g_object_set (h->element, "max-age", max_age, NULL);
  return h;
}

/* Pushes one frame with the boxes as detections (or no meta when boxes is
 * NULL) and returns the track ids given, in box order. */
static GArray *
push_frame (GstHarness * h, gint width, gint height, const Box * boxes,
    guint n)
{
  GstBuffer *buf = gst_harness_create_buffer (h, (gsize) width * height * 4);
  AnalyticsDetectionMeta *meta;
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint i;

  gst_buffer_memset (buf, 0, 0x80, (gsize) width * height * 4);
  if (boxes) {
    meta = analytics_buffer_add_detection_meta (buf, TRUE);
    for (i = 0; i < n; i++) {
      AnalyticsObject o = { 0, };

      o.class_id = boxes[i].class_id;
      o.confidence = 0.9f;
      o.x = boxes[i].x;
      o.y = boxes[i].y;
      o.w = boxes[i].w;
      o.h = boxes[i].h;
      g_array_append_val (meta->objects, o);
    }
  }
  buf = gst_harness_push_and_pull (h, buf);
  fail_unless (buf != NULL);
  meta = analytics_buffer_get_detection_meta (buf);
  fail_unless (meta != NULL, "tracker left a frame without meta");
  fail_unless_equals_int (meta->inferred, boxes != NULL);
  for (i = 0; i < meta->objects->len; i++)
    g_array_append_val (ids,
        g_array_index (meta->objects, AnalyticsObject, i).track_id);
  gst_buffer_unref (buf);
  return ids;
}

#define ID(ids, i) g_array_index ((ids), guint64, (i))

GST_START_TEST (test_ids_follow_objects)
{
  GstHarness *h = tracker_harness (64, 64, 1);
  const Box f1[] = { {0, 10, 10, 20, 20}, {1, 40, 40, 10, 10} };
  const Box f2[] = { {0, 12, 11, 20, 20}, {1, 40, 40, 10, 10} };
  /* a jumps away; a class-0 box where b was is not b */
  const Box f3[] = { {0, 40, 0, 20, 20}, {1, 40, 40, 10, 10},
  {0, 40, 40, 10, 10}
  };
  const Box f6[] = { {0, 12, 11, 20, 20} };
  GArray *i1, *i2, *i3, *i4, *i6;

  i1 = push_frame (h, 64, 64, f1, 2);
  i2 = push_frame (h, 64, 64, f2, 2);
  i3 = push_frame (h, 64, 64, f3, 3);
  fail_unless (ID (i1, 0) != 0 && ID (i1, 1) != 0);
  fail_unless (ID (i1, 0) != ID (i1, 1));
  fail_unless_equals_uint64 (ID (i2, 0), ID (i1, 0));
  fail_unless_equals_uint64 (ID (i2, 1), ID (i1, 1));
  fail_unless (ID (i3, 0) != ID (i1, 0), "a jump kept its id");
  fail_unless_equals_uint64 (ID (i3, 1), ID (i1, 1));
  fail_unless (ID (i3, 2) != ID (i1, 1), "a class change kept its id");

  /* No inference: the tracks seen on the last frame are carried. */
  i4 = push_frame (h, 64, 64, NULL, 0);
  fail_unless_equals_int (i4->len, 3);
  g_array_unref (push_frame (h, 64, 64, NULL, 0));

  /* max-age=1: a's first track expired long ago. */
  i6 = push_frame (h, 64, 64, f6, 1);
  fail_unless (ID (i6, 0) != ID (i1, 0), "an expired track came back");

  g_array_unref (i1);
  g_array_unref (i2);
  g_array_unref (i3);
  g_array_unref (i4);
  g_array_unref (i6);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* CPU time of the tracker's processing thread ("tracker-proc", the one
 * of this process), ns: the first field of its /proc schedstat */
static gint64
tracker_thread_cpu_ns (void)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;
  gint64 ns = -1;

  fail_unless (dir != NULL);
  while (ns < 0 && (tid = g_dir_read_name (dir))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/comm", tid);
    gchar *comm = NULL, *stat = NULL;

    if (g_file_get_contents (path, &comm, NULL, NULL)
        && g_str_equal (g_strstrip (comm), "tracker-proc")) {
      g_free (path);
      path = g_strdup_printf ("/proc/self/task/%s/schedstat", tid);
      if (g_file_get_contents (path, &stat, NULL, NULL))
        ns = g_ascii_strtoll (stat, NULL, 10);
    }
    g_free (stat);
    g_free (comm);
    g_free (path);
  }
  g_dir_close (dir);
  fail_unless (ns >= 0, "no tracker-proc thread");
  return ns;
}

/* CPU time of the thread that tracks: immune to preemption on a loaded
 * machine. The tracking runs on the tracker's processing thread, not in
 * the chain. */
static gint64
time_frames (GstHarness * h, const Box * boxes, guint n, guint frames)
{
  gint64 start = tracker_thread_cpu_ns ();
  guint i;

  for (i = 0; i < frames; i++)
    g_array_unref (push_frame (h, 640, 360, boxes, n));
  return tracker_thread_cpu_ns () - start;
}

/* The tracker's time grows with the detections. */
GST_START_TEST (test_cost_grows_with_detections)
{
  GstHarness *h = tracker_harness (640, 360, 30);
  Box many[48];
  const Box one = { 0, 10, 10, 8, 8 };
  gint64 t_one, t_many;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (many); i++) {
    many[i].class_id = i % ANALYTICS_N_CLASSES;
    many[i].x = (i % 8) * 80;
    many[i].y = (i / 8) * 60;
    many[i].w = 80;
    many[i].h = 60;
  }
  /* Warm up (tracker-proc names itself once it runs), then time. */
  for (i = 0; i < 2; i++)
    g_array_unref (push_frame (h, 640, 360, &one, 1));
  t_one = time_frames (h, &one, 1, 20);
  t_many = time_frames (h, many, G_N_ELEMENTS (many), 20);
  GST_INFO ("1 detection: %" G_GINT64_FORMAT " ns, 48: %" G_GINT64_FORMAT
      " ns of CPU", t_one, t_many);
  /* under sanitizers/valgrind (GPUPROF_TEST_NO_TIMING) the fixed cost per
   * frame grows many times more than the per-detection cost */
  if (!g_getenv ("GPUPROF_TEST_NO_TIMING"))
    fail_unless (t_many > 3 * t_one, "1 detection %" G_GINT64_FORMAT
        " ns, 48 detections %" G_GINT64_FORMAT " ns of CPU", t_one, t_many);
  else
    fail_unless (t_one > 0 && t_many > 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
analyticstracker_suite (void)
{
  Suite *s = suite_create ("analyticstracker");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ids_follow_objects);
  tcase_add_test (tc, test_cost_grows_with_detections);
  return s;
}

GST_CHECK_MAIN (analyticstracker);
