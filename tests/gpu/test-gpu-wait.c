/* Waiting on the GPU (issue 9 item 2, gpu_wait_ns): the tracer (GST_TRACERS,
 * the fake libcupti) sees the synchronizing calls through CUPTI callbacks
 * and charges their time to what the waiting thread is doing:
 *  - an identity whose handoff (in its chain call) does planted work, then
 *    a runtime cudaStreamSynchronize (its driver call nested): the wait is
 *    its gpu_wait_ns, not its work: self time and busy keep the work only;
 *  - the worker thread of a gpuprofasync (a thread it owns, outside calls)
 *    waiting in cuStreamSynchronize: the owner's;
 *  - an application thread: its unattributed row.
 * Truth is the fake's own clock around each wait, in the same run: the
 * tracer's figure lies between the time inside the callbacks and the time
 * around them. Both collection paths (argv[1]). Under valgrind
 * (GPUPROF_TEST_NO_TIMING) the work bound is not checked. */
#include <gst/gst.h>
#include <string.h>

#include <cupti.h>

#include "gpuprof-gpu.h"
#include "gpuprof-test-cupti.h"
#include "gpuprof-test-async.h"
#include "gpuprof-test-gate.h"
#include "gpuprof-test-tracer.h"
#include "gpuprof-test-util.h"
#include "gpuprof-test-work.h"

typedef guint64 (*FakeSync) (gint domain, guint32 cbid, guint64 dur_ns,
    guint64 * outer_ns);

static FakeSync fake_sync;

/* what the waits really took: inside and around the callbacks */
typedef struct
{
  guint64 inner, outer, n;
} WaitTruth;

static void
sync_counted (WaitTruth * t, gint domain, guint32 cbid, guint64 dur_ns)
{
  guint64 outer = 0;

  t->inner += fake_sync (domain, cbid, dur_ns, &outer);
  t->outer += outer;
  t->n++;
}

static void
assert_wait (const gchar * what, guint64 measured, const WaitTruth * t)
{
  g_assert_cmpuint (t->n, >, 0);
  if (measured < t->inner || measured > t->outer)
    g_error ("%s: gpu wait %" G_GUINT64_FORMAT " ns, the fake measured %"
        G_GUINT64_FORMAT " ns inside its callbacks, %" G_GUINT64_FORMAT
        " around them (%" G_GUINT64_FORMAT " waits)", what, measured,
        t->inner, t->outer, t->n);
}

/* ---- in a chain call ---- */

static WaitTruth chain_wait;
static guint64 chain_work_ns;
static guint64 chain_first_work_ns;     /* of the first call: start-up */

static void
spin_ns (guint64 ns)
{
  guint64 end = gpuprof_test_now_ns () + ns;

  while (gpuprof_test_now_ns () < end);
}

static void
on_handoff (GstElement * identity, GstBuffer * buf, gpointer data)
{
  guint64 t0 = gpuprof_test_now_ns ();

  spin_ns (300 * 1000);
  if (!chain_work_ns)
    chain_first_work_ns = gpuprof_test_now_ns () - t0;
  chain_work_ns += gpuprof_test_now_ns () - t0;
  sync_counted (&chain_wait, 1,
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 5 * 1000 * 1000);
}

/* ---- on an application thread ---- */

static WaitTruth app_wait;

/* an element id no element has: the application thread's last call */
#define APP_LAST_ELEMENT 0x7ff0

static void
app_syncs (gpointer data)
{
  gint i;

  /* a call returned on this thread: its element stays the thread's "last
   * active" one, but a wait after it is not that element's */
  gpuprof_gpu_chain_enter (APP_LAST_ELEMENT, 1);
  gpuprof_gpu_chain_exit ();

  for (i = 0; i < 3; i++)
    sync_counted (&app_wait, 0, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
        1000 * 1000);
}

