/* gpuprof output "report": the console report of each run, to stdout,
 * stderr or report=<path> (the first run truncates the file, later runs
 * append). The text is formatted by the session (gpuprof_report_format()
 * plus the live notes), since "get-last-report" returns it even with
 * report=off. */
#include "gpuprof-output.h"

#include <errno.h>
#include <stdio.h>

typedef struct
{
  GpuprofReportDest dest;
  gchar *path;
  gboolean file_opened;         /* first report truncates, later ones append */
} ReportOutput;

static gboolean
report_enabled (const GpuprofParams * params)
{
  return params->report != GPUPROF_REPORT_OFF;
}

static gpointer
report_open (const GpuprofParams * params, const GpuprofOutputContext * ctx)
{
  ReportOutput *r = g_new0 (ReportOutput, 1);

  r->dest = params->report;
  r->path = g_strdup (params->report_path);
  return r;
}

static void
write_file (ReportOutput * r, const gchar * text)
{
  FILE *f = fopen (r->path, r->file_opened ? "a" : "w");

  if (!f) {
    /* the report is not lost: it goes to stderr with the reason */
    g_printerr ("gpuprof: cannot write the report to '%s': %s\n", r->path,
        g_strerror (errno));
    fputs (text, stderr);
    return;
  }
  r->file_opened = TRUE;
  fputs (text, f);
  fclose (f);
}

static void
report_run_end (gpointer state, const GpuprofRunEnd * end)
{
  ReportOutput *r = state;

  switch (r->dest) {
    case GPUPROF_REPORT_OFF:
      break;
    case GPUPROF_REPORT_STDOUT:
      fputs (end->report, stdout);
      fflush (stdout);
      break;
    case GPUPROF_REPORT_STDERR:
      fputs (end->report, stderr);
      break;
    case GPUPROF_REPORT_FILE:
      write_file (r, end->report);
      break;
  }
}

static void
report_free (gpointer state)
{
  ReportOutput *r = state;

  g_free (r->path);
  g_free (r);
}

const GpuprofOutputClass gpuprof_output_report = {
  .name = "report",
  .enabled = report_enabled,
  .open = report_open,
  .run_end = report_run_end,
  .free = report_free,
};
