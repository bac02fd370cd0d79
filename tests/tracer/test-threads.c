/* The Threads table of a saved summary (stats=): the worker thread of
 * gpuprofasync, which never pushes, has its row in the JSON and in the
 * threads CSV, with its owner, the kind worker and its CPU as its busy
 * time, measured against the CPU the worker read on its own thread clock
 * in the same run. So has the private helper thread of a sink (not an
 * asynchronous element), which runs none of its calls, also one it starts
 * in its first render and that names itself like a pad task ("xlib:lazy"). The run is saved
 * when the pipeline goes to NULL, after the threads ended: the rows keep
 * their figures up to their end. */
#include <gst/check/gstcheck.h>

#include "gpuprof-summary-reader.h"
#include "gpuprof-test-async.h"
#include "gpuprof-test-core.h"
#include "gpuprof-test-helper.h"
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

/* The row of thread @name in the last snapshot of the saved run (@run,
 * free with gpuprof_run_free); fails the test, showing the summary, when
 * there is none */
static const GpuprofThreadRow *
saved_thread_row (const gchar * name, GpuprofRun ** run)
{
  const GpuprofThreadRow *r;
  const GpuprofSnapshot *s;
  GError *err = NULL;

  *run = gpuprof_run_load (stats_path, &err);
  fail_unless (*run != NULL, "%s", err ? err->message : "");
  s = g_ptr_array_index ((*run)->snapshots, (*run)->snapshots->len - 1);
  r = find_thread (s, name);
  if (!r) {
    gchar *json = NULL;

    g_file_get_contents (stats_path, &json, NULL, NULL);
    g_printerr ("%s\n", json ? json : stats_path);
    fail ("no row for the thread %s in %s", name, stats_path);
  }
  return r;
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
  GpuprofRun *run;

  gpuprof_test_play_to_eos (p);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  truth = gpuprof_test_async_truth (p, "a");
  gpuprof_test_stop (p);
  fail_unless_equals_uint64 (truth.work.calls, N_BUFFERS);

  r = saved_thread_row ("gpuprofasync-w", &run);
  fail_unless_equals_string (r->kind, "worker");
  fail_unless_equals_string (r->owner, path);
  fail_unless_equals_string (r->top_element, path);
  /* its work: the CPU its thread measured, 10 % and 20 µs a buffer */
  gpuprof_test_assert_truth_with ("worker busy_ns", r->busy_ns,
      truth.worker_cpu_ns, truth.work.calls, truth.worker_cpu_ns / 14);
  fail_unless (r->busy_ns <= r->wall_ns);

  /* the same row in the CSV: name, wall, busy, top, owner, kind, then the
   * sampler's cpu, run delay, off cpu and the tid */
  line = csv_line ("gpuprofasync-w");
  fail_unless (line != NULL, "no worker line in the threads CSV");
  expected = g_strdup_printf (",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
      ",%s,%s,worker,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
      G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, r->wall_ns, r->busy_ns, path,
      path, r->cpu_ns, r->run_delay_ns, r->off_cpu_ns, r->tid);
  fail_unless (g_str_has_suffix (line, expected), "%s, not ...%s", line,
      expected);
  g_free (expected);
  g_free (line);
  gpuprof_run_free (run);
  g_free (path);
}

GST_END_TEST;

/* @name's helper thread: a row owned by the sink, kind worker, its busy
 * time the CPU it measured on its own clock: 10 % and 2 ms (its spin ends
 * before the tracer's last reading, when the sink stops it; then it only
 * waits) */
static void
assert_named_helper_row (GstElement * p, const gchar * name,
    const gchar * thread_name)
{
  gchar *path = gpuprof_test_path (p, name);
  gchar *thread = thread_name ? g_strdup (thread_name) :
      g_strdup_printf ("h-%s", name);
  guint64 truth = gpuprof_test_helper_cpu_ns (p, name);
  const GpuprofThreadRow *r;
  GpuprofRun *run;

  fail_unless (truth > 0, "%s: its helper read no CPU clock", name);
  r = saved_thread_row (thread, &run);
  fail_unless_equals_string (r->kind, "worker");
  fail_unless_equals_string (r->owner, path);
  gpuprof_test_assert_truth_with (thread, r->busy_ns, truth, 1,
      2 * GST_MSECOND);
  fail_unless (r->busy_ns <= r->wall_ns);
  gpuprof_run_free (run);
  g_free (thread);
  g_free (path);
}

static void
assert_helper_row (GstElement * p, const gchar * name)
{
  assert_named_helper_row (p, name, NULL);
}

/* The rows owned by @name in the saved run: the source's pad task appears
 * in its state change like a thread it created, but is its streaming
 * thread, one row */
static void
assert_one_streaming_row (GstElement * p, const gchar * name)
{
  gchar *path = gpuprof_test_path (p, name);
  const GpuprofSnapshot *s;
  const GpuprofThreadRow *found = NULL;
  GpuprofRun *run;
  guint i, n = 0;

  saved_thread_row ("h-spin", &run);
  s = g_ptr_array_index (run->snapshots, run->snapshots->len - 1);
  for (i = 0; i < s->threads->len; i++) {
    const GpuprofThreadRow *r = &g_array_index (s->threads,
        GpuprofThreadRow, i);

    if (!g_strcmp0 (r->owner, path)) {
      found = r;
      n++;
    }
  }
  fail_unless_equals_int (n, 1);
  fail_unless_equals_string (found->kind, "streaming");
  gpuprof_run_free (run);
  g_free (path);
}

GST_START_TEST (test_owned_thread_rows)
{
  GstElement *p = gpuprof_test_parse ("fakesrc name=s1 num-buffers=20 "
      "! gpuprofhelpersink name=spin helper-spin-us=60000 sync=false "
      "fakesrc name=s2 num-buffers=20 ! gpuprofhelpersink name=idle "
      "sync=false");
  GpuprofRun *run;

  gpuprof_test_play_to_eos (p);
  gpuprof_test_helper_wait_spun (p, "spin");
  gpuprof_test_helper_wait_spun (p, "idle");
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  assert_helper_row (p, "spin");
  /* the helper that only waited: near 0, as it measured */
  assert_helper_row (p, "idle");
  fail_unless (saved_thread_row ("h-idle", &run)->busy_ns < 2 * GST_MSECOND);
  gpuprof_run_free (run);
  assert_one_streaming_row (p, "s1");
  assert_one_streaming_row (p, "s2");
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* A helper the sink starts in its first render, which names itself with a
 * ':' as a pad task's thread is named (FFmpeg 7's frame threads:
 * "av:h264:df0"): no thread has that name but itself, so it is the call
 * window's, the sink's worker, not a task's thread left to its creator */
GST_START_TEST (test_lazy_self_named_helper)
{
  GstElement *p = gpuprof_test_parse ("fakesrc num-buffers=20 ! "
      "gpuprofhelpersink name=lazy lazy=true helper-name=\"xlib:lazy\" "
      "helper-spin-us=60000 sync=false");

  gpuprof_test_play_to_eos (p);
  gpuprof_test_helper_wait_spun (p, "lazy");
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  assert_named_helper_row (p, "lazy", "xlib:lazy");
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
threads_suite (void)
{
  Suite *s = suite_create ("gpuprof-threads");
  TCase *tc = tcase_create ("threads");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_worker_row_in_summary);
  tcase_add_test (tc, test_owned_thread_rows);
  tcase_add_test (tc, test_lazy_self_named_helper);
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