/* the tracer's row of element @name (get-element-stats; the GstCheck
 * helpers of gpuprof-test-util.h need a check suite) */
static GstStructure *
stats_of (GstElement * p, const gchar * name)
{
  gchar *path = g_strdup_printf ("%s/%s", GST_OBJECT_NAME (p), name);
  GstStructure *s = NULL;

  g_assert_nonnull (gpuprof_test_find_tracer ());
  g_signal_emit_by_name (gpuprof_test_find_tracer (), "get-element-stats",
      path, &s);
  if (!s)
    g_error ("no statistics for %s", path);
  g_free (path);
  return s;
}

static guint64
stat_u64 (GstElement * p, const gchar * name, const gchar * field)
{
  GstStructure *s = stats_of (p, name);
  guint64 v = 0;

  if (!gst_structure_get_uint64 (s, field, &v))
    g_error ("no %s for %s", field, name);
  gst_structure_free (s);
  return v;
}

static gchar *
stat_string (GstElement * p, const gchar * name, const gchar * field)
{
  GstStructure *s = stats_of (p, name);
  gchar *v = g_strdup (gst_structure_get_string (s, field));

  g_assert_nonnull (v);
  gst_structure_free (s);
  return v;
}

/* "work ms" of thread @name in the report's Threads table, in ns */
static guint64
thread_busy_ns (const gchar * report, const gchar * name)
{
  const gchar *table = strstr (report, "\nThreads\n");
  gchar **lines, **cols;
  guint64 ns = G_MAXUINT64;
  guint i;

  g_assert_nonnull (table);
  lines = g_strsplit (table + 1, "\n", -1);
  for (i = 2; lines[i] && *lines[i] && ns == G_MAXUINT64; i++) {
    cols = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
    if (!g_strcmp0 (cols[0], name)) {
      guint c, n = 0;
      /* thread, wall ms, work ms: the second number after the name */
      for (c = 1; cols[c] && n < 2; c++)
        if (*cols[c] && ++n == 2)
          ns = (guint64) (g_ascii_strtod (cols[c], NULL) * 1e6);
    }
    g_strfreev (cols);
  }
  g_strfreev (lines);
  if (ns == G_MAXUINT64)
    g_error ("no thread %s in:\n%s", name, report);
  return ns;
}

