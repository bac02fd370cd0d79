/* gst-gpuprof: before/after comparison of two runs — the "relative time"
 * table people otherwise build by hand while tuning a pipeline. Ratios are
 * after/before: above 1 means slower (times) or faster (throughput). */
#include "gpuprof-diff.h"
#include "gpuprof-report.h"
#include "gpuprof-summary.h"

#include <string.h>

static gchar *
ratio_cell (gdouble before, gdouble after, gboolean have_both)
{
  if (!have_both || before <= 0)
    return g_strdup ("-");
  return g_strdup_printf ("%.2f", after / before);
}

static gchar *
us_cell (gboolean have, gdouble ns)
{
  return have ? g_strdup_printf ("%.1f", ns / 1e3) : g_strdup ("-");
}

static gdouble
self_per_buffer (const GpuprofElementRow * r)
{
  guint64 n = r->calls ? r->calls : r->buffers_in;

  return n ? (gdouble) r->self_ns / n : 0;
}

static void
add_element_row (GpuprofTable * t, const gchar * path,
    const GpuprofElementRow * b, const GpuprofElementRow * a)
{
  gdouble bv = b ? self_per_buffer (b) : 0, av = a ? self_per_buffer (a) : 0;
  gchar *cells[] = {
    (gchar *) path, us_cell (b != NULL, bv), us_cell (a != NULL, av),
    ratio_cell (bv, av, a && b),
    b ? g_strdup_printf ("%.0f", b->busy * 100) : g_strdup ("-"),
    a ? g_strdup_printf ("%.0f", a->busy * 100) : g_strdup ("-"), NULL
  };
  guint i;

  gpuprof_table_add_rowv (t, cells);
  for (i = 1; cells[i]; i++)
    g_free (cells[i]);
}

