/* gpuprof: read a saved summary (or a trace, through the trace reader)
 * back into snapshots: the reader beside the summary writer.
 *
 * A summary is one JSON object (docs/summary-schema.md), read with
 * json-glib. A trace (docs/trace.md) is read by the trace reader beside its
 * writer (gst/outputs/gpuprof-trace-reader.c), which hands each embedded summary
 * back to gpuprof_summary_from_json().
 */
#include "gpuprof-summary-reader.h"
#include "gpuprof-summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- summary JSON -> snapshot ------------------------------------------- */

/* json_object_get_object_member() complains about absent members */
static JsonObject *
object_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) :
      NULL;
}

static gboolean
read_field (JsonObject * obj, const GpuprofSummaryField * f, gpointer row,
    const gchar * where, GError ** err)
{
  gpointer member = (guint8 *) row + f->offset;
  JsonNode *node = json_object_get_member (obj, f->name);
  GType vt;

  /* absent: a reader newer than the writer; keep the zero default */
  if (node == NULL)
    return TRUE;
  vt = json_node_get_value_type (node);
  switch (f->type) {
    case GPUPROF_FIELD_STRING:
      if (JSON_NODE_HOLDS_NULL (node)) {
        g_clear_pointer ((gchar **) member, g_free);
        return TRUE;
      }
      if (vt != G_TYPE_STRING)
        break;
      g_free (*(gchar **) member);
      *(gchar **) member = json_node_dup_string (node);
      return TRUE;
    case GPUPROF_FIELD_U64:
      if (vt != G_TYPE_INT64 || json_node_get_int (node) < 0)
        break;
      *(guint64 *) member = json_node_get_int (node);
      return TRUE;
    case GPUPROF_FIELD_DOUBLE:
      if (vt != G_TYPE_INT64 && vt != G_TYPE_DOUBLE)
        break;
      *(gdouble *) member = json_node_get_double (node);
      return TRUE;
    case GPUPROF_FIELD_BOOLEAN:
      if (vt != G_TYPE_BOOLEAN)
        break;
      *(gboolean *) member = json_node_get_boolean (node);
      return TRUE;
  }
  g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
      "%s.%s: expected %s", where, f->name,
      f->type == GPUPROF_FIELD_STRING ? "a string" :
      f->type == GPUPROF_FIELD_U64 ? "an unsigned integer" :
      f->type == GPUPROF_FIELD_DOUBLE ? "a number" : "true or false");
  return FALSE;
}

static gboolean
read_row (JsonNode * rn, const GpuprofSummaryTable * t, gpointer row,
    const gchar * row_where, GError ** err)
{
  guint j;

  if (!JSON_NODE_HOLDS_OBJECT (rn)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: not an object", row_where);
    return FALSE;
  }
  for (j = 0; j < t->n_fields; j++)
    if (!read_field (json_node_get_object (rn), &t->fields[j], row,
            row_where, err))
      return FALSE;
  return TRUE;
}

/* every table as gpuprof-schema.h describes it: an array of row objects,
 * or for a one-row table an object (null: no row) */
static gboolean
read_table (JsonObject * root, GpuprofSnapshot * snap,
    GpuprofSummaryTableId id, const gchar * where, GError ** err)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  JsonNode *node = json_object_get_member (root, t->name);
  JsonArray *arr;
  gboolean ok = TRUE;
  guint i;

  if (node == NULL || (t->single && JSON_NODE_HOLDS_NULL (node)))
    return TRUE;
  if (t->single) {
    gchar *row_where = g_strdup_printf ("%s: %s", where, t->name);

    /* a half-read row is freed with the snapshot */
    ok = read_row (node, t, gpuprof_summary_add_row (snap, id), row_where,
        err);
    g_free (row_where);
    return ok;
  }
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: \"%s\" is not an array", where, t->name);
    return FALSE;
  }
  arr = json_node_get_array (node);
  for (i = 0; ok && i < json_array_get_length (arr); i++) {
    gchar *row_where = g_strdup_printf ("%s: %s[%u]", where, t->name, i);

    ok = read_row (json_array_get_element (arr, i), t,
        gpuprof_summary_add_row (snap, id), row_where, err);
    g_free (row_where);
  }
  return ok;
}

/* versions 1 and 2: the run's figures at the top and in "verdict" */
static void
read_run_v2 (JsonObject * obj, GpuprofSnapshot * snap)
{
  JsonObject *verdict = object_member (obj, "verdict");

  g_free (snap->pipeline);
  snap->pipeline = g_strdup (json_object_get_string_member_with_default (obj,
          "pipeline", ""));
  snap->wall_ns = json_object_get_int_member_with_default (obj, "wall_ns", 0);
  if (verdict == NULL)
    return;
  snap->bottleneck = g_strdup (json_object_get_string_member_with_default
      (verdict, "bottleneck", NULL));
  snap->bottleneck_thread =
      g_strdup (json_object_get_string_member_with_default (verdict, "thread",
          NULL));
  snap->bottleneck_busy =
      json_object_get_double_member_with_default (verdict, "busy", 0);
  snap->bottleneck_ns_per_buffer =
      json_object_get_int_member_with_default (verdict, "ns_per_buffer", 0);
}

