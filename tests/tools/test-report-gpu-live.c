/* End to end with GPU tables: a pipeline under GST_TRACERS=gpuprof with the
 * fake libcupti (tests/gpu/fake-cupti.c) whose identity launches fake
 * kernels, copies and memsets in its chain calls. The tracer's own
 * end-of-run report (get-last-report) has a GPU section; `gst-gpuprof
 * report` of the summary it saved (stats=) and of its trace (trace=) prints
 * that report byte for byte — the live report only adds its trace line.
 * The report hands the stage's kernels to Nsight Compute: the ncu command
 * for them, with this process's own command line.
 * FAKE_CUPTI_PATH names the fake library, GST_GPUPROF the tool. */
#include <gst/gst.h>
#include <string.h>

#include "gpuprof-test-core.h"
#include "gpuprof-test-cupti.h"
#include "gpuprof-test-tracer.h"
#include "tools-report-util.h"

#define N_BUFFERS 20

static GpuprofTestLaunch launch;
static gchar *tmpdir;
static const gchar *argv0;

/* in identity's chain call: GPU work attributed to it, per buffer */
static void
on_handoff (GstElement * identity, GstBuffer * buf, gpointer data)
{
  static guint n;

  launch (0, "infer_kernel", 100000 + (n++ % 7) * 1000, 0);
  launch (1, NULL, 20000, 1 << 20);
  launch (2, NULL, 3000, 4096);
}

/* not inlined: GCC 12 takes a pointer into the returned report for one
 * into its local (-Wdangling-pointer) */
static G_GNUC_NO_INLINE gchar *
run_pipeline (void)
{
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=20 sizetype=fixed "
      "sizemax=64 ! identity name=infer signal-handoffs=true ! "
      "fakesink sync=false", NULL);
  GstElement *infer = gst_bin_get_by_name (GST_BIN (p), "infer");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  gchar *report = NULL;

  g_signal_connect (infer, "handoff", G_CALLBACK (on_handoff), NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  /* back to NULL: the run ends, the tracer reports and saves */
  gst_element_set_state (p, GST_STATE_NULL);
  g_assert_nonnull (gpuprof_test_find_tracer ());
  g_signal_emit_by_name (gpuprof_test_find_tracer (), "get-last-report",
      &report);
  gst_object_unref (bus);
  gst_object_unref (infer);
  gst_object_unref (p);
  return report;
}

static void
test_live_equals_saved (void)
{
  gchar *live = run_pipeline ();
  gchar *sum = g_build_filename (tmpdir, "run.json", NULL);
  gchar *trace = g_build_filename (tmpdir, "trace.json", NULL);
  gchar *from_sum, *from_trace, *err, *records, *cmd, **lines;
  const gchar *rest, *ncu;

  g_assert_nonnull (live);
  g_test_message ("live report:\n%s", live);
  records = g_strdup_printf ("GPU (CUPTI): %d records", 3 * N_BUFFERS);
  g_assert_nonnull (strstr (live, records));
  g_assert_nonnull (strstr (live, "infer_kernel"));
  /* the ncu hand-off: infer's kernel by its name, after the start-up's
   * launches, then this very command */
  ncu = strstr (live, "Nsight Compute, the top kernels of the stage with "
      "the most kernel time:\n    ncu --kernel-name-base mangled "
      "--kernel-name 'regex:^(infer_kernel)$' --launch-skip ");
  g_assert_nonnull (ncu);
  lines = g_strsplit (ncu, "\n", 3);
  cmd = g_strdup_printf (" --set full -o gpuprof-kernels %s", argv0);
  g_assert_true (g_str_has_suffix (lines[1], cmd));

  g_assert_cmpint (tools_run_report (sum, &from_sum, &err), ==, 0);
  g_free (err);
  g_assert_cmpint (tools_run_report (trace, &from_trace, &err), ==, 0);
  g_free (err);
  g_assert_cmpstr (from_trace, ==, from_sum);
  /* the live report: the saved one, then its trace file line */
  g_assert_true (g_str_has_prefix (live, from_sum));
  rest = live + strlen (from_sum);
  g_assert_nonnull (strstr (rest, trace));
  g_assert_true (strchr (rest, '\n') == rest + strlen (rest) - 1);

  g_strfreev (lines);
  g_free (cmd);
  g_free (records);
  g_free (from_trace);
  g_free (from_sum);
  g_free (trace);
  g_free (sum);
  g_free (live);
}

int
main (int argc, char **argv)
{
  gchar *params;

  argv0 = argv[0];
  g_test_init (&argc, &argv, NULL);
  tmpdir = gpuprof_test_tmpdir_new ("gpuprof-report-gpu-live-XXXXXX");
  params = g_strdup_printf ("stats=%s/run.json,trace=%s/trace.json", tmpdir,
      tmpdir);
  g_assert_true (gpuprof_test_fake_cupti_tracers (params));
  g_free (params);
  gst_init (&argc, &argv);
  launch = gpuprof_test_fake_cupti_launch ();

  g_test_add_func ("/report-gpu-live/live-equals-saved",
      test_live_equals_saved);
  return gpuprof_test_tmpdir_done (tmpdir, g_test_run ());
}
