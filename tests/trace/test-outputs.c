/* Outputs (gst/outputs/gpuprof-output.h): the table lists the four outputs once
 * each, the parameters pick which open, one that cannot open says why once
 * and the others run, run end reaches every open output (report appends,
 * summary and trace files written), the trace writer hands every drained
 * event to the outputs that want them; and the shared JSON helpers. */
#include <gst/gst.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof-json.h"
#include "gpuprof-output.h"
#include "gpuprof-test-core.h"

static gchar *tmpdir;

static void
test_json_string (void)
{
  GString *s = g_string_new (NULL);
  gchar *q;

  gpuprof_json_append_string (s, "a\"b\\c\n\x01" "d\xc3\xa9");
  g_assert_cmpstr (s->str, ==, "\"a\\\"b\\\\c\\u000a\\u0001d\xc3\xa9\"");
  g_string_truncate (s, 0);
  gpuprof_json_append_string (s, NULL);
  g_assert_cmpstr (s->str, ==, "null");
  q = gpuprof_json_quote ("q/src");
  g_assert_cmpstr (q, ==, "\"q/src\"");
  g_free (q);
  g_string_free (s, TRUE);
}

static void
test_json_double (void)
{
  const gdouble values[] = { 0.0, 0.1, 1.0 / 3, 1e300, -2.5e-7, 0.625 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (values); i++) {
    GString *s = g_string_new (NULL);
    gpuprof_json_append_double (s, values[i]);
    /* shortest text that reads back exactly */
    g_assert_cmpfloat (g_ascii_strtod (s->str, NULL), ==, values[i]);
    g_string_free (s, TRUE);
  }
  {
    GString *s = g_string_new (NULL);
    gpuprof_json_append_double (s, NAN);
    g_assert_cmpstr (s->str, ==, "0");
    g_string_free (s, TRUE);
  }
}

static void
test_table (void)
{
  const gchar *want[] = { "records", "summary", "trace", "html", "report" };
  const GpuprofOutputClass *const *classes;
  guint n, i, j;

  classes = gpuprof_output_classes (&n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (want));
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    guint seen = 0;
    for (j = 0; j < n; j++)
      seen += !g_strcmp0 (classes[j]->name, want[i]);
    g_assert_cmpuint (seen, ==, 1);
    g_assert_true (gpuprof_output_class_find (want[i]) != NULL);
    /* every output can be opened and has something to do */
    g_assert_true (gpuprof_output_class_find (want[i])->enabled != NULL);
    g_assert_true (gpuprof_output_class_find (want[i])->open != NULL);
  }
  g_assert_null (gpuprof_output_class_find ("nosuch"));
}

static gchar *
names_of (GPtrArray * outputs)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    g_string_append_printf (s, "%s%s", i ? "," : "", o->klass->name);
  }
  return g_string_free (s, FALSE);
}

static void
test_params_pick_outputs (void)
{
  GpuprofParams params;
  GpuprofOutputContext ctx = { NULL, gpuprof_bus_new () };
  GPtrArray *outputs;
  gchar *names;

  gpuprof_params_init (&params);
  params.report = GPUPROF_REPORT_OFF;
  outputs = gpuprof_outputs_open (&params, &ctx);
  names = names_of (outputs);
  g_assert_cmpstr (names, ==, "records");
  g_assert_null (gpuprof_output_trace_get (gpuprof_outputs_find (outputs,
              "trace")));
  g_free (names);
  gpuprof_outputs_close (outputs);
  gpuprof_outputs_free (outputs);

  params.report = GPUPROF_REPORT_STDERR;
  params.stats_path = g_build_filename (tmpdir, "s.json", NULL);
  outputs = gpuprof_outputs_open (&params, &ctx);
  names = names_of (outputs);
  g_assert_cmpstr (names, ==, "records,summary,report");
  g_free (names);
  gpuprof_outputs_close (outputs);
  gpuprof_outputs_free (outputs);
  gpuprof_params_clear (&params);
  gpuprof_bus_free (ctx.bus);
}

