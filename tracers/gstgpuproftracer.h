/* GStreamer
 * gpuprof tracer: where a pipeline spends its time, on CPU and GPU.
 */
#pragma once

#include <gst/gst.h>
#include <gst/gsttracer.h>

#include "gpuprof-hooks.h"
#include "gpuprof-profiler.h"
#include "gpuprof-report.h"

G_BEGIN_DECLS

#define GST_TYPE_GPUPROF_TRACER (gst_gpuprof_tracer_get_type ())
G_DECLARE_FINAL_TYPE (GstGpuprofTracer, gst_gpuprof_tracer, GST,
    GPUPROF_TRACER, GstTracer)

struct _GstGpuprofTracer
{
  GstTracer parent;

  GpuprofParams params;         /* properties, then GST_TRACERS' params */
  GpuprofProfiler *profiler;
  GpuprofMeasure *measure;      /* the profiler's, for the hooks */
};

G_END_DECLS
