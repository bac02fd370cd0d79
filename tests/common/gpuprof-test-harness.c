/* gpuprof-test-harness.h */
#include "gpuprof-test-harness.h"

static GstPadProbeReturn
hold_probe (GstPad * pad, GstPadProbeInfo * info, gpointer hits)
{
  g_atomic_int_inc ((gint *) hits);
  return GST_PAD_PROBE_OK;
}

gulong
gpuprof_test_hold_src (GstHarness * h, gint * hits)
{
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  gulong id = gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, hold_probe, hits, NULL);

  gst_object_unref (src);
  return id;
}

void
gpuprof_test_release_src (GstHarness * h, gulong id)
{
  GstPad *src = gst_element_get_static_pad (h->element, "src");

  gst_pad_remove_probe (src, id);
  gst_object_unref (src);
}

void
gpuprof_test_pull_to_eos (GstHarness * h)
{
  GstEvent *ev;

  while ((ev = gst_harness_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
}
