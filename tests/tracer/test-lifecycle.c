/* Which pipeline an element belongs to, and how long its records live: an
 * element that touched a pad before it had a parent is reported in the
 * pipeline it joined, an element moved to another pipeline is reported in
 * the new one, and the records of pipelines created, run and destroyed do
 * not pile up. Counts are compared with pad probes on the same run. */
#include "gpuprof-test-util.h"

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
  return GST_PAD_PROBE_OK;
}

/* counts the buffers that reach element's sink pad */
static void
count_into (GstElement * element, gint * counter)
{
  GstPad *pad = gst_element_get_static_pad (element, "sink");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, counter,
      NULL);
  gst_object_unref (pad);
}

static GstStructure *
element_stats_or_null (const gchar * path)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-element-stats", path,
      &s);
  return s;
}

static GstStructure *
records (void)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-records", &s);
  fail_unless (s != NULL, "no get-records");
  return s;
}

static guint
records_field (const gchar * field)
{
  GstStructure *s = records ();
  guint v = 0;

  fail_unless (gst_structure_get_uint (s, field, &v));
  gst_structure_free (s);
  return v;
}

static GstElement *
make (const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);

  fail_unless (e != NULL, "no %s", factory);
  return e;
}

GST_START_TEST (test_pad_touched_before_parent)
{
  GstElement *p = gst_pipeline_new ("lc");
  GstElement *src = make ("videotestsrc", "src");
  GstElement *cf = make ("capsfilter", "cf");
  GstElement *sink = make ("fakesink", "sink");
  GstCaps *caps = gst_caps_from_string ("video/x-raw");
  GstStructure *s;
  gint truth = 0;
  gchar *text;

  /* setting caps sends an event on its pads: seen before it has a parent */
  g_object_set (cf, "caps", caps, NULL);
  gst_caps_unref (caps);
  g_object_set (src, "num-buffers", 7, NULL);
  gst_bin_add_many (GST_BIN (p), src, cf, sink, NULL);
  fail_unless (gst_element_link_many (src, cf, sink, NULL));
  count_into (sink, &truth);
  gpuprof_test_play_to_eos (p);

  s = gpuprof_test_element_stats ("lc/cf");
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers_in"),
      (guint64) g_atomic_int_get (&truth));
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers_out"),
      (guint64) g_atomic_int_get (&truth));
  gst_structure_free (s);
  fail_unless (element_stats_or_null ("cf") == NULL,
      "the element is a pipeline of its own");

  gst_element_set_state (p, GST_STATE_NULL);
  text = gpuprof_test_last_report ();
  fail_unless (text && strstr (text, "lc/cf"), "cf not in the report:\n%s",
      text);
  g_free (text);
  /* the exit report: nothing left unreported, so no second report */
  gst_object_unref (p);
  fail_unless_equals_int (records_field ("pipelines"), 0);
}

GST_END_TEST;

/* source ! element ! sink in a new pipeline 'name' */
static GstElement *
pipeline_around (const gchar * name, GstElement * middle, gint * truth)
{
  GstElement *p = gst_pipeline_new (name);
  GstElement *src = make ("fakesrc", NULL);
  GstElement *sink = make ("fakesink", NULL);

  g_object_set (src, "num-buffers", 9, NULL);
  gst_bin_add_many (GST_BIN (p), src, middle, sink, NULL);
  fail_unless (gst_element_link_many (src, middle, sink, NULL));
  count_into (sink, truth);
  return p;
}

GST_START_TEST (test_element_moved_to_another_pipeline)
{
  GstElement *mv = make ("identity", "mv");
  GstElement *a, *b;
  GstStructure *s;
  gint truth_a = 0, truth_b = 0;
  gchar *text;

  gst_object_ref (mv);
  a = pipeline_around ("pa", mv, &truth_a);
  gpuprof_test_play_to_eos (a);
  gst_element_set_state (a, GST_STATE_NULL);
  gst_bin_remove (GST_BIN (a), mv);
  gst_object_unref (a);

  b = pipeline_around ("pb", mv, &truth_b);
  gst_object_unref (mv);
  gpuprof_test_play_to_eos (b);
  s = gpuprof_test_element_stats ("pb/mv");
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "buffers_in"),
      (guint64) g_atomic_int_get (&truth_b));
  gst_structure_free (s);
  fail_unless (element_stats_or_null ("pa/mv") == NULL,
      "the moved element is still counted in its old pipeline");

  gst_element_set_state (b, GST_STATE_NULL);
  text = gpuprof_test_last_report ();
  fail_unless (text && strstr (text, "=== gpuprof report: pb ")
      && strstr (text, "pb/mv"), "mv not in pb's report:\n%s", text);
  g_free (text);
  gst_object_unref (b);
}

