/* gpuprof: the profiling session (gpuprof-profiler.c).
 *
 * Parameters in, outputs out: it makes the measurement (gpuprof-measure.h,
 * which the tracer's hooks drive through gpuprof-hooks.h), the event bus
 * and the outputs, starts GPU attribution with the first run, and at each
 * run end (told by the measurement) reports, saves and resets. Reports and
 * queries run under one report lock, never on a streaming thread.
 */
#pragma once

#include <gst/gst.h>

#include "gpuprof-measure.h"
#include "gpuprof-params.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

typedef struct _GpuprofProfiler GpuprofProfiler;

GpuprofProfiler *gpuprof_profiler_new (const GpuprofParams * params);
void gpuprof_profiler_free (GpuprofProfiler * p);
/* what the hooks work on (gpuprof_hooks_*()) */
GpuprofMeasure *gpuprof_profiler_get_measure (GpuprofProfiler * p);

/* reports and queries */
GpuprofSnapshot *gpuprof_profiler_snapshot (GpuprofProfiler * p,
    const gchar * pipeline);
/* the same with the GPU tables when GPU attribution is on (get-metrics) */
GpuprofSnapshot *gpuprof_profiler_metrics_snapshot (GpuprofProfiler * p,
    const gchar * pipeline);
gchar *gpuprof_profiler_last_report (GpuprofProfiler * p);
/* records kept for live objects and unreported runs (tests, benchmarks) */
void gpuprof_profiler_count_records (GpuprofProfiler * p, guint * elements,
    guint * pads, guint * pipelines);
void gpuprof_profiler_report_unreported (GpuprofProfiler * p);
void gpuprof_profiler_shutdown (GpuprofProfiler * p);

G_END_DECLS
