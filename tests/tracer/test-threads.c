/* The Threads table of a saved summary (stats=): the worker thread of
 * gpuprofasync, which never pushes, has its row in the JSON and in the
 * threads CSV, with its owner, the kind worker and its CPU as its busy
 * time, measured against the CPU the worker read on its own thread clock
 * in the same run. The run is saved when the pipeline goes to NULL, after
 * the worker ended: the row keeps its figures up to its end. */
#include <gst/check/gstcheck.h>

#include "gpuprof-summary-reader.h"
#include "gpuprof-test-async.h"
#include "gpuprof-test-core.h"
#include "gpuprof-test-util.h"

#define N_BUFFERS 60

static gchar *stats_path;

static const GpuprofThreadRow *
find_thread (const GpuprofSnapshot * s, const gchar * name)
{
  guint i;

  for (i = 0; i < s->threads->len; i++) {
    const GpuprofThreadRow *r = &g_array_index (s->threads,
        GpuprofThreadRow, i);
    if (!g_strcmp0 (r->name, name))
      return r;
  }
  return NULL;
}

/* the line of @name in the threads CSV next to the summary */
static gchar *
csv_line (const gchar * name)
{
  gchar *base = g_strndup (stats_path, strlen (stats_path) - strlen (".json"));
  gchar *path = g_strdup_printf ("%s-threads.csv", base);
  gchar *text = NULL, *found = NULL, **lines;
  guint i;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "no %s", path);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !found; i++) {
    if (strstr (lines[i], name))
      found = g_strstrip (g_strdup (lines[i]));        /* CRLF */
  }
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  g_free (base);
  return found;
}

GST_START_TEST (test_worker_row_in_summary)
{
  GstElement *p = gpuprof_test_parse ("fakesrc num-buffers=60 "
      "sizetype=fixed sizemax=64 ! gpuprofasync name=a work-us=2000 "
      "spin=true max-in-flight=4 ! fakesink sync=false");
  gchar *path = gpuprof_test_path (p, "a"), *line, *expected;
  GpuprofTestAsyncTruth truth;
  const GpuprofThreadRow *r;
  const GpuprofSnapshot *s;
  GError *err = NULL;
  GpuprofRun *run;

  gpuprof_test_play_to_eos (p);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  truth = gpuprof_test_async_truth (p, "a");
  gpuprof_test_stop (p);
  fail_unless_equals_uint64 (truth.work.calls, N_BUFFERS);

  run = gpuprof_run_load (stats_path, &err);
  fail_unless (run != NULL, "%s", err ? err->message : "");
  s = g_ptr_array_index (run->snapshots, run->snapshots->len - 1);
  r = find_thread (s, "gpuprofasync-w");
  if (!r) {
    gchar *json = NULL;

    g_file_get_contents (stats_path, &json, NULL, NULL);
    g_printerr ("%s\n", json ? json : stats_path);
    fail ("no row for the worker in %s", stats_path);
  }
  fail_unless_equals_string (r->kind, "worker");
  fail_unless_equals_string (r->owner, path);
  fail_unless_equals_string (r->top_element, path);
  /* its work: the CPU its thread measured, 10 % and 20 µs a buffer */
  gpuprof_test_assert_truth_with ("worker busy_ns", r->busy_ns,
      truth.worker_cpu_ns, truth.work.calls, truth.worker_cpu_ns / 14);
  fail_unless (r->busy_ns <= r->wall_ns);

  /* the same row in the CSV: name, wall, busy, top, owner, kind */
  line = csv_line ("gpuprofasync-w");
  fail_unless (line != NULL, "no worker line in the threads CSV");
  expected = g_strdup_printf (",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
      ",%s,%s,worker", r->wall_ns, r->busy_ns, path, path);
  fail_unless (g_str_has_suffix (line, expected), "%s, not ...%s", line,
      expected);
  g_free (expected);
  g_free (line);
  gpuprof_run_free (run);
  g_free (path);
}

GST_END_TEST;

static Suite *
threads_suite (void)
{
  Suite *s = suite_create ("gpuprof-threads");
  TCase *tc = tcase_create ("threads");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_worker_row_in_summary);
  return s;
}

int
main (int argc, char **argv)
{
  gchar *dir = gpuprof_test_tmpdir_new ("gpuprof-threads-XXXXXX");
  gchar *tracers;
  gint ret;

  stats_path = g_build_filename (dir, "run.json", NULL);
  tracers = g_strdup_printf ("gpuprof(stats=%s,report=off,nvtx=off)",
      stats_path);
  ret = gpuprof_test_main (&argc, &argv, tracers, threads_suite,
      "gpuprof-threads", __FILE__);
  g_free (tracers);
  g_free (stats_path);
  /* the summary and its CSV files */
  return gpuprof_test_tmpdir_done (dir, ret);
}
