/* Trace writer with synthetic events: a two-thread pipeline through a queue
 * checked by check-trace.sh, the file after a flush (what a kill leaves),
 * one error for an unwritable path or a full disk, the size cap, the
 * element filter. CHECK_TRACE names the checker script.
 */
#include <gst/gst.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "gpuprof-snapshot.h"
#include "gpuprof-summary.h"
#include "gpuprof-trace.h"
#include "gpuprof-test-core.h"

#define N_BUFFERS 500
#define US 1000

enum
{ SRC = 1, A, Q, B, SINK };
/* element id i is element_names[i - 1] */
static const gchar *const element_names[] = { "pipeline0/src", "pipeline0/a",
  "pipeline0/q", "pipeline0/b", "pipeline0/sink", NULL
};

static GpuprofTraceNames names;

static gchar *tmpdir;

static GpuprofEvent
chain (guint32 thread, guint32 element, guint64 ts, guint64 dur, guint64 seq)
{
  GpuprofEvent ev = { GPUPROF_EVENT_CHAIN, element,
    element + GPUPROF_TEST_PAD_BASE, thread, ts, dur, seq,
    seq * 40 * US * 1000, 4096, dur / 2, seq + 1, 0
  };
  return ev;
}

static GpuprofEvent
queue_event (GpuprofEventType type, guint32 thread, guint64 ts, guint64 seq)
{
  GpuprofEvent ev = { type, Q, 0, thread, ts, 0, seq, G_MAXUINT64, 4096, 0,
    seq + 1, 0
  };
  if (type == GPUPROF_EVENT_QUEUE_LEVEL)
    ev.self = 1;
  return ev;
}

/* Upstream thread: src pushes into a, a into q (enqueue inside q's chain).
 * Complete events are pushed when the call returns: innermost first. */
static gpointer
upstream (gpointer data)
{
  GpuprofRing *ring = gpuprof_test_trace_ring (data, 1);
  GpuprofEvent ev;
  guint64 i, t;

  ev = (GpuprofEvent) {
  GPUPROF_EVENT_THREAD_NAME,.thread_id = 1};
  gpuprof_ring_push (ring, &ev);
  for (i = 0; i < N_BUFFERS; i++) {
    t = 1000 * US + i * 40 * US;
    ev = queue_event (GPUPROF_EVENT_QUEUE_IN, 1, t + 2 * US, i);
    gpuprof_ring_push (ring, &ev);
    ev = queue_event (GPUPROF_EVENT_QUEUE_LEVEL, 1, t + 2 * US, i);
    gpuprof_ring_push (ring, &ev);
    /* q's chain starts exactly at the enqueue: the arrow starts inside it */
    ev = chain (1, Q, t + 2 * US, 3 * US, i);
    gpuprof_ring_push (ring, &ev);
    ev = chain (1, A, t, 10 * US, i);
    gpuprof_ring_push (ring, &ev);
    if (i % 100 == 0)
      g_usleep (1000);
  }
  ev = (GpuprofEvent) {
  GPUPROF_EVENT_MARK,.element_id = SINK,.thread_id = 1,.ts =
        t + 15 * US,.arg0 = GPUPROF_MARK_EOS};
  gpuprof_ring_push (ring, &ev);
  return NULL;
}

/* Downstream thread: q's task dequeues and pushes into b, b into sink. */
static gpointer
downstream (gpointer data)
{
  GpuprofRing *ring = gpuprof_test_trace_ring (data, 2);
  GpuprofEvent ev;
  guint64 i, t;

  for (i = 0; i < N_BUFFERS; i++) {
    t = 1000 * US + i * 40 * US + 20 * US;
    ev = queue_event (GPUPROF_EVENT_QUEUE_OUT, 2, t, i);
    /* enqueued 18 µs ago on the upstream thread: the arrow starts there */
    ev.dur = 18 * US;
    ev.arg0 = gpuprof_event_queue_out (0, 1);
    gpuprof_ring_push (ring, &ev);
    ev = queue_event (GPUPROF_EVENT_QUEUE_LEVEL, 2, t, i);
    ev.self = 0;
    gpuprof_ring_push (ring, &ev);
    ev = chain (2, SINK, t + 3 * US, 2 * US, i);
    gpuprof_ring_push (ring, &ev);
    ev = chain (2, B, t + 1 * US, 8 * US, i);
    gpuprof_ring_push (ring, &ev);
  }
  return NULL;
}

