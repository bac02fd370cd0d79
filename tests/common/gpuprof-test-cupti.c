/* The fake libcupti seen from a test: see gpuprof-test-cupti.h. */
#include "gpuprof-test-cupti.h"

#include <dlfcn.h>

#include "gpuprof-clock.h"
#include "gpuprof-gpu.h"

static void *fake_module;

const gchar *
gpuprof_test_fake_cupti_path (void)
{
  return g_getenv ("FAKE_CUPTI_PATH");
}

gpointer
gpuprof_test_fake_cupti_symbol (const gchar * name)
{
  const gchar *path = gpuprof_test_fake_cupti_path ();
  gpointer f;

  if (!path)
    g_error ("FAKE_CUPTI_PATH is not set: no fake libcupti to load %s", name);
  if (!fake_module)
    fake_module = dlopen (path, RTLD_NOW);
  if (!fake_module)
    g_error ("cannot open the fake libcupti %s: %s", path, dlerror ());
  f = dlsym (fake_module, name);
  if (!f)
    g_error ("the fake libcupti %s has no %s", path, name);
  return f;
}

GpuprofTestLaunch
gpuprof_test_fake_cupti_launch (void)
{
  return (GpuprofTestLaunch)
      gpuprof_test_fake_cupti_symbol ("fake_cupti_launch");
}

GpuprofTestEventRecord
gpuprof_test_fake_cupti_event_record (void)
{
  return (GpuprofTestEventRecord)
      gpuprof_test_fake_cupti_symbol ("fake_cupti_event_record");
}

gint
gpuprof_test_fake_cupti_int (const gchar * name, gint arg)
{
  gint (*f) (gint) = gpuprof_test_fake_cupti_symbol (name);

  return f (arg);
}

gboolean
gpuprof_test_fake_cupti_tracers (const gchar * params)
{
  const gchar *path = gpuprof_test_fake_cupti_path ();
  gchar *tracers;

  if (!path)
    return FALSE;
  tracers = g_strdup_printf ("gpuprof(cupti=on,cupti-lib=%s,report=off%s%s)",
      path, params ? "," : "", params ? params : "");
  g_setenv ("GST_TRACERS", tracers, TRUE);
  g_free (tracers);
  return TRUE;
}

const gchar *
gpuprof_test_fake_cupti_tracers_args (gint argc, gchar ** argv)
{
  const gchar *path = argc > 1 ? argv[1] : "callback";
  gchar *params = g_strdup_printf ("cupti-path=%s", path);
  gboolean fake = gpuprof_test_fake_cupti_tracers (params);

  g_free (params);
  if (!fake)
    g_print ("no fake libcupti: skipped\n");
  return fake ? path : NULL;
}

gboolean
gpuprof_test_fake_cupti_start (GpuprofCuptiPath path)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_ON, NULL, 0, 0, path };
  gchar *reason = NULL;

  s.library = gpuprof_test_fake_cupti_path ();
  if (!s.library)
    return FALSE;
  gpuprof_gpu_reset ();
  if (!gpuprof_cupti_start (&s, &reason))
    g_error ("CUPTI did not start on the fake libcupti: %s", reason);
  g_assert_true (gpuprof_cupti_active ());
  g_assert_cmpint (gpuprof_cupti_path (), ==, path);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  /* the loader opened it already: this open shares its copy */
  gpuprof_test_fake_cupti_symbol ("fake_cupti_launch");
  return TRUE;
}

void
gpuprof_test_fake_cupti_stop (void)
{
  gpuprof_cupti_stop ();
  g_assert_false (gpuprof_cupti_active ());
  g_assert_cmpint (_gpuprof_gpu_channels_on, ==, 0);
  /* the fake stays open: a test reads its state after the stop */
}

void
gpuprof_test_fake_cupti_pattern (guint64 * in_calls_start,
    guint64 * in_calls_end)
{
  GpuprofTestLaunch launch = gpuprof_test_fake_cupti_launch ();
  guint64 start = gpuprof_clock_monotonic_ns ();

  gpuprof_gpu_chain_enter (7, 3);
  launch (0, "convert", 1000, 0);
  gpuprof_gpu_chain_enter (8, 4);
  launch (1, NULL, 250, 4096);
  gpuprof_gpu_chain_exit ();
  launch (2, NULL, 50, 64);
  gpuprof_gpu_chain_exit ();
  if (in_calls_end)
    *in_calls_end = gpuprof_clock_monotonic_ns ();
  if (in_calls_start)
    *in_calls_start = start;
  launch (0, "outside", 10, 0);         /* last active element: 7 */
}

void
gpuprof_test_fake_cupti_check_pattern (void)
{
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;
  GpuprofGpuCost c;

  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  g_assert_cmpuint (t.records, ==, 4);
  g_assert_cmpuint (t.pending, ==, 0);
  g_assert_cmpuint (t.unjoined, ==, 0);
  g_assert_cmpuint (t.external_ns, ==, 1300);
  g_assert_cmpuint (t.thread_ns, ==, 10);
  g_assert_cmpuint (t.unattributed_ns, ==, 0);
  g_assert_cmpuint (t.total_ns, ==, 1310);
  g_assert_cmpuint (t.early, ==, 0);

  g_assert_true (gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, 7, &e));
  g_assert_cmpuint (e.cost.kernels, ==, 2);
  g_assert_cmpuint (e.cost.kernel_ns, ==, 1010);
  g_assert_cmpuint (e.cost.memsets, ==, 1);
  g_assert_cmpuint (e.cost.memset_bytes, ==, 64);
  g_assert_cmpuint (e.by_thread_ns, ==, 10);
  g_assert_true (gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, 8, &e));
  g_assert_cmpuint (e.cost.copies, ==, 1);
  g_assert_cmpuint (e.cost.kernels, ==, 0);
  g_assert_true (gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, 8,
          4, &c));
  g_assert_cmpuint (c.copies, ==, 1);
  g_assert_cmpuint (c.copy_bytes, ==, 4096);
  g_assert_cmpuint (c.copy_ns, ==, 250);
  g_assert_true (gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, 7,
          3, &c));
  g_assert_cmpuint (c.kernels, ==, 1);
  g_assert_cmpuint (c.memsets, ==, 1);
}

void
gpuprof_test_cupti_play_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

GstElement *
gpuprof_test_cupti_handoff_pipeline (guint n, const gchar * tap,
    const gchar * next)
{
  gchar *desc = g_strdup_printf ("fakesrc num-buffers=%u sizetype=fixed "
      "sizemax=64 ! identity name=%s signal-handoffs=true ! identity name=%s "
      "! fakesink sync=false", n, tap, next);
  GstElement *p = gst_parse_launch (desc, NULL);

  g_assert_nonnull (p);
  g_free (desc);
  return p;
}
