/* The GPU's engines in a run (issue 23): the tracer with nvml=on reads
 * the fake libnvidia-ml (tests/gpu/fake-nvml.c), scripted per test, on its
 * sampler thread, with cupti=off. Each run's summary (read back), report
 * and Prometheus text are checked: decode-bound when NVDEC is saturated
 * while a decoder is the busiest stage (and not when another stage is
 * busier), compute-bound, throttled with its reason; the rows' figures are
 * the script's. No NVML call on any thread but the sampler's, the
 * sampler reads at the rate asked while a pipeline plays, and not at all
 * while none does. */
#include "gpuprof-test-util.h"
#include "gpuprof-test-nvml.h"

#include <glib/gstdio.h>

#include "gpuprof-metrics.h"
#include "gpuprof-summary-reader.h"

#define FAKE GPUPROF_TEST_NVML_FAKE
/* a summary's one snapshot */
#define SNAP(run) ((GpuprofSnapshot *) g_ptr_array_index ((run)->snapshots, 0))
#define HZ 10

static gchar *tmpdir;

/* gpuprofwork under an NVIDIA decoder's name (a type of its own: an
 * element's factory is its class's): a "decoder" to the verdict */
static void
register_codecs (void)
{
  static gsize done = 0;

  gpuprof_test_register_elements ();
  if (g_once_init_enter (&done)) {
    GstElementFactory *work = gst_element_factory_find ("gpuprofwork");
    GType parent, type;
    GTypeQuery q;

    fail_unless (work != NULL);
    parent = gst_element_factory_get_element_type (work);
    g_type_query (parent, &q);
    type = g_type_register_static_simple (parent, "GpuprofTestNvDec",
        q.class_size, NULL, q.instance_size, NULL, 0);
    gst_element_register (NULL, "nvtestdec", GST_RANK_NONE, type);
    gst_object_unref (work);
    g_once_init_leave (&done, 1);
  }
}

typedef struct
{
  GpuprofRun *run;
  gchar *report;
  gchar *metrics;
  const GpuprofGpuResourceRow *gpu;     /* the one device's row */
} Result;

/* Runs @desc to EOS under @script; its summary, report and metrics */
static Result
run (const gchar * script, const gchar * desc)
{
  Result r = { 0 };
  GstElement *p;
  gchar *name, *path;
  GError *err = NULL;
  GPtrArray *snaps;

  gpuprof_test_fake_nvml_script (FAKE, script);
  register_codecs ();
  p = gpuprof_test_parse (desc);
  name = gst_object_get_name (GST_OBJECT (p));
  gpuprof_test_play_to_eos (p);
  gpuprof_test_stop (p);
  r.report = gpuprof_test_last_report ();
  path = g_strdup_printf ("%s/%s.json", tmpdir, name);
  r.run = gpuprof_run_load (path, &err);
  fail_unless (r.run != NULL, "%s: %s", path, err ? err->message : "?");
  fail_unless_equals_int (SNAP (r.run)->gpu_resources->len, 1);
  r.gpu = &g_array_index (SNAP (r.run)->gpu_resources,
      GpuprofGpuResourceRow, 0);
  snaps = g_ptr_array_new ();
  g_ptr_array_add (snaps, SNAP (r.run));
  r.metrics = gpuprof_metrics_format (snaps, 0);
  g_ptr_array_unref (snaps);
  g_free (path);
  g_free (name);
  return r;
}

static void
result_clear (Result * r)
{
  gpuprof_run_free (r->run);
  g_free (r->report);
  g_free (r->metrics);
}

/* check's messages are short: the text goes to stderr */
static void
assert_contains (const gchar * text, const gchar * what)
{
  if (!strstr (text, what)) {
    g_printerr ("%s\n", text);
    fail ("no '%s' in the text above", what);
  }
}

static void
assert_lacks (const gchar * text, const gchar * what)
{
  if (strstr (text, what)) {
    g_printerr ("%s\n", text);
    fail ("'%s' in the text above", what);
  }
}

/* the ranked verdict of the summary (its limits table, read back): the
 * row of @rank is (@kind, @what); rank 1 is the run's limit too. Returns
 * the row. */
