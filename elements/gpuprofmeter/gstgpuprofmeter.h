/* gpuprofmeter: per-buffer GPU cost of the upstream elements, in-band. */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_GPUPROF_METER (gst_gpuprof_meter_get_type ())
G_DECLARE_FINAL_TYPE (GstGpuprofMeter, gst_gpuprof_meter, GST,
    GPUPROF_METER, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (gpuprofmeter);

G_END_DECLS
