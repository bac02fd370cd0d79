/* gpuprof: the end-of-run console report and its one-line verdict.
 *
 * Formats a snapshot only, so the live tracer and `gst-gpuprof report` on a
 * saved summary print the same text.
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

GPUPROF_API
gchar *gpuprof_report_format (const GpuprofSnapshot * snap);
GPUPROF_API
gchar *gpuprof_report_verdict (const GpuprofSnapshot * snap);

/* aligned text tables: first column left-aligned, others right-aligned */
typedef struct _GpuprofTable GpuprofTable;
GPUPROF_API
GpuprofTable *gpuprof_table_new (guint n_columns, const gchar * const *headers);
GPUPROF_API
void gpuprof_table_add_rowv (GpuprofTable * t, gchar ** cells);
GPUPROF_API
void gpuprof_table_print (GpuprofTable * t, GString * out);
GPUPROF_API
void gpuprof_table_free (GpuprofTable * t);

G_END_DECLS
