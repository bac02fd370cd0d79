/* Asynchronous elements (issue 9 item 3): gpuprofasync, shaped like
 * nvinfer (the chain queues and blocks at max-in-flight, a worker thread
 * does the planted work, an output thread pushes). Its cost per buffer is
 * the work its worker measured on its own thread CPU clock, whichever
 * stage is slow; its residency and in-flight count agree with what it
 * counted itself. Truth is always the element's own, from the same run. */
#include "gpuprof-test-util.h"
#include "gpuprof-test-async.h"

#include <string.h>

#define N_BUFFERS 60
/* a source of @n small buffers, then the rest of the pipeline */
#define SRC(n) "fakesrc num-buffers=" #n " sizetype=fixed sizemax=64 ! "

/* Plays @p to EOS; the statistics of its element @name, to free */
static GstStructure *
stats_at_eos (GstElement * p, const gchar * name)
{
  gpuprof_test_play_to_eos (p);
  return gpuprof_test_element_stats_of (p, name);
}

/* "limit: stage PATH " in the report */
static gboolean
bottleneck_is (const gchar * report, const gchar * path)
{
  gchar *needle = g_strdup_printf ("limit: stage %s ", path);
  gboolean found = strstr (report, needle) != NULL;

  g_free (needle);
  return found;
}

/* a's row of this run says it is asynchronous, pushed every buffer and
 * spent on all its threads the CPU they measured on their own clocks */
static GpuprofTestAsyncTruth
assert_async_cost (GstElement * p, const GstStructure * s)
{
  GpuprofTestAsyncTruth truth = gpuprof_test_async_truth (p, "a");
  guint64 out = gpuprof_test_get_u64 (s, "buffers_out");
  guint64 self = gpuprof_test_get_u64 (s, "self_ns");
  gboolean async = FALSE;

  fail_unless_equals_uint64 (truth.pushed, N_BUFFERS);
  fail_unless_equals_uint64 (truth.work.calls, N_BUFFERS);
  fail_unless_equals_uint64 (out, N_BUFFERS);
  fail_unless (gst_structure_get_boolean (s, "async", &async) && async,
      "%" GST_PTR_FORMAT, s);
  GST_INFO ("worker %" G_GUINT64_FORMAT " other %" G_GUINT64_FORMAT
      " truth cpu %" G_GUINT64_FORMAT " wall %" G_GUINT64_FORMAT,
      gpuprof_test_get_u64 (s, "worker_ns") / out,
      (self - gpuprof_test_get_u64 (s, "worker_ns")) / out,
      truth.work.cpu_ns / out, truth.work.self_ns / out);
  /* work on all its threads: their CPU, as the element read it on their
   * clocks */
  gpuprof_test_assert_truth ("async self", self,
      gpuprof_test_async_cpu_ns (&truth), truth.work.calls);
  return truth;
}

/* Runs @desc (an element "a" in it) to EOS; checks a's cost per buffer
 * against its worker's CPU and that the verdict names @slow. */
