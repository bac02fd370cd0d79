/* gpuprof output "html": html=<path> writes the HTML report of the run
 * (gpuprof-html.c, docs/html.md) at each run end, replacing the file
 * atomically, as stats= does with the summary. */
#include "gpuprof-output.h"
#include "gpuprof-html.h"

typedef struct
{
  gchar *path;
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
  return h;
}

static void
html_run_end (gpointer state, const GpuprofRunEnd * end)
{
  HtmlOutput *h = state;
  gchar *page = gpuprof_html_format (end->snapshot);
  GError *err = NULL;

  if (!g_file_set_contents (h->path, page, -1, &err)) {
    g_printerr ("gpuprof: html=%s: %s\n", h->path, err->message);
    g_clear_error (&err);
  }
  g_free (page);
}

static void
html_free (gpointer state)
{
  HtmlOutput *h = state;

  g_free (h->path);
  g_free (h);
}

const GpuprofOutputClass gpuprof_output_html = {
  .name = "html",
  .enabled = html_enabled,
  .open = html_open,
  .run_end = html_run_end,
  .free = html_free,
};
