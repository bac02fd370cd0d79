/* The measurement window (window=, issue 23) with a fake libcuda
 * (tests/gpu/fake-cuda.c) standing in for the driver: cuProfilerStart and
 * cuProfilerStop are called once each, at the window's edges, on an
 * active primary context (none created), from the sampler thread; the
 * element's figures are of exactly the calls that ended between the two
 * calls (the element's own push ends, timed by it), the calls before are
 * its start-up, those after are not measured; the report says so. The
 * NVML figures (the fake libnvidia-ml, scripted from PLAYING: idle, NVDEC
 * saturated from well before the window opens to well after it closes,
 * idle again before the run ends) are the window's only. */
#include "gpuprof-test-util.h"
#include "gpuprof-test-nvml.h"

#include <dlfcn.h>

#include "gpuprof-summary-reader.h"

#define SKIP_S 0.6
#define LENGTH_S 0.8
/* NVDEC busy from 0.3 s to 1.7 s after PLAYING: the window's only */
#define NVML_SCRIPT "0:idle;300:decode-bound;1700:idle"

static gchar *tmpdir;

typedef int (*CallsFunc) (int *start, unsigned long long *ns, int *ok,
    int max);
typedef int (*CreatedFunc) (void);

static gpointer
fake_cuda (const gchar * name)
{
  const gchar *path = g_getenv ("FAKE_CUDA_PATH");
  void *m = path ? dlopen (path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  gpointer f = m ? dlsym (m, name) : NULL;

  fail_unless (f != NULL, "the fake libcuda (%s) was not loaded by the "
      "tracer, or lacks %s", path, name);
  return f;
}

/* when the pipeline reached PLAYING (its own message, on the thread that
 * changed the state), monotonic ns */
static guint64 playing_ns;

static GstBusSyncReply
note_playing (GstBus * bus, GstMessage * msg, gpointer pipeline)
{
  GstState old, now;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_STATE_CHANGED
      && GST_MESSAGE_SRC (msg) == GST_OBJECT (pipeline)) {
    gst_message_parse_state_changed (msg, &old, &now, NULL);
    if (now == GST_STATE_PLAYING && !playing_ns)
      playing_ns = gpuprof_test_now_ns ();
  }
  return GST_BUS_PASS;
}

static guint
count_between (GArray * ends, guint64 from, guint64 to)
{
  guint i, n = 0;

  for (i = 0; i < ends->len; i++) {
    guint64 t = g_array_index (ends, guint64, i);

    n += t > from && t <= to;
  }
  return n;
}

