/* gpuprof: what happened between two snapshots of one run, as a snapshot
 * of its own — the rows the verdict reads, counters as differences — and
 * its verdict: what limited the run in that interval (interval=, and each
 * point of gst-gpuprof sweep reads the run's). */
#include "gpuprof-delta.h"

#include "gpuprof-limits.h"

static guint64
diff (guint64 now, guint64 before)
{
  return now > before ? now - before : 0;
}

static const GpuprofThreadRow *
find_thread (const GpuprofSnapshot * s, const gchar * name)
{
  guint i;

  for (i = 0; s && i < s->threads->len; i++) {
    const GpuprofThreadRow *t = &g_array_index (s->threads, GpuprofThreadRow,
        i);
    if (!g_strcmp0 (t->name, name))
      return t;
  }
  return NULL;
}

static void
element_rows (GpuprofSnapshot * d, const GpuprofSnapshot * now,
    const GpuprofSnapshot * before)
{
  guint i;

  for (i = 0; i < now->elements->len; i++) {
    const GpuprofElementRow *n = &g_array_index (now->elements,
        GpuprofElementRow, i);
    const GpuprofElementRow *b = before ?
        gpuprof_snapshot_find_element (before, n->path) : NULL;
    const GpuprofElementRow zero = { 0 };
    GpuprofElementRow r = { 0 };

    /* its busiest thread changed: the interval is read on the new one */
    if (!b || g_strcmp0 (b->thread, n->thread))
      b = &zero;
    r.path = g_strdup (n->path);
    r.factory = g_strdup (n->factory);
    r.role = g_strdup (n->role);
    r.thread = g_strdup (n->thread);
    r.waits_on_clock = n->waits_on_clock;
    r.async = n->async;
    r.buffers_in = diff (n->buffers_in, b->buffers_in);
    r.buffers_out = diff (n->buffers_out, b->buffers_out);
    r.calls = diff (n->calls, b->calls);
    r.self_ns = diff (n->self_ns, b->self_ns);
    r.incl_ns = diff (n->incl_ns, b->incl_ns);
    r.thread_self_ns = diff (n->thread_self_ns, b->thread_self_ns);
    r.thread_wall_ns = diff (n->thread_wall_ns, b->thread_wall_ns);
    r.busy = r.thread_wall_ns ? MIN ((gdouble) r.thread_self_ns /
        r.thread_wall_ns, 1.0) : 0.0;
    r.blocked_ns = diff (n->blocked_ns, b->blocked_ns);
    r.wait_input_ns = diff (n->wait_input_ns, b->wait_input_ns);
    r.clock_wait_ns = diff (n->clock_wait_ns, b->clock_wait_ns);
    r.gpu_wait_ns = diff (n->gpu_wait_ns, b->gpu_wait_ns);
    r.worker_ns = diff (n->worker_ns, b->worker_ns);
    /* an interval with a start-up keeps it apart, as the run does */
    r.first_ns = diff (n->first_ns, b->first_ns);
    r.first_calls = diff (n->first_calls, b->first_calls);
    g_array_append_val (d->elements, r);
  }
}

static void
thread_rows (GpuprofSnapshot * d, const GpuprofSnapshot * now,
    const GpuprofSnapshot * before)
{
  guint i;

  for (i = 0; i < now->threads->len; i++) {
    const GpuprofThreadRow *n = &g_array_index (now->threads,
        GpuprofThreadRow, i);
    const GpuprofThreadRow *b = find_thread (before, n->name);
    GpuprofThreadRow r = { 0 };

    r.name = g_strdup (n->name);
    r.top_element = g_strdup (n->top_element);
    r.owner = g_strdup (n->owner);
    r.kind = g_strdup (n->kind);
    r.wall_ns = diff (n->wall_ns, b ? b->wall_ns : 0);
    r.busy_ns = diff (n->busy_ns, b ? b->busy_ns : 0);
    g_array_append_val (d->threads, r);
  }
}

static void
queue_rows (GpuprofSnapshot * d, const GpuprofSnapshot * now,
    const GpuprofSnapshot * before)
{
  guint i;

  for (i = 0; i < now->queues->len; i++) {
    const GpuprofQueueRow *n = &g_array_index (now->queues, GpuprofQueueRow,
        i);
    const GpuprofQueueRow *b = before ?
        gpuprof_snapshot_find_queue (before, n->path) : NULL;
    GpuprofQueueRow r = { 0 };

    r.path = g_strdup (n->path);
    r.buffers = diff (n->buffers, b ? b->buffers : 0);
    r.drops = diff (n->drops, b ? b->drops : 0);
    r.level_buffers = n->level_buffers;
    r.level_bytes = n->level_bytes;
    g_array_append_val (d->queues, r);
  }
}