static void
test_in_call (void)
{
  GstElement *p = gpuprof_test_cupti_handoff_pipeline (20, "waiter",
      "other");
  GstElement *waiter = gst_bin_get_by_name (GST_BIN (p), "waiter");
  GpuprofTestGate app;
  GArray *un;
  gchar *report = NULL;
  GpuprofGpuWait w;
  gchar *thread;
  guint64 self, thread_self, wait;
  gboolean found = FALSE;
  guint i;

  g_signal_connect (waiter, "handoff", G_CALLBACK (on_handoff), NULL);
  gpuprof_test_cupti_play_to_eos (p);

  wait = stat_u64 (p, "waiter", "gpu_wait_ns");
  assert_wait ("waiter", wait, &chain_wait);
  g_assert_cmpuint (chain_wait.n, ==, 20);
  g_assert_cmpuint (stat_u64 (p, "other", "gpu_wait_ns"), ==, 0);
  /* waiting is not work: self time (wall, the wait excluded) covers the
   * planted work, and far less than the wait on top of it; its thread's
   * self time is the steady state's (the first call is start-up: its
   * work apart, its wait taken out once) */
  self = stat_u64 (p, "waiter", "self_ns");
  thread = stat_string (p, "waiter", "thread");
  thread_self = stat_u64 (p, "waiter", "thread_self_ns");
  if (self < chain_work_ns || (gpuprof_test_timing ()
          && self > chain_work_ns + chain_wait.inner / 2))
    g_error ("waiter self %" G_GUINT64_FORMAT " ns: work %" G_GUINT64_FORMAT
        ", wait %" G_GUINT64_FORMAT, self, chain_work_ns, chain_wait.inner);
  if (thread_self < chain_work_ns - chain_first_work_ns
      || (gpuprof_test_timing ()
          && thread_self > chain_work_ns + chain_wait.inner / 2))
    g_error ("waiter thread self %" G_GUINT64_FORMAT " ns: work %"
        G_GUINT64_FORMAT " after the first call, wait %" G_GUINT64_FORMAT,
        thread_self, chain_work_ns - chain_first_work_ns, chain_wait.inner);

  /* the report shows the wait beside work and blocked */
  g_signal_emit_by_name (gpuprof_test_find_tracer (), "get-report",
      GST_OBJECT_NAME (p), &report);
  g_assert_nonnull (report);
  g_assert_nonnull (strstr (report, "GPU wait ms"));
  /* the waiter's thread is not busy waiting either (Threads table) */
  thread_self = thread_busy_ns (report, thread);
  if (gpuprof_test_timing ()
      && thread_self > chain_work_ns + chain_wait.inner / 2)
    g_error ("thread %s busy %" G_GUINT64_FORMAT " ns: work %"
        G_GUINT64_FORMAT ", wait %" G_GUINT64_FORMAT, thread, thread_self,
        chain_work_ns, chain_wait.inner);
  g_free (report);
  g_free (thread);

  /* a thread nobody owns, outside any call: listed by its name */
  gpuprof_test_gate_start (&app, "waitthread", app_syncs, NULL);
  gpuprof_test_gate_run (&app);
  un = gpuprof_gpu_get_unattributed (GPUPROF_GPU_CHANNEL_TRACER);
  for (i = 0; i < un->len; i++) {
    GpuprofGpuThreadStats *s = &g_array_index (un, GpuprofGpuThreadStats, i);
    if (!g_str_has_prefix (s->name, "waitthread, tid "))
      continue;
    found = TRUE;
    assert_wait ("waitthread", s->wait_ns, &app_wait);
    g_assert_cmpuint (gpuprof_gpu_cost_ns (&s->cost), ==, 0);
  }
  g_array_unref (un);
  g_assert_true (found);
  gpuprof_gpu_get_wait (GPUPROF_GPU_CHANNEL_TRACER, APP_LAST_ELEMENT, 0, &w);
  g_assert_cmpuint (w.wait_ns, ==, 0);
  gpuprof_test_gate_end (&app);

  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (waiter);
  gst_object_unref (p);
}

/* ---- on a thread an element owns ---- */

static WaitTruth worker_wait;

static void
sync_per_batch (GstElement * element, guint64 n, gpointer data)
{
  sync_counted (&worker_wait, 0, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
      2 * 1000 * 1000);
}

static void
test_owner (void)
{
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=10 sizetype=fixed "
      "sizemax=64 ! gpuprofasync name=infer work-us=100 ! "
      "fakesink name=sink sync=false", NULL);

  gpuprof_test_async_set_work_hook (sync_per_batch, NULL);
  gpuprof_test_cupti_play_to_eos (p);
  gpuprof_test_async_set_work_hook (NULL, NULL);
  g_assert_cmpuint (worker_wait.n, ==, 10);
  assert_wait ("infer", stat_u64 (p, "infer", "gpu_wait_ns"), &worker_wait);
  g_assert_cmpuint (stat_u64 (p, "sink", "gpu_wait_ns"), ==, 0);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

int
main (int argc, char **argv)
{
  if (!gpuprof_test_fake_cupti_tracers_args (argc, argv))
    return 77;
  g_test_init (&argc, &argv, NULL);
  gst_init (&argc, &argv);
  fake_sync = gpuprof_test_fake_cupti_symbol ("fake_cupti_sync");
  gpuprof_test_register_async ();
  g_test_add_func ("/gpu-wait/in-call", test_in_call);
  g_test_add_func ("/gpu-wait/owner", test_owner);
  return g_test_run ();
}
