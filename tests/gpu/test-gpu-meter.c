/* gpuprofmeter: without a GPU it passes buffers unchanged and warns once;
 * with the fake libcupti, one message per buffer with exact per-element
 * figures, intervals, and GpuprofGpuMeta. Each test runs in its own process. */
#include <gst/check/gstcheck.h>

#include "gpuprof-gpu.h"
#include "gpuprof-meter-meta.h"
#include "gpuprof-test-cupti.h"
#include "gpuprof-test-util.h"

static GpuprofTestLaunch launch;

typedef struct
{
  GPtrArray *src_buffers;       /* pointers seen leaving the source */
  GPtrArray *sink_buffers;      /* pointers seen at the sink */
  GPtrArray *messages;          /* gpuprofmeter structures */
  GPtrArray *metas;             /* GpuprofGpuMeta copies */
  guint warnings;
  guint errors;
} Run;

static void
on_src_handoff (GstElement * e, GstBuffer * buf, GstPad * pad, Run * run)
{
  g_ptr_array_add (run->src_buffers, buf);
}

static void
on_sink_handoff (GstElement * e, GstBuffer * buf, GstPad * pad, Run * run)
{
  GpuprofGpuMeta *m = gpuprof_buffer_get_gpu_meta (buf);

  g_ptr_array_add (run->sink_buffers, buf);
  if (m)
    g_ptr_array_add (run->metas, g_memdup2 (m, sizeof (*m)));
}

/* inside the upstream chain calls, as a GPU element would launch */
static void
on_up1_handoff (GstElement * e, GstBuffer * buf, Run * run)
{
  launch (0, "up1_kernel", 1000, 0);
  launch (0, "up1_kernel", 1000, 0);
}

static void
on_up2_handoff (GstElement * e, GstBuffer * buf, Run * run)
{
  launch (1, NULL, 300, 4096);
}

static void
run_pipeline (const gchar * desc, Run * run)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *e;
  GstBus *bus;
  gboolean done = FALSE;

  fail_unless (pipe != NULL);
  memset (run, 0, sizeof (*run));
  run->src_buffers = g_ptr_array_new ();
  run->sink_buffers = g_ptr_array_new ();
  run->messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  run->metas = g_ptr_array_new_with_free_func (g_free);

  if ((e = gst_bin_get_by_name (GST_BIN (pipe), "src"))) {
    g_signal_connect (e, "handoff", G_CALLBACK (on_src_handoff), run);
    gst_object_unref (e);
  }
  e = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_object_set (e, "signal-handoffs", TRUE, NULL);
  g_signal_connect (e, "handoff", G_CALLBACK (on_sink_handoff), run);
  gst_object_unref (e);
  if ((e = gst_bin_get_by_name (GST_BIN (pipe), "up1"))) {
    g_signal_connect (e, "handoff", G_CALLBACK (on_up1_handoff), run);
    gst_object_unref (e);
  }
  if ((e = gst_bin_get_by_name (GST_BIN (pipe), "up2"))) {
    g_signal_connect (e, "handoff", G_CALLBACK (on_up2_handoff), run);
    gst_object_unref (e);
  }

  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, 10 * GST_SECOND);
    fail_unless (msg != NULL, "timeout");
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      case GST_MESSAGE_ERROR:
        run->errors++;
        done = TRUE;
        break;
      case GST_MESSAGE_WARNING:
        run->warnings++;
        break;
      case GST_MESSAGE_ELEMENT:
        if (gst_message_has_name (msg, "gpuprofmeter"))
          g_ptr_array_add (run->messages,
              gst_structure_copy (gst_message_get_structure (msg)));
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

static void
run_free (Run * run)
{
  g_ptr_array_unref (run->src_buffers);
  g_ptr_array_unref (run->sink_buffers);
  g_ptr_array_unref (run->messages);
  g_ptr_array_unref (run->metas);
}

GST_START_TEST (test_no_gpu_passthrough)
{
  Run run;
  guint i;

  g_setenv ("GPUPROF_CUPTI_LIBRARY", "/nonexistent/libcupti.so.13", TRUE);
  run_pipeline ("fakesrc name=src num-buffers=20 signal-handoffs=true "
      "sizetype=fixed sizemax=64 ! gpuprofmeter ! fakesink name=sink", &run);
  fail_unless_equals_int (run.errors, 0);
  fail_unless_equals_int (run.warnings, 1);
  fail_unless_equals_int (run.messages->len, 0);
  fail_unless_equals_int (run.sink_buffers->len, 20);
  /* the same buffers, in order: no copy */
  for (i = 0; i < 20; i++)
    fail_unless (g_ptr_array_index (run.src_buffers, i) ==
        g_ptr_array_index (run.sink_buffers, i));
  run_free (&run);
}

