/* gpuprof: time series for the HTML report's "over time" section
 * (docs/html.md): buffers per element and queue levels binned over run time,
 * rebuilt from a trace's events, or the interval snapshots of
 * <stats>-live.jsonl read back. Both give points in the form of the live
 * JSON Lines (docs/live.md) without "cumulative", which the page plots. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The readers' errors (this file, the trace and the summary readers) */
#define GPUPROF_LOAD_ERROR (gpuprof_load_error_quark ())
GQuark gpuprof_load_error_quark (void);

typedef enum
{
  GPUPROF_LOAD_ERROR_READ,      /* missing or unreadable file */
  GPUPROF_LOAD_ERROR_SYNTAX,    /* not JSON: the message has file:line:column */
  GPUPROF_LOAD_ERROR_SCHEMA,    /* JSON, but not a gpuprof summary or trace */
} GpuprofLoadError;

/* points a plot gets from a trace: a 3 s run in bins of 128 ms (bins
 * double from 1 ms: 17 to 32 points) */
#define GPUPROF_SERIES_POINTS 32

typedef struct _GpuprofSeries GpuprofSeries;

GpuprofSeries *gpuprof_series_new (void);
void gpuprof_series_free (GpuprofSeries * series);
/* @n buffers reached element @path at @ts_ns (any clock, any order) */
void gpuprof_series_add_buffers (GpuprofSeries * series, const gchar * path,
    guint64 ts_ns, guint64 n);
/* queue @path held @level buffers at @ts_ns */
void gpuprof_series_add_level (GpuprofSeries * series, const gchar * path,
    guint64 ts_ns, guint64 level);
/* the series as the page's JSON (gpuprof_html_series_json), at most
 * @max_points bins; NULL when nothing was added */
gchar *gpuprof_series_to_json (GpuprofSeries * series, guint max_points);

/* the interval snapshots of pipeline @pipeline in a live JSON Lines file
 * (its last run), as the page's JSON; NULL and @err set when the file cannot
 * be read or holds no line of that pipeline */
gchar *gpuprof_series_from_live (const gchar * path, const gchar * pipeline,
    GError ** err);

G_END_DECLS
