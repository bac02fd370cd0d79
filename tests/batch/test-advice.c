/* The advice rules of gpuprof-advice.c on synthetic statistics: no
 * pipeline, no clock, exact expectations (docs/batches.md). */
#include <gst/gst.h>
#include <string.h>

#include "gpuprof-advice.h"

#define MS (G_GUINT64_CONSTANT (1000000))

static GpuprofBatchRow *
add_mux (GpuprofSnapshot * s, guint64 batch_size, guint64 inputs,
    gdouble frames_mean, guint64 interval_ns)
{
  GpuprofBatchRow r = { 0 };

  r.path = g_strdup ("p/mux");
  r.factory = g_strdup ("analyticsmux");
  r.batches = 100;
  r.frames_mean = frames_mean;
  r.frames = (guint64) (frames_mean * 100);
  r.batch_size = batch_size;
  r.fill = batch_size ? frames_mean / batch_size : 0;
  r.inputs = inputs;
  r.full = r.fill >= 1.0 ? 100 : 0;
  r.timeout = 100 - r.full;
  r.interval_ns = interval_ns;
  r.frame_interval_ns = 33333333;
  g_array_append_val (s->batches, r);
  return &g_array_index (s->batches, GpuprofBatchRow, s->batches->len - 1);
}

static GpuprofStageRow *
add_stage (GpuprofSnapshot * s, const gchar * name, const gchar * thread,
    guint64 ms_per_batch)
{
  GpuprofStageRow r = { 0 };

  r.path = g_strdup_printf ("p/%s", name);
  r.factory = g_strdup (name);
  r.aggregator = g_strdup ("p/mux");
  r.thread = g_strdup (thread);
  r.batches = 100;
  r.frames = 400;
  r.self_ns = ms_per_batch * MS * 100;
  r.ns_per_batch = ms_per_batch * MS;
  r.ns_per_frame = r.ns_per_batch / 4;
  g_array_append_val (s->stages, r);
  return &g_array_index (s->stages, GpuprofStageRow, s->stages->len - 1);
}

static const GpuprofAdviceRow *
find_advice (const GpuprofSnapshot * s, const gchar * rule)
{
  guint i;

  for (i = 0; i < s->advice->len; i++) {
    const GpuprofAdviceRow *a = &g_array_index (s->advice, GpuprofAdviceRow,
        i);
    if (!g_strcmp0 (a->rule, rule))
      return a;
  }
  return NULL;
}

static void
test_mux_under_batched (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofBatchRow *b = add_mux (s, 1, 8, 1.0, 5 * MS);
  GpuprofAdviceRow *a;

  g_assert_cmpuint (gpuprof_advice_mux_rule (b, s->advice), ==, 1);
  a = &g_array_index (s->advice, GpuprofAdviceRow, 0);
  g_assert_cmpstr (a->rule, ==, "mux-batch");
  g_assert_cmpstr (a->stage, ==, "p/mux");
  g_assert_cmpstr (a->setting, ==, "batch-size=8 batched-push-timeout=33333");
  g_assert_nonnull (strstr (a->reason, "8 live inputs"));
  gpuprof_snapshot_free (s);
}

static void
test_mux_low_fill_timeouts (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofBatchRow *b = add_mux (s, 8, 4, 4.0, 100 * MS);

  b->frame_interval_ns = 100 * MS;
  b->wait_p50_ns = 20 * MS;
  g_assert_cmpuint (gpuprof_advice_mux_rule (b, s->advice), ==, 1);
  g_assert_cmpstr (g_array_index (s->advice, GpuprofAdviceRow, 0).setting, ==,
      "batch-size=4 batched-push-timeout=100000");
  gpuprof_snapshot_free (s);
}

static void
test_mux_long_wait_same_size (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofBatchRow *b = add_mux (s, 4, 4, 2.4, 20 * MS);

  /* no timeouts counted, but the first frame waits half a frame interval */
  b->timeout = 0;
  b->full = 100;
  b->frame_interval_ns = 40 * MS;
  b->wait_p50_ns = 20 * MS;
  g_assert_cmpuint (gpuprof_advice_mux_rule (b, s->advice), ==, 1);
  g_assert_cmpstr (g_array_index (s->advice, GpuprofAdviceRow, 0).setting, ==,
      "batched-push-timeout=40000");
  /* short waits: the fill is what the inputs give, no knob to turn */
  g_array_set_size (s->advice, 0);
  b->wait_p50_ns = 2 * MS;
  g_assert_cmpuint (gpuprof_advice_mux_rule (b, s->advice), ==, 0);
  gpuprof_snapshot_free (s);
}

