/* gpuprof: the run summary for machines — JSON, CSV and GstTracerRecord
 * lines — written from a snapshot (gpuprof-snapshot.h). The schema is in
 * docs/summary-schema.md; the gst-gpuprof tool reads it back.
 */
#pragma once

#include <gst/gst.h>
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

#define GPUPROF_SUMMARY_SCHEMA "gpuprof-summary"
/* bump when a field changes meaning or goes away; adding fields is fine */
#define GPUPROF_SUMMARY_VERSION 2

typedef enum
{
  GPUPROF_FIELD_STRING,         /* gchar *, may be NULL */
  GPUPROF_FIELD_U64,            /* guint64 */
  GPUPROF_FIELD_DOUBLE,         /* gdouble */
  GPUPROF_FIELD_BOOLEAN,        /* gboolean */
} GpuprofFieldType;

/**
 * GpuprofSummaryField:
 * @name: key in JSON, column in CSV, field in the tracer record
 * @type: C type of the member
 * @offset: offset of the member in the row struct
 * @description: meaning and unit, for the tracer record and the docs
 */
typedef struct
{
  const gchar *name;
  GpuprofFieldType type;
  gsize offset;
  const gchar *description;
} GpuprofSummaryField;

/**
 * GpuprofSummaryTable:
 * @name: "elements", "queues" or "threads": JSON key and CSV file suffix
 * @row_size: sizeof the row struct (GpuprofElementRow, ...)
 * @fields: the row's fields, in output order
 * @n_fields: length of @fields
 *
 * One table of the snapshot. JSON, CSV, tracer records and the reader in
 * tools/ are all driven by these descriptions, so they cannot disagree.
 */
typedef struct
{
  const gchar *name;
  gsize row_size;
  const GpuprofSummaryField *fields;
  guint n_fields;
} GpuprofSummaryTable;

typedef enum
{
  GPUPROF_SUMMARY_ELEMENTS,
  GPUPROF_SUMMARY_QUEUES,
  GPUPROF_SUMMARY_THREADS,
  GPUPROF_SUMMARY_BATCHES,      /* version 2: per-batch analysis */
  GPUPROF_SUMMARY_STAGES,
  GPUPROF_SUMMARY_ADVICE,
  GPUPROF_SUMMARY_N_TABLES
} GpuprofSummaryTableId;

const GpuprofSummaryTable *gpuprof_summary_table (GpuprofSummaryTableId id);
GArray *gpuprof_summary_rows (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id);

gchar *gpuprof_summary_to_json (const GpuprofSnapshot * snap);
gchar *gpuprof_summary_table_to_csv (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id);
gchar *gpuprof_summary_csv_path (const gchar * json_path,
    GpuprofSummaryTableId id);
gboolean gpuprof_summary_save (const GpuprofSnapshot * snap,
    const gchar * json_path, GError ** err);
void gpuprof_summary_log_records (const GpuprofSnapshot * snap);

void gpuprof_summary_append_double (GString * s, gdouble v);
GstStructure *gpuprof_summary_row_to_structure (GpuprofSummaryTableId id,
    gconstpointer row);

G_END_DECLS
