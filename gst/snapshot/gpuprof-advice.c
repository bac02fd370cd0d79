/* gpuprof: the verdict per batch and the advice that names a knob. */
#include "gpuprof-advice.h"

#include <string.h>

static void
add_advice (GArray * out, const gchar * rule, const gchar * stage,
    gchar * setting, gchar * reason)
{
  GpuprofAdviceRow row = { g_strdup (rule), g_strdup (stage), setting,
    reason
  };

  g_array_append_val (out, row);
}

const GpuprofBatchRow *
gpuprof_advice_batch_of (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage)
{
  return gpuprof_snapshot_find_batch (snap, stage->aggregator);
}

/* The share of the time it had batches that the stage was busy: its self
 * time over its own span, from the push of its first batch to the end of
 * its last. (The aggregator's push interval is no base: it spans only
 * batches - 1 gaps and ends at the last push, while a synced sink's wait
 * for the last batch comes after it: 2700 % in a short run.) Summaries
 * without a span fall back to the interval. Never above 1: calls of one
 * stage on several threads at once are the only way past it. */
gdouble
gpuprof_advice_stage_util (const GpuprofStageRow * stage,
    const GpuprofBatchRow * agg)
{
  gdouble util;

  if (stage->span_ns)
    util = (gdouble) stage->self_ns / stage->span_ns;
  else if (agg && agg->batches && agg->interval_ns)
    util = (gdouble) stage->self_ns / agg->batches / agg->interval_ns;
  else
    return 0.0;
  return MIN (util, 1.0);
}

/* stages on one thread share it: their utilisations add up */
gdouble
gpuprof_advice_thread_util (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage)
{
  gdouble sum = 0;
  guint i;

  if (!stage->thread || !*stage->thread)
    return stage->util;
  for (i = 0; i < snap->stages->len; i++) {
    const GpuprofStageRow *s = &g_array_index (snap->stages,
        GpuprofStageRow, i);
    if (!g_strcmp0 (s->thread, stage->thread) && !s->waits_on_clock)
      sum += s->util;
  }
  return sum;
}

gboolean
gpuprof_advice_is_saturated (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage)
{
  return stage->util >= GPUPROF_ADVICE_STAGE_SATURATED
      || gpuprof_advice_thread_util (snap, stage) >= GPUPROF_ADVICE_SATURATED;
}

/* ---------------------------------------------------------- mux rule */

/* Low fill with long waits or timeouts, or fewer frames per batch than
 * live inputs: batch-size = live inputs, batched-push-timeout = one frame
 * interval of the inputs (a full round of frames, no longer). */
guint
gpuprof_advice_mux_rule (const GpuprofBatchRow * b, GArray * out)
{
  gboolean under, low, long_wait;
  gdouble timeouts;
  GString *setting;
  gchar *reason;

  if (!b->batch_size || !b->inputs || !b->batches)
    return 0;
  timeouts = (gdouble) b->timeout / b->batches;
  long_wait = b->frame_interval_ns ?
      b->wait_p50_ns >= b->frame_interval_ns / 4 :
      b->wait_p50_ns >= 10 * GST_MSECOND;
  under = b->batch_size < b->inputs;
  low = b->fill < GPUPROF_ADVICE_LOW_FILL
      && (timeouts >= GPUPROF_ADVICE_TIMEOUT_SHARE || long_wait);
  if (!under && !low)
    return 0;
  setting = g_string_new (NULL);
  if (b->batch_size != b->inputs)
    g_string_append_printf (setting, "batch-size=%" G_GUINT64_FORMAT,
        b->inputs);
  if (b->frame_interval_ns)
    g_string_append_printf (setting, "%sbatched-push-timeout=%"
        G_GUINT64_FORMAT, setting->len ? " " : "",
        b->frame_interval_ns / 1000);
  if (!setting->len) {
    g_string_free (setting, TRUE);
    return 0;
  }
  if (under)
    reason = g_strdup_printf ("batches of %.1f frames from %" G_GUINT64_FORMAT
        " live inputs: one push per %" G_GUINT64_FORMAT " frame(s) repeats "
        "every per-batch cost downstream", b->frames_mean, b->inputs,
        b->batch_size);
  else
    reason = g_strdup_printf ("fill %.0f%% of batch-size %" G_GUINT64_FORMAT
        " with %" G_GUINT64_FORMAT " live inputs; %" G_GUINT64_FORMAT
        " of %" G_GUINT64_FORMAT " batches pushed by timeout, wait p50 "
        "%.1f ms%s", b->fill * 100, b->batch_size, b->inputs, b->timeout,
        b->batches, b->wait_p50_ns / 1e6, b->frame_interval_ns ?
        " (timeout = one frame interval)" : "");
  add_advice (out, "mux-batch", b->path, g_string_free (setting, FALSE),
      reason);
  return 1;
}

