/* gpuprof: snapshots as Prometheus text exposition (format 0.0.4) and as
 * the get-metrics structure. See docs/metrics.md. */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* The body of one /metrics answer: every family, each with the samples of
 * all 'snaps' (GpuprofSnapshot *, one per pipeline); 'scrape_ns' is what
 * the previous scrape cost (0: first). */
GPUPROF_API
gchar *gpuprof_metrics_format (GPtrArray * snaps, guint64 scrape_ns);

/* get-metrics: a "gpuprof-metrics" structure with the pipeline's name and
 * arrays "streams" and "elements" of the summary's row structures */
GPUPROF_API
GstStructure *gpuprof_metrics_structure (const GpuprofSnapshot * snap);

G_END_DECLS
