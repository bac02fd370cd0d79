/* Helpers shared by the tracer tests. */
#include "gpuprof-test-util.h"

GstTracer *
gpuprof_test_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next) {
    if (!g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstGpuprofTracer"))
      found = l->data;
  }
  fail_unless (found != NULL, "the gpuprof tracer is not active "
      "(GST_TRACERS / GST_PLUGIN_PATH not set up?)");
  /* the tracer lives as long as the process; no ref needed */
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

void
gpuprof_test_play_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 60 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail ("pipeline error: %s", err->message);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* Runs to EOS and leaves the pipeline PLAYING, so its statistics are still
 * there; setting it to NULL prints the report and starts a new run. */
GstElement *
gpuprof_test_run (const gchar * description)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);

  fail_unless (pipeline != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  gpuprof_test_play_to_eos (pipeline);
  return pipeline;
}

GstStructure *
gpuprof_test_element_stats (const gchar * path)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-element-stats", path,
      &s);
  fail_unless (s != NULL, "no statistics for element %s", path);
  return s;
}

GstStructure *
gpuprof_test_queue_stats (const gchar * path)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-queue-stats", path, &s);
  fail_unless (s != NULL, "no statistics for queue %s", path);
  return s;
}

guint64
gpuprof_test_get_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

gchar *
gpuprof_test_last_report (void)
{
  gchar *text = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-last-report", &text);
  return text;
}

/* FALSE under valgrind (tools/run-valgrind.sh sets GPUPROF_TEST_NO_TIMING):
 * timing bounds are skipped, everything else is checked. */
gboolean
gpuprof_test_timing (void)
{
  return g_getenv ("GPUPROF_TEST_NO_TIMING") == NULL;
}

/* Under valgrind (tools/run-valgrind.sh sets GPUPROF_TEST_NO_TIMING) every
 * call is many times slower: only check that something was measured. */
void
gpuprof_test_assert_near (const gchar * what, gdouble value,
    gdouble expected, gdouble tolerance)
{
  if (!gpuprof_test_timing ()) {
    fail_unless (value > 0, "%s = %.0f, expected a measurement", what, value);
    return;
  }
  fail_unless (value >= expected * (1.0 - tolerance)
      && value <= expected * (1.0 + tolerance),
      "%s = %.0f, expected %.0f within %.0f %%", what, value, expected,
      tolerance * 100);
}