/* ------------------------------------------------------- infer rule */

/* A stage with a batch-size of its own (frames per launch): per-frame time
 * falling with the fill says launches have a fixed cost; fewer frames per
 * launch than per batch means several launches per batch. */
guint
gpuprof_advice_infer_rule (const GpuprofStageRow * s,
    const GpuprofBatchRow * b, GArray * out)
{
  guint64 frames;
  gboolean falling;
  gchar *reason;

  if (!s->batch_size || !s->batches || (b && !g_strcmp0 (b->path, s->path)))
    return 0;
  frames = b && b->batches ? (guint64) (b->frames_mean + 0.999) :
      (s->frames + s->batches - 1) / s->batches;
  falling = s->fill_lo_frames && s->fill_hi_frames > s->fill_lo_frames
      && s->fill_hi_ns_per_frame <
      GPUPROF_ADVICE_FALLING * s->fill_lo_ns_per_frame;
  if (s->batch_size >= frames)
    return 0;
  if (falling)
    reason = g_strdup_printf ("per-frame time falls with batch: %.1f µs at "
        "%" G_GUINT64_FORMAT " frame(s), %.1f µs at %" G_GUINT64_FORMAT
        "; now %" G_GUINT64_FORMAT " launch(es) per batch of %"
        G_GUINT64_FORMAT, s->fill_lo_ns_per_frame / 1e3, s->fill_lo_frames,
        s->fill_hi_ns_per_frame / 1e3, s->fill_hi_frames,
        (frames + s->batch_size - 1) / s->batch_size, frames);
  else
    reason = g_strdup_printf ("%" G_GUINT64_FORMAT " launch(es) of %"
        G_GUINT64_FORMAT " per batch of %" G_GUINT64_FORMAT " frames "
        "(%.1f µs per frame): try one launch per batch; an engine has a "
        "fixed cost per launch", (frames + s->batch_size - 1) / s->batch_size,
        s->batch_size, frames, s->ns_per_frame / 1e3);
  add_advice (out, "infer-batch", s->path,
      g_strdup_printf ("batch-size=%" G_GUINT64_FORMAT, frames), reason);
  return 1;
}

/* --------------------------------------------------- saturated rule */

static gboolean
is_osd (const GpuprofStageRow * s)
{
  return (s->factory && strstr (s->factory, "osd"))
      || (s->path && strstr (s->path, "osd"));
}

/* the inference stage upstream of 's' (it has an interval knob) */
static const GpuprofStageRow *
inference_before (const GpuprofSnapshot * snap, const GpuprofStageRow * s)
{
  const GpuprofStageRow *found = NULL;
  guint i;

  for (i = 0; i < snap->stages->len; i++) {
    const GpuprofStageRow *x = &g_array_index (snap->stages,
        GpuprofStageRow, i);
    if (x == s)
      break;
    if (x->interval && !g_strcmp0 (x->aggregator, s->aggregator))
      found = x;
  }
  return found;
}

static gboolean
shares_thread (const GpuprofSnapshot * snap, const GpuprofStageRow * s)
{
  guint i;

  for (i = 0; i < snap->stages->len; i++) {
    const GpuprofStageRow *x = &g_array_index (snap->stages,
        GpuprofStageRow, i);
    if (x != s && x->thread && *x->thread && !g_strcmp0 (x->thread,
            s->thread) && x->util >= 0.05)
      return TRUE;
  }
  return FALSE;
}

