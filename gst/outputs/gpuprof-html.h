/* gpuprof: the HTML report, one self-contained file (docs/html.md). */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* The page with @data_json (a run summary or a gst-gpuprof sweep JSON)
 * inside it: the page's script draws everything from it, offline. */
GPUPROF_API
gchar *gpuprof_html_page (const gchar * data_json);
/* ... and with @series_json (nullable: none), what the "over time" section
 * plots: gpuprof_html_series_json() */
gchar *gpuprof_html_page_with_series (const gchar * data_json,
    const gchar * series_json);
/* The page of one run, with its time series (NULL: none) */
GPUPROF_API
gchar *gpuprof_html_format_with_series (const GpuprofSnapshot * snap,
    const gchar * series_json);
/* {"source": @source, "points": [...]}: @source "interval" (snapshots of
 * interval=) or "trace" (its events binned); each point (a JSON object
 * text) has the live JSON Lines form without "cumulative" (docs/live.md):
 * t_s, interval_s, interval.elements[] (path, buffers, fps) and, when
 * known, interval.queues[] (path, level_buffers) */
GPUPROF_API
gchar *gpuprof_html_series_json (const gchar * source,
    const GPtrArray * points);

/* points a series keeps: past this, every other one is dropped (each kept
 * point stays the rate over its own interval; the plot gets sparser) */
#define GPUPROF_HTML_MAX_POINTS 1024
/* appends @point (taken) to @points (of g_free'd strings), thinning first
 * when full: memory and page stay bounded however long the run */
GPUPROF_API
void gpuprof_html_points_add (GPtrArray * points, gchar * point);

G_END_DECLS
