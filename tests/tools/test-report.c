/* `gst-gpuprof report` prints exactly what gpuprof_report_format() printed
 * for the live snapshot — from a saved summary and from a trace holding the
 * summary — and, for a trace cut off before its summary, a report rebuilt
 * from the events with a note on stderr. GST_GPUPROF names the tool. */
#include <gst/gst.h>
#include <string.h>

#include "gpuprof-report.h"
#include "gpuprof-snapshot.h"
#include "gpuprof-summary.h"
#include "gpuprof-trace.h"
#include "gpuprof-test-core.h"
#include "tools-report-util.h"

static gchar *tmpdir;

static void
add_element (GpuprofSnapshot * snap, const gchar * path, const gchar * role,
    const gchar * thread, guint64 calls, guint64 per_call, gdouble busy)
{
  GpuprofElementRow e = { 0, };

  e.path = g_strdup (path);
  e.factory = g_strdup ("identity");
  e.role = g_strdup (role);
  e.thread = g_strdup (thread);
  e.buffers_in = e.buffers_out = e.calls = calls;
  e.self_ns = calls * per_call;
  e.incl_ns = e.self_ns + calls * 1234;
  e.self_p50_ns = per_call;
  e.self_p95_ns = per_call * 11 / 10;
  e.self_p99_ns = per_call * 12 / 10;
  e.self_max_ns = per_call * 3;
  e.thread_self_ns = e.self_ns;
  e.thread_wall_ns = (guint64) (e.self_ns / busy);
  e.busy = busy;
  /* every column must survive the round trip (blocked_ns was once lost) */
  e.blocked_ns = calls * 777;
  g_array_append_val (snap->elements, e);
}

static GpuprofSnapshot *
live_snapshot (void)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipeline0");
  GpuprofQueueRow q = { 0, };
  GpuprofThreadRow t = { 0, };

  snap->wall_ns = G_GUINT64_CONSTANT (2345678901);
  add_element (snap, "pipeline0/sink", "sink", "q:src", 700, 15000, 0.0045);
  add_element (snap, "pipeline0/dec", "filter", "src:src", 700, 3100000,
      0.94);
  add_element (snap, "pipeline0/conv", "filter", "q:src", 700, 700001, 1.0 / 3);
  q.path = g_strdup ("pipeline0/q");
  q.buffers = 700;
  q.residency_p50_ns = 1500000;
  q.residency_p99_ns = 9000000;
  q.residency_max_ns = 12345678;
  q.residency_mean_ns = 2000000;
  q.max_level_buffers = 200;
  q.max_level_bytes = 819200;
  q.backpressure_ns = 123456789;
  q.upstream_wall_ns = G_GUINT64_CONSTANT (2300000000);
  q.drops = 3;
  g_array_append_val (snap->queues, q);
  t.name = g_strdup ("src:src");
  t.wall_ns = G_GUINT64_CONSTANT (2300000000);
  t.busy_ns = G_GUINT64_CONSTANT (2170000000);
  t.top_element = g_strdup ("pipeline0/dec");
  g_array_append_val (snap->threads, t);
  t.name = g_strdup ("q:src");
  t.busy_ns = 500000000;
  t.top_element = g_strdup ("pipeline0/conv");
  g_array_append_val (snap->threads, t);
  gpuprof_snapshot_sort (snap);
  gpuprof_snapshot_compute_verdict (snap);
  return snap;
}

static void
test_report_from_summary (void)
{
  GpuprofSnapshot *snap = live_snapshot ();
  gchar *live = gpuprof_report_format (snap);
  gchar *path = g_build_filename (tmpdir, "run.json", NULL);

  g_assert_true (gpuprof_summary_save (snap, path, NULL));
  tools_assert_report_equals (path, live);
  g_free (path);
  g_free (live);
  gpuprof_snapshot_free (snap);
}

/* element ids 1, 2, 3 */
static const gchar *const element_names[] = { "pipeline0/a", "pipeline0/q",
  "pipeline0/b", NULL
};

static GpuprofTraceNames names;

