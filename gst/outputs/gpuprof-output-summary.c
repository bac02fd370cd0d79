/* gpuprof output "summary": stats=<path> writes the run as JSON, and one
 * CSV file per table beside it (gpuprof_summary_save(),
 * docs/summary-schema.md). Each run end rewrites the files. */
#include "gpuprof-output.h"
#include "gpuprof-summary.h"
#include "gpuprof-live.h"

#include <errno.h>
#include <stdio.h>

typedef struct
{
  gchar *path;
  /* interval=: <stats>-live.jsonl and a CSV file per live table, kept open
   * and flushed per interval so a reader sees each line as it comes */
  FILE *jsonl, *csv[GPUPROF_LIVE_N_TABLES];
  gboolean live_failed;         /* said once */
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

/* takes path */
static FILE *
open_live (SummaryOutput * s, gchar * path)
{
  FILE *f = fopen (path, "w");

  if (!f && !s->live_failed) {
    s->live_failed = TRUE;
    GST_ERROR ("cannot write '%s': %s", path, g_strerror (errno));
    g_printerr ("gpuprof: cannot write the live snapshots to '%s': %s\n",
        path, g_strerror (errno));
  }
  g_free (path);
  return f;
}

static void
summary_interval (gpointer state, const GpuprofInterval * iv)
{
  SummaryOutput *s = state;
  gchar *line;
  guint id;

  if (s->live_failed)
    return;
  if (!s->jsonl && !(s->jsonl = open_live (s, gpuprof_live_path (s->path,
                  "jsonl"))))
    return;
  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++) {
    if (!s->csv[id]) {
      if (!(s->csv[id] = open_live (s, gpuprof_live_csv_path (s->path, id))))
        return;
      line = gpuprof_live_csv_header (id);
      fputs (line, s->csv[id]);
      g_free (line);
    }
  }
  line = gpuprof_live_json_line (iv);
  fputs (line, s->jsonl);
  fflush (s->jsonl);
  g_free (line);
  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++) {
    GString *rows = g_string_new (NULL);

    gpuprof_live_append_csv (rows, iv, id);
    fputs (rows->str, s->csv[id]);
    fflush (s->csv[id]);
    g_string_free (rows, TRUE);
  }
}

static void
summary_close (gpointer state)
{
  SummaryOutput *s = state;

  g_clear_pointer (&s->jsonl, fclose);
  guint id;

  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++)
    g_clear_pointer (&s->csv[id], fclose);
}

static void
summary_free (gpointer state)
{
  SummaryOutput *s = state;

  summary_close (s);
  g_free (s->path);
  g_free (s);
}

const GpuprofOutputClass gpuprof_output_summary = {
  .name = "summary",
  .enabled = summary_enabled,
  .open = summary_open,
  .run_end = summary_run_end,
  .close = summary_close,
  .free = summary_free,
  .interval = summary_interval,
};