static void
check_async_run (const gchar * desc, const gchar * slow, guint max_in_flight,
    gboolean saturated)
{
  GstElement *p = gpuprof_test_parse (desc);
  gchar *slow_path = gpuprof_test_path (p, slow);
  GstStructure *s = stats_at_eos (p, "a");
  gchar *report = gpuprof_test_live_report (p);
  GpuprofTestAsyncTruth truth;

  truth = assert_async_cost (p, s);
  fail_unless (bottleneck_is (report, slow_path), "not %s:\n%s", slow_path,
      report);
  /* the report lists it with its work on all its threads */
  fail_unless (strstr (report, "\nAsynchronous elements (") != NULL, "%s",
      report);
  fail_unless (strstr (report, "gpuprofasync-w") != NULL, "%s",
      gpuprof_test_said (report));
  /* in flight: what it counted itself, never past its limit. Held from
   * its chain call's return to its push's return, a little inside the
   * element's own count (after its chain queued, until after its push):
   * equal where it stays at its limit (itself slow), else at most */
  if (saturated) {
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "in_flight_max"),
        truth.max_in_flight_seen);
  } else {
    fail_unless (gpuprof_test_get_u64 (s, "in_flight_max") <=
        truth.max_in_flight_seen);
  }
  fail_unless (truth.max_in_flight_seen <= max_in_flight);
  fail_unless (gpuprof_test_get_double (s, "in_flight_mean") > 0);
  fail_unless (gpuprof_test_get_double (s, "in_flight_mean")
      <= max_in_flight + 1);
  /* each buffer is inside at least while its work runs (histogram
   * buckets: 1/32) */
  fail_unless (gpuprof_test_get_u64 (s, "residency_p50_ns") * 33 / 32 >=
      truth.work.self_p50_ns, "residency p50 %" G_GUINT64_FORMAT
      " < work p50 %" G_GUINT64_FORMAT, gpuprof_test_get_u64 (s,
          "residency_p50_ns"), truth.work.self_p50_ns);
  fail_unless (gpuprof_test_get_u64 (s, "residency_mean_ns") > 0);
  fail_unless (gpuprof_test_get_u64 (s, "worker_ns") > 0);

  g_free (report);
  gst_structure_free (s);
  g_free (slow_path);
  gpuprof_test_stop (p);
}

