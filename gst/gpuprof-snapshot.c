/* gpuprof: a point-in-time copy of one pipeline's statistics. */
#include "gpuprof-snapshot.h"

#include <string.h>

static void
element_row_clear (GpuprofElementRow * r)
{
  g_free (r->path);
  g_free (r->factory);
  g_free (r->role);
  g_free (r->thread);
}

static void
queue_row_clear (GpuprofQueueRow * r)
{
  g_free (r->path);
}

static void
thread_row_clear (GpuprofThreadRow * r)
{
  g_free (r->name);
  g_free (r->top_element);
}

static void
batch_row_clear (GpuprofBatchRow * r)
{
  g_free (r->path);
  g_free (r->factory);
}

static void
stage_row_clear (GpuprofStageRow * r)
{
  g_free (r->path);
  g_free (r->factory);
  g_free (r->aggregator);
  g_free (r->thread);
}

static void
advice_row_clear (GpuprofAdviceRow * r)
{
  g_free (r->rule);
  g_free (r->stage);
  g_free (r->setting);
  g_free (r->reason);
}

GpuprofSnapshot *
gpuprof_snapshot_new (const gchar * pipeline)
{
  GpuprofSnapshot *s = g_new0 (GpuprofSnapshot, 1);

  s->pipeline = g_strdup (pipeline ? pipeline : "");
  s->elements = g_array_new (FALSE, TRUE, sizeof (GpuprofElementRow));
  s->queues = g_array_new (FALSE, TRUE, sizeof (GpuprofQueueRow));
  s->threads = g_array_new (FALSE, TRUE, sizeof (GpuprofThreadRow));
  g_array_set_clear_func (s->elements, (GDestroyNotify) element_row_clear);
  g_array_set_clear_func (s->queues, (GDestroyNotify) queue_row_clear);
  g_array_set_clear_func (s->threads, (GDestroyNotify) thread_row_clear);
  s->batches = g_array_new (FALSE, TRUE, sizeof (GpuprofBatchRow));
  s->stages = g_array_new (FALSE, TRUE, sizeof (GpuprofStageRow));
  s->advice = g_array_new (FALSE, TRUE, sizeof (GpuprofAdviceRow));
  g_array_set_clear_func (s->batches, (GDestroyNotify) batch_row_clear);
  g_array_set_clear_func (s->stages, (GDestroyNotify) stage_row_clear);
  g_array_set_clear_func (s->advice, (GDestroyNotify) advice_row_clear);
  return s;
}

void
gpuprof_snapshot_free (GpuprofSnapshot * s)
{
  if (!s)
    return;
  g_array_unref (s->elements);
  g_array_unref (s->queues);
  g_array_unref (s->threads);
  g_array_unref (s->batches);
  g_array_unref (s->stages);
  g_array_unref (s->advice);
  g_free (s->pipeline);
  g_free (s->bottleneck);
  g_free (s->bottleneck_thread);
  g_free (s->gpu_section);
  g_free (s);
}

static gint
cmp_u64_desc (guint64 a, guint64 b)
{
  return a < b ? 1 : a > b ? -1 : 0;
}

static gint
cmp_elements (gconstpointer a, gconstpointer b)
{
  const GpuprofElementRow *x = a, *y = b;
  gint c = cmp_u64_desc (x->self_ns, y->self_ns);

  return c ? c : g_strcmp0 (x->path, y->path);
}

static gint
cmp_queues (gconstpointer a, gconstpointer b)
{
  const GpuprofQueueRow *x = a, *y = b;

  return g_strcmp0 (x->path, y->path);
}

static gint
cmp_threads (gconstpointer a, gconstpointer b)
{
  const GpuprofThreadRow *x = a, *y = b;
  gdouble bx = x->wall_ns ? (gdouble) x->busy_ns / x->wall_ns : 0;
  gdouble by = y->wall_ns ? (gdouble) y->busy_ns / y->wall_ns : 0;

  if (bx != by)
    return bx < by ? 1 : -1;
  return g_strcmp0 (x->name, y->name);
}

void
gpuprof_snapshot_sort (GpuprofSnapshot * s)
{
  g_array_sort (s->elements, cmp_elements);
  g_array_sort (s->queues, cmp_queues);
  g_array_sort (s->threads, cmp_threads);
}

/* The element whose thread is busiest limits the pipeline. Clock-synced
 * sinks and live sources spend their "busy" time waiting for the clock, so
 * they are judged only when nothing else ran. */
