/* gpuprof output "html": html=<path> writes the HTML report of the run
 * (gpuprof-html.c, docs/html.md) at each run end and each checkpoint,
 * replacing the file atomically (gpuprof-outfile.h), as stats= does with
 * the summary; the path takes placeholders. With interval= on it keeps
 * the run's interval snapshots (their "interval" figures, as in the live
 * JSON Lines) and the page plots them over time; the final snapshot, which
 * comes right after run_end, writes the page with its point (run_end
 * leaves it to it). */
#include "gpuprof-output.h"
#include "gpuprof-html.h"
#include "gpuprof-live.h"
#include "gpuprof-outfile.h"

#include <string.h>

typedef struct
{
  GpuprofOutputPaths *paths;    /* no state of their own: for the names */
  GHashTable *points;           /* pipeline -> GPtrArray of point JSON */
  gboolean live;                /* interval=: the final snapshot writes */
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
  h->paths = gpuprof_output_paths_new ("html", params->html_path, 1, NULL);
  h->live = params->interval > 0.0;
  h->points = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_ptr_array_unref);
  return h;
}

static const gchar *
pipeline_of (const GpuprofSnapshot * snap)
{
  return snap->pipeline ? snap->pipeline : "";
}

/* a checkpoint is not written into a stream (a FIFO gets each run's page
 * once, at its end) */
static void
write_page (HtmlOutput * h, const GpuprofSnapshot * snap, gboolean checkpoint)
{
  GPtrArray *points = g_hash_table_lookup (h->points, pipeline_of (snap));
  const gchar *path;
  gchar *series, *page;

  gpuprof_output_paths_get (h->paths, snap->pipeline, TRUE, &path);
  if (checkpoint && gpuprof_outfile_kind (path) == GPUPROF_OUTFILE_STREAM)
    return;
  series = points ? gpuprof_html_series_json ("interval", points) : NULL;
  page = gpuprof_html_format_with_series (snap, series);
  gpuprof_outfile_replace ("html file", path, page, strlen (page));
  g_free (page);
  g_free (series);
}

/* with interval= the final snapshot, right after, writes the page with its
 * last point: once per run, also into a stream */
static void
html_run_end (gpointer state, const GpuprofRunEnd * end)
{
  HtmlOutput *h = state;

  if (!h->live)
    write_page (h, end->snapshot, FALSE);
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
    write_page (h, iv->snapshot, FALSE);
    /* the next run of the pipeline starts from zero */
    g_hash_table_remove (h->points, pipeline);
  }
}

/* the run so far; the points of interval= stay for the run's end */
static void
html_checkpoint (gpointer state, const GpuprofSnapshot * snap)
{
  write_page (state, snap, TRUE);
}

static void
html_free (gpointer state)
{
  HtmlOutput *h = state;

  g_hash_table_unref (h->points);
  gpuprof_output_paths_free (h->paths);
  g_free (h);
}

const GpuprofOutputClass gpuprof_output_html = {
  .name = "html",
  .enabled = html_enabled,
  .open = html_open,
  .run_end = html_run_end,
  .free = html_free,
  .interval = html_interval,
  .checkpoint = html_checkpoint,
};
