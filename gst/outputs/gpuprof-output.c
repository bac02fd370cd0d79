/* gpuprof: the table of outputs and what the session calls on all of them
 * (see gpuprof-output.h, docs/outputs.md). */
#include "gpuprof-output.h"
#include "gpuprof-outfile.h"

#include <gst/gst.h>

/* one line per output, defined in gpuprof-output-<name>.c */
extern const GpuprofOutputClass gpuprof_output_records;
extern const GpuprofOutputClass gpuprof_output_summary;
extern const GpuprofOutputClass gpuprof_output_trace;
extern const GpuprofOutputClass gpuprof_output_html;
extern const GpuprofOutputClass gpuprof_output_report;

/* Run-end order: the machine-readable outputs first, then the report, so a
 * report file that appears means the summary and trace are complete. */
static const GpuprofOutputClass *const outputs[] = {
  &gpuprof_output_records,
  &gpuprof_output_summary,
  &gpuprof_output_trace,
  &gpuprof_output_html,
  &gpuprof_output_report,
};

const GpuprofOutputClass *const *
gpuprof_output_classes (guint * n)
{
  *n = G_N_ELEMENTS (outputs);
  return outputs;
}

const GpuprofOutputClass *
gpuprof_output_class_find (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (outputs); i++)
    if (!g_strcmp0 (outputs[i]->name, name))
      return outputs[i];
  return NULL;
}

static void
output_free (gpointer data)
{
  GpuprofOutput *o = data;

  if (o->klass->free)
    o->klass->free (o->state);
  g_free (o);
}

/**
 * gpuprof_outputs_open:
 * @params: the session's parameters
 * @ctx: what the outputs may use
 *
 * Opens every output @params enable. One that cannot open has said why and
 * is left out.
 *
 * Returns: (transfer full): the open outputs, in table order
 */
GPtrArray *
gpuprof_outputs_open (const GpuprofParams * params,
    const GpuprofOutputContext * ctx)
{
  GPtrArray *open = g_ptr_array_new_with_free_func (output_free);
  guint i;

  /* %t in the paths: the session's start */
  gpuprof_outfile_mark_start ();
  for (i = 0; i < G_N_ELEMENTS (outputs); i++) {
    const GpuprofOutputClass *klass = outputs[i];
    gpointer state;

    if (!klass->enabled (params))
      continue;
    state = klass->open (params, ctx);
    if (state) {
      GpuprofOutput *o = g_new0 (GpuprofOutput, 1);
      o->klass = klass;
      o->state = state;
      g_ptr_array_add (open, o);
      GST_INFO ("gpuprof output %s open", klass->name);
    }
  }
  return open;
}

GpuprofOutput *
gpuprof_outputs_find (GPtrArray * outputs, const gchar * name)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (!g_strcmp0 (o->klass->name, name))
      return o;
  }
  return NULL;
}

gboolean
gpuprof_outputs_want_events (GPtrArray * outputs)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->events)
      return TRUE;
  }
  return FALSE;
}

/* on the trace writer thread: outputs is not changed while it runs */
void
gpuprof_outputs_events (GPtrArray * outputs, const GpuprofEvent * events,
    guint n)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->events)
      o->klass->events (o->state, events, n);
  }
}

/* each output's line for the end of the report */
void
gpuprof_outputs_describe (GPtrArray * outputs, GString * report)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    gchar *line = o->klass->describe ? o->klass->describe (o->state) : NULL;

    if (line)
      g_string_append_printf (report, "%s\n", line);
    g_free (line);
  }
}

void
gpuprof_outputs_run_end (GPtrArray * outputs, const GpuprofRunEnd * end)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->run_end)
      o->klass->run_end (o->state, end);
  }
}

void
gpuprof_outputs_interval (GPtrArray * outputs, const GpuprofInterval * iv)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->interval)
      o->klass->interval (o->state, iv);
  }
}

gboolean
gpuprof_outputs_want_checkpoints (GPtrArray * outputs)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->checkpoint)
      return TRUE;
  }
  return FALSE;
}

void
gpuprof_outputs_checkpoint (GPtrArray * outputs,
    const GpuprofSnapshot * snapshot)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->checkpoint)
      o->klass->checkpoint (o->state, snapshot);
  }
}

void
gpuprof_outputs_close (GPtrArray * outputs)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->close)
      o->klass->close (o->state);
  }
}

void
gpuprof_outputs_free (GPtrArray * outputs)
{
  if (outputs)
    g_ptr_array_unref (outputs);
}

/* --- one file per expanded path ------------------------------------------ */

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
