/* gpuprof: the text of live snapshots (interval=, docs/live.md), shared by
 * the outputs that print them: JSON Lines and CSV rows beside stats=, a
 * few report lines per interval, tracer records. */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-output.h"

G_BEGIN_DECLS

/* the interval rows (the live tables of gpuprof-schema.h): iv->elements
 * and iv->queues, row for row with the snapshot's elements and queues */
void gpuprof_live_interval_fill (GpuprofInterval * iv);
void gpuprof_live_interval_clear (GpuprofInterval * iv);
/* one JSON object on one line, ending with a newline */
gchar *gpuprof_live_json_line (const GpuprofInterval * iv);
/* the same object without "cumulative" and the newline: the interval's
 * figures only (the HTML page's time series) */
gchar *gpuprof_live_json_point (const GpuprofInterval * iv);
/* a CSV file per live table beside stats=: its header and one row per
 * element (queue): the snapshot's columns, then the interval's */
gchar *gpuprof_live_csv_header (GpuprofLiveTableId id);
void gpuprof_live_append_csv (GString * s, const GpuprofInterval * iv,
    GpuprofLiveTableId id);
/* "gpuprof-interval-element" and "gpuprof-interval-queue" records */
void gpuprof_live_log_records (const GpuprofInterval * iv);
/* stats=run.json -> run-live.jsonl; run-live.csv (elements),
 * run-live-queues.csv */
GPUPROF_API
gchar *gpuprof_live_path (const gchar * json_path, const gchar * ext);
gchar *gpuprof_live_csv_path (const gchar * json_path, GpuprofLiveTableId id);
/* a few lines for report= */
gchar *gpuprof_live_report (const GpuprofInterval * iv);

G_END_DECLS
