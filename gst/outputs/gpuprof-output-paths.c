/* gpuprof: one state per expanded output path (see "GpuprofOutputPaths"
 * in gpuprof-output.h): what the outputs that write files share, apart
 * from the table of outputs (gpuprof-output.c) so that the outputs and the
 * table do not call each other round. */
#include "gpuprof-output.h"
#include "gpuprof-outfile.h"

#include <gst/gst.h>

struct _GpuprofOutputPaths
{
  gchar *key;                   /* the parameter, for the clash line */
  gchar *tmpl;
  gsize state_size;
  GDestroyNotify clear;
  GHashTable *by_path;          /* expanded path -> PathEntry */
  gboolean clash_said;
};

typedef struct
{
  gchar *pipeline;              /* the last one that wrote it */
  gpointer state;
} PathEntry;

GpuprofOutputPaths *
gpuprof_output_paths_new (const gchar * key, const gchar * tmpl,
    gsize state_size, GDestroyNotify clear)
{
  GpuprofOutputPaths *paths = g_new0 (GpuprofOutputPaths, 1);

  paths->key = g_strdup (key);
  paths->tmpl = g_strdup (tmpl);
  paths->state_size = state_size;
  paths->clear = clear;
  paths->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  return paths;
}

gpointer
gpuprof_output_paths_get (GpuprofOutputPaths * paths, const gchar * pipeline,
    gboolean whole, const gchar ** path)
{
  gchar *expanded = gpuprof_outfile_expand (paths->tmpl, pipeline);
  gpointer key = NULL;
  PathEntry *e = NULL;

  if (g_hash_table_lookup_extended (paths->by_path, expanded, &key,
          (gpointer *) & e)) {
    g_free (expanded);
  } else {
    e = g_new0 (PathEntry, 1);
    e->state = g_malloc0 (paths->state_size);
    key = expanded;
    g_hash_table_insert (paths->by_path, key, e);
  }
  if (!whole) {
    *path = key;
    return e->state;
  }
  if (e->pipeline && g_strcmp0 (e->pipeline, pipeline) && !paths->clash_said) {
    paths->clash_said = TRUE;
    g_printerr ("gpuprof: %s=%s: pipelines '%s' and '%s' write the same "
        "file '%s'; the last one wins (put %%n in the path for one file "
        "per pipeline)\n", paths->key, paths->tmpl, e->pipeline,
        pipeline ? pipeline : "", (const gchar *) key);
  }
  if (g_strcmp0 (e->pipeline, pipeline)) {
    g_free (e->pipeline);
    e->pipeline = g_strdup (pipeline);
  }
  *path = key;
  return e->state;
}

void
gpuprof_output_paths_foreach (GpuprofOutputPaths * paths, GFunc func,
    gpointer user_data)
{
  GHashTableIter it;
  PathEntry *e;

  g_hash_table_iter_init (&it, paths->by_path);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) & e))
    func (e->state, user_data);
}

void
gpuprof_output_paths_free (GpuprofOutputPaths * paths)
{
  GHashTableIter it;
  gpointer key;
  PathEntry *e;

  if (!paths)
    return;
  g_hash_table_iter_init (&it, paths->by_path);
  while (g_hash_table_iter_next (&it, &key, (gpointer *) & e)) {
    if (paths->clear)
      paths->clear (e->state);
    g_free (e->state);
    g_free (e->pipeline);
    g_free (e);
    g_free (key);
  }
  g_hash_table_unref (paths->by_path);
  g_free (paths->key);
  g_free (paths->tmpl);
  g_free (paths);
}
