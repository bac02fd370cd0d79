/* gpuprof: read saved runs — a summary (stats=) or a trace (trace=) —
 * back into snapshots (gpuprof-snapshot.h).
 */
#pragma once

#include <json-glib/json-glib.h>
#include "gpuprof-snapshot.h"
/* GPUPROF_LOAD_ERROR, the readers' (gpuprof-series.h) */
#include "gpuprof-trace-reader.h"

G_BEGIN_DECLS

/* GpuprofRun: a saved run read back — a summary gives one snapshot and
 * leaves the trace fields at 0; a trace fills them all (see
 * GpuprofTraceContents in gpuprof-trace-reader.h) */
typedef GpuprofTraceContents GpuprofRun;

GpuprofRun *gpuprof_run_load (const gchar * path, GError ** err);
void gpuprof_run_free (GpuprofRun * run);

GpuprofSnapshot *gpuprof_summary_from_json (JsonNode * root,
    const gchar * where, GError ** err);

G_END_DECLS