static const GpuprofLimitRow *
assert_limit (const Result * r, guint rank, const gchar * kind,
    const gchar * what)
{
  const GpuprofSnapshot *s = SNAP (r->run);
  const GpuprofLimitRow *row;

  if (s->limits->len < rank) {
    g_printerr ("%s\n", r->report);
    fail ("%u rows in the limits table, no rank %u", s->limits->len, rank);
  }
  row = &g_array_index (s->limits, GpuprofLimitRow, rank - 1);
  if (row->rank != rank || g_strcmp0 (row->kind, kind)
      || g_strcmp0 (row->what, what)) {
    g_printerr ("%s\n", r->report);
    fail ("rank %u: %s %s, not %s %s", rank, row->kind, row->what, kind,
        what);
  }
  if (rank == 1)
    fail_unless (!g_strcmp0 (s->limit_kind, kind)
        && !g_strcmp0 (s->limit_what, what), "run: limit %s %s",
        s->limit_kind, s->limit_what);
  return row;
}

/* the Prometheus sample of @family with @label="@value" on this GPU */
static gdouble
metric (const Result * r, const gchar * family, const gchar * label,
    const gchar * value)
{
  gchar *pattern = g_strdup_printf ("^%s\\{(?=[^}]*device=\"%s\")"
      "(?=[^}]*%s=\"%s\")[^}]*\\} ([0-9.e+-]+)$", family, r->gpu->device,
      label, value);
  GRegex *re = g_regex_new (pattern, G_REGEX_MULTILINE, 0, NULL);
  GMatchInfo *m;
  gdouble v;

  if (!g_regex_match (re, r->metrics, 0, &m)) {
    g_printerr ("%s", r->metrics);
    fail ("no %s{%s=\"%s\"} in the metrics above", family, label, value);
  }
  {
    gchar *num = g_match_info_fetch (m, 1);
    v = g_ascii_strtod (num, NULL);
    g_free (num);
  }
  g_match_info_free (m);
  g_regex_unref (re);
  g_free (pattern);
  return v;
}

#define SPIN_DEC "videotestsrc num-buffers=30 ! " \
  "video/x-raw,width=64,height=48 ! nvtestdec name=dec work-us=20000 " \
  "spin=true ! gpuprofwork name=post work-us=500 spin=true ! " \
  "fakesink sync=false"

GST_START_TEST (test_decode_bound)
{
  Result r = run ("0:decode-bound", SPIN_DEC);
  const GpuprofLimitRow *lim;

  /* the script's figures: every reading the same */
  fail_unless (r.gpu->readings >= 3, "%" G_GUINT64_FORMAT " readings",
      r.gpu->readings);
  gpuprof_test_assert_figure ("NVDEC", r.gpu->dec, 0.97);
  gpuprof_test_assert_figure ("SM", r.gpu->sm, 0.14);
  gpuprof_test_assert_figure ("NVDEC saturated", r.gpu->dec_saturated, 1.0);
  gpuprof_test_assert_figure ("clock", r.gpu->clock_mhz, 1980);
  fail_unless (r.gpu->self_known);
  gpuprof_test_assert_figure ("our NVDEC share", r.gpu->self_dec, 1.0);
  fail_unless (g_str_has_prefix (r.gpu->name, "GPU 0 "), "%s", r.gpu->name);
  assert_contains (r.report, "GPU resources (NVML");
  /* the ranked verdict: NVDEC limits, the decoder named, the advice */
  lim = assert_limit (&r, 1, "gpu", "GPU 0 NVDEC");
  gpuprof_test_assert_figure ("NVDEC's utilisation", lim->utilisation, 0.97);
  assert_contains (lim->evidence, "decode-bound: NVDEC 97% busy");
  assert_contains (lim->evidence, "pipeline0/dec");
  assert_contains (lim->advice, "fewer or smaller streams per GPU");
  assert_contains (lim->advice, "batch size and inference settings do not "
      "help");
  assert_limit (&r, 2, "stage", "pipeline0/dec");
  assert_contains (r.report, "limit: gpu GPU 0 NVDEC — decode-bound: NVDEC "
      "97% busy");
  /* said once: the limit line holds it */
  assert_lacks (r.report, "gpu: GPU 0 NVDEC");
  gpuprof_test_assert_figure ("prometheus nvdec", metric (&r,
          "gpuprof_gpu_utilization", "engine", "nvdec"), 0.97);
  gpuprof_test_assert_figure ("prometheus sm", metric (&r,
          "gpuprof_gpu_utilization", "engine", "sm"), 0.14);
  gpuprof_test_assert_figure ("deepstream's", metric (&r,
          "utilization_metrics", "metric_name", "system_gpu_utilization"),
      14);
  result_clear (&r);
}

