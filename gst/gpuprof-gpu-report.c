/* gpuprof: GPU attribution, element paths and the report's text section —
 * see gpuprof-gpu-private.h. Reads the statistics through the public getters
 * only. (The text section goes when the GPU tables of the report replace it.)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu.h"

/* ---- element paths, per channel (set once, before streaming) ---- */

static gchar *
element_label (GpuprofGpuPathFunc path_func, gpointer user_data, guint32 id)
{
  gchar *p = path_func ? path_func (id, user_data) : NULL;
  return p ? p : g_strdup_printf ("element #%u", id);
}

static GpuprofGpuPathFunc path_funcs[GPUPROF_GPU_N_CHANNELS];
static gpointer path_data[GPUPROF_GPU_N_CHANNELS];

/**
 * gpuprof_gpu_set_path_func:
 * @channel: the channel whose ids @path_func knows
 * @path_func: (nullable): turns an element id into its path
 * @user_data: for @path_func
 *
 * The tracer registers its object ids here, so that tools in the process
 * (tests/gpu/gpuprof-gpu-check) can name the tracer channel's elements.
 * gpuprofmeter registers its names for the meter channel.
 */
void
gpuprof_gpu_set_path_func (GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data)
{
  path_funcs[channel] = path_func;
  path_data[channel] = user_data;
}

/**
 * gpuprof_gpu_element_path:
 * @channel: the channel of @element_id
 * @element_id: the element
 *
 * Returns: (transfer full): its path, or "element #<id>" when unknown
 */
gchar *
gpuprof_gpu_element_path (GpuprofGpuChannel channel, guint32 element_id)
{
  return element_label (path_funcs[channel], path_data[channel], element_id);
}

/* ---- the text section ---- */

#define MS(ns) ((ns) / 1e6)

static void
append_cost_row (GString * s, const gchar * label, const GpuprofGpuCost * c,
    guint64 buffers)
{
  guint64 ns = gpuprof_gpu_cost_ns (c);

  g_string_append_printf (s, "  %-40s %10.3f %10.3f %10.3f %10.3f %8"
      G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %10.2f", label, MS (ns),
      MS (c->kernel_ns), MS (c->copy_ns), MS (c->memset_ns), c->kernels,
      c->copies, (c->copy_bytes + c->memset_bytes) / (1024.0 * 1024.0));
  if (buffers)
    g_string_append_printf (s, " %8" G_GUINT64_FORMAT " %10.1f\n", buffers,
        ns / 1e3 / buffers);
  else
    g_string_append_printf (s, " %8s %10s\n", "-", "-");
}

/**
 * gpuprof_gpu_format_report:
 * @channel: the channel (the tracer's for its report)
 * @path_func: turns an element id into its path
 * @user_data: for @path_func
 * @wall_start: start of the run, monotonic ns (0: first GPU record)
 * @wall_end: end of the run (0: last GPU record)
 *
 * Formats the report's "GPU" section: per element, unattributed per thread,
 * totals with the attribution check, top kernels, devices. Settles nothing:
 * flush and settle (forced) first for a complete picture.
 *
 * Returns: (transfer full): the section, lines ending in '\n'
 */
gchar *
gpuprof_gpu_format_report (GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data, guint64 wall_start,
    guint64 wall_end)
{
  GString *s = g_string_new (NULL);
  GArray *els = gpuprof_gpu_get_elements (channel);
  GArray *un = gpuprof_gpu_get_unattributed (channel);
  GArray *top = gpuprof_gpu_get_top_kernels (channel, 10);
  GArray *devs = gpuprof_gpu_get_devices (wall_start, wall_end);
  GpuprofGpuTotals t;
  guint i, g;

  gpuprof_gpu_get_totals (channel, &t);
  g_string_append_printf (s, "GPU (CUPTI): %" G_GUINT64_FORMAT " records, %"
      G_GUINT64_FORMAT " dropped by CUPTI, %" G_GUINT64_FORMAT
      " settled without their API record, %" G_GUINT64_FORMAT
      " still pending\n", t.records, t.dropped, t.unjoined, t.pending);
  g_string_append_printf (s, "  %-40s %10s %10s %10s %10s %8s %7s %10s %8s %10s\n",
      "element", "GPU ms", "kernel ms", "copy ms", "memset ms", "kernels",
      "copies", "MiB", "buffers", "us/buffer");
  for (i = 0; i < els->len; i++) {
    GpuprofGpuElementStats *e = &g_array_index (els, GpuprofGpuElementStats, i);
    gchar *label = element_label (path_func, user_data, e->element_id);
    append_cost_row (s, label, &e->cost, e->buffers);
    g_free (label);
  }
  for (i = 0; i < un->len; i++) {
    GpuprofGpuThreadStats *u = &g_array_index (un, GpuprofGpuThreadStats, i);
    gchar *label = g_strdup_printf ("unattributed (thread %s)", u->name);
    append_cost_row (s, label, &u->cost, 0);
    g_free (label);
  }
  g_string_append_printf (s, "  %-40s %10.3f   = %.3f by external id + %.3f "
      "by thread + %.3f unattributed\n", "total", MS (t.total_ns),
      MS (t.external_ns), MS (t.thread_ns), MS (t.unattributed_ns));

  if (top->len) {
    g_string_append_printf (s, "  %-50s %-30s %8s %10s %10s\n", "top kernels",
        "element", "calls", "total ms", "mean us");
    for (i = 0; i < top->len; i++) {
      GpuprofGpuKernelStats *k = &g_array_index (top, GpuprofGpuKernelStats, i);
      gchar *label = k->element_id ?
          element_label (path_func, user_data, k->element_id) :
          g_strdup ("unattributed");
      g_string_append_printf (s, "  %-50.50s %-30.30s %8" G_GUINT64_FORMAT
          " %10.3f %10.1f\n", k->name, label, k->count, MS (k->ns),
          k->count ? k->ns / 1e3 / k->count : 0.0);
      g_free (label);
    }
  }

  if (devs->len) {
    g_string_append_printf (s, "  %-8s %7s %10s %10s  %s\n", "device",
        "busy %", "busy ms", "span ms", "longest idle gaps (ms)");
    for (i = 0; i < devs->len; i++) {
      GpuprofGpuDeviceStats *d = &g_array_index (devs, GpuprofGpuDeviceStats,
          i);
      guint64 t0 = wall_start ? wall_start : d->first_ns;
      guint64 t1 = wall_end ? wall_end : d->last_ns;
      g_string_append_printf (s, "  %-8u %7.1f %10.3f %10.3f ", d->device_id,
          100.0 * d->busy_fraction, MS (d->busy_ns),
          t1 > t0 ? MS (t1 - t0) : 0.0);
      for (g = 0; g < d->n_gaps; g++)
        g_string_append_printf (s, " %.3f", MS (d->gaps[g].duration));
      g_string_append_c (s, '\n');
    }
  }

  g_array_unref (els);
  g_array_unref (un);
  g_array_unref (top);
  g_array_unref (devs);
  return g_string_free (s, FALSE);
}
