/* gpuprof: CUPTI, loaded at run time.
 *
 * libcupti.so.13 is dlopen'ed into a table of function pointers (required
 * and optional symbols apart, like gst-plugins-bad's CUDA loader), so the
 * library loads and works, NVTX and CPU statistics included, on machines
 * without CUDA or without a GPU. Activity records are handed to the
 * correlation code (gpuprof-gpu.h); GPU timestamps are CLOCK_MONOTONIC ns
 * (gpuprof_clock_monotonic_ns()). Its modes and paths are parameters
 * (gpuprof-params.h).
 *
 * Process-wide and reference counted: the tracer and any gpuprofmeter share
 * one CUPTI session.
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

#include "gpuprof-params.h"

G_BEGIN_DECLS

/**
 * GpuprofCuptiSettings:
 * @mode: see #GpuprofCuptiMode
 * @library: (nullable): path or soname of CUPTI; NULL: $GPUPROF_CUPTI_LIBRARY,
 *   else "libcupti.so.13" (then /usr/local/cuda/lib64, extras/CUPTI/lib64)
 * @flush_period_ms: how often records are collected (0: 100 ms)
 * @buffer_size: bytes per activity buffer (0: 4 MiB)
 * @path: collection path, see #GpuprofCuptiPath
 *
 * The first caller of gpuprof_cupti_start() that gets CUPTI on sets them.
 */
typedef struct
{
  GpuprofCuptiMode mode;
  const gchar *library;
  guint flush_period_ms;
  gsize buffer_size;
  GpuprofCuptiPath path;
} GpuprofCuptiSettings;

GPUPROF_API
gboolean gpuprof_cupti_start (const GpuprofCuptiSettings * settings,
    gchar ** reason);
GPUPROF_API
void gpuprof_cupti_stop (void);
GPUPROF_API
gboolean gpuprof_cupti_active (void);
GPUPROF_API
void gpuprof_cupti_flush (gboolean forced);
GPUPROF_API
guint64 gpuprof_cupti_dropped (void);
GPUPROF_API
GpuprofCuptiPath gpuprof_cupti_path (void);

G_END_DECLS