static void
format_elements (const GpuprofSnapshot * before, const GpuprofSnapshot * after,
    GString * out)
{
  static const gchar *headers[] = { "element", "before self µs/buf",
    "after self µs/buf", "after/before", "before busy %", "after busy %"
  };
  GpuprofTable *t = gpuprof_table_new (G_N_ELEMENTS (headers), headers);
  guint i;

  for (i = 0; i < before->elements->len; i++) {
    const GpuprofElementRow *b =
        &g_array_index (before->elements, GpuprofElementRow, i);

    add_element_row (t, b->path, b,
        gpuprof_snapshot_find_element (after, b->path));
  }
  for (i = 0; i < after->elements->len; i++) {
    const GpuprofElementRow *a =
        &g_array_index (after->elements, GpuprofElementRow, i);

    if (!gpuprof_snapshot_find_element (before, a->path))
      add_element_row (t, a->path, NULL, a);
  }
  g_string_append (out, "\nElements (self time per buffer)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

static void
add_queue_row (GpuprofTable * t, const gchar * path,
    const GpuprofQueueRow * b, const GpuprofQueueRow * a)
{
  gchar *cells[] = {
    (gchar *) path,
    us_cell (b != NULL, b ? b->residency_mean_ns : 0),
    us_cell (a != NULL, a ? a->residency_mean_ns : 0),
    ratio_cell (b ? b->residency_mean_ns : 0, a ? a->residency_mean_ns : 0,
        a && b),
    us_cell (b != NULL, b ? b->backpressure_ns : 0),
    us_cell (a != NULL, a ? a->backpressure_ns : 0),
    ratio_cell (b ? b->backpressure_ns : 0, a ? a->backpressure_ns : 0,
        a && b), NULL
  };
  guint i;

  gpuprof_table_add_rowv (t, cells);
  for (i = 1; cells[i]; i++)
    g_free (cells[i]);
}

static void
format_queues (const GpuprofSnapshot * before, const GpuprofSnapshot * after,
    GString * out)
{
  static const gchar *headers[] = { "queue", "before mean residency µs",
    "after mean residency µs", "after/before", "before backpressure µs",
    "after backpressure µs", "after/before"
  };
  GpuprofTable *t;
  guint i;

  if (before->queues->len == 0 && after->queues->len == 0)
    return;
  t = gpuprof_table_new (G_N_ELEMENTS (headers), headers);
  for (i = 0; i < before->queues->len; i++) {
    const GpuprofQueueRow *b =
        &g_array_index (before->queues, GpuprofQueueRow, i);

    add_queue_row (t, b->path, b, gpuprof_snapshot_find_queue (after,
            b->path));
  }
  for (i = 0; i < after->queues->len; i++) {
    const GpuprofQueueRow *a =
        &g_array_index (after->queues, GpuprofQueueRow, i);

    if (!gpuprof_snapshot_find_queue (before, a->path))
      add_queue_row (t, a->path, NULL, a);
  }
  g_string_append (out, "\nQueues\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

/**
 * gpuprof_diff_throughput:
 * @snap: a run
 *
 * Buffers per second through the run: buffers received by its sinks over
 * the wall time (the busiest element's buffers when no element is a sink).
 *
 * Returns: buffers/s, 0 when unknown
 */
gdouble
gpuprof_diff_throughput (const GpuprofSnapshot * snap)
{
  guint64 sink_buffers = 0, max_buffers = 0;
  guint i;

  if (snap->wall_ns == 0)
    return 0;
  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (snap->elements, GpuprofElementRow, i);

    if (g_strcmp0 (r->role, "sink") == 0)
      sink_buffers += r->buffers_in;
    max_buffers = MAX (max_buffers, r->buffers_in);
  }
  return (sink_buffers ? sink_buffers : max_buffers) * 1e9 / snap->wall_ns;
}

static void
format_overall (const GpuprofSnapshot * before, const GpuprofSnapshot * after,
    GString * out)
{
  static const gchar *headers[] = { "run", "before", "after", "after/before" };
  GpuprofTable *t = gpuprof_table_new (G_N_ELEMENTS (headers), headers);
  gdouble bt = gpuprof_diff_throughput (before);
  gdouble at = gpuprof_diff_throughput (after);
  gchar *cells[5][4] = {
    {"throughput buffers/s", g_strdup_printf ("%.1f", bt),
        g_strdup_printf ("%.1f", at), ratio_cell (bt, at, TRUE)},
    {"wall s", g_strdup_printf ("%.3f", before->wall_ns / 1e9),
          g_strdup_printf ("%.3f", after->wall_ns / 1e9),
        ratio_cell (before->wall_ns, after->wall_ns, TRUE)},
    {"bottleneck", g_strdup (before->bottleneck ? before->bottleneck : "-"),
          g_strdup (after->bottleneck ? after->bottleneck : "-"),
        g_strdup ("-")},
    {"bottleneck busy %", g_strdup_printf ("%.0f",
              before->bottleneck_busy * 100), g_strdup_printf ("%.0f",
              after->bottleneck_busy * 100), ratio_cell
          (before->bottleneck_busy, after->bottleneck_busy, TRUE)},
    {"bottleneck µs/buf", us_cell (TRUE, before->bottleneck_ns_per_buffer),
          us_cell (TRUE, after->bottleneck_ns_per_buffer),
          ratio_cell (before->bottleneck_ns_per_buffer,
          after->bottleneck_ns_per_buffer, TRUE)},
  };
  gchar *ratio = ratio_cell (bt, at, TRUE);
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (cells); i++) {
    gpuprof_table_add_rowv (t, cells[i]);
    for (j = 1; j < 4; j++)
      g_free (cells[i][j]);
  }
  g_string_append (out, "\nRun\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
  g_string_append_printf (out, "\nthroughput after/before: %s\n", ratio);
  g_free (ratio);
}

/* --- every table, column by column (gpuprof-schema.h) ------------------ */

static gchar *
value_cell (const GpuprofSummaryField * f, gconstpointer row)
{
  gconstpointer m = (const guint8 *) row + f->offset;

  switch (f->type) {
    case GPUPROF_FIELD_STRING:
      return g_strdup (*(gchar * const *) m ? *(gchar * const *) m : "");
    case GPUPROF_FIELD_U64:
      return g_strdup_printf ("%" G_GUINT64_FORMAT, *(const guint64 *) m);
    case GPUPROF_FIELD_DOUBLE:
      return g_strdup_printf ("%.3f", *(const gdouble *) m);
    case GPUPROF_FIELD_BOOLEAN:
      return g_strdup (*(const gboolean *) m ? "true" : "false");
  }
  return NULL;
}

static gdouble
value_number (const GpuprofSummaryField * f, gconstpointer row)
{
  gconstpointer m = (const guint8 *) row + f->offset;

  if (f->type == GPUPROF_FIELD_U64)
    return *(const guint64 *) m;
  if (f->type == GPUPROF_FIELD_DOUBLE)
    return *(const gdouble *) m;
  return 0;
}

/* what names a row: its key columns ("pipeline0/infer", "kernel @
 * element"), the table's name for a table without key columns */
static gchar *
row_key (const GpuprofSummaryTable * t, gconstpointer row)
{
  GString *s = g_string_new (NULL);
  guint j;

  if (t->n_key == 0)
    g_string_append (s, t->name);
  for (j = 0; j < t->n_key; j++) {
    gchar *cell = value_cell (&t->fields[j], row);

    g_string_append_printf (s, "%s%s", j ? " @ " : "", cell);
    g_free (cell);
  }
  return g_string_free (s, FALSE);
}

/* the row of @snap's table @id named @key; a one-row table's only row */
static gconstpointer
find_row (const GpuprofSnapshot * snap, GpuprofSummaryTableId id,
    const gchar * key)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  guint i, n = gpuprof_summary_n_rows (snap, id);

  if (t->single)
    return n ? gpuprof_summary_row (snap, id, 0) : NULL;
  for (i = 0; i < n; i++) {
    gconstpointer row = gpuprof_summary_row (snap, id, i);
    gchar *k = row_key (t, row);
    gboolean same = strcmp (k, key) == 0;

    g_free (k);
    if (same)
      return row;
  }
  return NULL;
}

/* one line per numeric column that changed (every non-zero one for a row
 * on one side only); returns the lines added */
static guint
add_detail_rows (GpuprofTable * out, const GpuprofSummaryTable * t,
    const gchar * key, gconstpointer b, gconstpointer a)
{
  guint j, added = 0;

  for (j = t->n_key; j < t->n_fields; j++) {
    const GpuprofSummaryField *f = &t->fields[j];
    gdouble bv = b ? value_number (f, b) : 0, av = a ? value_number (f, a) : 0;
    gchar *cells[6];
    guint c;

    if (f->type != GPUPROF_FIELD_U64 && f->type != GPUPROF_FIELD_DOUBLE)
      continue;
    if ((a && b) ? bv == av : bv == 0 && av == 0)
      continue;
    cells[0] = g_strdup (key);
    cells[1] = g_strdup (f->name);
    cells[2] = b ? value_cell (f, b) : g_strdup ("-");
    cells[3] = a ? value_cell (f, a) : g_strdup ("-");
    cells[4] = ratio_cell (bv, av, a && b);
    cells[5] = NULL;
    gpuprof_table_add_rowv (out, cells);
    for (c = 0; c < 5; c++)
      g_free (cells[c]);
    added++;
  }
  return added;
}

static void
format_table_changes (const GpuprofSnapshot * before,
    const GpuprofSnapshot * after, GpuprofSummaryTableId id, GString * out)
{
  static const gchar *headers[] = { "row", "column", "before", "after",
    "after/before"
  };
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  GpuprofTable *table = gpuprof_table_new (G_N_ELEMENTS (headers), headers);
  guint i, changes = 0;

  for (i = 0; i < gpuprof_summary_n_rows (before, id); i++) {
    gconstpointer b = gpuprof_summary_row (before, id, i);
    gchar *key = row_key (t, b);

    changes += add_detail_rows (table, t, key, b, find_row (after, id, key));
    g_free (key);
  }
  for (i = 0; i < gpuprof_summary_n_rows (after, id); i++) {
    gconstpointer a = gpuprof_summary_row (after, id, i);
    gchar *key = row_key (t, a);

    if (!find_row (before, id, key))
      changes += add_detail_rows (table, t, key, NULL, a);
    g_free (key);
  }
  /* a table with no changed value prints nothing */
  if (changes) {
    g_string_append_printf (out, "\nChanged: %s\n", t->name);
    gpuprof_table_print (table, out);
  }
  gpuprof_table_free (table);
}

/**
 * gpuprof_diff_format:
 * @before: the reference run
 * @after: the run to compare with it
 *
 * Per element self time per buffer, per queue residency and backpressure,
 * and the overall throughput, before and after with their ratio
 * (after/before); elements are matched by path, "-" where one side lacks
 * it. Then, for every table of the summary (gpuprof-schema.h: the run,
 * elements, queues, threads, batches, stages, advice and GPU tables), each
 * numeric column whose value changed, rows matched by their key columns.
 *
 * Returns: (transfer full): the text
 */
gchar *
gpuprof_diff_format (const GpuprofSnapshot * before,
    const GpuprofSnapshot * after)
{
  GString *out = g_string_new (NULL);
  GpuprofSummaryTableId id;

  g_string_append_printf (out, "\n=== gpuprof diff: %s -> %s ===\n",
      before->pipeline, after->pipeline);
  format_elements (before, after, out);
  format_queues (before, after, out);
  format_overall (before, after, out);
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++)
    format_table_changes (before, after, id, out);
  return g_string_free (out, FALSE);
}
