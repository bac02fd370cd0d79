/* gpuprof: the run summary for machines — JSON, CSV and GstTracerRecord
 * lines — written from a snapshot (gpuprof-snapshot.h). The schema is in
 * docs/summary-schema.md; the gst-gpuprof tool reads it back.
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>
#include "gpuprof-schema.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

#define GPUPROF_SUMMARY_SCHEMA "gpuprof-summary"
/* bump when a field changes meaning or goes away; adding fields is fine.
 * 3: the run table ("run" object) replaces pipeline/wall_ns/verdict, typed
 * GPU tables replace the gpu_section text.
 * 4: the verdict is the limits table (run: limit_*, next_*); bottleneck_*
 * is the busiest stage, not always what limits; resources table */
#define GPUPROF_SUMMARY_VERSION 4

GPUPROF_API
gchar *gpuprof_summary_to_json (const GpuprofSnapshot * snap);
GPUPROF_API
gchar *gpuprof_summary_table_to_csv (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id);
GPUPROF_API
gchar *gpuprof_summary_csv_path (const gchar * json_path,
    GpuprofSummaryTableId id);
gboolean gpuprof_summary_write (const GpuprofSnapshot * snap,
    const gchar * json_path, const gchar * csv_base);
GPUPROF_API
gboolean gpuprof_summary_save (const GpuprofSnapshot * snap,
    const gchar * json_path, GError ** err);
GPUPROF_API
void gpuprof_summary_log_records (const GpuprofSnapshot * snap);

GPUPROF_API
void gpuprof_summary_append_csv (GString * s, const gchar * str);
/* one row of any table (summary or live), for writers of their own */
void gpuprof_summary_append_json_row (GString * s,
    const GpuprofSummaryTable * t, gconstpointer row);
void gpuprof_summary_append_csv_header (GString * s,
    const GpuprofSummaryTable * t, const gchar * prefix, guint skip);
void gpuprof_summary_append_csv_row (GString * s,
    const GpuprofSummaryTable * t, gconstpointer row, guint skip);
void gpuprof_summary_log_live_records (const gchar * pipeline, guint64 seq,
    gdouble t_s, GpuprofLiveTableId id, GArray * rows);

G_END_DECLS
