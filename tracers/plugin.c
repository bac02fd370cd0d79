/* gpuprof tracer plugin: registers the tracer, nothing else. */
#include "config.h"

#include "gstgpuproftracer.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_tracer_register (plugin, "gpuprof", GST_TYPE_GPUPROF_TRACER);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpuproftracer,
    "Per-element CPU/GPU time, queue latency and bottleneck verdict, "
    "with NVTX ranges for Nsight Systems", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
