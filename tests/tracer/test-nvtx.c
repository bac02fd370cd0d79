/* NVTX output, checked exactly with the project's own recorder
 * (tests/nvtx-recorder, loaded through NVTX_INJECTION64_PATH). */
#include "gpuprof-test-util.h"

#include <nvtxrec.h>

static gchar *
domain (GstElement * pipeline, const gchar * element)
{
  return g_strdup_printf ("%s/%s", GST_OBJECT_NAME (pipeline), element);
}

static void
assert_chain_ranges (GstElement * pipeline, const gchar * element,
    const gchar * message, guint expected)
{
  gchar *d = domain (pipeline, element);
  guint n = nvtxrec_count (NVTXREC_PUSH, d, message);

  fail_unless_equals_int (n, expected);
  fail_unless_equals_int (nvtxrec_count (NVTXREC_POP, d, NULL),
      nvtxrec_count (NVTXREC_PUSH, d, NULL));
  g_free (d);
}

static void
assert_nesting (void)
{
  gchar *err = nvtxrec_check_nesting ();

  fail_unless (err == NULL, "NVTX nesting: %s", err);
}

static void
assert_residency (GstElement * pipeline, const gchar * queue, guint expected)
{
  gchar *d = domain (pipeline, queue);
  guint cross = 0;
  gchar *err = nvtxrec_check_ranges (d, &cross);

  fail_unless (err == NULL, "%s ranges: %s", d, err);
  fail_unless_equals_int (nvtxrec_count_ranges (d), expected);
  /* a queue hands each buffer to its own thread */
  fail_unless_equals_int (cross, expected);
  g_free (d);
}

static gboolean
thread_named (const gchar * name)
{
  NvtxrecThreadName names[64];
  gsize i, n = nvtxrec_get_thread_names (names, G_N_ELEMENTS (names));

  for (i = 0; i < MIN (n, G_N_ELEMENTS (names)); i++)
    if (!g_strcmp0 (names[i].name, name))
      return TRUE;
  return FALSE;
}

GST_START_TEST (test_linear_with_queue)
{
  GstElement *p;
  gchar *d;
  gsize i;
  guint64 expect_seq = 1;

  nvtxrec_reset ();
  p = gpuprof_test_run ("fakesrc num-buffers=100 ! identity name=a ! "
      "queue name=q ! identity name=b ! fakesink name=sink");
  fail_unless (nvtxrec_is_attached ());

  /* one domain per element, a chain range per buffer in each */
  assert_chain_ranges (p, "a", "a:sink", 100);
  assert_chain_ranges (p, "q", "q:sink", 100);
  assert_chain_ranges (p, "b", "b:sink", 100);
  assert_chain_ranges (p, "sink", "sink:sink", 100);
  assert_nesting ();
  assert_residency (p, "q", 100);
  fail_unless (thread_named ("q:src"));
  fail_unless (thread_named ("fakesrc0:src"));

  /* payload = the pad's buffer sequence number, in order */
  d = domain (p, "a");
  for (i = 0; i < nvtxrec_n_events (); i++) {
    NvtxrecEvent ev;
    nvtxrec_get_event (i, &ev);
    if (ev.kind != NVTXREC_PUSH || g_strcmp0 (ev.domain, d))
      continue;
    fail_unless_equals_int (ev.payload_type, NVTXREC_PAYLOAD_UINT64);
    fail_unless_equals_uint64 (ev.payload.u64, expect_seq);
    expect_seq++;
  }
  /* the EOS leaving a is marked in its row */
  fail_unless_equals_int (nvtxrec_count (NVTXREC_MARK, d, "EOS"), 1);
  g_free (d);

  /* b's range nests inside q's thread only: b runs on q:src, a on the
   * source thread; a's ranges contain q's chain ranges (same thread) */
  d = domain (p, "q");
  fail_unless_equals_int (nvtxrec_count (NVTXREC_START, d, "q:sink"), 100);
  g_free (d);
  gpuprof_test_stop (p);
}

GST_END_TEST;

GST_START_TEST (test_tee_two_branches)
{
  GstElement *p;

  nvtxrec_reset ();
  p = gpuprof_test_run ("fakesrc num-buffers=50 ! tee name=t "
      "t. ! queue name=q1 ! fakesink name=s1 "
      "t. ! queue name=q2 ! fakesink name=s2");
  assert_chain_ranges (p, "t", "t:sink", 50);
  assert_chain_ranges (p, "q1", "q1:sink", 50);
  assert_chain_ranges (p, "q2", "q2:sink", 50);
  assert_chain_ranges (p, "s1", "s1:sink", 50);
  assert_chain_ranges (p, "s2", "s2:sink", 50);
  assert_residency (p, "q1", 50);
  assert_residency (p, "q2", 50);
  assert_nesting ();
  gpuprof_test_stop (p);
}

GST_END_TEST;

GST_START_TEST (test_compositor_two_inputs)
{
  GstElement *p;

  nvtxrec_reset ();
  p = gpuprof_test_run ("videotestsrc num-buffers=20 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! comp.sink_0 "
      "videotestsrc num-buffers=20 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! comp.sink_1 "
      "compositor name=comp ! fakesink name=sink");
  /* each input pad has its own message in the compositor's row */
  assert_chain_ranges (p, "comp", "comp:sink_0", 20);
  assert_chain_ranges (p, "comp", "comp:sink_1", 20);
  assert_chain_ranges (p, "sink", "sink:sink", 20);
  assert_nesting ();
  fail_unless (thread_named ("comp:src"));
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* An asynchronous element (nvinfer-shaped): a range per buffer inside it,
 * from its chain (source thread) to its output thread's push */
GST_START_TEST (test_async_element_ranges)
{
  GstElement *p;

  nvtxrec_reset ();
  p = gpuprof_test_run ("fakesrc num-buffers=30 sizetype=fixed sizemax=64 ! "
      "gpuprofasync name=a work-us=200 max-in-flight=2 ! fakesink");
  fail_unless (nvtxrec_is_attached ());
  assert_residency (p, "a", 30);
  assert_chain_ranges (p, "a", "a:sink", 30);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
nvtx_suite (void)
{
  Suite *s = suite_create ("gpuprof-nvtx");
  TCase *tc = tcase_create ("nvtx");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_linear_with_queue);
  tcase_add_test (tc, test_tee_two_branches);
  tcase_add_test (tc, test_compositor_two_inputs);
  tcase_add_test (tc, test_async_element_ranges);
  return s;
}

GPUPROF_TEST_MAIN (nvtx, "gpuprof-nvtx", "gpuprof(report=off)");
