/* gpuprof: the table descriptions generated from gpuprof-schema.h, and the
 * generic row access every writer and reader goes through. */
#include "gpuprof-snapshot.h"

#include <string.h>

#define FIELD(row_type, member, type, desc) \
  { #member, GPUPROF_FIELD_##type, G_STRUCT_OFFSET (row_type, member), desc },

/* one static field array per table: fields_RUN, fields_ELEMENTS, ... */
#define F_RUN(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_RUN, m, t, d)
#define F_ELEMENTS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_ELEMENTS, m, t, d)
#define F_QUEUES(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_QUEUES, m, t, d)
#define F_THREADS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_THREADS, m, t, d)
#define F_LINKS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_LINKS, m, t, d)
#define F_BATCHES(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_BATCHES, m, t, d)
#define F_STAGES(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_STAGES, m, t, d)
#define F_ADVICE(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_ADVICE, m, t, d)
#define F_STREAMS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_STREAMS, m, t, d)
#define F_REMOVED(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_REMOVED, m, t, d)
#define F_POOLS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_POOLS, m, t, d)
#define F_HISTOGRAMS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_HISTOGRAMS, m, t, d)
#define F_GPU_ELEMENTS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_GPU_ELEMENTS, m, t, d)
#define F_GPU_KERNELS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_GPU_KERNELS, m, t, d)
#define F_GPU_DEVICES(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_GPU_DEVICES, m, t, d)
#define F_GPU(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_GPU, m, t, d)
#define F_RESOURCES(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_RESOURCES, m, t, d)
#define F_LIMITS(m, t, d) FIELD (GPUPROF_SCHEMA_ROW_LIMITS, m, t, d)
#define F_GPU_RESOURCES(m, t, d) \
  FIELD (GPUPROF_SCHEMA_ROW_GPU_RESOURCES, m, t, d)
#define F_INTERVAL_ELEMENTS(m, t, d) \
  FIELD (GPUPROF_SCHEMA_ROW_INTERVAL_ELEMENTS, m, t, d)
#define F_INTERVAL_QUEUES(m, t, d) \
  FIELD (GPUPROF_SCHEMA_ROW_INTERVAL_QUEUES, m, t, d)
#define F_INTERVAL_STREAMS(m, t, d) \
  FIELD (GPUPROF_SCHEMA_ROW_INTERVAL_STREAMS, m, t, d)
#define F_INTERVAL_GPUS(m, t, d) \
  FIELD (GPUPROF_SCHEMA_ROW_INTERVAL_GPUS, m, t, d)

#define FIELD_ARRAY(ID, name, record, n_key, single) \
  static const GpuprofSummaryField fields_##ID[] = { \
    GPUPROF_SCHEMA_##ID (F_##ID) \
  };
GPUPROF_SCHEMA_TABLES (FIELD_ARRAY)
GPUPROF_SCHEMA_LIVE_TABLES (FIELD_ARRAY)

