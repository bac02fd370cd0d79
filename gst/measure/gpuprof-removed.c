/* gpuprof: elements that left a pipeline during its run, folded per
 * factory (see gpuprof-removed.h). */
#include "gpuprof-removed.h"

#include <string.h>

struct _GpuprofRemoved
{
  GMutex lock;
  GHashTable *by_pipeline;      /* pipeline id -> GArray of GpuprofRemovedRow */
};

static void
rows_free (gpointer rows)
{
  g_array_unref (rows);
}

static void
row_clear (gpointer row)
{
  gpuprof_summary_row_clear (GPUPROF_SUMMARY_REMOVED, row);
}

GpuprofRemoved *
gpuprof_removed_new (void)
{
  GpuprofRemoved *r = g_new0 (GpuprofRemoved, 1);

  g_mutex_init (&r->lock);
  r->by_pipeline = g_hash_table_new_full (NULL, NULL, NULL, rows_free);
  return r;
}

void
gpuprof_removed_free (GpuprofRemoved * r)
{
  if (!r)
    return;
  g_hash_table_unref (r->by_pipeline);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* adds the figures of @from into @to (the same factory) */
static void
add_figures (GpuprofRemovedRow * to, const GpuprofRemovedRow * from)
{
  to->elements += from->elements;
  to->buffers_in += from->buffers_in;
  to->buffers_out += from->buffers_out;
  to->calls += from->calls;
  to->self_ns += from->self_ns;
  to->blocked_ns += from->blocked_ns;
  to->wait_input_ns += from->wait_input_ns;
  to->frames += from->frames;
  to->delivered += from->delivered;
  to->drops += from->drops;
  to->queue_drops += from->queue_drops;
}

void
gpuprof_removed_add (GpuprofRemoved * r, guint32 pipeline_id,
    const GpuprofRemovedRow * row)
{
  GArray *rows;
  GpuprofRemovedRow *to = NULL;
  guint i;

  g_mutex_lock (&r->lock);
  rows = g_hash_table_lookup (r->by_pipeline, GUINT_TO_POINTER (pipeline_id));
  if (!rows) {
    rows = g_array_new (FALSE, TRUE, sizeof (GpuprofRemovedRow));
    g_array_set_clear_func (rows, row_clear);
    g_hash_table_insert (r->by_pipeline, GUINT_TO_POINTER (pipeline_id),
        rows);
  }
  for (i = 0; i < rows->len && !to; i++) {
    GpuprofRemovedRow *x = &g_array_index (rows, GpuprofRemovedRow, i);
    if (!g_strcmp0 (x->factory, row->factory))
      to = x;
  }
  if (!to) {
    g_array_set_size (rows, rows->len + 1);
    to = &g_array_index (rows, GpuprofRemovedRow, rows->len - 1);
    to->factory = g_strdup (row->factory ? row->factory : "");
    to->role = g_strdup (row->role);
  }
  add_figures (to, row);
  g_free (to->last);
  to->last = g_strdup (row->last);
  g_mutex_unlock (&r->lock);
}

static gint
cmp_factory (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const GpuprofRemovedRow *) a)->factory,
      ((const GpuprofRemovedRow *) b)->factory);
}

void
gpuprof_removed_copy (GpuprofRemoved * r, guint32 pipeline_id,
    GpuprofSnapshot * snap)
{
  GArray *rows;
  guint i;

  g_mutex_lock (&r->lock);
  rows = g_hash_table_lookup (r->by_pipeline, GUINT_TO_POINTER (pipeline_id));
  for (i = 0; rows && i < rows->len; i++) {
    const GpuprofRemovedRow *x = &g_array_index (rows, GpuprofRemovedRow, i);
    GpuprofRemovedRow *to = gpuprof_summary_add_row (snap,
        GPUPROF_SUMMARY_REMOVED);

    *to = *x;
    to->factory = g_strdup (x->factory);
    to->role = g_strdup (x->role);
    to->last = g_strdup (x->last);
  }
  g_mutex_unlock (&r->lock);
  g_array_sort (snap->removed, cmp_factory);
}

gboolean
gpuprof_removed_any (GpuprofRemoved * r, guint32 pipeline_id)
{
  GArray *rows;
  gboolean any;

  g_mutex_lock (&r->lock);
  rows = g_hash_table_lookup (r->by_pipeline, GUINT_TO_POINTER (pipeline_id));
  any = rows && rows->len;
  g_mutex_unlock (&r->lock);
  return any;
}

void
gpuprof_removed_reset (GpuprofRemoved * r, guint32 pipeline_id)
{
  g_mutex_lock (&r->lock);
  g_hash_table_remove (r->by_pipeline, GUINT_TO_POINTER (pipeline_id));
  g_mutex_unlock (&r->lock);
}
