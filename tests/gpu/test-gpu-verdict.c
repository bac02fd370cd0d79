/* The GPU in the verdict (gst/snapshot/gpuprof-gpu-verdict.c) on
 * synthetic snapshots: each label only where its rule holds (compute-bound
 * needs the SMs busy and, with CUPTI, one stage with most of the kernel
 * time; copy-bound copies >= 15 % of the wall and more than the kernels;
 * decode-bound NVDEC saturated with a decoder the busiest stage;
 * throttled with power or heat advice), the resources rows, and the exact
 * Nsight Compute command for a stage's top kernels. */
#include <glib.h>
#include <string.h>

#include "gpuprof-delta.h"
#include "gpuprof-gpu-verdict.h"

static GpuprofGpuResourceRow *
gpu_row (GpuprofSnapshot * s, gdouble sm, gdouble dec)
{
  GpuprofGpuResourceRow *r = gpuprof_summary_add_row (s,
      GPUPROF_SUMMARY_GPU_RESOURCES);

  r->device = g_strdup ("GPU-0123");
  r->name = g_strdup ("GPU 0 NVIDIA H100 80GB HBM3");
  r->reasons = g_strdup ("");
  r->readings = 20;
  r->sm = r->sm_peak = sm;
  r->sm_saturated = sm >= 0.9 ? 1.0 : 0.0;
  r->dec = r->dec_peak = dec;
  r->dec_saturated = dec >= 0.9 ? 1.0 : 0.0;
  r->clock_mhz = r->clock_max_mhz = 1980;
  return r;
}

static void
element (GpuprofSnapshot * s, const gchar * path, const gchar * factory,
    gdouble busy)
{
  GpuprofElementRow *e = gpuprof_summary_add_row (s,
      GPUPROF_SUMMARY_ELEMENTS);

  e->path = g_strdup (path);
  e->factory = g_strdup (factory);
  e->role = g_strdup ("filter");
  e->busy = busy;
  e->calls = 100;
}

static void
gpu_element (GpuprofSnapshot * s, const gchar * path, guint64 kernel_ns,
    guint64 copy_ns)
{
  GpuprofGpuElementRow *e = gpuprof_summary_add_row (s,
      GPUPROF_SUMMARY_GPU_ELEMENTS);

  e->path = g_strdup (path);
  e->thread = g_strdup ("");
  e->kernel_ns = kernel_ns;
  e->copy_ns = copy_ns;
  e->copies = copy_ns ? 100 : 0;
  e->gpu_ns = kernel_ns + copy_ns;
  e->buffers = 100;
  e->ns_per_buffer = e->gpu_ns / 100.0;
}

static void
kernel (GpuprofSnapshot * s, const gchar * name, const gchar * element,
    guint64 calls)
{
  GpuprofGpuKernelRow *k = gpuprof_summary_add_row (s,
      GPUPROF_SUMMARY_GPU_KERNELS);

  k->name = g_strdup (name);
  k->element = g_strdup (element);
  k->calls = calls;
  k->ns = calls * 1000;
}

/* CUPTI was on: its one totals row */
static void
cupti_on (GpuprofSnapshot * s, const gchar * ncu)
{
  GpuprofGpuRow *g = gpuprof_summary_add_row (s, GPUPROF_SUMMARY_GPU);

  g->path = g_strdup ("callback");
  g->ncu = g_strdup (ncu);
}

static const GpuprofGpuCandidate *
find (GArray * c, const gchar * what)
{
  guint i;

  for (i = 0; i < c->len; i++)
    if (!g_strcmp0 (g_array_index (c, GpuprofGpuCandidate, i).what, what))
      return &g_array_index (c, GpuprofGpuCandidate, i);
  g_error ("no candidate %s", what);
  return NULL;
}

