/* NVTX per batch: the aggregator's push range and the ranges of the stages
 * that process a batch carry the batch number as payload. */
#include "gpuprof-test-util.h"

#include <nvtxrec.h>

/* payloads of the PUSH ranges of 'message' in 'element's domain, in order */
static GArray *
payloads (GstElement * pipeline, const gchar * element, const gchar * message)
{
  gchar *domain = g_strdup_printf ("%s/%s", GST_OBJECT_NAME (pipeline),
      element);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint64));
  gsize i, n = nvtxrec_n_events ();

  for (i = 0; i < n; i++) {
    NvtxrecEvent ev;
    if (!nvtxrec_get_event (i, &ev) || ev.kind != NVTXREC_PUSH
        || g_strcmp0 (ev.domain, domain) || g_strcmp0 (ev.message, message))
      continue;
    fail_unless_equals_int (ev.payload_type, NVTXREC_PAYLOAD_UINT64);
    g_array_append_val (out, ev.payload.u64);
  }
  g_free (domain);
  return out;
}

static void
assert_batch_numbers (GArray * a, guint n)
{
  guint i;

  fail_unless_equals_int (a->len, n);
  for (i = 0; i < n; i++)
    fail_unless_equals_uint64 (g_array_index (a, guint64, i), i + 1);
  g_array_unref (a);
}

GST_START_TEST (test_batch_payloads)
{
  GstElement *p;
  GString *desc = g_string_new ("analyticsmux name=m batch-size=4 width=32 "
      "height=24 ! identity name=id ! fakesink name=sink sync=false");
  guint i;

  for (i = 0; i < 4; i++)
    g_string_append_printf (desc, " videotestsrc num-buffers=10 ! "
        "video/x-raw,format=RGBA,width=32,height=24,framerate=30/1 ! "
        "m.sink_%u", i);
  nvtxrec_reset ();
  p = gpuprof_test_run (desc->str);
  g_string_free (desc, TRUE);
  /* the mux's push of batch n: a range in its row, payload n */
  assert_batch_numbers (payloads (p, "m", "m:src"), 10);
  assert_batch_numbers (payloads (p, "id", "id:sink"), 10);
  assert_batch_numbers (payloads (p, "sink", "sink:sink"), 10);
  /* the mux's inputs keep their pad sequence */
  assert_batch_numbers (payloads (p, "m", "m:sink_0"), 10);
  {
    gchar *err = nvtxrec_check_nesting ();
    fail_unless (err == NULL, "%s", err);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
nvtx_suite (void)
{
  Suite *s = suite_create ("gpuprof-batch-nvtx");
  TCase *tc = tcase_create ("nvtx");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_batch_payloads);
  return s;
}

GPUPROF_TEST_MAIN (nvtx, "gpuprof-batch-nvtx", "gpuprof(report=off)");
