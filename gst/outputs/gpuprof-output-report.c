/* gpuprof output "report": the console report of each run, to stdout,
 * stderr or report=<path> (the first run truncates the file, later runs
 * append; placeholders: one file per pipeline with %n; the rules of
 * gpuprof-outfile.h). The text is formatted by the session
 * (gpuprof_report_format() plus the live notes), since "get-last-report"
 * returns it even with report=off. */
#include "gpuprof-output.h"
#include "gpuprof-live.h"
#include "gpuprof-outfile.h"

#include <stdio.h>
#include <string.h>

/* one expanded report= path */
typedef struct
{
  gboolean opened;              /* first report truncates, later ones append */
  gboolean failing;             /* the last write failed: said */
} ReportFile;

typedef struct
{
  GpuprofReportDest dest;
  GpuprofOutputPaths *paths;    /* of ReportFile; report=<path> */
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
  if (r->dest == GPUPROF_REPORT_FILE)
    r->paths = gpuprof_output_paths_new ("report", params->report_path,
        sizeof (ReportFile), NULL);
  return r;
}

static void
write_file (ReportOutput * r, const gchar * pipeline, const gchar * text)
{
  const gchar *path;
  ReportFile *rf = gpuprof_output_paths_get (r->paths, pipeline, FALSE,
      &path);
  GpuprofOutfile *f = gpuprof_outfile_open ("report file", path,
      rf->opened ? GPUPROF_OUTFILE_APPEND : GPUPROF_OUTFILE_TRUNCATE);
  gboolean ok;

  rf->opened = TRUE;
  ok = f && gpuprof_outfile_write (f, text, strlen (text));
  ok &= gpuprof_outfile_close (f);
  /* the report is not lost: it goes to stderr, said once while the file
   * fails */
  if (!ok && !rf->failing)
    g_printerr ("gpuprof: the reports of %s go to stderr while '%s' "
        "fails\n", pipeline ? pipeline : "the run", path);
  if (!ok)
    fputs (text, stderr);
  rf->failing = !ok;
}

static void
report_write (ReportOutput * r, const gchar * pipeline, const gchar * text)
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
      write_file (r, pipeline, text);
      break;
  }
}

static void
report_run_end (gpointer state, const GpuprofRunEnd * end)
{
  report_write (state, end->snapshot->pipeline, end->report);
}

/* interval=: a line per interval; the run's end has its full report */
static void
report_interval (gpointer state, const GpuprofInterval * iv)
{
  gchar *text;

  if (iv->final)
    return;
  text = gpuprof_live_report (iv);
  report_write (state, iv->snapshot->pipeline, text);
  g_free (text);
}

static void
report_free (gpointer state)
{
  ReportOutput *r = state;

  gpuprof_output_paths_free (r->paths);
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
