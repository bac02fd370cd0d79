/* Tests of analyticsinfer: detections as meta on the CPU path (GPU-less
 * machines), the tracker reading them, interval, precision, launch size. */
#include <string.h>

#include <gst/check/gstcheck.h>

#include "analytics-test-util.h"
#include "analytics-meta.h"

#define SOURCES(n, frames) \
  analytics_test_sources ((n), "pattern=smpte100 num-buffers=" #frames \
      " ! video/x-raw,width=160,height=96")

typedef struct
{
  guint batches;
  guint inferred;
  guint objects;
  gint active_device;
  GArray *first;                /* AnalyticsObject of the first batch */
  GArray *ids_first[4];         /* track ids per source, first batch */
  gboolean ids_stable;          /* same ids per source in every batch */
  gboolean consistent;          /* frame / source / box agree with the batch */
  guint max_age_seen;
} InferStats;

static void
infer_stats_init (InferStats * s)
{
  guint i;

  memset (s, 0, sizeof (*s));
  s->first = g_array_new (FALSE, FALSE, sizeof (AnalyticsObject));
  for (i = 0; i < G_N_ELEMENTS (s->ids_first); i++)
    s->ids_first[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->ids_stable = TRUE;
  s->consistent = TRUE;
  s->active_device = -1;
}

static void
infer_stats_clear (InferStats * s)
{
  guint i;

  g_array_unref (s->first);
  for (i = 0; i < G_N_ELEMENTS (s->ids_first); i++)
    g_array_unref (s->ids_first[i]);
}

static gint
compare_ids (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : (x > y ? 1 : 0);
}

/* As sets: the tracker may list carried objects in another order. */
static gboolean
ids_equal (GArray * a, GArray * b)
{
  g_array_sort (a, compare_ids);
  g_array_sort (b, compare_ids);
  /* an empty GArray's data may be NULL: no memcmp on it */
  return a->len == b->len && (a->len == 0 ||
      memcmp (a->data, b->data, a->len * sizeof (guint64)) == 0);
}

static GstPadProbeReturn
collect_objects (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  InferStats *s = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  AnalyticsBatchMeta *batch = analytics_buffer_get_batch_meta (buf);
  AnalyticsDetectionMeta *det = analytics_buffer_get_detection_meta (buf);
  GstObject *parent = gst_pad_get_parent (pad);
  GArray *ids[4];
  guint i;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (parent),
          "active-device"))
    g_object_get (parent, "active-device", &s->active_device, NULL);
  gst_object_unref (parent);

  fail_unless (batch != NULL);
  s->batches++;
  if (!det)
    return GST_PAD_PROBE_OK;
  if (det->inferred)
    s->inferred++;
  s->objects += det->objects->len;

  for (i = 0; i < 4; i++)
    ids[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (i = 0; i < det->objects->len; i++) {
    AnalyticsObject *o = &g_array_index (det->objects, AnalyticsObject, i);

    if (o->frame >= batch->n_frames ||
        o->source_id != batch->frames[o->frame].source_id ||
        o->x < 0 || o->y < 0 || o->w <= 0 || o->h <= 0 ||
        o->x + o->w > (gint) batch->frame_width ||
        o->y + o->h > (gint) batch->frame_height ||
        o->class_id >= ANALYTICS_N_CLASSES ||
        (i > 0 && o->frame < (o - 1)->frame))
      s->consistent = FALSE;
    if (o->source_id < 4 && o->track_id)
      g_array_append_val (ids[o->source_id], o->track_id);
    s->max_age_seen = MAX (s->max_age_seen, o->age);
  }
  if (s->batches == 1)
    g_array_append_vals (s->first, det->objects->data, det->objects->len);
  for (i = 0; i < 4; i++) {
    if (s->batches == 1)
      g_array_append_vals (s->ids_first[i], ids[i]->data, ids[i]->len);
    else if (!ids_equal (ids[i], s->ids_first[i]))
      s->ids_stable = FALSE;
    g_array_unref (ids[i]);
  }
  return GST_PAD_PROBE_OK;
}

static void
run_infer (const gchar * mux_props, const gchar * infer_props,
    const gchar * tail, const gchar * probe_at, guint n_sources,
    gchar * sources, InferStats * s)
{
  gchar *desc = g_strdup_printf ("analyticsmux name=m width=160 height=96 %s "
      "! analyticsinfer name=infer %s %s ! fakesink %s", mux_props,
      infer_props, tail, sources);

  fail_unless_equals_int (analytics_test_run (desc, probe_at,
          collect_objects, s, 60 * GST_SECOND), GST_MESSAGE_EOS);
  g_free (desc);
  g_free (sources);
}

static gboolean
same_objects (GArray * a, GArray * b)
{
  guint i;

  if (a->len != b->len)
    return FALSE;
  for (i = 0; i < a->len; i++) {
    AnalyticsObject *x = &g_array_index (a, AnalyticsObject, i);
    AnalyticsObject *y = &g_array_index (b, AnalyticsObject, i);

    if (x->frame != y->frame || x->class_id != y->class_id || x->x != y->x ||
        x->y != y->y || x->w != y->w || x->h != y->h)
      return FALSE;
  }
  return TRUE;
}

