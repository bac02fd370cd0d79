/* gpuprof output "report": the console report of each run, to stdout,
 * stderr or report=<path> (the first run truncates the file, later runs
 * append). The text is formatted by the session (gpuprof_report_format()
 * plus the live notes), since "get-last-report" returns it even with
 * report=off. */
#include "gpuprof-output.h"
#include "gpuprof-live.h"

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
report_write (ReportOutput * r, const gchar * text)
{
  switch (r->dest) {
    case GPUPROF_REPORT_OFF:
      break;
    case GPUPROF_REPORT_STDOUT:
      fputs (text, stdout);
      fflush (stdout);
      break;
    case GPUPROF_REPORT_STDERR:
      fputs (text, stderr);
      break;
    case GPUPROF_REPORT_FILE:
      write_file (r, text);
      break;
  }
}

static void
report_run_end (gpointer state, const GpuprofRunEnd * end)
{
  report_write (state, end->report);
}

/* interval=: a line per interval; the run's end has its full report */
static void
report_interval (gpointer state, const GpuprofInterval * iv)
{
  gchar *text;

  if (iv->final)
    return;
  text = gpuprof_live_report (iv);
  report_write (state, text);
  g_free (text);
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
  .interval = report_interval,
};