/* A saturated CPU stage: its own thread (queue before it), fewer batches
 * with objects to handle (inference interval), or no OSD at all. */
guint
gpuprof_advice_saturated_rule (const GpuprofSnapshot * snap,
    const GpuprofStageRow * s, GArray * out)
{
  const GpuprofStageRow *infer;
  gdouble thread_util = gpuprof_advice_thread_util (snap, s);
  guint n = 0;

  if (!gpuprof_advice_is_saturated (snap, s))
    return 0;
  /* mostly GPU time: the infer rule's batch-size is the knob */
  if (s->gpu_ns_per_batch * 2 > s->ns_per_batch)
    return 0;
  if (!g_strcmp0 (s->path, s->aggregator))
    return 0;
  if (shares_thread (snap, s)) {
    add_advice (out, "queue", s->path, g_strdup ("queue before it"),
        g_strdup_printf ("%.0f%% of the time between batches on thread %s, "
            "%.0f%% busy in all: a queue gives it a "
            "thread of its own", s->util * 100, s->thread, thread_util * 100));
    n++;
  }
  /* an inference stage skips batches itself; later stages get carried
   * batches, which cost them less */
  infer = s->interval ? s : inference_before (snap, s);
  if (infer && !is_osd (s)) {
    add_advice (out, "interval", infer->path,
        g_strdup_printf ("interval=%" G_GUINT64_FORMAT, infer->interval),
        g_strdup_printf ("infer fewer batches: %s spends %.3f ms per batch "
            "now, less on batches carried without inference", s->path,
            s->ns_per_batch / 1e6));
    n++;
  }
  if (is_osd (s)) {
    add_advice (out, "drop-osd", s->path, g_strdup ("remove it"),
        g_strdup_printf ("drawing costs %.3f ms per batch (%.1f µs per "
            "frame): drop the OSD where nobody watches", s->ns_per_batch / 1e6,
            s->ns_per_frame / 1e3));
    n++;
  }
  return n;
}

/* ------------------------------------------------------------ all */

const GpuprofStageRow *
gpuprof_advice_limiting (const GpuprofSnapshot * snap)
{
  guint i;

  for (i = 0; snap->stages && i < snap->stages->len; i++) {
    const GpuprofStageRow *s = &g_array_index (snap->stages,
        GpuprofStageRow, i);
    if (s->limiting)
      return s;
  }
  return NULL;
}

/* highest utilisation wins; a sink waiting for the clock is not busy */
static void
mark_limiting (GpuprofSnapshot * snap)
{
  GpuprofStageRow *best = NULL;
  guint i;

  for (i = 0; i < snap->stages->len; i++) {
    GpuprofStageRow *s = &g_array_index (snap->stages, GpuprofStageRow, i);
    s->util = gpuprof_advice_stage_util (s,
        gpuprof_advice_batch_of (snap, s));
    s->limiting = FALSE;
    if (s->waits_on_clock || s->util <= 0)
      continue;
    if (!best || s->util > best->util)
      best = s;
  }
  if (best)
    best->limiting = TRUE;
}

void
gpuprof_advice_compute (GpuprofSnapshot * snap)
{
  const GpuprofStageRow *limiting;
  guint i;

  g_array_set_size (snap->advice, 0);
  mark_limiting (snap);
  for (i = 0; i < snap->batches->len; i++)
    gpuprof_advice_mux_rule (&g_array_index (snap->batches, GpuprofBatchRow,
            i), snap->advice);
  limiting = gpuprof_advice_limiting (snap);
  if (limiting)
    gpuprof_advice_saturated_rule (snap, limiting, snap->advice);
  /* an engine's launches matter where it costs something */
  for (i = 0; i < snap->stages->len; i++) {
    const GpuprofStageRow *s = &g_array_index (snap->stages,
        GpuprofStageRow, i);
    if (s->limiting || s->util >= GPUPROF_ADVICE_INFER_UTIL)
      gpuprof_advice_infer_rule (s, gpuprof_advice_batch_of (snap, s),
          snap->advice);
  }
}