/* device=cpu: every batch gets detections; the tracker then gives them ids,
 * the same ones in every batch since the pattern does not move. */
GST_START_TEST (test_cpu_detections_tracked)
{
  InferStats s;

  infer_stats_init (&s);
  run_infer ("batch-size=2", "device=cpu batch-size=2",
      "! analyticstracker name=tracker", "tracker", 2, SOURCES (2, 10), &s);
  fail_unless_equals_int (s.batches, 10);
  fail_unless_equals_int (s.inferred, 10);
  fail_unless (s.objects >= 10, "only %u objects", s.objects);
  fail_unless (s.consistent);
  fail_unless (s.ids_first[0]->len > 0, "tracker gave no ids");
  fail_unless (s.ids_first[1]->len > 0, "tracker gave no ids");
  fail_unless (s.ids_stable, "track ids changed on a still picture");
  fail_unless_equals_int (s.max_age_seen, 0);
  infer_stats_clear (&s);
}

GST_END_TEST;

/* Without the tracker the objects have no ids: the ids above come from it. */
GST_START_TEST (test_untracked_without_tracker)
{
  InferStats s;

  infer_stats_init (&s);
  run_infer ("batch-size=2", "device=cpu", "", "infer", 2, SOURCES (2, 3), &s);
  fail_unless (s.objects > 0);
  fail_unless_equals_int (s.ids_first[0]->len, 0);
  fail_unless_equals_int (s.active_device, 1 /* cpu */ );
  infer_stats_clear (&s);
}

GST_END_TEST;

/* device=auto runs where CUDA finds no GPU, on the CPU, with the same
 * results; on a GPU machine the GPU must find the same objects. */
GST_START_TEST (test_auto_device_same_math)
{
  InferStats cpu, autodev;

  infer_stats_init (&cpu);
  infer_stats_init (&autodev);
  run_infer ("batch-size=2", "device=cpu batch-size=2", "", "infer", 2,
      SOURCES (2, 2), &cpu);
  run_infer ("batch-size=2", "device=auto batch-size=2", "", "infer", 2,
      SOURCES (2, 2), &autodev);
  fail_unless (autodev.active_device == 1 || autodev.active_device == 2);
  GST_INFO ("device=auto ran on the %s",
      autodev.active_device == 2 ? "GPU" : "CPU");
  fail_unless (cpu.first->len > 0);
  fail_unless (same_objects (cpu.first, autodev.first),
      "%s found %u objects, the CPU %u",
      autodev.active_device == 2 ? "GPU" : "CPU", autodev.first->len,
      cpu.first->len);
  infer_stats_clear (&cpu);
  infer_stats_clear (&autodev);
}

GST_END_TEST;

/* The launch size changes the cost, not the result. */
GST_START_TEST (test_launch_size_same_result)
{
  InferStats one, four;

  infer_stats_init (&one);
  infer_stats_init (&four);
  run_infer ("batch-size=4", "device=cpu batch-size=1", "", "infer", 4,
      SOURCES (4, 2), &one);
  run_infer ("batch-size=4", "device=cpu batch-size=4", "", "infer", 4,
      SOURCES (4, 2), &four);
  fail_unless (same_objects (one.first, four.first));
  infer_stats_clear (&one);
  infer_stats_clear (&four);
}

GST_END_TEST;

/* interval=2: batches 0, 3, 6, 9 are inferred; the tracker carries its
 * tracks, with their ids and a growing age, over the others. */
GST_START_TEST (test_interval)
{
  InferStats s;

  infer_stats_init (&s);
  run_infer ("batch-size=2", "device=cpu interval=2",
      "! analyticstracker name=tracker", "tracker", 2, SOURCES (2, 10), &s);
  fail_unless_equals_int (s.batches, 10);
  fail_unless_equals_int (s.inferred, 4);
  fail_unless (s.ids_stable, "carried tracks lost their ids");
  fail_unless_equals_int (s.max_age_seen, 2);
  infer_stats_clear (&s);
}

GST_END_TEST;

/* fp16 stores weights and activations in half precision: close to fp32. */
GST_START_TEST (test_fp16)
{
  InferStats f32, f16;

  infer_stats_init (&f32);
  infer_stats_init (&f16);
  run_infer ("", "device=cpu precision=fp32", "", "infer", 1, SOURCES (1, 1),
      &f32);
  run_infer ("", "device=cpu precision=fp16", "", "infer", 1, SOURCES (1, 1),
      &f16);
  fail_unless (f16.objects > 0);
  fail_unless (ABS ((gint) f16.objects - (gint) f32.objects) <=
      (gint) f32.objects / 5 + 1, "fp16 %u objects, fp32 %u", f16.objects,
      f32.objects);
  infer_stats_clear (&f32);
  infer_stats_clear (&f16);
}

GST_END_TEST;

static Suite *
analyticsinfer_suite (void)
{
  Suite *s = suite_create ("analyticsinfer");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cpu_detections_tracked);
  tcase_add_test (tc, test_untracked_without_tracker);
  tcase_add_test (tc, test_auto_device_same_math);
  tcase_add_test (tc, test_launch_size_same_result);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_fp16);
  return s;
}

GST_CHECK_MAIN (analyticsinfer);
