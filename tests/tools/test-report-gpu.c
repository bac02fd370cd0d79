/* The GPU tables: GPU records from a fake CUPTI source (tests/gpu/
 * fake-activity.c) go through the real attribution code into the snapshot's
 * typed GPU tables; the report prints from them exactly the GPU section the
 * text formatter of gpuprof-gpu.c printed, and `gst-gpuprof report` of the
 * saved summary and of a trace holding it prints the live report byte for
 * byte, GPU tables included. GST_GPUPROF names the tool. */
#include <gst/gst.h>
#include <glib/gstdio.h>
#include <string.h>

#include "fake-activity.h"
#include "gpuprof-gpu-tables.h"
#include "gpuprof-report.h"
#include "gpuprof-summary.h"
#include "gpuprof-test-core.h"
#include "gpuprof-trace.h"
#include "tools-report-util.h"

#define TR GPUPROF_GPU_CHANNEL_TRACER

static FakeSource src;
static gchar *tmpdir;

static gchar *
path_of (guint32 id, gpointer data)
{
  /* element 9 has no path: the report says "element #9" */
  return id == 1 ? g_strdup ("pipeline0/infer") :
      id == 2 ? g_strdup ("pipeline0/conv") : NULL;
}

static gpointer
named_thread (gpointer data)
{
  gpuprof_gpu_set_thread_name ("worker-x");
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "orphan_kernel", 1, 60000000, 60700000,
      0);
  return NULL;
}

/* launches outside any chain call, after conv ran on this thread */
static gpointer
owned_thread (gpointer data)
{
  gpuprof_gpu_set_thread_element (TR, 2);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "post_kernel", 0, 70000000,
      70456000, 0);
  return NULL;
}

/* Launches on two devices, by three elements over several buffers, kernels,
 * copies and memsets, and one from a thread with no element. Times are
 * chosen so every column has a value of its own. */
static void
launch_gpu_work (void)
{
  GpuprofGpuOp orphan = { GPUPROF_GPU_OP_KERNEL, 9999, 0, 0, 0, 0,
    75000000, 75090000, 0, 0, "lost_kernel"
  };
  guint64 seq;

  for (seq = 0; seq < 7; seq++) {
    guint64 t = 10000000 + seq * 9000000;

    gpuprof_gpu_chain_enter (1, seq);
    fake_launch (&src, GPUPROF_GPU_OP_MEMCPY, NULL, 0, t, t + 310000 + seq * 1000,
        1 << 20);
    fake_launch (&src, GPUPROF_GPU_OP_KERNEL,
        "void trt::infer_layer_with_a_very_long_templated_name<float, 128, 4>"
        "(float const*, float*)", 0, t + 400000, t + 2400000 + seq * 11000, 0);
    fake_launch (&src, GPUPROF_GPU_OP_MEMSET, NULL, 0, t + 2500000, t + 2533000,
        4096);
    gpuprof_gpu_chain_exit ();
    gpuprof_gpu_chain_enter (2, seq);
    fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "convert_nv12_to_rgb", 1,
        t + 3000000, t + 3777000, 0);
    gpuprof_gpu_chain_exit ();
  }
  gpuprof_gpu_chain_enter (9, GPUPROF_GPU_SEQ_NONE);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "setup", 1, 5000000, 5123000, 0);
  gpuprof_gpu_chain_exit ();
  g_thread_join (g_thread_new ("named", named_thread, NULL));
  g_thread_join (g_thread_new ("owned", owned_thread, NULL));
  fake_deliver_all_reversed (&src);
  /* a record whose API record never comes: settled unjoined */
  gpuprof_gpu_add_op (&orphan);
  gpuprof_gpu_add_dropped (3);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_ALL);
}

static GpuprofSnapshot *
live_snapshot (guint64 wall_start, guint64 wall_end)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipeline0");
  GpuprofElementRow e = { 0, };

  e.path = g_strdup ("pipeline0/infer");
  e.factory = g_strdup ("identity");
  e.role = g_strdup ("filter");
  e.thread = g_strdup ("src:src");
  e.buffers_in = e.buffers_out = e.calls = 7;
  e.self_ns = 7 * 123456;
  e.incl_ns = 7 * 200000;
  e.thread_self_ns = e.self_ns;
  e.thread_wall_ns = 2 * e.self_ns;
  e.busy = 0.5;
  g_array_append_val (snap->elements, e);
  snap->wall_ns = wall_end - wall_start;
  gpuprof_snapshot_compute_verdict (snap);
  gpuprof_gpu_tables_fill (snap, TR, path_of, NULL, wall_start, wall_end);
  return snap;
}

