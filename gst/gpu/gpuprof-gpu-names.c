/* gpuprof: GPU attribution, element names: the path function each channel
 * registers, and the label of an element id. The report's GPU section is
 * printed from the snapshot's GPU tables (gpuprof-gpu-tables.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu.h"

/* ---- element paths, per channel (set once, before streaming) ---- */

/**
 * gpuprof_gpu_label:
 * @path_func: (nullable): turns an element id into its path
 * @user_data: for @path_func
 * @id: the element
 *
 * Returns: (transfer full): the path @path_func gives, else "element #<id>"
 */
gchar *
gpuprof_gpu_label (GpuprofGpuPathFunc path_func, gpointer user_data,
    guint32 id)
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
  return gpuprof_gpu_label (path_funcs[channel], path_data[channel], element_id);
}