GST_START_TEST (test_async_element_slow)
{
  check_async_run (SRC (60)
      "gpuprofasync name=a work-us=3000 spin=true max-in-flight=4 ! "
      "fakesink sync=false", "a", 4, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_upstream_slow)
{
  check_async_run (SRC (60)
      "gpuprofwork name=up work-us=8000 spin=true ! "
      "gpuprofasync name=a work-us=2000 spin=true max-in-flight=4 ! "
      "fakesink sync=false", "up", 4, FALSE);
}

GST_END_TEST;

/* Played again after NULL: new worker threads, the second run's figures
 * only (the first run's ended workers are not counted again) */
GST_START_TEST (test_second_run)
{
  GstElement *p = gpuprof_test_parse (SRC (60) "gpuprofasync name=a "
      "work-us=2000 spin=true max-in-flight=2 ! fakesink sync=false");
  guint round;

  for (round = 0; round < 2; round++) {
    GstStructure *s = stats_at_eos (p, "a");

    assert_async_cost (p, s);
    gst_structure_free (s);
    fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* A sync element is not followed as asynchronous */
GST_START_TEST (test_sync_element_not_async)
{
  GstElement *p = gpuprof_test_parse (SRC (20) "gpuprofwork name=w "
      "work-us=100 ! fakesink sync=false");
  GstStructure *s = stats_at_eos (p, "w");
  gboolean async = TRUE;

  fail_unless (gst_structure_get_boolean (s, "async", &async) && !async);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "in_flight_max"), 0);
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ms cell of the report, in ns */
static guint64
cell_ns (const gchar * cell)
{
  return (guint64) (g_ascii_strtod (cell, NULL) * 1e6 + 0.5);
}

/* @report's Threads row of a's worker, which never pushes: owned by a, a
 * worker, a's thread; its busy time is the CPU its thread measured on its
 * own clock (10 %, and 20 µs a buffer for a loaded machine). Returns the
 * row's busy and wall ns. */
static void
assert_worker_row (const gchar * report, const gchar * path,
    const GpuprofTestAsyncTruth * truth, guint64 * busy, guint64 * wall)
{
  gchar **row = gpuprof_test_thread_row (report, "gpuprofasync-w");
  guint n;

  fail_unless (row != NULL, "no row for the worker:\n%s",
      gpuprof_test_said (report));
  n = g_strv_length (row);
  fail_unless_equals_string (row[n - 1], "worker");
  fail_unless_equals_string (row[n - 2], path);
  /* name, wall, busy, busy %, cpu, core wait, off cpu, top, owner, kind */
  fail_unless_equals_int (n, 10);
  fail_unless_equals_string (row[7], path);
  *wall = cell_ns (row[1]);
  *busy = cell_ns (row[2]);
  gpuprof_test_assert_truth_with ("worker thread busy", *busy,
      truth->worker_cpu_ns, truth->work.calls, truth->worker_cpu_ns / 14);
  fail_unless (*busy <= *wall, "%s", gpuprof_test_said (report));
  g_strfreev (row);
}

/* Plays @desc (a gpuprofasync "a" with a worker that never pushes) to
 * EOS and checks a's worker row in the live report (assert_worker_row):
 * the pipeline, a's path in @path (to free), a's truth, the row's busy
 * and wall ns */
static GstElement *
play_worker_row (const gchar * desc, gchar ** path,
    GpuprofTestAsyncTruth * truth, guint64 * busy, guint64 * wall)
{
  GstElement *p = gpuprof_test_parse (desc);
  gchar *report;

  *path = gpuprof_test_path (p, "a");
  gpuprof_test_play_to_eos (p);
  report = gpuprof_test_live_report (p);
  *truth = gpuprof_test_async_truth (p, "a");
  fail_unless_equals_uint64 (truth->work.calls, N_BUFFERS);
  assert_worker_row (report, *path, truth, busy, wall);
  g_free (report);
  return p;
}

/* The worker that does a's work has its own Threads row, with its CPU as
 * its busy time, while the run plays and in the report at its end, when
 * the thread has ended */
GST_START_TEST (test_worker_thread_row)
{
  GpuprofTestAsyncTruth truth;
  guint64 busy, wall;
  gchar *path, *report;
  GstElement *p = play_worker_row (SRC (60) "gpuprofasync name=a "
      "work-us=2000 spin=true max-in-flight=4 ! fakesink sync=false", &path,
      &truth, &busy, &wall);

  /* it spun: busy most of the time it had buffers */
  fail_unless (busy >= truth.work.cpu_ns * 9 / 10, "busy %" G_GUINT64_FORMAT
      " ns, spun %" G_GUINT64_FORMAT " ns", busy, truth.work.cpu_ns);
  /* ended with the run: its figures up to its end */
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  truth = gpuprof_test_async_truth (p, "a");
  report = gpuprof_test_last_report ();
  fail_unless (report != NULL);
  assert_worker_row (report, path, &truth, &busy, &wall);
  g_free (report);
  g_free (path);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* A worker that sleeps through its work only waits: busy near 0, not its
 * wall time */
GST_START_TEST (test_waiting_worker_not_busy)
{
  GpuprofTestAsyncTruth truth;
  guint64 busy, wall;
  gchar *path;
  GstElement *p = play_worker_row (SRC (60) "gpuprofasync name=a "
      "work-us=2000 max-in-flight=4 ! fakesink sync=false", &path, &truth,
      &busy, &wall);

  /* its wall time holds the sleeps it measured; its busy time does not */
  fail_unless (wall >= truth.work.self_ns, "wall %" G_GUINT64_FORMAT
      " ns, slept %" G_GUINT64_FORMAT " ns", wall, truth.work.self_ns);
  fail_unless (busy * 10 < truth.work.self_ns, "busy %" G_GUINT64_FORMAT
      " ns, slept %" G_GUINT64_FORMAT " ns", busy, truth.work.self_ns);
  g_free (path);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
async_suite (void)
{
  Suite *s = suite_create ("gpuprof-async");
  TCase *tc = tcase_create ("async");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_async_element_slow);
  tcase_add_test (tc, test_upstream_slow);
  tcase_add_test (tc, test_second_run);
  tcase_add_test (tc, test_sync_element_not_async);
  tcase_add_test (tc, test_worker_thread_row);
  tcase_add_test (tc, test_waiting_worker_not_busy);
  return s;
}

GPUPROF_TEST_MAIN (async, "gpuprof-async", "gpuprof(report=off,nvtx=off)");