static void
test_compute (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GArray *c;
  const GpuprofGpuCandidate *sm;

  s->wall_ns = 1000000000;
  gpu_row (s, 0.97, 0.0);
  element (s, "p/infer", "analyticsinfer", 0.5);
  cupti_on (s, "ncu --kernel-name X app");
  gpu_element (s, "p/infer", 900000000, 0);
  gpu_element (s, "p/conv", 100000000, 0);
  c = gpuprof_gpu_verdict_candidates (s);
  sm = find (c, "GPU 0 SMs");
  g_assert_cmpint (sm->bound, ==, GPUPROF_GPU_BOUND_COMPUTE);
  g_assert_cmpstr (sm->stage, ==, "p/infer");
  g_assert_true (g_str_has_prefix (sm->evidence, "compute-bound: SMs 97% "
          "busy; p/infer runs 90% of the kernel time"));
  g_assert_nonnull (strstr (sm->advice, "batch-size"));
  g_assert_nonnull (strstr (sm->advice, "its kernels in Nsight Compute: "
          "ncu --kernel-name X app"));
  g_assert_true (gpuprof_gpu_verdict_bound (c) == sm);
  g_array_unref (c);
  gpuprof_snapshot_free (s);

  /* the SMs busy, but no stage with most of the kernels: not bound */
  s = gpuprof_snapshot_new ("p");
  s->wall_ns = 1000000000;
  gpu_row (s, 0.97, 0.0);
  cupti_on (s, "");
  gpu_element (s, "p/a", 300000000, 0);
  gpu_element (s, "p/b", 350000000, 0);
  gpu_element (s, "p/c", 350000000, 0);
  c = gpuprof_gpu_verdict_candidates (s);
  g_assert_cmpint (find (c, "GPU 0 SMs")->bound, ==, GPUPROF_GPU_BOUND_NONE);
  g_assert_null (gpuprof_gpu_verdict_bound (c));
  g_array_unref (c);
  gpuprof_snapshot_free (s);
}

static void
test_copy (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GArray *c;
  const GpuprofGpuCandidate *copy;
  const GpuprofResourceRow *row;
  guint i;

  s->wall_ns = 1000000000;
  gpu_row (s, 0.30, 0.0);
  cupti_on (s, "");
  gpu_element (s, "p/upload", 0, 300000000);
  gpu_element (s, "p/infer", 100000000, 0);
  c = gpuprof_gpu_verdict_candidates (s);
  copy = find (c, "GPU 0 copy");
  g_assert_cmpint (copy->bound, ==, GPUPROF_GPU_BOUND_COPY);
  g_assert_cmpfloat_with_epsilon (copy->utilisation, 0.30, 1e-9);
  g_assert_true (g_str_has_prefix (copy->evidence, "copy-bound: copies 30% "
          "of the wall"));
  g_assert_nonnull (strstr (copy->advice, "pinned"));
  g_assert_nonnull (strstr (copy->advice, "p/upload"));
  g_array_unref (c);
  /* the resources rows: the engines and the copies */
  gpuprof_gpu_verdict_fill_resources (s);
  for (i = 0, row = NULL; i < s->resources->len; i++)
    if (!g_strcmp0 (g_array_index (s->resources, GpuprofResourceRow,
                i).kind, "gpu-copy"))
      row = &g_array_index (s->resources, GpuprofResourceRow, i);
  g_assert_nonnull (row);
  g_assert_cmpfloat_with_epsilon (row->utilisation, 0.30, 1e-9);
  g_assert_cmpuint (s->resources->len, ==, 6);
  /* filled again: replaced, not doubled */
  gpuprof_gpu_verdict_fill_resources (s);
  g_assert_cmpuint (s->resources->len, ==, 6);
  gpuprof_snapshot_free (s);

  /* 10 % of the wall: a candidate, not copy-bound */
  s = gpuprof_snapshot_new ("p");
  s->wall_ns = 1000000000;
  cupti_on (s, "");
  gpu_element (s, "p/upload", 0, 100000000);
  gpu_element (s, "p/infer", 50000000, 0);
  c = gpuprof_gpu_verdict_candidates (s);
  g_assert_cmpint (find (c, "GPU copy")->bound, ==, GPUPROF_GPU_BOUND_NONE);
  g_array_unref (c);
  gpuprof_snapshot_free (s);
}

