/* Run summary: snapshot -> JSON -> snapshot gives the same snapshot (and the
 * same report), the CSV files hold the same rows, and the GstTracerRecord
 * lines reach GST_TRACER:7 readers. */
#include <gst/gst.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gpuprof-summary-reader.h"
#include "gpuprof-report.h"
#include "gpuprof-snapshot.h"
#include "gpuprof-summary.h"

static GpuprofSnapshot *
sample_snapshot (void)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipe \"line\" 0");
  GpuprofElementRow e = { 0, };
  GpuprofQueueRow q = { 0, };
  GpuprofThreadRow t = { 0, };

  e.path = g_strdup ("pipe/infer, \"nv\" é");
  e.factory = g_strdup ("nvinfer");
  e.role = g_strdup ("filter");
  e.thread = g_strdup ("q:src");
  e.buffers_in = 1000;
  e.buffers_out = 999;
  e.calls = 1000;
  e.self_ns = G_GUINT64_CONSTANT (3100000000);
  e.incl_ns = G_GUINT64_CONSTANT (4200000000);
  e.self_p50_ns = 3000000;
  e.self_p95_ns = 3500000;
  e.self_p99_ns = 3900000;
  e.self_max_ns = 9000000;
  e.thread_self_ns = G_GUINT64_CONSTANT (3100000000);
  e.thread_wall_ns = G_GUINT64_CONSTANT (3300000000);
  e.busy = 31.0 / 33.0;
  g_array_append_val (snap->elements, e);

  memset (&e, 0, sizeof (e));
  e.path = g_strdup ("pipe/sink");
  e.factory = g_strdup ("");
  e.role = g_strdup ("sink");
  e.thread = NULL;              /* stays NULL through the round trip */
  e.calls = e.buffers_in = 999;
  e.self_ns = 1234;
  e.busy = 0.1;
  e.waits_on_clock = TRUE;
  g_array_append_val (snap->elements, e);

  q.path = g_strdup ("pipe/q");
  q.buffers = 999;
  q.residency_p50_ns = 1;
  q.residency_p99_ns = 2;
  q.residency_max_ns = G_MAXINT64;
  q.residency_mean_ns = 3;
  q.max_level_buffers = 200;
  q.max_level_bytes = 1 << 30;
  q.max_level_time_ns = 5;
  q.backpressure_ns = 6;
  q.upstream_wall_ns = 7;
  q.drops = 8;
  q.flushed = 9;
  g_array_append_val (snap->queues, q);

  t.name = g_strdup ("q:src");
  t.wall_ns = G_GUINT64_CONSTANT (3300000000);
  t.busy_ns = G_GUINT64_CONSTANT (3100000000);
  t.top_element = g_strdup ("pipe/infer, \"nv\" é");
  g_array_append_val (snap->threads, t);

  snap->wall_ns = G_GUINT64_CONSTANT (3400000000);
  gpuprof_snapshot_compute_verdict (snap);
  return snap;
}

/* every field of every row, as the tables describe them */
static void
assert_tables_equal (const GpuprofSnapshot * a, const GpuprofSnapshot * b)
{
  guint id, i, j;

  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    const GpuprofSummaryTable *t = gpuprof_summary_table (id);
    guint n = gpuprof_summary_n_rows (a, id);

    g_assert_cmpuint (n, ==, gpuprof_summary_n_rows (b, id));
    for (i = 0; i < n; i++) {
      for (j = 0; j < t->n_fields; j++) {
        const GpuprofSummaryField *f = &t->fields[j];
        const guint8 *pa = (const guint8 *) gpuprof_summary_row (a, id, i) +
            f->offset;
        const guint8 *pb = (const guint8 *) gpuprof_summary_row (b, id, i) +
            f->offset;

        g_test_message ("%s[%u].%s", t->name, i, f->name);
        if (f->type == GPUPROF_FIELD_STRING)
          g_assert_cmpstr (*(gchar **) pa, ==, *(gchar **) pb);
        else if (f->type == GPUPROF_FIELD_U64)
          g_assert_cmpuint (*(guint64 *) pa, ==, *(guint64 *) pb);
        else if (f->type == GPUPROF_FIELD_DOUBLE)
          g_assert_true (*(gdouble *) pa == *(gdouble *) pb);
        else
          g_assert_cmpint (*(gboolean *) pa, ==, *(gboolean *) pb);
      }
    }
  }
}