GST_END_TEST;

static gboolean
setup_fake (void)
{
  const gchar *path = gpuprof_test_fake_cupti_path ();

  if (!path)
    return FALSE;
  g_setenv ("GPUPROF_CUPTI_LIBRARY", path, TRUE);
  launch = gpuprof_test_fake_cupti_launch ();
  return TRUE;
}

#define PIPE_HEAD "videotestsrc num-buffers=20 ! " \
  "video/x-raw,width=64,height=48,framerate=30/1 ! identity name=up1 ! " \
  "identity name=up2 ! "

static const GstStructure *
element_of (const GstStructure * s, const gchar * name)
{
  const GValue *arr = gst_structure_get_value (s, "elements");
  guint i;

  fail_unless (arr != NULL && GST_VALUE_HOLDS_ARRAY (arr));
  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *e =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (!g_strcmp0 (gst_structure_get_string (e, "name"), name))
      return e;
  }
  return NULL;
}

GST_START_TEST (test_messages_per_buffer)
{
  Run run;
  guint i;

  if (!setup_fake ())
    return;
  run_pipeline (PIPE_HEAD "gpuprofmeter ! fakesink name=sink", &run);
  fail_unless_equals_int (run.errors, 0);
  fail_unless_equals_int (run.warnings, 0);
  fail_unless_equals_int (run.sink_buffers->len, 20);
  fail_unless_equals_int (run.messages->len, 20);
  for (i = 0; i < 20; i++) {
    const GstStructure *s = g_ptr_array_index (run.messages, i);
    const GstStructure *up1 = element_of (s, "up1");
    const GstStructure *up2 = element_of (s, "up2");
    const GValue *arr = gst_structure_get_value (s, "elements");
    guint buffers = 0;

    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "sequence"), i);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "pts"),
        gst_util_uint64_scale (i, GST_SECOND, 30));
    fail_unless (gst_structure_get_uint (s, "buffers", &buffers));
    fail_unless_equals_int (buffers, 1);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "kernels"), 2);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "copies"), 1);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "memsets"), 0);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "bytes"), 4096);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "gpu-ns"), 2300);
    fail_unless (up1 && up2);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up1, "kernels"), 2);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up1, "kernel-ns"), 2000);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up1, "copies"), 0);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up2, "kernels"), 0);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up2, "copies"), 1);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up2, "copy-ns"), 300);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up2, "bytes"), 4096);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (up2, "gpu-ns"), 300);
    /* nearest first */
    fail_unless_equals_string (gst_structure_get_string
        (gst_value_get_structure (gst_value_array_get_value (arr, 0)),
            "name"), "up2");
  }
  run_free (&run);
}

GST_END_TEST;

GST_START_TEST (test_interval)
{
  Run run;
  guint i, buffers;

  if (!setup_fake ())
    return;
  run_pipeline (PIPE_HEAD "gpuprofmeter interval=5 ! fakesink name=sink",
      &run);
  fail_unless_equals_int (run.messages->len, 4);
  for (i = 0; i < 4; i++) {
    const GstStructure *s = g_ptr_array_index (run.messages, i);
    fail_unless (gst_structure_get_uint (s, "buffers", &buffers));
    fail_unless_equals_int (buffers, 5);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "sequence"), i * 5 + 4);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "kernels"), 10);
    fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "gpu-ns"), 5 * 2300);
  }
  run_free (&run);
}

GST_END_TEST;

GST_START_TEST (test_attach_meta)
{
  Run run;
  guint i;

  if (!setup_fake ())
    return;
  run_pipeline (PIPE_HEAD "gpuprofmeter attach-meta=true ! fakesink name=sink",
      &run);
  fail_unless_equals_int (run.metas->len, 20);
  for (i = 0; i < 20; i++) {
    GpuprofGpuMeta *m = g_ptr_array_index (run.metas, i);
    fail_unless_equals_uint64 (m->sequence, i);
    fail_unless_equals_uint64 (m->total.kernels, 2);
    fail_unless_equals_uint64 (m->total.copies, 1);
    fail_unless_equals_uint64 (m->total.copy_bytes, 4096);
    fail_unless (m->n_elements >= 2);
    fail_unless_equals_string (g_quark_to_string (m->elements[0].name),
        "up2");
    fail_unless_equals_uint64 (m->elements[1].cost.kernel_ns, 2000);
  }
  run_free (&run);
}

GST_END_TEST;

static Suite *
gpu_meter_suite (void)
{
  Suite *s = suite_create ("gpu-meter");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_no_gpu_passthrough);
  tcase_add_test (tc, test_messages_per_buffer);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_attach_meta);
  return s;
}

GST_CHECK_MAIN (gpu_meter);
