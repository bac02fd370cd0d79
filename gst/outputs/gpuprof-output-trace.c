/* gpuprof output "trace": trace=<path> writes the run's timeline as a
 * Chrome trace (gpuprof-trace.h, docs/trace.md), a sink of the session's
 * event bus (gpuprof-bus.h) that the hooks push into; at each run end
 * the run summary is embedded, so `gst-gpuprof report` prints the report
 * from the trace alone. */
#include "gpuprof-output.h"
#include "gpuprof-outfile.h"
#include "gpuprof-gputrace.h"
#include "gpuprof-summary.h"

static gboolean
trace_enabled (const GpuprofParams * params)
{
  return params->trace_path != NULL;
}

static gpointer
trace_open (const GpuprofParams * params, const GpuprofOutputContext * ctx)
{
  GpuprofTrace *trace;
  GRegex *filter = NULL;
  GError *err = NULL;
  /* one file for every pipeline of the process: %n is the program's name */
  gchar *path = gpuprof_outfile_expand (params->trace_path, NULL);

  if (params->trace_elements)
    filter = g_regex_new (params->trace_elements, 0, 0, NULL);
  /* an error was printed once by the writer; the run goes on without */
  trace = gpuprof_trace_new (ctx->bus, path, ctx->names,
      (guint64) params->trace_max_mb << 20, filter, &err);
  g_clear_error (&err);
  g_free (path);
  if (filter)
    g_regex_unref (filter);
  return trace;
}

static gchar *
trace_describe (gpointer state)
{
  return gpuprof_trace_describe (state);
}

static void
trace_run_end (gpointer state, const GpuprofRunEnd * end)
{
  gchar *json = gpuprof_summary_to_json (end->snapshot);

  gpuprof_trace_add_summary (state, json);
  gpuprof_trace_flush (state);
  g_free (json);
}

static void
trace_close (gpointer state)
{
  GError *err = NULL;

  /* GPU ops settled later would come after the closing bracket */
  gpuprof_gputrace_detach (state);
  if (!gpuprof_trace_close (state, NULL, &err) && err)
    g_printerr ("gpuprof: %s\n", err->message);
  g_clear_error (&err);
}

static void
trace_free (gpointer state)
{
  gpuprof_trace_free (state);
}

const GpuprofOutputClass gpuprof_output_trace = {
  .name = "trace",
  .enabled = trace_enabled,
  .open = trace_open,
  .describe = trace_describe,
  .run_end = trace_run_end,
  .close = trace_close,
  .free = trace_free,
};

/**
 * gpuprof_output_trace_get:
 * @output: (nullable): an open output
 *
 * Returns: (transfer none) (nullable): the trace writer of the trace output,
 *   %NULL for any other output or none
 */
GpuprofTrace *
gpuprof_output_trace_get (GpuprofOutput * output)
{
  if (output == NULL || output->klass != &gpuprof_output_trace)
    return NULL;
  return output->state;
}
