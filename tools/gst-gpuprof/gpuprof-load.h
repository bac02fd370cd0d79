/* gst-gpuprof: read saved runs — a summary (stats=) or a trace (trace=) —
 * back into snapshots (gpuprof-snapshot.h).
 */
#pragma once

#include <json-glib/json-glib.h>
#include "gpuprof-snapshot.h"
/* GPUPROF_LOAD_ERROR, shared with the trace reader */
#include "gpuprof-trace-reader.h"

G_BEGIN_DECLS

/**
 * GpuprofRun:
 * @snapshots: (element-type GpuprofSnapshot): one per pipeline summary found
 * @rebuilt: %TRUE when the trace held no summary (process killed) and
 *   @snapshots was rebuilt from the trace events: elements, queues and
 *   threads only, roles from the events, percentiles from the core's
 *   histograms (as the live report's)
 * @truncated: %TRUE when a trace had no closing bracket
 * @chain_events: chain events read (when @rebuilt)
 * @trace_note: (nullable): what the trace writer reported (cap, losses)
 */
typedef struct
{
  GPtrArray *snapshots;
  gboolean rebuilt;
  gboolean truncated;
  guint64 chain_events;
  gchar *trace_note;
} GpuprofRun;

GpuprofRun *gpuprof_run_load (const gchar * path, GError ** err);
void gpuprof_run_free (GpuprofRun * run);

GpuprofSnapshot *gpuprof_summary_from_json (JsonNode * root,
    const gchar * where, GError ** err);

G_END_DECLS
