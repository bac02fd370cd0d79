/* gpuprof: the timeline trace read back — the reader beside the writer
 * (gpuprof-trace.c, docs/trace.md).
 *
 * Built into a small static library with json-glib, used by the
 * gst-gpuprof tool only: the core library and the tracer stay free of it.
 * A trace may be gigabytes: it is read one event (one line) at a time, each
 * parsed with json-glib, in memory that does not grow with the run (the
 * figures rebuilt from events go into the core's histograms).
 */
#pragma once

#include <stdio.h>
#include <json-glib/json-glib.h>

#include "gpuprof-series.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* turns a "gpuprof summary" event's summary object into a snapshot;
 * @where ("file:line") goes into its error messages */
typedef GpuprofSnapshot *(*GpuprofSummaryReadFunc) (JsonNode * summary,
    const gchar * where, GError ** err);

/**
 * GpuprofTraceContents:
 * @snapshots: (element-type GpuprofSnapshot): one per "gpuprof summary"
 *   event, or the one rebuilt from the events when there is none
 * @rebuilt: %TRUE when the trace held no summary (process killed) and
 *   @snapshots was rebuilt from the events: elements, queues and threads
 *   only; percentiles from the core's histograms, as the live report's
 * @truncated: %TRUE when the trace had no closing bracket
 * @chain_events: chain events read
 * @trace_note: (nullable): what the writer reported (cap, losses)
 * @series_json: (nullable): buffers per element and queue levels binned
 *   over the trace's time, for the HTML report (gpuprof-series.h)
 */
typedef struct
{
  GPtrArray *snapshots;
  gboolean rebuilt;
  gboolean truncated;
  guint64 chain_events;
  gchar *trace_note;
  gchar *series_json;
} GpuprofTraceContents;

gboolean gpuprof_trace_read (FILE * f, const gchar * path,
    GpuprofSummaryReadFunc read_summary, GpuprofTraceContents * contents,
    GError ** err);
void gpuprof_trace_contents_clear (GpuprofTraceContents * contents);

G_END_DECLS