static void
test_mux_no_advice (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofBatchRow *full, *compositor;

  add_mux (s, 4, 4, 4.0, 10 * MS);
  add_mux (s, 0, 2, 2.0, 10 * MS);
  /* rows taken after both appends: an append may move the array */
  full = &g_array_index (s->batches, GpuprofBatchRow, 0);
  compositor = &g_array_index (s->batches, GpuprofBatchRow, 1);

  g_assert_cmpuint (gpuprof_advice_mux_rule (full, s->advice), ==, 0);
  /* no batch-size property: no knob */
  g_assert_cmpuint (gpuprof_advice_mux_rule (compositor, s->advice), ==, 0);
  g_assert_cmpuint (s->advice->len, ==, 0);
  gpuprof_snapshot_free (s);
}

static void
test_infer_batch (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofBatchRow *b = add_mux (s, 8, 8, 8.0, 10 * MS);
  GpuprofStageRow *infer = add_stage (s, "infer", "m:src", 4);
  const GpuprofAdviceRow *a;

  infer->batch_size = 1;
  g_assert_cmpuint (gpuprof_advice_infer_rule (infer, b, s->advice), ==, 1);
  a = &g_array_index (s->advice, GpuprofAdviceRow, 0);
  g_assert_cmpstr (a->rule, ==, "infer-batch");
  g_assert_cmpstr (a->setting, ==, "batch-size=8");
  g_assert_nonnull (strstr (a->reason, "8 launch(es) of 1"));

  /* per-frame time seen falling with the fill: said with the numbers */
  g_array_set_size (s->advice, 0);
  infer->batch_size = 2;
  infer->fill_lo_frames = 2;
  infer->fill_lo_ns_per_frame = 500000;
  infer->fill_hi_frames = 8;
  infer->fill_hi_ns_per_frame = 200000;
  g_assert_cmpuint (gpuprof_advice_infer_rule (infer, b, s->advice), ==, 1);
  a = &g_array_index (s->advice, GpuprofAdviceRow, 0);
  g_assert_nonnull (strstr (a->reason, "falls with batch"));
  g_assert_nonnull (strstr (a->reason, "500.0 µs at 2"));

  /* one launch per batch already */
  g_array_set_size (s->advice, 0);
  infer->batch_size = 8;
  g_assert_cmpuint (gpuprof_advice_infer_rule (infer, b, s->advice), ==, 0);
  /* no batch-size property: not an engine */
  infer->batch_size = 0;
  g_assert_cmpuint (gpuprof_advice_infer_rule (infer, b, s->advice), ==, 0);
  gpuprof_snapshot_free (s);
}

/* one thread: mux 1 ms, infer 3 ms, osd 6 ms per batch, a batch every 10 */
static GpuprofSnapshot *
osd_pipeline (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofStageRow *m, *infer;

  add_mux (s, 4, 4, 4.0, 10 * MS);
  m = add_stage (s, "mux", "m:src", 1);
  g_free (m->factory);
  m->factory = g_strdup ("analyticsmux");
  infer = add_stage (s, "infer", "m:src", 3);
  infer->batch_size = 4;
  infer->interval = 1;
  add_stage (s, "osd", "m:src", 6);
  return s;
}

static void
test_saturated_osd (void)
{
  GpuprofSnapshot *s = osd_pipeline ();
  const GpuprofStageRow *lim;

  gpuprof_advice_compute (s);
  lim = gpuprof_advice_limiting (s);
  g_assert_nonnull (lim);
  g_assert_cmpstr (lim->path, ==, "p/osd");
  g_assert_cmpfloat_with_epsilon (lim->util, 0.6, 1e-9);
  g_assert_cmpfloat_with_epsilon (gpuprof_advice_thread_util (s, lim), 1.0,
      1e-9);
  g_assert_true (gpuprof_advice_is_saturated (s, lim));
  g_assert_cmpstr (find_advice (s, "queue")->stage, ==, "p/osd");
  g_assert_cmpstr (find_advice (s, "drop-osd")->stage, ==, "p/osd");
  /* an OSD draws carried objects too: interval does not help it */
  g_assert_null (find_advice (s, "interval"));
  g_assert_null (find_advice (s, "mux-batch"));
  gpuprof_snapshot_free (s);
}