/* 100 buffers: a (2 µs self) and q on thread 1, b (5 µs self) on thread 2 */
static void
push_events (GpuprofTrace * trace)
{
  GpuprofRing *r1 = gpuprof_test_trace_ring (trace, 1);
  GpuprofRing *r2 = gpuprof_test_trace_ring (trace, 2);
  guint64 i;

  for (i = 0; i < 100; i++) {
    guint64 t = 1000000 + i * 20000;
    GpuprofEvent qin = { GPUPROF_EVENT_QUEUE_IN, 2, 0, 1, t + 2500, 0, i,
      G_MAXUINT64, 100, 0, i + 1, 0
    };
    GpuprofEvent q = { GPUPROF_EVENT_CHAIN, 2, 0, 1, t + 2000, 1000, i,
      G_MAXUINT64, 100, 1000, i + 1, 0
    };
    GpuprofEvent a = { GPUPROF_EVENT_CHAIN, 1, 0, 1, t, 4000, i, G_MAXUINT64,
      100, 2000, i + 1, 0
    };
    GpuprofEvent qout = { GPUPROF_EVENT_QUEUE_OUT, 2, 0, 2, t + 6500, 0, i,
      G_MAXUINT64, 100, 0, i + 1, 0
    };
    GpuprofEvent b = { GPUPROF_EVENT_CHAIN, 3, 0, 2, t + 7000, 5000, i,
      G_MAXUINT64, 100, 5000, i + 1, 0
    };

    gpuprof_ring_push (r1, &qin);
    gpuprof_ring_push (r1, &q);
    gpuprof_ring_push (r1, &a);
    gpuprof_ring_push (r2, &qout);
    gpuprof_ring_push (r2, &b);
  }
}

static void
test_report_from_trace (void)
{
  GpuprofSnapshot *snap = live_snapshot ();
  gchar *live = gpuprof_report_format (snap);
  gchar *json = gpuprof_summary_to_json (snap);
  gchar *path = g_build_filename (tmpdir, "trace.json", NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (path, &names, 0, NULL, NULL);

  push_events (trace);
  g_assert_true (gpuprof_trace_close (trace, json, NULL));
  gpuprof_test_trace_free (trace);
  tools_assert_report_equals (path, live);

  g_free (path);
  g_free (json);
  g_free (live);
  gpuprof_snapshot_free (snap);
}

static void
test_report_from_killed_trace (void)
{
  gchar *path = g_build_filename (tmpdir, "killed.json", NULL);
  gchar *copy = g_build_filename (tmpdir, "killed-copy.json", NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (path, &names, 0, NULL, NULL);
  gchar *contents, *out, *err;
  gsize len;

  push_events (trace);
  gpuprof_trace_flush (trace);
  /* the file as a SIGKILL now would leave it */
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (copy, contents, len, NULL));

  g_assert_cmpint (tools_run_report (copy, &out, &err), ==, 0);
  g_assert_nonnull (strstr (err, "no run summary in the trace"));
  g_assert_nonnull (strstr (err, "300 chain events"));
  g_assert_nonnull (strstr (out, "pipeline0/a"));
  g_assert_nonnull (strstr (out, "pipeline0/q"));
  /* b: 5 µs of self time per buffer, the most on its thread */
  g_assert_nonnull (strstr (out, "limit: stage pipeline0/b"));
  g_assert_nonnull (strstr (out, "on thread q:src"));

  g_free (out);
  g_free (err);
  g_free (contents);
  gpuprof_test_trace_free (trace);
  g_free (copy);
  g_free (path);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("GST_GPUPROF"));
  names = gpuprof_test_trace_names (element_names);
  tmpdir = gpuprof_test_tmpdir_new ("gpuprof-tools-XXXXXX");
  g_test_add_func ("/report/from-summary", test_report_from_summary);
  g_test_add_func ("/report/from-trace", test_report_from_trace);
  g_test_add_func ("/report/from-killed-trace", test_report_from_killed_trace);
  return gpuprof_test_tmpdir_done (tmpdir, g_test_run ());
}
