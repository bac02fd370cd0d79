/* gpuprof: a point-in-time copy of one pipeline's statistics. */
#include "gpuprof-snapshot.h"
#include "gpuprof-histogram.h"
#include "gpuprof-limits.h"

#include <string.h>

/* clear funcs of the row arrays: free each table's strings */
#define ROW_CLEAR(ID, name, record, n_key, single) \
  static G_GNUC_UNUSED void \
  clear_##name (gpointer row) \
  { \
    gpuprof_summary_row_clear (GPUPROF_SUMMARY_##ID, row); \
  }
GPUPROF_SCHEMA_TABLES (ROW_CLEAR)

static GArray *
rows_new (gsize row_size, GDestroyNotify clear)
{
  GArray *a = g_array_new (FALSE, TRUE, row_size);

  g_array_set_clear_func (a, clear);
  return a;
}

GpuprofSnapshot *
gpuprof_snapshot_new (const gchar * pipeline)
{
  GpuprofSnapshot *s = g_new0 (GpuprofSnapshot, 1);

  s->pipeline = g_strdup (pipeline ? pipeline : "");
  s->elements = rows_new (sizeof (GpuprofElementRow), clear_elements);
  s->queues = rows_new (sizeof (GpuprofQueueRow), clear_queues);
  s->threads = rows_new (sizeof (GpuprofThreadRow), clear_threads);
  s->links = rows_new (sizeof (GpuprofLinkRow), clear_links);
  s->batches = rows_new (sizeof (GpuprofBatchRow), clear_batches);
  s->stages = rows_new (sizeof (GpuprofStageRow), clear_stages);
  s->advice = rows_new (sizeof (GpuprofAdviceRow), clear_advice);
  s->streams = rows_new (sizeof (GpuprofStreamRow), clear_streams);
  s->removed = rows_new (sizeof (GpuprofRemovedRow), clear_removed);
  s->pools = rows_new (sizeof (GpuprofPoolRow), clear_pools);
  s->histograms = rows_new (sizeof (GpuprofHistogramRow), clear_histograms);
  s->gpu_elements = rows_new (sizeof (GpuprofGpuElementRow),
      clear_gpu_elements);
  s->gpu_kernels = rows_new (sizeof (GpuprofGpuKernelRow), clear_gpu_kernels);
  s->gpu_devices = rows_new (sizeof (GpuprofGpuDeviceRow), clear_gpu_devices);
  s->gpu = rows_new (sizeof (GpuprofGpuRow), clear_gpu);
  s->resources = rows_new (sizeof (GpuprofResourceRow), clear_resources);
  s->limits = rows_new (sizeof (GpuprofLimitRow), clear_limits);
  s->gpu_resources = rows_new (sizeof (GpuprofGpuResourceRow),
      clear_gpu_resources);
  return s;
}

/**
 * gpuprof_snapshot_mark_taken:
 * @s: a snapshot being taken
 * @taken_ns: now, on the tracer clock
 *
 * Sets the run table's taken_ns and taken_utc (the same moment, UTC, ISO
 * 8601 with milliseconds): the figures cover the run up to then.
 */
void
gpuprof_snapshot_mark_taken (GpuprofSnapshot * s, guint64 taken_ns)
{
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *day = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  s->taken_ns = taken_ns;
  g_free (s->taken_utc);
  s->taken_utc = g_strdup_printf ("%s.%03dZ", day,
      g_date_time_get_microsecond (now) / 1000);
  g_free (day);
  g_date_time_unref (now);
}

void
gpuprof_snapshot_free (GpuprofSnapshot * s)
{
  if (!s)
    return;
  g_array_unref (s->elements);
  g_array_unref (s->queues);
  g_array_unref (s->threads);
  g_array_unref (s->links);
  g_array_unref (s->batches);
  g_array_unref (s->stages);
  g_array_unref (s->advice);
  g_array_unref (s->streams);
  g_array_unref (s->removed);
  g_array_unref (s->pools);
  g_array_unref (s->histograms);
  g_array_unref (s->gpu_elements);
  g_array_unref (s->gpu_kernels);
  g_array_unref (s->gpu_devices);
  g_array_unref (s->gpu);
  g_array_unref (s->resources);
  g_array_unref (s->limits);
  g_array_unref (s->gpu_resources);
  gpuprof_summary_row_clear (GPUPROF_SUMMARY_RUN, s);
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
  gint c;

  /* the row of the rest of the process (no tid) last */
  if (!x->tid != !y->tid && !g_strcmp0 (x->kind, "unattributed")
      && !g_strcmp0 (y->kind, "unattributed"))
    return x->tid ? -1 : 1;
  if (bx != by)
    return bx < by ? 1 : -1;
  c = cmp_u64_desc (x->cpu_ns, y->cpu_ns);
  return c ? c : g_strcmp0 (x->name, y->name);
}

static gint
cmp_links (gconstpointer a, gconstpointer b)
{
  const GpuprofLinkRow *x = a, *y = b;
  gint c = g_strcmp0 (x->src, y->src);

  return c ? c : g_strcmp0 (x->src_pad, y->src_pad);
}

void
gpuprof_snapshot_sort (GpuprofSnapshot * s)
{
  g_array_sort (s->links, cmp_links);
  g_array_sort (s->elements, cmp_elements);
  g_array_sort (s->queues, cmp_queues);
  g_array_sort (s->threads, cmp_threads);
}

/* Input-bound: a source whose loop waited for data (off the CPU) over
 * half its thread's wall time; the pipeline then mostly waits for it,
 * whatever the busiest element is. The source that waited longest is
 * named. Only sources: a muxer's task waiting for busy sources (the new
 * nvstreammux) waits for work upstream, not for data from outside. */
static void
compute_input_bound (GpuprofSnapshot * s)
{
  const GpuprofElementRow *src = NULL;
  guint i;

  g_clear_pointer (&s->input_source, g_free);
  s->input_bound = FALSE;
  s->input_wait_ns = 0;
  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (s->elements, GpuprofElementRow, i);
    if (r->wait_input_ns && !g_strcmp0 (r->role, "source")
        && (!src || r->wait_input_ns > src->wait_input_ns))
      src = r;
  }
  if (!src)
    return;
  s->input_source = g_strdup (src->path);
  s->input_wait_ns = src->wait_input_ns;
  s->input_bound = src->thread_wall_ns
      && src->wait_input_ns * 2 > src->thread_wall_ns;
}