/* the tables hold what the attribution code counted */
static void
test_tables_from_records (void)
{
  GpuprofSnapshot *snap = live_snapshot (1000000, 80000000);
  const GpuprofGpuElementRow *infer, *conv, *orphan;
  const GpuprofGpuRow *t;
  guint64 sum = 0;
  guint i;

  g_assert_cmpuint (snap->gpu->len, ==, 1);
  t = &g_array_index (snap->gpu, GpuprofGpuRow, 0);
  g_assert_cmpuint (t->dropped, ==, 3);
  g_assert_cmpuint (t->records, ==, 7 * 4 + 4);
  g_assert_cmpuint (t->unjoined, ==, 1);
  g_assert_cmpuint (t->thread_ns, ==, 456000);
  g_assert_cmpuint (snap->gpu_elements->len, ==, 5);
  infer = &g_array_index (snap->gpu_elements, GpuprofGpuElementRow, 0);
  conv = &g_array_index (snap->gpu_elements, GpuprofGpuElementRow, 1);
  orphan = &g_array_index (snap->gpu_elements, GpuprofGpuElementRow, 3);
  g_assert_cmpuint (conv->by_thread_ns, ==, 456000);
  g_assert_cmpstr (infer->path, ==, "pipeline0/infer");
  g_assert_cmpuint (infer->kernels, ==, 7);
  g_assert_cmpuint (infer->copies, ==, 7);
  g_assert_cmpuint (infer->memsets, ==, 7);
  g_assert_cmpuint (infer->copy_bytes, ==, 7 << 20);
  g_assert_cmpuint (infer->memset_bytes, ==, 7 * 4096);
  g_assert_cmpuint (infer->memset_ns, ==, 7 * 33000);
  g_assert_cmpuint (infer->buffers, ==, 7);
  g_assert_cmpuint (conv->kernel_ns, ==, 7 * 777000 + 456000);
  g_assert_cmpstr (orphan->path, ==, "unattributed (thread worker-x)");
  g_assert_cmpstr (orphan->thread, ==, "worker-x");
  g_assert_cmpuint (orphan->kernel_ns, ==, 700000);
  g_assert_cmpstr (g_array_index (snap->gpu_elements, GpuprofGpuElementRow,
          2).path, ==, "element #9");
  for (i = 0; i < snap->gpu_elements->len; i++)
    sum += g_array_index (snap->gpu_elements, GpuprofGpuElementRow, i).gpu_ns;
  g_assert_cmpuint (sum, ==, t->total_ns);
  g_assert_cmpuint (snap->gpu_devices->len, ==, 2);
  g_assert_cmpuint (snap->gpu_kernels->len, ==, 6);
  gpuprof_snapshot_free (snap);
}

/* The report's GPU section printed from the tables, for the records above:
 * data/report-gpu-section.txt is the text the old text formatter
 * (gpuprof_gpu_format_report, removed) printed for the same records, so
 * the layout users know did not change. */
static void
test_same_layout_as_text (void)
{
  GpuprofSnapshot *snap = live_snapshot (1000000, 80000000);
  gchar *report = gpuprof_report_format (snap);
  gchar *path = g_build_filename (g_getenv ("GPUPROF_TEST_DATA"),
      "report-gpu-section.txt", NULL);
  gchar *text = NULL, *section;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  section = g_strconcat ("\n", text, NULL);
  g_test_message ("%s", report);
  g_assert_true (g_str_has_suffix (report, section));
  g_free (section);
  g_free (text);
  g_free (path);
  g_free (report);
  gpuprof_snapshot_free (snap);
}

static gchar *
names_element (guint32 id, gpointer data)
{
  return g_strdup ("pipeline0/infer");
}

static gchar *
names_thread (guint32 id, gpointer data)
{
  return g_strdup ("src:src");
}

static gchar *
names_pipeline (gpointer data)
{
  return g_strdup ("pipeline0");
}

static const GpuprofTraceNames names = {
  NULL, names_element, NULL, names_thread, names_pipeline
};

static void
test_report_from_summary_and_trace (void)
{
  GpuprofSnapshot *snap = live_snapshot (1000000, 80000000);
  gchar *live = gpuprof_report_format (snap);
  gchar *json = gpuprof_summary_to_json (snap);
  gchar *sum = g_build_filename (tmpdir, "run.json", NULL);
  gchar *tr = g_build_filename (tmpdir, "trace.json", NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (tr, &names, 0, NULL, NULL);
  GpuprofEvent ev = { GPUPROF_EVENT_CHAIN, 1, 0, 1, 2000000, 4000, 0,
    G_MAXUINT64, 100, 2000, 1, 0
  };

  g_assert_nonnull (strstr (live, "GPU (CUPTI): 32 records, 3 dropped by CUPTI, 1 settled"));
  g_assert_true (gpuprof_summary_save (snap, sum, NULL));
  tools_assert_report_equals (sum, live);

  gpuprof_ring_push (gpuprof_test_trace_ring (trace, 1), &ev);
  g_assert_true (gpuprof_trace_close (trace, json, NULL));
  gpuprof_test_trace_free (trace);
  tools_assert_report_equals (tr, live);

  g_free (tr);
  g_free (sum);
  g_free (json);
  g_free (live);
  gpuprof_snapshot_free (snap);
}

/* without GPU attribution: no GPU row, no GPU section, "gpu": null */
static void
test_no_gpu (void)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("p");
  gchar *report = gpuprof_report_format (snap);
  gchar *json = gpuprof_summary_to_json (snap);

  g_assert_null (strstr (report, "GPU"));
  g_assert_nonnull (strstr (json, "\"gpu\": null"));
  g_free (json);
  g_free (report);
  gpuprof_snapshot_free (snap);
}

int
main (int argc, char **argv)
{
  GpuprofGpuConfig defaults = { 2 * GST_SECOND, 262144, 8192 };
  int ret;

  tmpdir = gpuprof_test_core_init (&argc, &argv,
      "gpuprof-report-gpu-XXXXXX");
  gpuprof_gpu_configure (&defaults);
  fake_source_setup (&src, FALSE);
  launch_gpu_work ();

  g_test_add_func ("/report-gpu/tables", test_tables_from_records);
  g_test_add_func ("/report-gpu/same-layout", test_same_layout_as_text);
  g_test_add_func ("/report-gpu/summary-and-trace",
      test_report_from_summary_and_trace);
  g_test_add_func ("/report-gpu/no-gpu", test_no_gpu);
  ret = g_test_run ();

  fake_source_teardown (&src);
  return gpuprof_test_tmpdir_done (tmpdir, ret);
}
