/* gpuprof: the snapshot's typed GPU tables, from gpuprof-gpu.h's queries.
 *
 * Numbers only: the report (gpuprof-report.c) formats them, the summary
 * saves them, so a saved run prints the same GPU section as the live one.
 */
#include "gpuprof-gpu-tables.h"
#include "gpuprof-cupti.h"

#include <string.h>

static void
set_cost (GpuprofGpuElementRow * r, const GpuprofGpuCost * c, guint64 buffers)
{
  r->gpu_ns = gpuprof_gpu_cost_ns (c);
  r->kernel_ns = c->kernel_ns;
  r->copy_ns = c->copy_ns;
  r->memset_ns = c->memset_ns;
  r->kernels = c->kernels;
  r->copies = c->copies;
  r->memsets = c->memsets;
  r->copy_bytes = c->copy_bytes;
  r->memset_bytes = c->memset_bytes;
  r->buffers = buffers;
  r->ns_per_buffer = buffers ? (gdouble) r->gpu_ns / buffers : 0.0;
}

static void
fill_elements (GpuprofSnapshot * snap, GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data)
{
  GArray *els = gpuprof_gpu_get_elements (channel);
  GArray *un = gpuprof_gpu_get_unattributed (channel);
  guint i;

  for (i = 0; i < els->len; i++) {
    const GpuprofGpuElementStats *e =
        &g_array_index (els, GpuprofGpuElementStats, i);
    GpuprofGpuElementRow r = { 0, };
    GpuprofGpuWait w;

    r.path = gpuprof_gpu_label (path_func, user_data, e->element_id);
    r.thread = g_strdup ("");
    set_cost (&r, &e->cost, e->buffers);
    r.by_thread_ns = e->by_thread_ns;
    gpuprof_gpu_get_wait (channel, e->element_id, 0, &w);
    r.wait_ns = w.wait_ns;
    g_array_append_val (snap->gpu_elements, r);
  }
  for (i = 0; i < un->len; i++) {
    const GpuprofGpuThreadStats *u =
        &g_array_index (un, GpuprofGpuThreadStats, i);
    GpuprofGpuElementRow r = { 0, };

    r.path = g_strdup_printf ("unattributed (thread %s)", u->name);
    r.thread = g_strdup (u->name);
    set_cost (&r, &u->cost, 0);
    r.wait_ns = u->wait_ns;
    g_array_append_val (snap->gpu_elements, r);
  }
  g_array_unref (els);
  g_array_unref (un);
}

static void
fill_kernels (GpuprofSnapshot * snap, GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data)
{
  GArray *top = gpuprof_gpu_get_top_kernels (channel,
      GPUPROF_GPU_TABLES_TOP_KERNELS);
  guint i;

  for (i = 0; i < top->len; i++) {
    const GpuprofGpuKernelStats *k =
        &g_array_index (top, GpuprofGpuKernelStats, i);
    GpuprofGpuKernelRow r = { 0, };

    r.name = g_strdup (k->name);
    r.element = k->element_id ?
        gpuprof_gpu_label (path_func, user_data, k->element_id) :
        g_strdup ("unattributed");
    r.calls = k->count;
    r.ns = k->ns;
    g_array_append_val (snap->gpu_kernels, r);
  }
  g_array_unref (top);
}

static void
fill_devices (GpuprofSnapshot * snap, guint64 wall_start, guint64 wall_end)
{
  GArray *devs = gpuprof_gpu_get_devices (wall_start, wall_end);
  guint i;

  for (i = 0; i < devs->len; i++) {
    const GpuprofGpuDeviceStats *d =
        &g_array_index (devs, GpuprofGpuDeviceStats, i);
    guint64 t0 = wall_start ? wall_start : d->first_ns;
    guint64 t1 = wall_end ? wall_end : d->last_ns;
    guint64 *gaps[] = { NULL, NULL, NULL, NULL, NULL };
    GpuprofGpuDeviceRow r = { 0, };
    guint g;

    G_STATIC_ASSERT (G_N_ELEMENTS (gaps) == GPUPROF_GPU_MAX_GAPS);
    gaps[0] = &r.gap1_ns;
    gaps[1] = &r.gap2_ns;
    gaps[2] = &r.gap3_ns;
    gaps[3] = &r.gap4_ns;
    gaps[4] = &r.gap5_ns;
    r.device = d->device_id;
    r.busy_ns = d->busy_ns;
    r.span_ns = t1 > t0 ? t1 - t0 : 0;
    r.busy = d->busy_fraction;
    r.first_ns = d->first_ns;
    r.last_ns = d->last_ns;
    r.gaps = MIN (d->n_gaps, GPUPROF_GPU_MAX_GAPS);
    for (g = 0; g < r.gaps; g++)
      *gaps[g] = d->gaps[g].duration;
    g_array_append_val (snap->gpu_devices, r);
  }
  g_array_unref (devs);
}

static void
fill_totals (GpuprofSnapshot * snap, GpuprofGpuChannel channel)
{
  GpuprofGpuTotals t;
  GpuprofGpuRow r = { 0, };

  gpuprof_gpu_get_totals (channel, &t);
  r.records = t.records;
  r.dropped = t.dropped;
  r.unjoined = t.unjoined;
  r.pending = t.pending;
  r.total_ns = t.total_ns;
  /* the collection path that attributed them; with no record, the
   * session's */
  if (t.launch_records)
    r.path = g_strdup ("callback");
  else if (t.api_records || t.external_records)
    r.path = g_strdup ("activity");
  else
    r.path = g_strdup (gpuprof_cupti_path () == GPUPROF_CUPTI_PATH_ACTIVITY ?
        "activity" : "callback");
  r.external_ns = t.external_ns;
  r.thread_ns = t.thread_ns;
  r.unattributed_ns = t.unattributed_ns;
  r.untimed = t.untimed;
  r.graph_records = t.graph_records;
  r.early = t.early;
  g_array_append_val (snap->gpu, r);
}

/**
 * gpuprof_gpu_tables_fill:
 * @snap: the snapshot to fill
 * @channel: the channel (the tracer's for its report)
 * @path_func: turns an element id into its path
 * @user_data: for @path_func
 * @wall_start: start of the run, monotonic ns (0: first GPU record)
 * @wall_end: end of the run (0: last GPU record)
 *
 * Replaces the snapshot's GPU tables with the statistics of @channel: per
 * element then unattributed per thread, the top kernels, the devices and
 * the one row of totals (its presence says GPU attribution was on).
 * Settles nothing: flush and settle first for a complete picture.
 */
void
gpuprof_gpu_tables_fill (GpuprofSnapshot * snap, GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data, guint64 wall_start,
    guint64 wall_end)
{
  g_array_set_size (snap->gpu_elements, 0);
  g_array_set_size (snap->gpu_kernels, 0);
  g_array_set_size (snap->gpu_devices, 0);
  g_array_set_size (snap->gpu, 0);
  fill_elements (snap, channel, path_func, user_data);
  fill_kernels (snap, channel, path_func, user_data);
  fill_devices (snap, wall_start, wall_end);
  fill_totals (snap, channel);
}
