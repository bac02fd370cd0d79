/* gpuprof output "summary": stats=<path> writes the run as JSON, and one
 * CSV file per table beside it (gpuprof_summary_save(),
 * docs/summary-schema.md). Each run end rewrites the files. */
#include "gpuprof-output.h"
#include "gpuprof-summary.h"

typedef struct
{
  gchar *path;
} SummaryOutput;

static gboolean
summary_enabled (const GpuprofParams * params)
{
  return params->stats_path != NULL;
}

static gpointer
summary_open (const GpuprofParams * params, const GpuprofOutputContext * ctx)
{
  SummaryOutput *s = g_new0 (SummaryOutput, 1);

  /* created at the first run end: a path that cannot be written is said
   * then, with the reason */
  s->path = g_strdup (params->stats_path);
  return s;
}

static void
summary_run_end (gpointer state, const GpuprofRunEnd * end)
{
  SummaryOutput *s = state;
  GError *err = NULL;

  if (!gpuprof_summary_save (end->snapshot, s->path, &err)) {
    g_printerr ("gpuprof: %s\n", err ? err->message : "cannot save stats");
    g_clear_error (&err);
  }
}

static void
summary_free (gpointer state)
{
  SummaryOutput *s = state;

  g_free (s->path);
  g_free (s);
}

const GpuprofOutputClass gpuprof_output_summary = {
  .name = "summary",
  .enabled = summary_enabled,
  .open = summary_open,
  .run_end = summary_run_end,
  .free = summary_free,
};
