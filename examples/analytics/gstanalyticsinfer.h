/* analyticsinfer: inference stand-in (like DeepStream's nvinfer). */
#pragma once

#include "gstanalyticsfilter.h"

G_BEGIN_DECLS

/**
 * GstAnalyticsInferPrecision:
 * @GST_ANALYTICS_INFER_FP32: float weights and activations
 * @GST_ANALYTICS_INFER_FP16: half weights and activations, float sums
 *
 * Since: 0.1
 */
typedef enum
{
  GST_ANALYTICS_INFER_FP32,
  GST_ANALYTICS_INFER_FP16,
} GstAnalyticsInferPrecision;

/**
 * GstAnalyticsInferDevice:
 * @GST_ANALYTICS_INFER_DEVICE_AUTO: the GPU when there is one, else the CPU
 * @GST_ANALYTICS_INFER_DEVICE_CPU: the CPU
 * @GST_ANALYTICS_INFER_DEVICE_GPU: the GPU; fails to start without one
 *
 * Since: 0.1
 */
typedef enum
{
  GST_ANALYTICS_INFER_DEVICE_AUTO,
  GST_ANALYTICS_INFER_DEVICE_CPU,
  GST_ANALYTICS_INFER_DEVICE_GPU,
} GstAnalyticsInferDevice;

#define GST_TYPE_ANALYTICS_INFER (gst_analytics_infer_get_type ())
G_DECLARE_FINAL_TYPE (GstAnalyticsInfer, gst_analytics_infer, GST,
    ANALYTICS_INFER, GstAnalyticsFilter);

GST_ELEMENT_REGISTER_DECLARE (analyticsinfer);

G_END_DECLS