GST_END_TEST;

/* NVDEC saturated, but a later stage is busier: not decode-bound */
GST_START_TEST (test_decoder_not_busiest)
{
  Result r = run ("0:decode-bound", "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! nvtestdec name=dec work-us=1000 "
      "spin=true ! gpuprofwork name=slow work-us=20000 spin=true ! "
      "fakesink sync=false");

  gpuprof_test_assert_figure ("NVDEC", r.gpu->dec, 0.97);
  assert_lacks (r.report, "decode-bound");
  assert_contains (r.report, "the decoders are not the busiest stages");
  /* the slow stage limits, NVDEC is a candidate behind it, not saturated */
  assert_limit (&r, 1, "stage", "pipeline0/slow");
  result_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_compute_bound)
{
  Result r = run ("0:compute-bound", "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! gpuprofwork name=infer "
      "work-us=10000 spin=true ! fakesink sync=false");

  gpuprof_test_assert_figure ("SM", r.gpu->sm, 0.99);
  gpuprof_test_assert_figure ("NVDEC", r.gpu->dec, 0.03);
  assert_limit (&r, 1, "gpu", "GPU 0 SMs");
  assert_contains (r.report, "limit: gpu GPU 0 SMs — compute-bound: SMs 99% "
      "busy");
  /* cupti=off: which stage's kernels is not known, said so */
  assert_contains (r.report, "cupti=on tells");
  assert_contains (r.report, "batch-size");
  assert_lacks (r.report, "decode-bound");
  gpuprof_test_assert_figure ("prometheus sm", metric (&r,
          "gpuprof_gpu_utilization", "engine", "sm"), 0.99);
  gpuprof_test_assert_figure ("not throttled", metric (&r,
          "gpuprof_gpu_throttle_ratio", "reason", "thermal"), 0.0);
  result_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_throttled)
{
  Result r = run ("0:throttled", "videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! gpuprofwork name=infer "
      "work-us=10000 spin=true ! fakesink sync=false");

  gpuprof_test_assert_figure ("throttled", r.gpu->throttled, 1.0);
  gpuprof_test_assert_figure ("thermal", r.gpu->thermal, 1.0);
  gpuprof_test_assert_figure ("power", r.gpu->power_capped, 0.0);
  gpuprof_test_assert_figure ("clock", r.gpu->clock_mhz, 1095);
  fail_unless_equals_uint64 (r.gpu->clock_max_mhz, 1980);
  assert_contains (r.gpu->reasons, "sw_thermal 100%");
  /* the clocks limit (held down while the SMs work), the SMs behind */
  assert_limit (&r, 1, "gpu", "GPU 0 clocks (throttled: hw_slowdown, "
      "sw_thermal)");
  assert_limit (&r, 2, "gpu", "GPU 0 SMs");
  assert_contains (r.report, "limit: gpu GPU 0 clocks (throttled: "
      "hw_slowdown, sw_thermal) — throttled: SM clock 1095 of 1980 MHz "
      "(55%)");
  assert_contains (r.report, "heat: the GPU slows down to cool");
  gpuprof_test_assert_figure ("prometheus thermal", metric (&r,
          "gpuprof_gpu_throttle_ratio", "reason", "thermal"), 1.0);
  gpuprof_test_assert_figure ("prometheus slowdown", metric (&r,
          "gpuprof_gpu_throttle_ratio", "reason", "hw_slowdown"), 1.0);
  result_clear (&r);
}

GST_END_TEST;

/* /proc/self/task/TID/comm */
static gchar *
thread_name (gint tid)
{
  gchar *path = g_strdup_printf ("/proc/self/task/%d/comm", tid);
  gchar *text = NULL;

  g_file_get_contents (path, &text, NULL, NULL);
  g_free (path);
  return text ? g_strstrip (text) : g_strdup ("(gone)");
}

