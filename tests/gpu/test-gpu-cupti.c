/* The CUPTI loader without a GPU: one clear reason when off, detection of
 * another CUPTI client, and — with a fake libcupti that has the real record
 * layouts — records flowing through the loader into the correlation code on
 * the monotonic clock. Each test runs in its own process (check forks), as
 * the loader state is per process. */
#include <gst/check/gstcheck.h>

#include "gpuprof-gpu.h"
#include "gpuprof-test-cupti.h"

#define PREFIX "GPU attribution off: "

static void
check_one_line_reason (const gchar * reason)
{
  fail_unless (reason != NULL);
  fail_unless (g_str_has_prefix (reason, PREFIX), "%s", reason);
  fail_unless (strchr (reason, '\n') == NULL, "%s", reason);
  fail_unless (strlen (reason) > strlen (PREFIX) + 5, "%s", reason);
}

GST_START_TEST (test_mode_off)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_OFF, NULL, 0, 0 };
  gchar *reason = NULL;

  fail_if (gpuprof_cupti_start (&s, &reason));
  fail_unless_equals_string (reason, PREFIX "cupti=off");
  fail_if (gpuprof_cupti_active ());
  g_free (reason);
}

GST_END_TEST;

/* the cupti= words the parameter table accepts (gpuprof-params.c) */
static gboolean
mode_from_string (const gchar * s, GpuprofCuptiMode * m)
{
  GpuprofParams p;
  gchar *text = g_strdup_printf ("cupti=%s", s);
  gchar *warnings;

  gpuprof_params_init (&p);
  warnings = gpuprof_params_parse (&p, text);
  *m = p.cupti;
  gpuprof_params_clear (&p);
  g_free (text);
  g_free (warnings);
  return warnings == NULL;
}

GST_START_TEST (test_mode_strings)
{
  GpuprofCuptiMode m;

  fail_unless (mode_from_string ("auto", &m));
  fail_unless_equals_int (m, GPUPROF_CUPTI_AUTO);
  fail_unless (mode_from_string ("on", &m));
  fail_unless_equals_int (m, GPUPROF_CUPTI_ON);
  fail_unless (mode_from_string ("off", &m));
  fail_unless_equals_int (m, GPUPROF_CUPTI_OFF);
  fail_if (mode_from_string ("maybe", &m));
}

GST_END_TEST;

GST_START_TEST (test_missing_library)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_ON,
    "/nonexistent/libcupti.so.13", 0, 0
  };
  gchar *reason = NULL;

  fail_if (gpuprof_cupti_start (&s, &reason));
  check_one_line_reason (reason);
  fail_unless (strstr (reason, "/nonexistent/libcupti.so.13") != NULL, "%s",
      reason);
  fail_if (gpuprof_cupti_active ());
  /* the hot path stays off: no backend */
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  fail_unless_equals_int (_gpuprof_gpu_channels_on, 0);
  g_free (reason);
}

GST_END_TEST;

/* The machine's own CUPTI: on a machine without GPU, off with one reason. */
GST_START_TEST (test_no_gpu_here)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_AUTO, NULL, 0, 0 };
  gchar *reason = NULL;

  g_unsetenv ("GPUPROF_CUPTI_LIBRARY");
  if (gpuprof_cupti_start (&s, &reason)) {
    GST_INFO ("a GPU is here: nothing to check");
    gpuprof_cupti_stop ();
    return;
  }
  GST_INFO ("%s", reason);
  check_one_line_reason (reason);
  fail_if (gpuprof_cupti_active ());
  g_free (reason);
}

GST_END_TEST;

GST_START_TEST (test_other_client)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_ON, NULL, 0, 0 };
  gchar *reason = NULL;

  if (!gpuprof_test_fake_cupti_path ())
    return;
  s.library = gpuprof_test_fake_cupti_path ();
  g_setenv ("FAKE_CUPTI_SUBSCRIBE_RESULT", "39", TRUE);
  fail_if (gpuprof_cupti_start (&s, &reason));
  check_one_line_reason (reason);
  fail_unless (strstr (reason, "another CUPTI client") != NULL, "%s", reason);
  g_free (reason);
}

GST_END_TEST;

GST_START_TEST (test_enable_fails)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_AUTO, NULL, 0, 0 };
  gchar *reason = NULL;

  if (!gpuprof_test_fake_cupti_path ())
    return;
  s.library = gpuprof_test_fake_cupti_path ();
  g_setenv ("FAKE_CUPTI_ENABLE_RESULT", "999", TRUE);
  fail_if (gpuprof_cupti_start (&s, &reason));
  check_one_line_reason (reason);
  fail_unless (strstr (reason, "CUPTI_ERROR_UNKNOWN") != NULL, "%s", reason);
  g_free (reason);
}

GST_END_TEST;

/* Records through the real loader code: kinds, layouts, external ids per
 * channel, thread ids, the monotonic clock, dropped records, flush. */
GST_START_TEST (test_records_through_loader)
{
  GpuprofGpuTotals t;
  GArray *devs;
  guint64 before, after;

  g_setenv ("FAKE_CUPTI_DROPPED", "3", TRUE);
  if (!gpuprof_test_fake_cupti_start (GPUPROF_CUPTI_PATH_CALLBACK))
    return;
  gpuprof_test_fake_cupti_pattern (&before, &after);
  gpuprof_cupti_flush (TRUE);
  gpuprof_test_fake_cupti_check_pattern ();
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.dropped, 3);
  fail_unless_equals_uint64 (gpuprof_cupti_dropped (), 3);

  /* GPU timestamps on the monotonic clock: each starts after the chain
   * call that launched it began */
  devs = gpuprof_gpu_get_devices (0, 0);
  fail_unless_equals_int (devs->len, 1);
  fail_unless (g_array_index (devs, GpuprofGpuDeviceStats, 0).first_ns >=
      before);
  fail_unless (g_array_index (devs, GpuprofGpuDeviceStats, 0).first_ns <=
      after + 1000);
  g_array_unref (devs);
  gpuprof_test_fake_cupti_stop ();
}

GST_END_TEST;

static Suite *
gpu_cupti_suite (void)
{
  Suite *s = suite_create ("gpu-cupti");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_mode_off);
  tcase_add_test (tc, test_mode_strings);
  tcase_add_test (tc, test_missing_library);
  tcase_add_test (tc, test_no_gpu_here);
  tcase_add_test (tc, test_other_client);
  tcase_add_test (tc, test_enable_fails);
  tcase_add_test (tc, test_records_through_loader);
  return s;
}

GST_CHECK_MAIN (gpu_cupti);
