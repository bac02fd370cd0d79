/* GPU work launched while an element handles an event, a query or a state
 * change is that element's (issue 11): the tracer (GST_TRACERS, with the
 * fake libcupti) pushes the handling element on the GPU hot path in its
 * event, query and state-change hooks, as it does around chain calls.
 *   fakesrc ! identity name=up ! identity name=drain ! fakesink, and a
 *   padless "launcher" element in the same pipeline
 * up launches in its chain calls (the control); drain launches from probes
 * on its sink pad while it receives EOS (the decoder draining at EOS in the
 * issue, which went to the upstream element) and the allocation query; the
 * launcher in its READY->PAUSED change (pool allocation, which went to
 * "unattributed (thread ...)"). Each kernel name must be charged, exactly
 * as many times as launched (counted here), to the element that launched
 * it, on both collection paths. FAKE_CUPTI_PATH names the fake library.
 * Also (issue 9): work launched on a thread an element created, outside any
 * call, goes to that element; an application thread's is listed by name;
 * to the batch it was for, when the thread waits on the GPU after each
 * batch or records an event (nvinfer's input thread). */
#include <gst/gst.h>
#include <string.h>

#include <cupti.h>

#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"
#include "gpuprof-test-cupti.h"
#include "gpuprof-test-async.h"
#include "gpuprof-test-gate.h"

static GpuprofTestLaunch launch;
static gint n_chain, n_eos, n_alloc, n_state;
static gboolean launcher_spawns;        /* a thread instead of state work */

/* ---- GPU work on threads of their own ---- */

/* kernels @name launched outside any call of any element: nvinfer's input
 * thread */
typedef struct
{
  const gchar *name;
  gint n;
} Launches;

static void
launch_many (gpointer data)
{
  const Launches *l = data;
  gint i;

  for (i = 0; i < l->n; i++)
    launch (0, l->name, 100, 0);
}

static const Launches worker_launches = { "owned_kernel", 200 };
static const Launches app_launches = { "app_kernel", 3 };
static GpuprofTestGate worker_thread;

/* ---- a padless element that launches GPU work in a state change, or
 * creates a thread that does ---- */

typedef GstElement TestLauncher;
typedef GstElementClass TestLauncherClass;
GType test_launcher_get_type (void);
G_DEFINE_TYPE (TestLauncher, test_launcher, GST_TYPE_ELEMENT);

static GstStateChangeReturn
test_launcher_change_state (GstElement * e, GstStateChange t)
{
  if (t == GST_STATE_CHANGE_READY_TO_PAUSED && launcher_spawns) {
    /* its private thread, created here as nvinfer does */
    gpuprof_test_gate_start (&worker_thread, "infer-input", launch_many,
        (gpointer) & worker_launches);
  } else if (t == GST_STATE_CHANGE_READY_TO_PAUSED) {
    launch (2, NULL, 5000, 9 << 20);    /* a pool's memset */
    launch (0, "state_kernel", 700, 0);
    g_atomic_int_add (&n_state, 1);
  }
  return GST_ELEMENT_CLASS (test_launcher_parent_class)->change_state (e, t);
}

static void
test_launcher_class_init (TestLauncherClass * klass)
{
  klass->change_state = test_launcher_change_state;
  gst_element_class_set_static_metadata (klass, "launcher", "Testing",
      "launches GPU work in READY->PAUSED", "gpuprof");
}

static void
test_launcher_init (TestLauncher * self)
{
}

/* ---- launches ---- */

static void
on_handoff (GstElement * identity, GstBuffer * buf, gpointer data)
{
  launch (0, "chain_kernel", 1000, 0);
  g_atomic_int_add (&n_chain, 1);
}

static GstPadProbeReturn
on_drain_sink (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if ((info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM)
      && GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    launch (0, "eos_kernel", 300, 0);
    g_atomic_int_add (&n_eos, 1);
  }
  if ((info->type & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM)
      && GST_QUERY_TYPE (GST_PAD_PROBE_INFO_QUERY (info)) ==
      GST_QUERY_ALLOCATION) {
    launch (0, "alloc_kernel", 200, 0);
    g_atomic_int_add (&n_alloc, 1);
  }
  return GST_PAD_PROBE_OK;
}

/* count, element path and id of kernel @name; FALSE when charged to
 * several */
static gboolean
kernel_owner (const gchar * name, guint64 * count, gchar ** path,
    guint32 * element_id)
{
  GArray *k = gpuprof_gpu_get_top_kernels (GPUPROF_GPU_CHANNEL_TRACER, 1000);
  guint i, rows = 0;

  *count = 0;
  *path = NULL;
  for (i = 0; i < k->len; i++) {
    GpuprofGpuKernelStats *s = &g_array_index (k, GpuprofGpuKernelStats, i);
    if (g_strcmp0 (s->name, name))
      continue;
    rows++;
    *count += s->count;
    *element_id = s->element_id;
    g_free (*path);
    *path = s->element_id ? gpuprof_gpu_element_path
        (GPUPROF_GPU_CHANNEL_TRACER, s->element_id) : g_strdup ("none");
  }
  g_array_unref (k);
  return rows == 1;
}