#define occupancy gpuprof_element_row_occupancy

/* The busiest stage: the element whose thread it occupies most, then what
 * limits the run, ranked (gpuprof-limits.h) */
void
gpuprof_snapshot_compute_verdict (GpuprofSnapshot * s)
{
  const GpuprofElementRow *best = NULL;
  guint i;

  g_clear_pointer (&s->bottleneck, g_free);
  g_clear_pointer (&s->bottleneck_thread, g_free);
  s->bottleneck_busy = 0;
  s->bottleneck_ns_per_buffer = 0;
  compute_input_bound (s);
  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (s->elements, GpuprofElementRow, i);
    if (occupancy (r) <= 0.0 || !r->calls || !g_strcmp0 (r->role, "queue"))
      continue;
    if (!best || occupancy (r) > occupancy (best)
        || (occupancy (r) == occupancy (best) && r->self_ns > best->self_ns))
      best = r;
  }
  if (best) {
    s->bottleneck = g_strdup (best->path);
    s->bottleneck_thread = g_strdup (best->thread);
    s->bottleneck_busy = occupancy (best);
    /* the steady state's: start-up (first_ns) apart */
    s->bottleneck_ns_per_buffer = best->calls > best->first_calls ?
        (best->self_ns - MIN (best->first_ns, best->self_ns)) /
        (best->calls - best->first_calls) : best->self_ns / best->calls;
  }
  gpuprof_limits_compute (s);
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

/* the row of @rows whose first member, its key string, is @key */
static gconstpointer
find_by_key (GArray * rows, const gchar * key)
{
  gsize size = g_array_get_element_size (rows);
  guint i;

  for (i = 0; i < rows->len; i++) {
    gconstpointer r = rows->data + (gsize) i * size;
    if (!g_strcmp0 (*(gchar * const *) r, key))
      return r;
  }
  return NULL;
}

const GpuprofStreamRow *
gpuprof_snapshot_find_stream (const GpuprofSnapshot * s, const gchar * source)
{
  return find_by_key (s->streams, source);
}

const GpuprofGpuResourceRow *
gpuprof_snapshot_find_gpu_resource (const GpuprofSnapshot * s,
    const gchar * device)
{
  return s->gpu_resources ? find_by_key (s->gpu_resources, device) : NULL;
}

/* le_00 .. le_15 are consecutive guint64 members: filled as an array */
G_STATIC_ASSERT (G_STRUCT_OFFSET (GpuprofHistogramRow, le_15) -
    G_STRUCT_OFFSET (GpuprofHistogramRow, le_00) ==
    (GPUPROF_HISTOGRAM_LADDER - 1) * sizeof (guint64));

void
gpuprof_snapshot_add_histogram (GpuprofSnapshot * snap, const gchar * name,
    const gchar * owner, const GpuprofHistogram * h, gboolean unit_ns)
{
  GpuprofHistogramRow row = { 0 };
  gdouble unit = unit_ns ? 1e-9 : 1.0;
  guint64 first = unit_ns ? GPUPROF_HISTOGRAM_FIRST_NS : 1;

  row.name = g_strdup (name);
  row.owner = g_strdup (owner);
  row.count = gpuprof_histogram_ladder (h, first, &row.le_00,
      GPUPROF_HISTOGRAM_LADDER);
  row.sum = __atomic_load_n (&h->sum, __ATOMIC_RELAXED) * unit;
  row.le_first = first * unit;
  row.le_inf = row.count - row.le_15;
  g_array_append_val (snap->histograms, row);
}