static void
add_element (GpuprofSnapshot * snap, guint32 id, const gchar * role,
    guint64 calls)
{
  GpuprofElementRow row = { 0, };

  row.path = g_strdup (element_names[id - 1]);
  row.factory = g_strdup ("identity");
  row.role = g_strdup (role);
  row.thread = g_strdup ("src:src");
  row.buffers_in = row.buffers_out = row.calls = calls;
  g_array_append_val (snap->elements, row);
}

static gchar *
scenario_summary (void)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipeline0");
  gchar *json;

  add_element (snap, SRC, "source", N_BUFFERS);
  add_element (snap, A, "filter", N_BUFFERS);
  add_element (snap, Q, "queue", N_BUFFERS);
  add_element (snap, B, "filter", N_BUFFERS);
  add_element (snap, SINK, "sink", N_BUFFERS);
  json = gpuprof_summary_to_json (snap);
  gpuprof_snapshot_free (snap);
  return json;
}

static void
run_scenario (GpuprofTrace * trace)
{
  GThread *up = g_thread_new ("up", upstream, trace);
  GThread *down = g_thread_new ("down", downstream, trace);

  g_thread_join (up);
  g_thread_join (down);
}

static void
test_scenario (void)
{
  gchar *path = g_build_filename (tmpdir, "scenario.json", NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (path, &names, 0, NULL, NULL);
  gchar *summary = scenario_summary ();
  gchar *chain_a = g_strdup_printf ("pipeline0/a=%d", N_BUFFERS);
  gchar *chain_sink = g_strdup_printf ("pipeline0/sink=%d", N_BUFFERS);
  gchar *async_q = g_strdup_printf ("pipeline0/q=%d", N_BUFFERS);
  const gchar *opts[] = { "--summary", "--counts-from-summary", "--chain",
    chain_a, "--chain", chain_sink, "--async", async_q, NULL
  };
  const gchar *killed[] = { "--truncated", "--chain", chain_a, NULL };
  GpuprofTraceStats st;
  GError *err = NULL;

  g_assert_nonnull (trace);
  run_scenario (trace);

  /* after a flush the file is what a SIGKILL would leave behind */
  gpuprof_trace_flush (trace);
  g_assert_cmpint (gpuprof_test_check_trace (path, killed), ==, 0);

  g_assert_true (gpuprof_trace_close (trace, summary, &err));
  g_assert_no_error (err);
  gpuprof_trace_get_stats (trace, &st);
  g_assert_cmpuint (st.events_lost, ==, 0);
  g_assert_false (st.capped);
  g_assert_cmpint (gpuprof_test_check_trace (path, opts), ==, 0);
  g_assert_cmpuint (gpuprof_test_printerr_count, ==, 0);

  gpuprof_test_trace_free (trace);
  g_free (summary);
  g_free (chain_a);
  g_free (chain_sink);
  g_free (async_q);
  g_free (path);
}

static void
push_many (GpuprofTrace * trace, guint n)
{
  GpuprofRing *ring = gpuprof_test_trace_ring (trace, 3);
  guint i;

  for (i = 0; i < n; i++) {
    GpuprofEvent ev = chain (3, 1 + i % 5, 1000 * US + i * US, US / 2, i);

    if (!gpuprof_ring_push (ring, &ev)) {
      gpuprof_trace_flush (trace);
      i--;
    }
  }
}

static void
test_unwritable_path (void)
{
  GError *err = NULL;
  GpuprofTrace *trace;

  gpuprof_test_printerr_count = 0;
  trace = gpuprof_test_trace_new ("/nonexistent-gpuprof-dir/run.json", &names, 0,
      NULL, &err);
  g_assert_null (trace);
  g_assert_error (err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_nonnull (strstr (err->message, "/nonexistent-gpuprof-dir/run.json"));
  g_assert_nonnull (strstr (err->message, g_strerror (ENOENT)));
  g_assert_cmpuint (gpuprof_test_printerr_count, ==, 1);
  g_clear_error (&err);

  /* a full disk at the first write */
  gpuprof_test_printerr_count = 0;
  trace = gpuprof_test_trace_new ("/dev/full", &names, 0, NULL, &err);
  g_assert_null (trace);
  g_assert_nonnull (err);
  g_assert_nonnull (strstr (err->message, g_strerror (ENOSPC)));
  g_assert_cmpuint (gpuprof_test_printerr_count, ==, 1);
  g_clear_error (&err);
}

/* The disk fills up in the middle of the run (a file size limit stands in
 * for it): one error, then pushes go on and are counted. */
static void
test_disk_full_mid_run (void)
{
  gchar *path = g_build_filename (tmpdir, "full.json", NULL);
  struct rlimit old, small;
  GpuprofTraceStats st;
  GpuprofTrace *trace;
  GError *err = NULL;

  signal (SIGXFSZ, SIG_IGN);
  getrlimit (RLIMIT_FSIZE, &old);
  small = old;
  small.rlim_cur = 64 * 1024;
  setrlimit (RLIMIT_FSIZE, &small);

  gpuprof_test_printerr_count = 0;
  trace = gpuprof_test_trace_new (path, &names, 0, NULL, &err);
  g_assert_nonnull (trace);
  push_many (trace, 20000);
  gpuprof_trace_flush (trace);
  push_many (trace, 1000);
  g_assert_false (gpuprof_trace_close (trace, "{}", &err));
  g_assert_nonnull (err);
  g_assert_nonnull (strstr (err->message, path));
  g_clear_error (&err);
  gpuprof_trace_get_stats (trace, &st);
  g_assert_true (st.failed);
  g_assert_cmpuint (st.events_dropped, >, 0);
  g_assert_cmpuint (gpuprof_test_printerr_count, ==, 1);
  gpuprof_test_trace_free (trace);

  setrlimit (RLIMIT_FSIZE, &old);
  g_free (path);
}

static void
test_size_cap (void)
{
  gchar *path = g_build_filename (tmpdir, "capped.json", NULL);
  const gchar *opts[] = { "--summary", NULL };
  GpuprofTrace *trace = gpuprof_test_trace_new (path, &names, 32 * 1024, NULL,
      NULL);
  GpuprofTraceStats st;
  gchar *contents, *line;
  gsize len;

  push_many (trace, 5000);
  g_assert_true (gpuprof_trace_close (trace, "{\"schema\":\"x\"}", NULL));
  gpuprof_trace_get_stats (trace, &st);
  g_assert_true (st.capped);
  g_assert_cmpuint (st.events_dropped, >, 0);
  g_assert_cmpuint (st.events_written, <, 5000);

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  /* events stop below the cap; the closing records may go past it */
  g_assert_cmpuint (len, <, 32 * 1024 + 1024);
  g_assert_nonnull (strstr (contents, "\"gpuprof trace capped\""));
  g_assert_nonnull ((line = strstr (contents, "\"capped\":true")));
  g_assert_cmpint (gpuprof_test_check_trace (path, opts), ==, 0);
  line = gpuprof_trace_describe (trace);
  g_assert_nonnull (strstr (line, "capped at"));
  g_free (line);
  g_free (contents);
  gpuprof_test_trace_free (trace);
  g_free (path);
}

static void
test_element_filter (void)
{
  gchar *path = g_build_filename (tmpdir, "filtered.json", NULL);
  GRegex *re = g_regex_new ("/a$", 0, 0, NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (path, &names, 0, re, NULL);
  const gchar *opts[] = { "--chain", "pipeline0/a=200", "--chain",
    "pipeline0/b=0", NULL
  };
  GpuprofTraceStats st;

  g_regex_unref (re);
  push_many (trace, 1000);
  g_assert_true (gpuprof_trace_close (trace, NULL, NULL));
  gpuprof_trace_get_stats (trace, &st);
  g_assert_cmpuint (st.events_filtered, ==, 800);
  g_assert_cmpint (gpuprof_test_check_trace (path, opts), ==, 0);
  gpuprof_test_trace_free (trace);
  g_free (path);
}

int
main (int argc, char **argv)
{
  tmpdir = gpuprof_test_core_init (&argc, &argv, "gpuprof-trace-XXXXXX");
  gpuprof_test_count_printerr ();
  g_assert_nonnull (g_getenv ("CHECK_TRACE"));
  names = gpuprof_test_trace_names (element_names);

  g_test_add_func ("/trace/scenario", test_scenario);
  g_test_add_func ("/trace/unwritable-path", test_unwritable_path);
  g_test_add_func ("/trace/disk-full-mid-run", test_disk_full_mid_run);
  g_test_add_func ("/trace/size-cap", test_size_cap);
  g_test_add_func ("/trace/element-filter", test_element_filter);
  return gpuprof_test_tmpdir_done (tmpdir, g_test_run ());
}