/* @name launched @launched times, all charged to @element (a path
 * suffix); returns the element's id */
static guint32
check_kernel (const gchar * name, gint launched, const gchar * element)
{
  guint64 count;
  gchar *path;
  guint32 id = 0;

  g_assert_cmpint (launched, >, 0);
  if (!kernel_owner (name, &count, &path, &id))
    g_error ("%s charged to more than one element (last: %s)", name,
        path ? path : "-");
  g_assert_cmpuint (count, ==, (guint64) launched);
  g_assert_nonnull (path);
  if (!g_str_has_suffix (path, element))
    g_error ("%s charged to %s, not %s", name, path, element);
  g_free (path);
  return id;
}

static void
test_handlers_charged (void)
{
  GstElement *p = gpuprof_test_cupti_handoff_pipeline (5, "up", "drain");
  GstElement *up = gst_bin_get_by_name (GST_BIN (p), "up");
  GstElement *drain = gst_bin_get_by_name (GST_BIN (p), "drain");
  GstElement *launcher = g_object_new (test_launcher_get_type (), "name",
      "launcher", NULL);
  GstPad *sink = gst_element_get_static_pad (drain, "sink");
  GpuprofGpuTotals t;

  gst_bin_add (GST_BIN (p), launcher);
  g_signal_connect (up, "handoff", G_CALLBACK (on_handoff), NULL);
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, on_drain_sink, NULL, NULL);
  gpuprof_test_cupti_play_to_eos (p);

  /* the tracer flushed CUPTI at the pipeline's EOS */
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  g_assert_cmpuint (t.records, ==, (guint64) (n_chain + n_eos + n_alloc +
          2 * n_state));
  g_assert_cmpuint (t.external_ns + t.thread_ns + t.unattributed_ns, ==,
      t.total_ns);
  check_kernel ("chain_kernel", n_chain, "/up");
  check_kernel ("eos_kernel", n_eos, "/drain");
  check_kernel ("alloc_kernel", n_alloc, "/drain");
  check_kernel ("state_kernel", n_state, "/launcher");
  /* nothing left unattributed: the pool's memset is the launcher's too */
  g_assert_cmpuint (t.unattributed_ns, ==, 0);

  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (up);
  gst_object_unref (drain);
  gst_object_unref (p);
}

/* unattributed row of thread @prefix ("name, tid N"), NULL when none */
static gboolean
unattributed_thread (const gchar * prefix, GpuprofGpuThreadStats * out)
{
  GArray *un = gpuprof_gpu_get_unattributed (GPUPROF_GPU_CHANNEL_TRACER);
  gboolean found = FALSE;
  guint i;

  for (i = 0; i < un->len && !found; i++) {
    GpuprofGpuThreadStats *s = &g_array_index (un, GpuprofGpuThreadStats, i);
    if ((found = g_str_has_prefix (s->name, prefix)))
      *out = *s;
  }
  g_array_unref (un);
  return found;
}

/* Issue 9 item 4: GPU work on a thread an element created goes to it (the
 * tracer learns the owner in gpuprof-owners.c and tells the GPU side);
 * work on an application thread is listed by the thread's name. */
static void
test_owned_threads (void)
{
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=1 ! fakesink", NULL);
  GstElement *worker = g_object_new (test_launcher_get_type (), "name",
      "worker", NULL);
  GpuprofTestGate app;
  GpuprofGpuTotals before, after;
  GpuprofGpuThreadStats row = { 0, };
  guint64 owned_ns, app_ns;

  /* the application's own thread, there before the pipeline */
  gpuprof_test_gate_start (&app, "appthread", launch_many,
      (gpointer) & app_launches);
  launcher_spawns = TRUE;
  gst_bin_add (GST_BIN (p), worker);
  g_assert_cmpint (gst_element_set_state (p, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (gst_element_get_state (p, NULL, NULL, GST_CLOCK_TIME_NONE),
      ==, GST_STATE_CHANGE_SUCCESS);
  g_assert_nonnull (worker_thread.thread);
  gpuprof_cupti_flush (TRUE);
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &before);
  gpuprof_test_gate_run (&worker_thread);
  gpuprof_test_gate_run (&app);
  gpuprof_cupti_flush (TRUE);
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &after);

  g_assert_cmpuint (after.records - before.records, ==, 203);
  check_kernel ("owned_kernel", 200, "/worker");
  /* all the owned thread's work attributed (>= 99 % asked), the rest is
   * the application thread's, by name */
  owned_ns = 200 * 100;
  app_ns = 3 * 100;
  g_assert_cmpuint (after.unattributed_ns - before.unattributed_ns, ==,
      app_ns);
  g_assert_cmpuint ((after.external_ns + after.thread_ns) -
      (before.external_ns + before.thread_ns), ==, owned_ns);
  g_assert_true (unattributed_thread ("appthread, tid ", &row));
  g_assert_cmpuint (row.cost.kernels, ==, 3);

  gst_element_set_state (p, GST_STATE_NULL);
  gpuprof_test_gate_end (&worker_thread);
  gpuprof_test_gate_end (&app);
  gst_object_unref (p);
}

