/* gpuprof: the text of live snapshots (interval=, docs/live.md), shared by
 * the outputs that print them: JSON Lines and CSV rows beside stats=, a
 * few report lines per interval. */
#pragma once

#include "gpuprof-output.h"

G_BEGIN_DECLS

/* one JSON object on one line, ending with a newline */
gchar *gpuprof_live_json_line (const GpuprofInterval * iv);
/* the CSV file beside stats=: its header and one row per element */
const gchar *gpuprof_live_csv_header (void);
void gpuprof_live_append_csv (GString * s, const GpuprofInterval * iv);
/* stats=run.json -> run-live.jsonl / run-live.csv */
gchar *gpuprof_live_path (const gchar * json_path, const gchar * ext);
/* a few lines for report= */
gchar *gpuprof_live_report (const GpuprofInterval * iv);

G_END_DECLS
