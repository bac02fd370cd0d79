/* gpuprof: the profiling session (gpuprof-profiler.c).
 *
 * Parameters in, outputs out: it makes the measurement (gpuprof-measure.h,
 * which the tracer's hooks drive through gpuprof-hooks.h), the event bus
 * and the outputs, starts GPU attribution with the first run, and at each
 * run end (told by the measurement) reports, saves and resets. Reports and
 * queries run under one report lock, never on a streaming thread.
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

#include "gpuprof-measure.h"
#include "gpuprof-params.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

typedef struct _GpuprofProfiler GpuprofProfiler;

GPUPROF_API
GpuprofProfiler *gpuprof_profiler_new (const GpuprofParams * params);
GPUPROF_API
void gpuprof_profiler_free (GpuprofProfiler * p);
/* what the hooks work on (gpuprof_hooks_*()) */
GPUPROF_API
GpuprofMeasure *gpuprof_profiler_get_measure (GpuprofProfiler * p);

/* reports and queries */
GPUPROF_API
GpuprofSnapshot *gpuprof_profiler_snapshot (GpuprofProfiler * p,
    const gchar * pipeline);
/* the same with the GPU tables when GPU attribution is on (get-metrics) */
GPUPROF_API
GpuprofSnapshot *gpuprof_profiler_metrics_snapshot (GpuprofProfiler * p,
    const gchar * pipeline);
GPUPROF_API
gchar *gpuprof_profiler_last_report (GpuprofProfiler * p);
/* records kept for live objects and unreported runs (tests, benchmarks) */
GPUPROF_API
void gpuprof_profiler_count_records (GpuprofProfiler * p, guint * elements,
    guint * pads, guint * pipelines);
void gpuprof_profiler_report_unreported (GpuprofProfiler * p);
GPUPROF_API
void gpuprof_profiler_shutdown (GpuprofProfiler * p);

G_END_DECLS