static void
test_decode (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GArray *c;

  gpu_row (s, 0.14, 0.99);
  element (s, "p/dec0", "nvh264dec", 0.97);
  element (s, "p/dec1", "nvh264dec", 0.95);
  element (s, "p/parse", "h264parse", 0.10);
  c = gpuprof_gpu_verdict_candidates (s);
  g_assert_cmpint (find (c, "GPU 0 NVDEC")->bound, ==,
      GPUPROF_GPU_BOUND_DECODE);
  g_assert_true (g_str_has_prefix (find (c, "GPU 0 NVDEC")->evidence,
          "decode-bound: NVDEC 99% busy"));
  g_assert_nonnull (strstr (find (c, "GPU 0 NVDEC")->evidence,
          "2 decoders, p/dec0 in its calls 97% of its thread's time"));
  g_assert_nonnull (strstr (find (c, "GPU 0 NVDEC")->advice,
          "batch size and inference settings do not help"));
  g_array_unref (c);
  gpuprof_snapshot_free (s);

  /* a slower CPU stage: NVDEC full but not what limits */
  s = gpuprof_snapshot_new ("p");
  gpu_row (s, 0.14, 0.99);
  element (s, "p/dec0", "nvh264dec", 0.40);
  element (s, "p/osd", "analyticsosd", 0.99);
  c = gpuprof_gpu_verdict_candidates (s);
  g_assert_cmpint (find (c, "GPU 0 NVDEC")->bound, ==,
      GPUPROF_GPU_BOUND_NONE);
  g_array_unref (c);
  gpuprof_snapshot_free (s);
}

/* an element of @s that ran @seconds of thread time, @busy of it in its
 * calls (what an interval's delta reads) */
static void
timed_element (GpuprofSnapshot * s, const gchar * path, const gchar * factory,
    gdouble busy, guint seconds)
{
  GpuprofElementRow *e;

  element (s, path, factory, busy);
  e = &g_array_index (s->elements, GpuprofElementRow, s->elements->len - 1);
  e->thread = g_strdup ("t");
  e->thread_wall_ns = seconds * GST_SECOND;
  e->thread_self_ns = e->self_ns = (guint64) (busy * e->thread_wall_ns);
  e->calls = 100 * seconds;
}

/* An interval's verdict (gpuprof_snapshot_delta(), interval= lines) ranks
 * the GPU as the run's does, on the interval's NVML readings: NVDEC half
 * busy in the first 20 readings, full in the next 20, the decoder busy
 * throughout: the interval is decode-bound, the run so far was not */
