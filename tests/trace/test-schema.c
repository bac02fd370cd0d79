/* The one schema (gst/snapshot/gpuprof-schema.h): every column of every table,
 * filled with a value of its own, comes back unchanged from the JSON
 * summary (write -> load), heads its CSV column, is a field of the same
 * name and type in the action-signal structure and the tracer record, and
 * is documented in docs/summary-schema.md. Iterates the schema, so a new
 * column is checked without touching this test. DOCS_DIR names docs/. */
#include <gst/gst.h>
#include <string.h>

#include "gpuprof-summary-reader.h"
#include "gpuprof-summary.h"

/* a value no other column of the snapshot has */
static void
fill_field (const GpuprofSummaryField * f, gpointer row, guint serial)
{
  gpointer m = (guint8 *) row + f->offset;

  switch (f->type) {
    case GPUPROF_FIELD_STRING:
      g_free (*(gchar **) m);
      /* quotes, commas, non-ASCII: the writers must escape them */
      *(gchar **) m = g_strdup_printf ("%s \"%u\", é", f->name, serial);
      break;
    case GPUPROF_FIELD_U64:
      *(guint64 *) m = G_GUINT64_CONSTANT (1000000000000) + serial * 7919;
      break;
    case GPUPROF_FIELD_DOUBLE:
      *(gdouble *) m = serial / 3.0;
      break;
    case GPUPROF_FIELD_BOOLEAN:
      *(gboolean *) m = TRUE;   /* zero is the default: TRUE must travel */
      break;
  }
}

static GpuprofSnapshot *
full_snapshot (void)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("p");
  guint id, i, j, serial = 1;

  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    const GpuprofSummaryTable *t = gpuprof_summary_table (id);
    guint n = t->single ? 1 : 2;

    for (i = 0; i < n; i++) {
      gpointer row = gpuprof_summary_add_row (snap, id);

      for (j = 0; j < t->n_fields; j++)
        fill_field (&t->fields[j], row, serial++);
    }
  }
  return snap;
}

static gboolean
field_equal (const GpuprofSummaryField * f, gconstpointer a, gconstpointer b)
{
  const guint8 *pa = (const guint8 *) a + f->offset;
  const guint8 *pb = (const guint8 *) b + f->offset;

  switch (f->type) {
    case GPUPROF_FIELD_STRING:
      return g_strcmp0 (*(gchar * const *) pa, *(gchar * const *) pb) == 0;
    case GPUPROF_FIELD_U64:
      return *(const guint64 *) pa == *(const guint64 *) pb;
    case GPUPROF_FIELD_DOUBLE:
      return *(const gdouble *) pa == *(const gdouble *) pb;
    case GPUPROF_FIELD_BOOLEAN:
      return !*(const gboolean *) pa == !*(const gboolean *) pb;
  }
  return FALSE;
}

static void
test_every_column_round_trips (void)
{
  GpuprofSnapshot *orig = full_snapshot (), *back;
  gchar *json = gpuprof_summary_to_json (orig);
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;
  guint id, i, j, checked = 0;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &err));
  back = gpuprof_summary_from_json (json_parser_get_root (parser), "t", &err);
  g_assert_no_error (err);
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    const GpuprofSummaryTable *t = gpuprof_summary_table (id);

    g_assert_cmpuint (gpuprof_summary_n_rows (back, id), ==,
        gpuprof_summary_n_rows (orig, id));
    for (i = 0; i < gpuprof_summary_n_rows (orig, id); i++) {
      for (j = 0; j < t->n_fields; j++) {
        if (!field_equal (&t->fields[j], gpuprof_summary_row (orig, id, i),
                gpuprof_summary_row (back, id, i)))
          g_error ("%s[%u].%s did not round-trip", t->name, i,
              t->fields[j].name);
        checked++;
      }
    }
  }
  g_test_message ("%u values checked", checked);
  g_assert_cmpuint (checked, >, 100);
  g_object_unref (parser);
  g_free (json);
  gpuprof_snapshot_free (back);
  gpuprof_snapshot_free (orig);
}

static void
test_csv_and_structures (void)
{
  GpuprofSnapshot *snap = full_snapshot ();
  guint id, j;

  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    const GpuprofSummaryTable *t = gpuprof_summary_table (id);
    gconstpointer row = gpuprof_summary_row (snap, id, 0);
    gchar *csv = gpuprof_summary_table_to_csv (snap, id);
    gchar **header = g_strsplit (csv, "\r\n", 2);
    gchar **cols = g_strsplit (header[0], ",", -1);
    GstStructure *s = gpuprof_summary_row_to_structure (id, row);
    gchar *name = g_strdup_printf ("gpuprof-%s", t->record);

    g_assert_cmpuint (g_strv_length (cols), ==, t->n_fields);
    g_assert_cmpstr (gst_structure_get_name (s), ==, name);
    g_assert_cmpuint (gst_structure_n_fields (s), ==, t->n_fields);
    for (j = 0; j < t->n_fields; j++) {
      const GpuprofSummaryField *f = &t->fields[j];
      const gchar *mem = (const gchar *) row + f->offset;
      guint64 u;
      gdouble d;
      gboolean b;

      g_assert_cmpstr (cols[j], ==, f->name);
      /* one key style: the JSON's snake_case */
      g_assert_null (strchr (f->name, '-'));
      switch (f->type) {
        case GPUPROF_FIELD_STRING:
          g_assert_cmpstr (gst_structure_get_string (s, f->name), ==,
              *(gchar * const *) mem);
          break;
        case GPUPROF_FIELD_U64:
          g_assert_true (gst_structure_get_uint64 (s, f->name, &u));
          g_assert_cmpuint (u, ==, *(const guint64 *) mem);
          break;
        case GPUPROF_FIELD_DOUBLE:
          g_assert_true (gst_structure_get_double (s, f->name, &d));
          g_assert_true (d == *(const gdouble *) mem);
          break;
        case GPUPROF_FIELD_BOOLEAN:
          g_assert_true (gst_structure_get_boolean (s, f->name, &b));
          g_assert_true (b);
          break;
      }
    }
    g_free (name);
    gst_structure_free (s);
    g_strfreev (cols);
    g_strfreev (header);
    g_free (csv);
  }
  gpuprof_snapshot_free (snap);
}

/* every table and column has its line in docs/summary-schema.md */
static void
test_documented (void)
{
  gchar *path = g_build_filename (g_getenv ("DOCS_DIR"), "summary-schema.md",
      NULL);
  gchar *doc;
  guint id, j;

  g_assert_true (g_file_get_contents (path, &doc, NULL, NULL));
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    const GpuprofSummaryTable *t = gpuprof_summary_table (id);
    gchar *heading = g_strdup_printf ("\n## %s%s\n", t->name,
        t->single ? "" : "[]");

    if (!strstr (doc, heading))
      g_error ("docs/summary-schema.md: no section \"%s\"", heading + 1);
    g_free (heading);
    for (j = 0; j < t->n_fields; j++) {
      gchar *key = g_strdup_printf ("`%s`", t->fields[j].name);

      /* gap2_ns..gap4_ns are documented as a range */
      if (!strstr (doc, key) && !g_str_has_prefix (t->fields[j].name, "gap"))
        g_error ("docs/summary-schema.md: column %s.%s not documented",
            t->name, t->fields[j].name);
      g_free (key);
    }
  }
  g_free (doc);
  g_free (path);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/schema/round-trip", test_every_column_round_trips);
  g_test_add_func ("/schema/csv-and-structures", test_csv_and_structures);
  g_test_add_func ("/schema/documented", test_documented);
  return g_test_run ();
}
