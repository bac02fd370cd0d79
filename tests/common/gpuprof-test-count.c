/* Buffers through an element's pads, counted by pad probes. */
#include "gpuprof-test-count.h"

guint
gpuprof_test_probe_buffers (GstPadProbeInfo * info)
{
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    return gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  return 1;
}

static GstPadProbeReturn
count_cb (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GpuprofTestCount *count = user_data;
  guint n = gpuprof_test_probe_buffers (info);

  if (GST_PAD_IS_SINK (pad)) {
    g_atomic_int_add (&count->in, n);
    if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
      g_atomic_int_inc (&count->lists_in);
  } else {
    g_atomic_int_add (&count->out, n);
  }
  return GST_PAD_PROBE_OK;
}

static void
count_pad (const GValue * v, gpointer user_data)
{
  gst_pad_add_probe (g_value_get_object (v), GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, count_cb, user_data, NULL);
}

void
gpuprof_test_count_pads (GstElement * element, GpuprofTestCount * count)
{
  GstIterator *it = gst_element_iterate_pads (element);

  gst_iterator_foreach (it, count_pad, count);
  gst_iterator_free (it);
}