GST_START_TEST (test_window_edges)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc num-buffers=100 ! "
      "video/x-raw,width=64,height=48,framerate=50/1 ! gpuprofwork name=w "
      "work-us=2000 spin=true ! fakesink sync=true");
  gchar *path = gpuprof_test_path (p, "w"), *report;
  int start[8], ok[8], n;
  unsigned long long ns[8];
  guint64 t_asked, t_play, in_window, before, steady;
  GstStructure *st;
  GArray *ends;
  gchar *summary;
  GpuprofRun *run;
  const GpuprofSnapshot *snap;
  const GpuprofGpuResourceRow *gpu;
  GError *err = NULL;

  {
    GstBus *bus = gst_element_get_bus (p);

    gst_bus_set_sync_handler (bus, note_playing, p, NULL);
    gst_object_unref (bus);
  }
  gpuprof_test_fake_nvml_script (GPUPROF_TEST_NVML_FAKE, NVML_SCRIPT);
  t_asked = gpuprof_test_now_ns ();
  gpuprof_test_play_to_eos (p);
  t_play = playing_ns;
  fail_unless (t_play != 0, "no PLAYING message");
  ends = gpuprof_test_truth_push_ends (p, "w");
  st = gpuprof_test_element_stats (path);
  summary = g_strdup_printf ("%s/%s.json", tmpdir, GST_OBJECT_NAME (p));
  gpuprof_test_stop (p);

  n = ((CallsFunc) fake_cuda ("fake_cuda_profiler_calls")) (start, ns, ok, 8);
  fail_unless_equals_int (n, 2);
  fail_unless (start[0] == 1 && start[1] == 0, "not a start then a stop");
  fail_unless (ok[0] && ok[1], "a call without a context");
  fail_unless_equals_int (((CreatedFunc) fake_cuda ("fake_cuda_created")) (),
      0);
  /* the edges: after the skip and the length, a few ticks late at most.
   * The pipeline went to PLAYING after it was asked to and before its
   * message (a slow build, ASan, posts it ms later) */
  fail_unless (ns[0] >= t_asked + SKIP_S * GST_SECOND
      && ns[0] <= t_play + (SKIP_S + 0.25) * GST_SECOND,
      "started %.3f s after PLAYING was asked, %.3f s after its message",
      ((gint64) ns[0] - (gint64) t_asked) / 1e9,
      ((gint64) ns[0] - (gint64) t_play) / 1e9);
  fail_unless (ns[1] >= ns[0] + LENGTH_S * GST_SECOND
      && ns[1] <= ns[0] + (LENGTH_S + 0.25) * GST_SECOND,
      "stopped %.3f s after the start", (ns[1] - ns[0]) / 1e9);

  /* the element's calls: inside the window its steady state, before it
   * its start-up; a call ending within 1 ms of an edge may go either way */
  in_window = count_between (ends, ns[0], ns[1]);
  before = count_between (ends, 0, ns[0]);
  steady = gpuprof_test_get_u64 (st, "calls") -
      gpuprof_test_get_u64 (st, "first_calls");
  fail_unless (steady + 1 >= in_window && steady <= in_window + 1,
      "%" G_GUINT64_FORMAT " calls measured, %" G_GUINT64_FORMAT
      " ended in the window", steady, in_window);
  fail_unless (gpuprof_test_get_u64 (st, "first_calls") + 1 >= before
      && gpuprof_test_get_u64 (st, "first_calls") <= before + 1,
      "%" G_GUINT64_FORMAT " start-up calls, %" G_GUINT64_FORMAT
      " before the window", gpuprof_test_get_u64 (st, "first_calls"), before);
  fail_unless (in_window >= 30 && in_window + before < ends->len,
      "the window holds %" G_GUINT64_FORMAT " of %u calls, some after it",
      in_window, ends->len);

  report = gpuprof_test_last_report ();
  fail_unless (strstr (report, "Window (window=): ") && strstr (report,
          "cuProfilerStart: CUDA_SUCCESS on 1 context (primary of device "
          "0); cuProfilerStop: CUDA_SUCCESS on 1 context"), "%.600s", report);

  /* NVML over the window only: every reading in it NVDEC-bound (the run
   * around it, from PLAYING, idle for 0.6 of its 2 s) */
  run = gpuprof_run_load (summary, &err);
  fail_unless (run != NULL, "%s: %s", summary, err ? err->message : "?");
  snap = g_ptr_array_index (run->snapshots, 0);
  fail_unless_equals_int (snap->gpu_resources->len, 1);
  gpu = &g_array_index (snap->gpu_resources, GpuprofGpuResourceRow, 0);
  fail_unless (gpu->readings >= 4, "%" G_GUINT64_FORMAT " readings in the "
      "window", gpu->readings);
  gpuprof_test_assert_figure ("NVDEC in the window", gpu->dec, 0.97);
  gpuprof_test_assert_figure ("NVDEC saturated in the window",
      gpu->dec_saturated, 1.0);
  gpuprof_run_free (run);
  g_free (summary);
  gst_structure_free (st);
  g_array_unref (ends);
  g_free (report);
  g_free (path);
}

GST_END_TEST;

static Suite *
gpu_window_suite (void)
{
  Suite *s = suite_create ("gpu-window");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_window_edges);
  return s;
}

int
main (int argc, char **argv)
{
  gchar *tracers;
  gint status;

  tmpdir = g_dir_make_tmp ("gpuprof-gpuwin-XXXXXX", NULL);
  g_setenv ("GPUPROF_CUDA_LIBRARY", g_getenv ("FAKE_CUDA_PATH"), TRUE);
  g_setenv ("GPUPROF_NVML_LIBRARY",
      gpuprof_test_fake_nvml_path (GPUPROF_TEST_NVML_FAKE), TRUE);
  tracers = g_strdup_printf ("gpuprof(window=0.6+0.8,nvml=on,nvml-hz=10,"
      "cupti=off,report=off,stats=%s/%%n.json)", tmpdir);
  status = gpuprof_test_main (&argc, &argv, tracers, gpu_window_suite,
      "gpu-window", __FILE__);
  g_free (tracers);
  return status;
}
