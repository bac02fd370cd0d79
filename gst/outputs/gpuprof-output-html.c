/* gpuprof output "html": html=<path> writes the HTML report of the run
 * (gpuprof-html.c, docs/html.md) at each run end, replacing the file
 * atomically, as stats= does with the summary. With interval= on it keeps
 * the run's interval snapshots (their "interval" figures, as in the live
 * JSON Lines) and the page plots them over time; the final snapshot, which
 * comes after run_end, writes the page once more with its point. */
#include "gpuprof-output.h"
#include "gpuprof-html.h"
#include "gpuprof-live.h"


typedef struct
{
  gchar *path;
  GHashTable *points;           /* pipeline -> GPtrArray of point JSON */
} HtmlOutput;

static gboolean
html_enabled (const GpuprofParams * params)
{
  return params->html_path != NULL;
}

static gpointer
html_open (const GpuprofParams * params, const GpuprofOutputContext * ctx)
{
  HtmlOutput *h = g_new0 (HtmlOutput, 1);

  /* written at the first run end: a path that cannot be written is said
   * then, with the reason */
  h->path = g_strdup (params->html_path);
  h->points = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_ptr_array_unref);
  return h;
}

static const gchar *
pipeline_of (const GpuprofSnapshot * snap)
{
  return snap->pipeline ? snap->pipeline : "";
}

static void
write_page (HtmlOutput * h, const GpuprofSnapshot * snap)
{
  GPtrArray *points = g_hash_table_lookup (h->points, pipeline_of (snap));
  gchar *series = points ? gpuprof_html_series_json ("interval", points) :
      NULL;
  gchar *page = gpuprof_html_format_with_series (snap, series);
  GError *err = NULL;

  if (!g_file_set_contents (h->path, page, -1, &err)) {
    g_printerr ("gpuprof: html=%s: %s\n", h->path, err->message);
    g_clear_error (&err);
  }
  g_free (page);
  g_free (series);
}

static void
html_run_end (gpointer state, const GpuprofRunEnd * end)
{
  write_page (state, end->snapshot);
}

static void
html_interval (gpointer state, const GpuprofInterval * iv)
{
  HtmlOutput *h = state;
  const gchar *pipeline = pipeline_of (iv->snapshot);
  GPtrArray *points = g_hash_table_lookup (h->points, pipeline);

  if (points == NULL) {
    points = g_ptr_array_new_with_free_func (g_free);
    g_hash_table_insert (h->points, g_strdup (pipeline), points);
  }
  gpuprof_html_points_add (points, gpuprof_live_json_point (iv));
  if (iv->final) {
    write_page (h, iv->snapshot);
    /* the next run of the pipeline starts from zero */
    g_hash_table_remove (h->points, pipeline);
  }
}

static void
html_free (gpointer state)
{
  HtmlOutput *h = state;

  g_hash_table_unref (h->points);
  g_free (h->path);
  g_free (h);
}

const GpuprofOutputClass gpuprof_output_html = {
  .name = "html",
  .enabled = html_enabled,
  .open = html_open,
  .run_end = html_run_end,
  .free = html_free,
  .interval = html_interval,
};