/* ---- an asynchronous element's worker launching per batch ---- */

typedef guint64 (*SyncFunc) (gint domain, guint32 cbid, guint64 dur_ns,
    guint64 * outer_ns);
static SyncFunc fake_sync;
static const gchar *batch_kernel;      /* a name per test: stats add up */

/* the batch each launch was for, as the element counted it (a funnel
 * numbers its pushes 1, 2, ...: the batch numbers); its duration 100 + n
 * ns says which */
static void
launch_per_batch (GstElement * element, guint64 n, gpointer data)
{
  launch (0, batch_kernel, 100 + n, 0);
  /* as nvinfer's engine: wait for the batch's work before the next */
  if (GPOINTER_TO_INT (data))
    fake_sync (1, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1000,
        NULL);
}

/* Issue 9 item 4: nvinfer's input thread launches for the batch it took;
 * the GPU work goes to the element owning the thread and, at launch (the
 * callback path), to the batch: @pipelined FALSE, one batch inside at a
 * time (the oldest in flight is the one worked on); TRUE, up to 4 inside
 * and a slow element after it, so older batches still wait to be pushed
 * while the worker launches for the next — the worker's synchronize after
 * each batch moves it to the next batch. Each batch must have exactly the
 * kernel launched for it. */
static void
run_async_owner_batch (const gchar * path, gboolean pipelined)
{
  gchar *desc = g_strdup_printf ("fakesrc num-buffers=20 sizetype=fixed "
      "sizemax=64 ! funnel name=mux ! gpuprofasync name=infer work-us=200 "
      "max-in-flight=%d ! identity sleep-time=%d ! fakesink sync=false",
      pipelined ? 4 : 1, pipelined ? 3000 : 0);
  GstElement *p = gst_parse_launch (desc, NULL);
  guint32 infer_id;
  guint i;

  batch_kernel = pipelined ? "pipelined_kernel" : "batch_kernel";
  gpuprof_test_async_set_work_hook (launch_per_batch,
      GINT_TO_POINTER (pipelined));
  gpuprof_test_cupti_play_to_eos (p);
  gpuprof_cupti_flush (TRUE);

  infer_id = check_kernel (batch_kernel, 20, "/infer");
  g_assert_cmpuint (infer_id, !=, 0);
  /* read at launch on the callback path only (docs/gpu.md) */
  if (!g_strcmp0 (path, "callback")) {
    for (i = 1; i <= 20; i++) {
      GpuprofGpuCost c;

      if (!gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, infer_id,
              i, &c))
        g_error ("batch %u of infer has no GPU cost", i);
      g_assert_cmpuint (c.kernels, ==, 1);
      g_assert_cmpuint (c.kernel_ns, ==, 100 + i);
    }
  }
  gpuprof_test_async_set_work_hook (NULL, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

static void
test_async_owner_batch (gconstpointer path)
{
  run_async_owner_batch (path, FALSE);
}

/* the callback path's batch at launch only: on the activity path a record
 * is settled later, when the batches inside have moved on (docs/gpu.md) */
static void
test_async_owner_batch_pipelined (gconstpointer path)
{
  if (g_strcmp0 (path, "callback")) {
    g_test_skip ("the batch at launch is the callback path's");
    return;
  }
  run_async_owner_batch (path, TRUE);
}

/* ---- nvinfer's model: the input thread launches a batch and records an
 * event, never waits; the output thread waits on the event, then pushes
 * ---- */

#define EVENT_KERNELS 3         /* per batch */

static GpuprofTestEventRecord fake_event_record;
static GMutex event_lock;
static GCond event_cond;
static guint64 event_recorded;  /* the last batch the input thread closed */
static guint64 event_batches;   /* batches in the run */

/* kernel @k of batch @n: its duration says which batch it was for */
static guint64
event_kernel_ns (guint64 n, guint k)
{
  return 1000 * n + k;
}

static void
launch_and_record (GstElement * element, guint64 n, gpointer data)
{
  guint k;

  for (k = 0; k < EVENT_KERNELS; k++)
    launch (0, "event_kernel", event_kernel_ns (n, k), 0);
  fake_event_record (1, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020);
  g_mutex_lock (&event_lock);
  event_recorded = n;
  g_cond_broadcast (&event_cond);
  g_mutex_unlock (&event_lock);
}

/* on the output thread: batch @n leaves only once the input thread has
 * launched the next, so that it launches while @n is still in flight */
static void
wait_then_push (GstElement * element, guint64 n, gpointer data)
{
  guint64 *waited_ns = data;

  g_mutex_lock (&event_lock);
  while (event_recorded < MIN (n + 1, event_batches))
    g_cond_wait (&event_cond, &event_lock);
  g_mutex_unlock (&event_lock);
  *waited_ns += fake_sync (1, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
      20000, NULL);
}

/* Issue 9: analyticsinfer's threading. Each batch's kernels, launched on
 * the input thread while older batches wait on the output thread, go to
 * the element and to the batch the element worked on (its own count): the
 * event record after a batch's last launch moves the input thread to the
 * next batch. The output thread's waits are the element's. Callback path
 * only (the batch at launch). */
static void
test_async_event_batches (gconstpointer path)
{
  GstElement *p;
  GpuprofGpuWait wait;
  guint64 waited_ns = 0, n, calls;
  guint32 infer_id;

  if (g_strcmp0 (path, "callback")) {
    g_test_skip ("the batch at launch is the callback path's");
    return;
  }
  event_batches = 20;
  event_recorded = 0;
  p = gst_parse_launch ("fakesrc num-buffers=20 sizetype=fixed sizemax=64 "
      "! funnel name=mux ! gpuprofasync name=infer max-in-flight=4 "
      "! fakesink sync=false", NULL);
  gpuprof_test_async_set_work_hook (launch_and_record, NULL);
  gpuprof_test_async_set_output_hook (wait_then_push, &waited_ns);
  gpuprof_test_cupti_play_to_eos (p);
  gpuprof_cupti_flush (TRUE);

  /* the batches the element worked on, as it counted them */
  calls = event_recorded;
  g_assert_cmpuint (calls, ==, event_batches);
  infer_id = check_kernel ("event_kernel", EVENT_KERNELS * calls, "/infer");
  for (n = 1; n <= calls; n++) {
    GpuprofGpuCost c;
    guint64 want_ns = 0;
    guint k;

    for (k = 0; k < EVENT_KERNELS; k++)
      want_ns += event_kernel_ns (n, k);
    if (!gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, infer_id,
            n, &c))
      g_error ("batch %" G_GUINT64_FORMAT " of infer has no GPU cost", n);
    if (c.kernels != EVENT_KERNELS || c.kernel_ns != want_ns)
      g_error ("batch %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " kernels, "
          "%" G_GUINT64_FORMAT " ns; launched for it: %d kernels, %"
          G_GUINT64_FORMAT " ns", n, c.kernels, c.kernel_ns, EVENT_KERNELS,
          want_ns);
  }
  /* the output thread's waits: the element's, at least what the fake
   * measured between its callbacks */
  gpuprof_gpu_get_wait (GPUPROF_GPU_CHANNEL_TRACER, infer_id, 0, &wait);
  g_assert_cmpuint (wait.waits, ==, calls);
  g_assert_cmpuint (wait.wait_ns, >=, waited_ns);

  gpuprof_test_async_set_work_hook (NULL, NULL);
  gpuprof_test_async_set_output_hook (NULL, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

int
main (int argc, char **argv)
{
  gchar *params = g_strdup_printf ("cupti-path=%s",
      argc > 1 ? argv[1] : "callback");
  gboolean fake = gpuprof_test_fake_cupti_tracers (params);

  g_free (params);
  if (!fake) {
    g_print ("no fake libcupti: skipped\n");
    return 77;
  }
  g_test_init (&argc, &argv, NULL);
  gst_init (&argc, &argv);
  launch = gpuprof_test_fake_cupti_launch ();
  g_test_add_func ("/gpu-events/handlers-charged", test_handlers_charged);
  g_test_add_func ("/gpu-events/owned-threads", test_owned_threads);
  gpuprof_test_register_async ();
  fake_sync = gpuprof_test_fake_cupti_symbol ("fake_cupti_sync");
  g_test_add_data_func ("/gpu-events/async-owner-batch",
      argc > 1 ? argv[1] : "callback", test_async_owner_batch);
  g_test_add_data_func ("/gpu-events/async-owner-batch-pipelined",
      argc > 1 ? argv[1] : "callback", test_async_owner_batch_pipelined);
  fake_event_record = gpuprof_test_fake_cupti_event_record ();
  g_test_add_data_func ("/gpu-events/async-event-batches",
      argc > 1 ? argv[1] : "callback", test_async_event_batches);
  return g_test_run ();
}