void
gpuprof_snapshot_compute_verdict (GpuprofSnapshot * s)
{
  const GpuprofElementRow *best = NULL;
  guint pass, i;

  g_clear_pointer (&s->bottleneck, g_free);
  g_clear_pointer (&s->bottleneck_thread, g_free);
  s->bottleneck_busy = 0;
  s->bottleneck_ns_per_buffer = 0;
  for (pass = 0; pass < 2 && !best; pass++) {
    for (i = 0; i < s->elements->len; i++) {
      const GpuprofElementRow *r =
          &g_array_index (s->elements, GpuprofElementRow, i);
      if (pass == 0 && r->waits_on_clock)
        continue;
      if (r->busy <= 0.0 || !r->calls)
        continue;
      if (!best || r->busy > best->busy
          || (r->busy == best->busy && r->self_ns > best->self_ns))
        best = r;
    }
  }
  if (!best)
    return;
  s->bottleneck = g_strdup (best->path);
  s->bottleneck_thread = g_strdup (best->thread);
  s->bottleneck_busy = best->busy;
  s->bottleneck_ns_per_buffer = best->self_ns / best->calls;
}

const GpuprofElementRow *
gpuprof_snapshot_find_element (const GpuprofSnapshot * s, const gchar * path)
{
  guint i;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (s->elements, GpuprofElementRow, i);
    if (!g_strcmp0 (r->path, path))
      return r;
  }
  return NULL;
}

const GpuprofBatchRow *
gpuprof_snapshot_find_batch (const GpuprofSnapshot * s, const gchar * path)
{
  guint i;

  for (i = 0; i < s->batches->len; i++) {
    const GpuprofBatchRow *r = &g_array_index (s->batches, GpuprofBatchRow, i);
    if (!g_strcmp0 (r->path, path))
      return r;
  }
  return NULL;
}

const GpuprofStageRow *
gpuprof_snapshot_find_stage (const GpuprofSnapshot * s, const gchar * path)
{
  guint i;

  for (i = 0; i < s->stages->len; i++) {
    const GpuprofStageRow *r = &g_array_index (s->stages, GpuprofStageRow, i);
    if (!g_strcmp0 (r->path, path))
      return r;
  }
  return NULL;
}

const GpuprofQueueRow *
gpuprof_snapshot_find_queue (const GpuprofSnapshot * s, const gchar * path)
{
  guint i;

  for (i = 0; i < s->queues->len; i++) {
    const GpuprofQueueRow *r = &g_array_index (s->queues, GpuprofQueueRow, i);
    if (!g_strcmp0 (r->path, path))
      return r;
  }
  return NULL;
}

GstStructure *
gpuprof_element_row_to_structure (const GpuprofElementRow * r)
{
  return gst_structure_new ("gpuprof-element",
      "path", G_TYPE_STRING, r->path,
      "factory", G_TYPE_STRING, r->factory,
      "role", G_TYPE_STRING, r->role,
      "thread", G_TYPE_STRING, r->thread,
      "buffers-in", G_TYPE_UINT64, r->buffers_in,
      "buffers-out", G_TYPE_UINT64, r->buffers_out,
      "calls", G_TYPE_UINT64, r->calls,
      "self-ns", G_TYPE_UINT64, r->self_ns,
      "incl-ns", G_TYPE_UINT64, r->incl_ns,
      "self-p50-ns", G_TYPE_UINT64, r->self_p50_ns,
      "self-p95-ns", G_TYPE_UINT64, r->self_p95_ns,
      "self-p99-ns", G_TYPE_UINT64, r->self_p99_ns,
      "self-max-ns", G_TYPE_UINT64, r->self_max_ns,
      "thread-self-ns", G_TYPE_UINT64, r->thread_self_ns,
      "thread-wall-ns", G_TYPE_UINT64, r->thread_wall_ns,
      "busy", G_TYPE_DOUBLE, r->busy,
      "waits-on-clock", G_TYPE_BOOLEAN, r->waits_on_clock,
      "blocked-ns", G_TYPE_UINT64, r->blocked_ns, NULL);
}

GstStructure *
gpuprof_queue_row_to_structure (const GpuprofQueueRow * r)
{
  return gst_structure_new ("gpuprof-queue",
      "path", G_TYPE_STRING, r->path,
      "buffers", G_TYPE_UINT64, r->buffers,
      "residency-p50-ns", G_TYPE_UINT64, r->residency_p50_ns,
      "residency-p99-ns", G_TYPE_UINT64, r->residency_p99_ns,
      "residency-max-ns", G_TYPE_UINT64, r->residency_max_ns,
      "residency-mean-ns", G_TYPE_UINT64, r->residency_mean_ns,
      "max-level-buffers", G_TYPE_UINT64, r->max_level_buffers,
      "max-level-bytes", G_TYPE_UINT64, r->max_level_bytes,
      "max-level-time-ns", G_TYPE_UINT64, r->max_level_time_ns,
      "backpressure-ns", G_TYPE_UINT64, r->backpressure_ns,
      "upstream-wall-ns", G_TYPE_UINT64, r->upstream_wall_ns,
      "drops", G_TYPE_UINT64, r->drops,
      "flushed", G_TYPE_UINT64, r->flushed,
      "left", G_TYPE_UINT64, r->left, NULL);
}