static void
test_decode_interval (void)
{
  GpuprofSnapshot *a = gpuprof_snapshot_new ("p");
  GpuprofSnapshot *b = gpuprof_snapshot_new ("p");
  GpuprofSnapshot *d;
  GpuprofGpuResourceRow *r;
  const GpuprofGpuResourceRow *dr;

  gpu_row (a, 0.14, 0.50);
  timed_element (a, "p/dec0", "nvh264dec", 0.97, 1);
  gpuprof_snapshot_compute_verdict (a);
  g_assert_cmpstr (a->limit_kind, ==, "stage");
  /* cumulative over 40 readings: the means and shares of the whole run */
  r = gpu_row (b, 0.14, (0.50 * 20 + 0.99 * 20) / 40);
  r->readings = 40;
  r->dec_saturated = 0.5;
  timed_element (b, "p/dec0", "nvh264dec", 0.97, 2);
  gpuprof_snapshot_compute_verdict (b);
  g_assert_cmpstr (b->limit_kind, ==, "stage");
  d = gpuprof_snapshot_delta (b, a);
  g_assert_cmpuint (d->gpu_resources->len, ==, 1);
  dr = &g_array_index (d->gpu_resources, GpuprofGpuResourceRow, 0);
  g_assert_cmpuint (dr->readings, ==, 20);
  g_assert_cmpfloat_with_epsilon (dr->dec, 0.99, 1e-9);
  g_assert_cmpfloat_with_epsilon (dr->dec_saturated, 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (dr->sm, 0.14, 1e-9);
  g_assert_cmpstr (d->limit_kind, ==, "gpu");
  g_assert_cmpstr (d->limit_what, ==, "GPU 0 NVDEC");
  gpuprof_snapshot_free (d);
  gpuprof_snapshot_free (a);
  gpuprof_snapshot_free (b);
}

static void
test_throttled (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofGpuResourceRow *r = gpu_row (s, 0.98, 0.0);
  const GpuprofGpuCandidate *clk;
  GArray *c;

  r->clock_mhz = 1200;
  r->throttled = r->power_capped = 0.8;
  g_free (r->reasons);
  r->reasons = g_strdup ("sw_power_cap 80%, gpu_idle 5%");
  c = gpuprof_gpu_verdict_candidates (s);
  clk = find (c, "GPU 0 clocks (throttled: sw_power_cap)");
  g_assert_cmpint (clk->bound, ==, GPUPROF_GPU_BOUND_THROTTLED);
  g_assert_true (g_str_has_prefix (clk->evidence, "throttled: SM clock 1200 "
          "of 1980 MHz (61%), held down in 80% of the readings"));
  g_assert_true (g_str_has_prefix (clk->advice, "power: "));
  g_array_unref (c);

  /* an idle GPU held down is no limit: no candidate */
  r->sm = r->sm_peak = 0.05;
  r->sm_saturated = 0.0;
  c = gpuprof_gpu_verdict_candidates (s);
  g_assert_null (gpuprof_gpu_verdict_bound (c));
  g_array_unref (c);
  gpuprof_snapshot_free (s);
}

static void
test_ncu_command (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  const gchar *argv[] = { "gst-launch-1.0", "videotestsrc", "!",
    "video/x-raw,width=64", "!", "fakesink", NULL
  };
  gchar *cmd;

  kernel (s, "_Z4gemmPKfS0_Pfi", "p/infer", 400);
  kernel (s, "copy_kernel", "p/conv", 300);
  kernel (s, "relu$1", "p/infer", 400);
  cmd = gpuprof_gpu_ncu_command (s, "p/infer", "2+5", argv);
  g_assert_cmpstr (cmd, ==, "GST_TRACERS='gpuprof(window=2+5)' ncu "
      "--profile-from-start off --kernel-name-base mangled --kernel-name "
      "'regex:^(_Z4gemmPKfS0_Pfi|relu\\$1)$' --launch-skip 20 "
      "--launch-count 2 --set full -o gpuprof-kernels gst-launch-1.0 "
      "videotestsrc '!' video/x-raw,width=64 '!' fakesink");
  g_free (cmd);
  /* no window: the launches of the start-up skipped instead */
  cmd = gpuprof_gpu_ncu_command (s, "p/infer", NULL, NULL);
  g_assert_cmpstr (cmd, ==, "ncu --kernel-name-base mangled --kernel-name "
      "'regex:^(_Z4gemmPKfS0_Pfi|relu\\$1)$' --launch-skip 80 "
      "--launch-count 2 --set full -o gpuprof-kernels <your command>");
  g_free (cmd);
  g_assert_null (gpuprof_gpu_ncu_command (s, "p/none", NULL, NULL));
  gpuprof_snapshot_free (s);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gpu-verdict/compute", test_compute);
  g_test_add_func ("/gpu-verdict/copy", test_copy);
  g_test_add_func ("/gpu-verdict/decode", test_decode);
  g_test_add_func ("/gpu-verdict/decode-interval", test_decode_interval);
  g_test_add_func ("/gpu-verdict/throttled", test_throttled);
  g_test_add_func ("/gpu-verdict/ncu-command", test_ncu_command);
  return g_test_run ();
}