/* A resource's utilisation and saturated share are means over its
 * samples: the interval's come from the sums */
static void
resource_rows (GpuprofSnapshot * d, const GpuprofSnapshot * before)
{
  guint i, j;

  for (i = 0; before && i < d->resources->len; i++) {
    GpuprofResourceRow *n = &g_array_index (d->resources, GpuprofResourceRow,
        i);
    for (j = 0; j < before->resources->len; j++) {
      const GpuprofResourceRow *b = &g_array_index (before->resources,
          GpuprofResourceRow, j);
      guint64 k;

      if (g_strcmp0 (b->kind, n->kind) || g_strcmp0 (b->name, n->name)
          || g_strcmp0 (b->device, n->device) || b->samples >= n->samples)
        continue;
      k = n->samples - b->samples;
      n->utilisation = CLAMP ((n->utilisation * n->samples -
              b->utilisation * b->samples) / k, 0.0, 1.0);
      n->saturated = CLAMP ((n->saturated * n->samples -
              b->saturated * b->samples) / k, 0.0, 1.0);
      n->samples = k;
      break;
    }
  }
}

gdouble
gpuprof_interval_mean (gdouble now, guint64 n_now, gdouble before,
    guint64 n_before)
{
  guint64 n = n_now > n_before ? n_now - n_before : 0;

  return n ? MAX ((now * n_now - before * n_before) / n, 0.0) : 0.0;
}

/* The GPU's engines over the interval (its NVML readings since @before's):
 * each mean and share of readings of the run made the interval's, so the
 * interval's verdict ranks the GPU as the run's does (the peaks, the
 * process counts and the newest reading stay the run's) */
static void
gpu_resource_rows (GpuprofSnapshot * d, const GpuprofSnapshot * before)
{
  guint i;

  for (i = 0; before && i < d->gpu_resources->len; i++) {
    GpuprofGpuResourceRow *n = &g_array_index (d->gpu_resources,
        GpuprofGpuResourceRow, i);
    const GpuprofGpuResourceRow *b =
        gpuprof_snapshot_find_gpu_resource (before, n->device);
    guint64 nn = n->readings, nb;

    if (!b || b->readings >= nn)
      continue;
    nb = b->readings;
#define MEAN(f) n->f = gpuprof_interval_mean (n->f, nn, b->f, nb)
    MEAN (sm);
    MEAN (sm_saturated);
    MEAN (mem);
    MEAN (mem_saturated);
    MEAN (dec);
    MEAN (dec_saturated);
    MEAN (enc);
    MEAN (enc_saturated);
    MEAN (clock_mhz);
    MEAN (throttled);
    MEAN (power_capped);
    MEAN (thermal);
    MEAN (hw_slowdown);
#undef MEAN
    n->readings = nn - nb;
    n->span_ns = diff (n->span_ns, b->span_ns);
  }
}

/* the topology and the resources as they are now */
static void
copy_rows (GArray * to, GArray * from, GpuprofSummaryTableId id)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  guint i, j;

  for (i = 0; i < from->len; i++) {
    guint8 *row;

    g_array_append_vals (to, from->data + (gsize) i * t->row_size, 1);
    row = (guint8 *) to->data + (gsize) (to->len - 1) * t->row_size;
    for (j = 0; j < t->n_fields; j++)
      if (t->fields[j].type == GPUPROF_FIELD_STRING) {
        gchar **m = (gchar **) (row + t->fields[j].offset);
        *m = g_strdup (*m);
      }
  }
}

GpuprofSnapshot *
gpuprof_snapshot_delta (const GpuprofSnapshot * now,
    const GpuprofSnapshot * before)
{
  GpuprofSnapshot *d = gpuprof_snapshot_new (now->pipeline);

  d->wall_ns = diff (now->wall_ns, before ? before->wall_ns : 0);
  element_rows (d, now, before);
  thread_rows (d, now, before);
  queue_rows (d, now, before);
  copy_rows (d->links, now->links, GPUPROF_SUMMARY_LINKS);
  copy_rows (d->resources, now->resources, GPUPROF_SUMMARY_RESOURCES);
  resource_rows (d, before);
  copy_rows (d->gpu_resources, now->gpu_resources,
      GPUPROF_SUMMARY_GPU_RESOURCES);
  gpu_resource_rows (d, before);
  gpuprof_snapshot_sort (d);
  gpuprof_snapshot_compute_verdict (d);
  return d;
}