/* Every NVML call of a run on one thread, the sampler's; none from a
 * streaming thread (the buffer path) nor the one that set the state
 * (NVML's opening is the sampler's first tick); and the rate asked */
GST_START_TEST (test_sampler_thread_and_rate)
{
  gint tids[8];
  gulong calls[8];
  guint n, i;
  gulong readings;
  gint64 t0, t1;
  GstElement *live;
  Result r;

  gpuprof_test_fake_nvml_reset_calls (FAKE);
  r = run ("0:decode-bound", SPIN_DEC);
  n = gpuprof_test_fake_nvml_callers (FAKE, tids, calls, G_N_ELEMENTS (tids));
  fail_unless (n >= 1, "NVML was never called");
  for (i = 0; i < n; i++) {
    gchar *name = thread_name (tids[i]);

    fail_unless (!g_strcmp0 (name, "gpuprof-sampler"), "%lu NVML calls on "
        "thread %d '%s', not the sampler's", calls[i], tids[i], name);
    g_free (name);
  }
  fail_unless_equals_int (n, 1);
  /* the rate: one reading (one utilisation call per device) every 1/HZ s,
   * counted over a timed second while a pipeline plays */
  live = gpuprof_test_parse ("videotestsrc is-live=true ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! fakesink");
  fail_unless (gst_element_set_state (live, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (live, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  gpuprof_test_fake_nvml_reset_calls (FAKE);
  t0 = g_get_monotonic_time ();
  g_usleep (G_USEC_PER_SEC);
  readings = gpuprof_test_fake_nvml_calls (FAKE,
      "nvmlDeviceGetUtilizationRates");
  t1 = g_get_monotonic_time ();
  {
    gdouble expected = (t1 - t0) / 1e6 * HZ;

    /* never faster than asked; slower only as far as a loaded machine
     * runs the sampler thread late (a late tick is not made up) */
    fail_unless (readings >= expected / 2 && readings <= expected + 2,
        "%lu readings in %.3f s at %d Hz", readings, (t1 - t0) / 1e6, HZ);
  }
  /* no pipeline plays: NVML rests (a tick begun before the stop may
   * still end, hence the pause before counting) */
  gpuprof_test_stop (live);
  g_usleep (G_USEC_PER_SEC / 5);
  gpuprof_test_fake_nvml_reset_calls (FAKE);
  g_usleep (G_USEC_PER_SEC / 2);
  fail_unless_equals_int (gpuprof_test_fake_nvml_calls (FAKE,
          "nvmlDeviceGetUtilizationRates"), 0);
  fail_unless_equals_uint64 (r.gpu->read_period_ns, G_GUINT64_CONSTANT
      (1000000000) / HZ);
  /* what a reading costs the sampler thread, for docs/resources.md */
  g_print ("one reading of the fake (1 device, 8 NVML calls): %.1f µs CPU, "
      "%.1f µs wall on the sampler thread\n", r.gpu->read_cpu_ns / 1e3,
      r.gpu->read_wall_ns / 1e3);
  result_clear (&r);
}

GST_END_TEST;

static Suite *
gpu_resources_suite (void)
{
  Suite *s = suite_create ("gpu-resources");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_decode_bound);
  tcase_add_test (tc, test_decoder_not_busiest);
  tcase_add_test (tc, test_compute_bound);
  tcase_add_test (tc, test_throttled);
  tcase_add_test (tc, test_sampler_thread_and_rate);
  return s;
}

int
main (int argc, char **argv)
{
  gchar *tracers;
  gint status;

  tmpdir = g_dir_make_tmp ("gpuprof-gpures-XXXXXX", NULL);
  g_setenv ("GPUPROF_NVML_LIBRARY", gpuprof_test_fake_nvml_path (FAKE),
      TRUE);
  tracers = g_strdup_printf ("gpuprof(nvml=on,nvml-hz=%d,cupti=off,"
      "report=off,stats=%s/%%n.json)", HZ, tmpdir);
  status = gpuprof_test_main (&argc, &argv, tracers, gpu_resources_suite,
      "gpu-resources", __FILE__);
  g_free (tracers);
  return status;
}