#define TABLE(ID, name, record, n_key, single) \
  { #name, #record, sizeof (GPUPROF_SCHEMA_ROW_##ID), fields_##ID, \
    G_N_ELEMENTS (fields_##ID), n_key, single },

static const GpuprofSummaryTable tables[GPUPROF_SUMMARY_N_TABLES] = {
  GPUPROF_SCHEMA_TABLES (TABLE)
};

static const GpuprofSummaryTable live_tables[GPUPROF_LIVE_N_TABLES] = {
  GPUPROF_SCHEMA_LIVE_TABLES (TABLE)
};

/**
 * gpuprof_summary_table:
 * @id: which table
 *
 * Returns: (transfer none): the description of table @id
 */
const GpuprofSummaryTable *
gpuprof_summary_table (GpuprofSummaryTableId id)
{
  g_return_val_if_fail (id < GPUPROF_SUMMARY_N_TABLES, NULL);
  return &tables[id];
}

/**
 * gpuprof_live_table:
 * @id: which live table
 *
 * Returns: (transfer none): the description of live table @id
 */
const GpuprofSummaryTable *
gpuprof_live_table (GpuprofLiveTableId id)
{
  g_return_val_if_fail (id < GPUPROF_LIVE_N_TABLES, NULL);
  return &live_tables[id];
}

/**
 * gpuprof_summary_rows:
 * @snap: a snapshot
 * @id: which table
 *
 * Returns: (transfer none) (nullable): the rows of table @id in @snap;
 * %NULL for the run table, whose one row is @snap itself
 */
GArray *
gpuprof_summary_rows (const GpuprofSnapshot * snap, GpuprofSummaryTableId id)
{
  switch (id) {
    case GPUPROF_SUMMARY_RUN:
      return NULL;
    case GPUPROF_SUMMARY_ELEMENTS:
      return snap->elements;
    case GPUPROF_SUMMARY_QUEUES:
      return snap->queues;
    case GPUPROF_SUMMARY_THREADS:
      return snap->threads;
    case GPUPROF_SUMMARY_LINKS:
      return snap->links;
    case GPUPROF_SUMMARY_BATCHES:
      return snap->batches;
    case GPUPROF_SUMMARY_STAGES:
      return snap->stages;
    case GPUPROF_SUMMARY_ADVICE:
      return snap->advice;
    case GPUPROF_SUMMARY_STREAMS:
      return snap->streams;
    case GPUPROF_SUMMARY_REMOVED:
      return snap->removed;
    case GPUPROF_SUMMARY_POOLS:
      return snap->pools;
    case GPUPROF_SUMMARY_HISTOGRAMS:
      return snap->histograms;
    case GPUPROF_SUMMARY_GPU_ELEMENTS:
      return snap->gpu_elements;
    case GPUPROF_SUMMARY_GPU_KERNELS:
      return snap->gpu_kernels;
    case GPUPROF_SUMMARY_GPU_DEVICES:
      return snap->gpu_devices;
    case GPUPROF_SUMMARY_GPU:
      return snap->gpu;
    case GPUPROF_SUMMARY_RESOURCES:
      return snap->resources;
    case GPUPROF_SUMMARY_LIMITS:
      return snap->limits;
    case GPUPROF_SUMMARY_GPU_RESOURCES:
      return snap->gpu_resources;
    default:
      g_return_val_if_reached (NULL);
  }
}

/**
 * gpuprof_summary_n_rows:
 * @snap: a snapshot
 * @id: which table
 *
 * Returns: the number of rows of table @id (1 for the run table)
 */
guint
gpuprof_summary_n_rows (const GpuprofSnapshot * snap, GpuprofSummaryTableId id)
{
  GArray *rows = gpuprof_summary_rows (snap, id);

  if (id == GPUPROF_SUMMARY_RUN)
    return 1;
  return rows ? rows->len : 0;
}

/**
 * gpuprof_summary_row:
 * @snap: a snapshot
 * @id: which table
 * @i: row index, below gpuprof_summary_n_rows()
 *
 * Returns: (transfer none): row @i of table @id
 */
gconstpointer
gpuprof_summary_row (const GpuprofSnapshot * snap, GpuprofSummaryTableId id,
    guint i)
{
  GArray *rows = gpuprof_summary_rows (snap, id);

  if (id == GPUPROF_SUMMARY_RUN)
    return snap;
  g_return_val_if_fail (rows && i < rows->len, NULL);
  return rows->data + (gsize) i * tables[id].row_size;
}

/**
 * gpuprof_summary_add_row:
 * @snap: a snapshot
 * @id: which table
 *
 * Appends a zeroed row; for the run table, returns @snap itself.
 *
 * Returns: (transfer none): the row, to fill in
 */
gpointer
gpuprof_summary_add_row (GpuprofSnapshot * snap, GpuprofSummaryTableId id)
{
  GArray *rows = gpuprof_summary_rows (snap, id);

  if (id == GPUPROF_SUMMARY_RUN)
    return snap;
  g_array_set_size (rows, rows->len + 1);
  return rows->data + (gsize) (rows->len - 1) * tables[id].row_size;
}

/**
 * gpuprof_summary_row_clear:
 * @id: which table
 * @row: a row of that table
 *
 * Frees the row's strings.
 */
void
gpuprof_summary_row_clear (GpuprofSummaryTableId id, gpointer row)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  guint j;

  for (j = 0; j < t->n_fields; j++)
    if (t->fields[j].type == GPUPROF_FIELD_STRING)
      g_clear_pointer ((gchar **) ((guint8 *) row + t->fields[j].offset),
          g_free);
}

/**
 * gpuprof_summary_row_to_structure:
 * @id: which table
 * @row: a row of that table
 *
 * The action signals' answer: a GstStructure named "gpuprof-" + the
 * table's record name ("gpuprof-element", "gpuprof-batch"...), with one
 * field per column, named and typed as in the JSON summary.
 *
 * Returns: (transfer full): the row as a GstStructure
 */
GstStructure *
gpuprof_summary_row_to_structure (GpuprofSummaryTableId id, gconstpointer row)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  gchar *name = g_strdup_printf ("gpuprof-%s", t->record);
  GstStructure *s = gst_structure_new_empty (name);
  guint j;

  g_free (name);
  for (j = 0; j < t->n_fields; j++) {
    const GpuprofSummaryField *f = &t->fields[j];
    gconstpointer m = (const guint8 *) row + f->offset;

    switch (f->type) {
      case GPUPROF_FIELD_STRING:
        gst_structure_set (s, f->name, G_TYPE_STRING, *(gchar * const *) m,
            NULL);
        break;
      case GPUPROF_FIELD_U64:
        gst_structure_set (s, f->name, G_TYPE_UINT64, *(const guint64 *) m,
            NULL);
        break;
      case GPUPROF_FIELD_DOUBLE:
        gst_structure_set (s, f->name, G_TYPE_DOUBLE, *(const gdouble *) m,
            NULL);
        break;
      case GPUPROF_FIELD_BOOLEAN:
        gst_structure_set (s, f->name, G_TYPE_BOOLEAN, *(const gboolean *) m,
            NULL);
        break;
    }
  }
  return s;
}