static GpuprofSnapshot *
parse (const gchar * json)
{
  JsonParser *parser = json_parser_new ();
  GpuprofSnapshot *snap;
  GError *err = NULL;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &err));
  snap = gpuprof_summary_from_json (json_parser_get_root (parser), "test",
      &err);
  g_assert_no_error (err);
  g_object_unref (parser);
  return snap;
}

static void
test_json_round_trip (void)
{
  GpuprofSnapshot *orig = sample_snapshot (), *back;
  gchar *json, *json2;
  gchar *report1, *report2;

  json = gpuprof_summary_to_json (orig);

  g_test_message ("%s", json);
  back = parse (json);
  g_assert_cmpstr (back->pipeline, ==, orig->pipeline);
  g_assert_cmpuint (back->wall_ns, ==, orig->wall_ns);
  g_assert_cmpstr (back->bottleneck, ==, orig->bottleneck);
  g_assert_cmpstr (back->bottleneck_thread, ==, orig->bottleneck_thread);
  g_assert_true (back->bottleneck_busy == orig->bottleneck_busy);
  g_assert_cmpuint (back->bottleneck_ns_per_buffer, ==,
      orig->bottleneck_ns_per_buffer);
  assert_tables_equal (orig, back);

  /* same text out, and the same report */
  json2 = gpuprof_summary_to_json (back);
  g_assert_cmpstr (json, ==, json2);
  report1 = gpuprof_report_format (orig);
  report2 = gpuprof_report_format (back);
  g_assert_cmpstr (report1, ==, report2);

  g_free (report1);
  g_free (report2);
  g_free (json);
  g_free (json2);
  gpuprof_snapshot_free (orig);
  gpuprof_snapshot_free (back);
}

static void
test_empty_snapshot (void)
{
  GpuprofSnapshot *orig = gpuprof_snapshot_new ("p"), *back;
  gchar *json = gpuprof_summary_to_json (orig);

  back = parse (json);
  g_assert_null (back->bottleneck);
  assert_tables_equal (orig, back);
  g_free (json);
  gpuprof_snapshot_free (orig);
  gpuprof_snapshot_free (back);
}

static void
test_schema_errors (void)
{
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;

  g_assert_true (json_parser_load_from_data (parser,
          "{\"schema\": \"gpuprof-summary\", \"version\": 1, "
          "\"elements\": [{\"path\": \"a\", \"self_ns\": \"slow\"}]}", -1,
          NULL));
  g_assert_null (gpuprof_summary_from_json (json_parser_get_root (parser),
          "f.json", &err));
  g_assert_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA);
  g_assert_cmpstr (err->message, ==,
      "f.json: elements[0].self_ns: expected an unsigned integer");
  g_clear_error (&err);

  g_assert_true (json_parser_load_from_data (parser,
          "{\"schema\": \"gpuprof-summary\", \"version\": 99}", -1, NULL));
  g_assert_null (gpuprof_summary_from_json (json_parser_get_root (parser),
          "f.json", &err));
  g_assert_nonnull (strstr (err->message, "version 99"));
  g_clear_error (&err);
  g_object_unref (parser);
}

static void
test_csv (void)
{
  GpuprofSnapshot *snap = sample_snapshot ();
  gchar *dir = g_dir_make_tmp ("gpuprof-summary-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "run.json", NULL);
  gchar *csv_path = gpuprof_summary_csv_path (path, GPUPROF_SUMMARY_ELEMENTS);
  gchar *contents, **lines;
  GError *err = NULL;
  guint id;

  g_assert_true (g_str_has_suffix (csv_path, "/run-elements.csv"));
  g_assert_true (gpuprof_summary_save (snap, path, &err));
  g_assert_no_error (err);
  g_assert_true (g_file_get_contents (csv_path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\r\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "path,factory,role,thread,"));
  g_assert_true (g_str_has_prefix (lines[1],
          "\"pipe/infer, \"\"nv\"\" é\",nvinfer,filter,q:src,1000,999,"));
  /* waits_on_clock, then wait_input_ns and gpu_wait_ns, then the
   * asynchronous element's columns (not one here); later columns may
   * follow */
  g_assert_nonnull (strstr (lines[2], ",true,0,0,false,0,0,0,0,0,0"));
  g_assert_cmpstr (lines[3], ==, "");
  g_assert_null (lines[4]);
  g_strfreev (lines);
  g_free (contents);

  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    gchar *p = gpuprof_summary_csv_path (path, id);

    g_assert_true (g_file_test (p, G_FILE_TEST_IS_REGULAR));
    g_unlink (p);
    g_free (p);
  }
  g_unlink (path);
  g_rmdir (dir);

  /* an unwritable place: an error naming the file */
  g_assert_false (gpuprof_summary_save (snap, "/nonexistent-gpuprof/run.json",
          &err));
  g_assert_nonnull (strstr (err->message, "/nonexistent-gpuprof/run.json"));
  g_clear_error (&err);

  g_free (csv_path);
  g_free (path);
  g_free (dir);
  gpuprof_snapshot_free (snap);
}

