/* Start-up apart from the steady state (issue 23): an element whose first
 * buffer costs what a decoder's or an inference engine's creation costs
 * (planted: 300 ms of spinning in identity's handoff, timed by the handoff
 * itself) has it reported on its own (first_ns, the report's Start-up
 * line) and kept out of its percentiles, its largest call, its per-call
 * figure and busy, so the verdict names the stage that is slow in the
 * steady state, not the one that was slow once. */
#include "gpuprof-test-util.h"

#define STARTUP_NS (300 * GST_MSECOND)

static guint64 planted_ns;      /* the first handoff's own time */

static void
slow_first (GstElement * identity, GstBuffer * buffer, gpointer data)
{
  static gint calls;
  guint64 t0;

  if (g_atomic_int_add (&calls, 1))
    return;
  t0 = gpuprof_test_now_ns ();
  while (gpuprof_test_now_ns () - t0 < STARTUP_NS);
  planted_ns = gpuprof_test_now_ns () - t0;
}

GST_START_TEST (test_startup_apart)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc num-buffers=40 ! "
      "video/x-raw,width=64,height=48 ! identity name=startup ! "
      "gpuprofwork name=steady work-us=3000 spin=true ! "
      "fakesink sync=false");
  GstElement *id = gst_bin_get_by_name (GST_BIN (p), "startup");
  gchar *startup = gpuprof_test_path (p, "startup");
  gchar *steady = gpuprof_test_path (p, "steady");
  gchar *report, *line;
  GstStructure *s, *st;
  GpuprofTestTruth truth;

  g_signal_connect (id, "handoff", G_CALLBACK (slow_first), NULL);
  g_object_set (id, "signal-handoffs", TRUE, NULL);
  gst_object_unref (id);
  gpuprof_test_play_to_eos (p);
  truth = gpuprof_test_truth (p, "steady");

  s = gpuprof_test_element_stats (startup);
  /* the start-up, on its own: the planted time, within what a call
   * around it adds */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "first_calls"), 1);
  fail_unless (gpuprof_test_get_u64 (s, "first_ns") >= planted_ns &&
      gpuprof_test_get_u64 (s, "first_ns") <= planted_ns + 30 * GST_MSECOND,
      "first_ns %" G_GUINT64_FORMAT ", planted %" G_GUINT64_FORMAT,
      gpuprof_test_get_u64 (s, "first_ns"), planted_ns);
  /* ... and nowhere in the steady state's figures */
  fail_unless (gpuprof_test_get_u64 (s, "self_max_ns") < planted_ns / 10,
      "the start-up is the largest call: %" G_GUINT64_FORMAT,
      gpuprof_test_get_u64 (s, "self_max_ns"));
  fail_unless (gpuprof_test_get_u64 (s, "self_p99_ns") < planted_ns / 10);
  /* self_ns keeps all its work; its thread's steady state does not (the
   * two share a thread: start-up's wall comes off the element's own) */
  fail_unless (gpuprof_test_get_u64 (s, "self_ns") >= planted_ns);
  fail_unless (gpuprof_test_get_u64 (s, "thread_self_ns") < planted_ns / 10,
      "start-up in the thread's steady state: %" G_GUINT64_FORMAT,
      gpuprof_test_get_u64 (s, "thread_self_ns"));
  /* busy (the CPU sampler's on-CPU share) and the occupancy the verdict
   * ranks by: the element slow throughout is the busier */
  st = gpuprof_test_element_stats (steady);
  fail_unless (gpuprof_test_get_double (s, "busy") <
      gpuprof_test_get_double (st, "busy"),
      "the element slow once is busier than the one slow throughout");
  fail_unless ((gdouble) gpuprof_test_get_u64 (s, "thread_self_ns") /
      gpuprof_test_get_u64 (s, "thread_wall_ns") <
      (gdouble) gpuprof_test_get_u64 (st, "thread_self_ns") /
      gpuprof_test_get_u64 (st, "thread_wall_ns"),
      "the element slow once occupies its thread more");
  gst_structure_free (st);
  gst_structure_free (s);
  gpuprof_test_stop (p);

  /* the verdict: the steady state's slow stage (3 ms a buffer, 120 ms in
   * all, against 300 ms of start-up) */
  report = gpuprof_test_last_report ();
  line = g_strdup_printf ("\nlimit: stage %s —", steady);
  fail_unless (strstr (report, line) != NULL, "not %s:\n%s", steady,
      gpuprof_test_said (report));
  g_free (line);
  /* the Start-up line: the planted time, in ms (within what the call
   * around it adds) */
  line = g_strdup_printf ("Start-up (first call; not in per-call figures, "
      "percentiles, busy or the verdict): %s ", startup);
  {
    const gchar *at = strstr (report, line);
    gdouble ms = at ? g_ascii_strtod (at + strlen (line), NULL) : 0;

    fail_unless (at != NULL, "no '%s'", line);
    fail_unless (ms >= planted_ns / 1e6 - 0.05
        && ms <= planted_ns / 1e6 + 30, "start-up %.1f ms, planted %.1f",
        ms, planted_ns / 1e6);
  }
  fail_unless (truth.calls == 40);
  g_free (line);
  g_free (report);
  g_free (startup);
  g_free (steady);
}

GST_END_TEST;

static Suite *
warmup_suite (void)
{
  Suite *s = suite_create ("warmup");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_startup_apart);
  return s;
}

GPUPROF_TEST_MAIN (warmup, "warmup", "gpuprof(report=off)")