GST_END_TEST;

/* Pipelines created, run and destroyed one after another, as a service
 * does per request: the records kept stay those of about one pipeline. */
GST_START_TEST (test_records_of_destroyed_pipelines_freed)
{
  const gchar *desc = "fakesrc num-buffers=20 ! tee name=t "
      "t. ! queue ! identity ! fakesink  t. ! queue ! fakesink";
  guint i, elements = 0, pads = 0, first_elements = 0, first_pads = 0;

  for (i = 0; i < 25; i++) {
    GstElement *p = gpuprof_test_run (desc);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    elements = records_field ("elements");
    pads = records_field ("pads");
    if (i == 0) {
      first_elements = elements;
      first_pads = pads;
    }
    /* one pipeline has 7 elements: at most the last one's are kept */
    fail_unless (elements <= 8 && elements <= MAX (first_elements, 8),
        "after %u pipelines %u element records are kept", i + 1, elements);
    fail_unless (pads <= MAX (first_pads, 20),
        "after %u pipelines %u pad records are kept", i + 1, pads);
    fail_unless (records_field ("pipelines") <= 1);
  }
}

GST_END_TEST;

/* What an element removed and destroyed while its pipeline plays measured
 * is still in the pipeline's report: folded into the removed table, which
 * names it (docs/tracer.md#removed). */
GST_START_TEST (test_destroyed_element_kept_until_reported)
{
  GstElement *p = gst_pipeline_new ("keep");
  GstElement *src = make ("fakesrc", "src");
  GstElement *gone = make ("fakesink", "gone");
  gint truth = 0;
  gchar *text;

  g_object_set (src, "num-buffers", 6, NULL);
  gst_bin_add_many (GST_BIN (p), src, gone, NULL);
  fail_unless (gst_element_link (src, gone));
  count_into (gone, &truth);
  gpuprof_test_play_to_eos (p);
  /* destroyed before the pipeline goes to NULL */
  gst_element_set_state (gone, GST_STATE_NULL);
  gst_element_unlink (src, gone);
  gst_bin_remove (GST_BIN (p), gone);
  gst_element_set_state (p, GST_STATE_NULL);
  text = gpuprof_test_last_report ();
  fail_unless (text && strstr (text, "keep/gone")
      && strstr (text, "Removed during the run: 1 element "),
      "destroyed element missing from the report:\n%s", text);
  g_free (text);
  fail_unless (g_atomic_int_get (&truth) == 6);
  gst_object_unref (p);
}

GST_END_TEST;

/* Batch analysis follows a bounded number of elements at once, not the
 * first ids ever given: after thousands of elements came and went, a new
 * aggregator's batches are still counted. */
GST_START_TEST (test_batches_after_many_elements)
{
  GstElement *p;
  GstStructure *s = NULL;
  gint truth = 0;
  guint i;

  for (i = 0; i < 4200; i++) {
    GstElement *e = gst_object_ref_sink (make ("identity", NULL));
    GstPad *pad = gst_element_get_static_pad (e, "sink");
    /* an event on a pad: the element gets a record */
    gst_pad_push_event (pad, gst_event_new_reconfigure ());
    gst_object_unref (pad);
    gst_object_unref (e);
  }
  p = gst_parse_launch ("videotestsrc num-buffers=10 ! "
      "video/x-raw,width=64,height=48 ! compositor name=m ! fakesink name=sink",
      NULL);
  fail_unless (p != NULL);
  {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
    count_into (sink, &truth);
    gst_object_unref (sink);
  }
  gpuprof_test_play_to_eos (p);
  s = gpuprof_test_batch_stats (p, "m");
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "batches"),
      (guint64) g_atomic_int_get (&truth));
  gst_structure_free (s);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
lifecycle_suite (void)
{
  Suite *s = suite_create ("gpuprof-lifecycle");
  TCase *tc = tcase_create ("lifecycle");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pad_touched_before_parent);
  tcase_add_test (tc, test_element_moved_to_another_pipeline);
  tcase_add_test (tc, test_records_of_destroyed_pipelines_freed);
  tcase_add_test (tc, test_destroyed_element_kept_until_reported);
  tcase_add_test (tc, test_batches_after_many_elements);
  return s;
}

GPUPROF_TEST_MAIN (lifecycle, "gpuprof-lifecycle", "gpuprof(report=off)");