static GPtrArray *tracer_lines;

static void
capture_log (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * obj, GstDebugMessage * msg,
    gpointer user_data)
{
  if (level == GST_LEVEL_TRACE
      && strcmp (gst_debug_category_get_name (cat), "GST_TRACER") == 0)
    g_ptr_array_add (tracer_lines, g_strdup (gst_debug_message_get (msg)));
}

static guint
count_prefix (const gchar * prefix)
{
  guint i, n = 0;

  for (i = 0; i < tracer_lines->len; i++)
    n += g_str_has_prefix (g_ptr_array_index (tracer_lines, i), prefix);
  return n;
}

/* GStreamer 1.29.2+ write records to the log only through the log tracer
 * (gpuprof-output-records.c): made here, as GST_TRACERS='gpuprof;log' */
static GstTracer *
log_tracer_if_needed (void)
{
  guint major, minor, micro, nano;
  GstPluginFeature *feature, *loaded;
  GstTracer *tracer = NULL;

  gst_version (&major, &minor, &micro, &nano);
  if (major == 1 && (minor < 29 || (minor == 29 && micro < 2)))
    return NULL;
  feature = gst_registry_lookup_feature (gst_registry_get (), "log");
  g_assert_nonnull (feature);
  loaded = gst_plugin_feature_load (feature);
  g_assert_nonnull (loaded);
  tracer = g_object_new (gst_tracer_factory_get_tracer_type
      (GST_TRACER_FACTORY (loaded)), NULL);
  gst_object_unref (loaded);
  gst_object_unref (feature);
  return tracer;
}

static void
test_tracer_records (void)
{
  GpuprofSnapshot *snap = sample_snapshot ();
  GstTracer *log = log_tracer_if_needed ();
  GstStructure *s;

  tracer_lines = g_ptr_array_new_with_free_func (g_free);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (capture_log, NULL, NULL);
  gst_debug_set_threshold_for_name ("GST_TRACER", GST_LEVEL_TRACE);

  gpuprof_summary_log_records (snap);
  gpuprof_summary_log_records (snap);   /* record types made once */
  g_assert_cmpuint (count_prefix ("gpuprof-run, "), ==, 2);
  g_assert_cmpuint (count_prefix ("gpuprof-element, "), ==, 4);
  g_assert_cmpuint (count_prefix ("gpuprof-queue, "), ==, 2);
  g_assert_cmpuint (count_prefix ("gpuprof-thread, "), ==, 2);
  g_assert_cmpuint (count_prefix ("gpuprof-run.class"), ==, 1);

  /* the lines parse as GstStructures with the typed values */
  s = gst_structure_from_string (g_ptr_array_index (tracer_lines,
          tracer_lines->len - 1), NULL);
  g_assert_nonnull (s);
  g_assert_cmpstr (gst_structure_get_name (s), ==, "gpuprof-thread");
  g_assert_cmpstr (gst_structure_get_string (s, "pipeline"), ==,
      "pipe \"line\" 0");
  g_assert_cmpstr (gst_structure_get_string (s, "name"), ==, "q:src");
  g_assert_cmpstr (gst_structure_get_string (s, "top_element"), ==,
      "pipe/infer, \"nv\" é");
  gst_structure_free (s);

  gst_debug_remove_log_function (capture_log);
  g_ptr_array_unref (tracer_lines);
  gpuprof_snapshot_free (snap);
  if (log)
    gst_object_unref (log);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/summary/json-round-trip", test_json_round_trip);
  g_test_add_func ("/summary/empty", test_empty_snapshot);
  g_test_add_func ("/summary/schema-errors", test_schema_errors);
  g_test_add_func ("/summary/csv", test_csv);
  g_test_add_func ("/summary/tracer-records", test_tracer_records);
  return g_test_run ();
}