static gchar *
read_file (const gchar * path)
{
  gchar *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
test_run_end_reaches_outputs (void)
{
  GpuprofParams params;
  GpuprofOutputContext ctx = { NULL, gpuprof_bus_new () };
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipe0");
  GpuprofRunEnd end = { snap, "the report\n" };
  GPtrArray *outputs;
  GString *notes = g_string_new (NULL);
  gchar *report_path, *stats_path, *trace_path, *text, *names;

  gpuprof_params_init (&params);
  report_path = g_build_filename (tmpdir, "r.txt", NULL);
  stats_path = g_build_filename (tmpdir, "r.json", NULL);
  trace_path = g_build_filename (tmpdir, "r-trace.json", NULL);
  params.report = GPUPROF_REPORT_FILE;
  params.report_path = g_strdup (report_path);
  params.stats_path = g_strdup (stats_path);
  params.trace_path = g_strdup (trace_path);

  outputs = gpuprof_outputs_open (&params, &ctx);
  names = names_of (outputs);
  g_assert_cmpstr (names, ==, "records,summary,trace,report");
  g_free (names);
  g_assert_nonnull (gpuprof_output_trace_get (gpuprof_outputs_find (outputs,
              "trace")));
  g_assert_null (gpuprof_output_trace_get (gpuprof_outputs_find (outputs,
              "report")));

  /* the trace names its file for the report */
  gpuprof_outputs_describe (outputs, notes);
  g_assert_true (g_str_has_prefix (notes->str, "trace: "));
  g_assert_nonnull (strstr (notes->str, trace_path));

  /* two runs: the report file gets both, the summary the last */
  gpuprof_outputs_run_end (outputs, &end);
  gpuprof_outputs_run_end (outputs, &end);
  text = read_file (report_path);
  g_assert_cmpstr (text, ==, "the report\nthe report\n");
  g_free (text);
  text = read_file (stats_path);
  g_assert_nonnull (strstr (text, "\"pipe0\""));
  g_free (text);

  gpuprof_outputs_close (outputs);
  text = read_file (trace_path);
  /* one summary per run end, and the closing bracket */
  g_assert_nonnull (strstr (text, "\"gpuprof summary\""));
  g_assert_nonnull (strstr (strstr (text, "\"gpuprof summary\"") + 1,
          "\"gpuprof summary\""));
  g_assert_true (g_str_has_suffix (text, "]\n"));
  g_free (text);
  gpuprof_outputs_free (outputs);

  g_string_free (notes, TRUE);
  gpuprof_snapshot_free (snap);
  g_free (report_path);
  g_free (stats_path);
  g_free (trace_path);
  gpuprof_params_clear (&params);
  gpuprof_bus_free (ctx.bus);
}

/* an output that cannot open says so once; the others run */
static void
test_failed_output_said_once (void)
{
  GpuprofParams params;
  GpuprofOutputContext ctx = { NULL, gpuprof_bus_new () };
  GPtrArray *outputs;
  gchar *names;

  gpuprof_params_init (&params);
  params.trace_path = g_strdup ("/nonexistent-dir/gpuprof/t.json");
  gpuprof_test_printerr_count = 0;
  outputs = gpuprof_outputs_open (&params, &ctx);
  g_assert_cmpuint (gpuprof_test_printerr_count, ==, 1);
  names = names_of (outputs);
  g_assert_cmpstr (names, ==, "records,report");
  g_free (names);
  gpuprof_outputs_close (outputs);
  gpuprof_outputs_free (outputs);
  g_assert_cmpuint (gpuprof_test_printerr_count, ==, 1);
  gpuprof_params_clear (&params);
  gpuprof_bus_free (ctx.bus);
}

typedef struct
{
  guint events;
  guint64 seq_sum;
} Tap;

static void
tap_cb (const GpuprofEvent * events, guint n, gpointer user_data)
{
  Tap *tap = user_data;
  guint i;

  tap->events += n;
  for (i = 0; i < n; i++)
    tap->seq_sum += events[i].seq;
}

/* every event drained is handed over once: compared with what the pushes
 * said they stored, from a ring small enough to lose some */
static void
test_writer_hands_events_over (void)
{
  gchar *path = g_build_filename (tmpdir, "tap.json", NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (path, NULL, 0, NULL, NULL);
  GpuprofRing *ring;
  static const GpuprofBusSink tap_sink = { NULL, tap_cb, NULL };
  Tap tap = { 0 };
  guint stored = 0, i, tap_id;
  guint64 stored_seq = 0;

  g_assert_nonnull (trace);
  tap_id = gpuprof_bus_add_sink (gpuprof_trace_get_bus (trace), &tap_sink,
      &tap);
  ring = gpuprof_bus_ring_for_producer (gpuprof_trace_get_bus (trace), 7, 64);
  for (i = 0; i < 5000; i++) {
    GpuprofEvent ev = { GPUPROF_EVENT_MARK, 0, 0, 7, 1000 + i };
    ev.seq = i;
    if (gpuprof_ring_push (ring, &ev)) {
      stored++;
      stored_seq += i;
    }
    if (i % 1000 == 999)
      gpuprof_trace_flush (trace);
  }
  gpuprof_trace_flush (trace);
  g_assert_cmpuint (stored, >, 0);
  g_assert_cmpuint (tap.events, ==, stored);
  g_assert_cmpuint (tap.seq_sum, ==, stored_seq);
  g_assert_true (gpuprof_trace_close (trace, NULL, NULL));
  gpuprof_bus_remove_sink (gpuprof_trace_get_bus (trace), tap_id);
  gpuprof_test_trace_free (trace);
  g_free (path);
}

int
main (int argc, char **argv)
{
  tmpdir = gpuprof_test_core_init (&argc, &argv, "gpuprof-outputs-XXXXXX");
  gpuprof_test_count_printerr ();

  g_test_add_func ("/outputs/json-string", test_json_string);
  g_test_add_func ("/outputs/json-double", test_json_double);
  g_test_add_func ("/outputs/table", test_table);
  g_test_add_func ("/outputs/params-pick-outputs", test_params_pick_outputs);
  g_test_add_func ("/outputs/run-end", test_run_end_reaches_outputs);
  g_test_add_func ("/outputs/failed-output-said-once",
      test_failed_output_said_once);
  g_test_add_func ("/outputs/writer-hands-events-over",
      test_writer_hands_events_over);
  return gpuprof_test_tmpdir_done (tmpdir, g_test_run ());
}