/**
 * gpuprof_summary_from_json:
 * @root: a parsed summary (docs/summary-schema.md)
 * @where: file name (and line) for error messages
 * @err: where to put what is wrong
 *
 * Returns: (transfer full) (nullable): the snapshot, %NULL on error
 */
GpuprofSnapshot *
gpuprof_summary_from_json (JsonNode * root, const gchar * where,
    GError ** err)
{
  GpuprofSnapshot *snap;
  JsonObject *obj;
  guint id;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)
      || g_strcmp0 (json_object_get_string_member_with_default
          (json_node_get_object (root), "schema", ""),
          GPUPROF_SUMMARY_SCHEMA) != 0) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: not a gpuprof summary (no \"schema\": \"%s\")", where,
        GPUPROF_SUMMARY_SCHEMA);
    return NULL;
  }
  obj = json_node_get_object (root);
  if (json_object_get_int_member_with_default (obj, "version", 0) >
      GPUPROF_SUMMARY_VERSION) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: summary version %" G_GINT64_FORMAT " is newer than this "
        "gst-gpuprof reads (%d)", where,
        json_object_get_int_member_with_default (obj, "version", 0),
        GPUPROF_SUMMARY_VERSION);
    return NULL;
  }

  snap = gpuprof_snapshot_new (NULL);
  if (!json_object_has_member (obj,
          gpuprof_summary_table (GPUPROF_SUMMARY_RUN)->name))
    read_run_v2 (obj, snap);
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    if (!read_table (obj, snap, id, where, err)) {
      gpuprof_snapshot_free (snap);
      return NULL;
    }
  }
  return snap;
}

/* --- file -> run --------------------------------------------------------- */

static GpuprofRun *
run_new (void)
{
  GpuprofRun *run = g_new0 (GpuprofRun, 1);

  run->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_snapshot_free);
  return run;
}

/**
 * gpuprof_run_free:
 * @run: (transfer full) (nullable): a run
 */
void
gpuprof_run_free (GpuprofRun * run)
{
  if (run == NULL)
    return;
  gpuprof_trace_contents_clear (run);
  g_free (run);
}

static GpuprofRun *
load_summary (const gchar * path, GError ** err)
{
  JsonParser *parser = json_parser_new ();
  GpuprofSnapshot *snap = NULL;
  GError *e = NULL;
  GpuprofRun *run = NULL;

  /* json-glib names the file, line and column of a syntax error */
  if (!json_parser_load_from_file (parser, path, &e)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s", e->message);
    g_error_free (e);
  } else {
    snap = gpuprof_summary_from_json (json_parser_get_root (parser), path,
        err);
  }
  if (snap) {
    run = run_new ();
    g_ptr_array_add (run->snapshots, snap);
  }
  g_object_unref (parser);
  return run;
}

static GpuprofRun *
load_trace (FILE * f, const gchar * path, GError ** err)
{
  GpuprofRun *run = g_new0 (GpuprofRun, 1);

  if (!gpuprof_trace_read (f, path, gpuprof_summary_from_json, run, err)) {
    gpuprof_run_free (run);
    return NULL;
  }
  return run;
}

/**
 * gpuprof_run_load:
 * @path: a summary (stats=) or trace (trace=) file
 * @err: what went wrong; the message names @path and, for syntax errors,
 *   the line and column
 *
 * Returns: (transfer full) (nullable): the run, %NULL on error
 */
GpuprofRun *
gpuprof_run_load (const gchar * path, GError ** err)
{
  FILE *f = fopen (path, "r");
  GpuprofRun *run = NULL;
  gint c;

  if (f == NULL) {
    gint errsv = errno;

    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_READ,
        "%s: %s", path, g_strerror (errsv));
    return NULL;
  }
  do
    c = fgetc (f);
  while (c == ' ' || c == '\t' || c == '\r' || c == '\n');

  if (c == '{')
    run = load_summary (path, err);
  else if (c == '[')
    run = load_trace (f, path, err);
  else if (c == EOF && ferror (f))
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_READ,
        "%s: %s", path, g_strerror (errno));
  else if (c == EOF)
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:1:1: empty file", path);
  else
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:1:1: not a gpuprof summary or trace (expected '{' or '[')",
        path);
  fclose (f);
  return run;
}