static void
test_saturated_tracker_interval (void)
{
  GpuprofSnapshot *s = osd_pipeline ();
  GpuprofStageRow *osd = &g_array_index (s->stages, GpuprofStageRow, 2);
  const GpuprofAdviceRow *a;

  g_free (osd->path);
  g_free (osd->factory);
  osd->path = g_strdup ("p/tracker");
  osd->factory = g_strdup ("analyticstracker");
  /* on a thread of its own behind a queue: no queue advice */
  g_free (osd->thread);
  osd->thread = g_strdup ("q:src");
  osd->self_ns = 9 * MS * 100;
  osd->ns_per_batch = 9 * MS;
  gpuprof_advice_compute (s);
  g_assert_cmpstr (gpuprof_advice_limiting (s)->path, ==, "p/tracker");
  a = find_advice (s, "interval");
  g_assert_nonnull (a);
  g_assert_cmpstr (a->stage, ==, "p/infer");
  g_assert_cmpstr (a->setting, ==, "interval=1");
  g_assert_null (find_advice (s, "queue"));
  g_assert_null (find_advice (s, "drop-osd"));
  gpuprof_snapshot_free (s);
}

static void
test_not_saturated (void)
{
  GpuprofSnapshot *s = osd_pipeline ();

  /* a batch every 40 ms: 25 % busy, the inputs limit */
  g_array_index (s->batches, GpuprofBatchRow, 0).interval_ns = 40 * MS;
  gpuprof_advice_compute (s);
  g_assert_cmpstr (gpuprof_advice_limiting (s)->path, ==, "p/osd");
  g_assert_false (gpuprof_advice_is_saturated (s,
          gpuprof_advice_limiting (s)));
  g_assert_null (find_advice (s, "queue"));
  g_assert_null (find_advice (s, "drop-osd"));
  gpuprof_snapshot_free (s);
}

static void
test_clock_sink_and_gpu_stage (void)
{
  GpuprofSnapshot *s = osd_pipeline ();
  GpuprofStageRow *sink = add_stage (s, "sink", "m:src", 9);
  GpuprofStageRow *osd = &g_array_index (s->stages, GpuprofStageRow, 2);

  /* a synced sink waits for the clock: never the limit */
  sink->waits_on_clock = TRUE;
  /* mostly GPU time: the CPU rules stay silent */
  osd->gpu_ns_per_batch = 5 * MS;
  gpuprof_advice_compute (s);
  g_assert_cmpstr (gpuprof_advice_limiting (s)->path, ==, "p/osd");
  g_assert_null (find_advice (s, "queue"));
  gpuprof_snapshot_free (s);
}

static void
test_order_mux_first (void)
{
  GpuprofSnapshot *s = osd_pipeline ();

  g_array_index (s->batches, GpuprofBatchRow, 0).batch_size = 1;
  g_array_index (s->batches, GpuprofBatchRow, 0).inputs = 8;
  gpuprof_advice_compute (s);
  g_assert_cmpuint (s->advice->len, >=, 3);
  g_assert_cmpstr (g_array_index (s->advice, GpuprofAdviceRow, 0).rule, ==,
      "mux-batch");
  /* computing twice gives the same rows, not twice as many */
  {
    guint n = s->advice->len;
    gpuprof_advice_compute (s);
    g_assert_cmpuint (s->advice->len, ==, n);
  }
  gpuprof_snapshot_free (s);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/advice/mux/under-batched", test_mux_under_batched);
  g_test_add_func ("/advice/mux/low-fill-timeouts",
      test_mux_low_fill_timeouts);
  g_test_add_func ("/advice/mux/long-wait", test_mux_long_wait_same_size);
  g_test_add_func ("/advice/mux/none", test_mux_no_advice);
  g_test_add_func ("/advice/infer-batch", test_infer_batch);
  g_test_add_func ("/advice/saturated/osd", test_saturated_osd);
  g_test_add_func ("/advice/saturated/tracker-interval",
      test_saturated_tracker_interval);
  g_test_add_func ("/advice/not-saturated", test_not_saturated);
  g_test_add_func ("/advice/clock-sink-gpu-stage",
      test_clock_sink_and_gpu_stage);
  g_test_add_func ("/advice/order", test_order_mux_first);
  return g_test_run ();
}
