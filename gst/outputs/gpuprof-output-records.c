/* gpuprof output "records": the run as GstTracerRecord lines
 * (GST_DEBUG=GST_TRACER:7), from gpuprof_summary_log_records(). Always on:
 * a record nobody logs costs a level check. */
#include "gpuprof-output.h"
#include "gpuprof-summary.h"
#include "gpuprof-live.h"

extern const GpuprofOutputClass gpuprof_output_records;

static gboolean
records_enabled (const GpuprofParams * params)
{
  return TRUE;
}

static gpointer
records_open (const GpuprofParams * params, const GpuprofOutputContext * ctx)
{
  /* no state: any non-NULL pointer says "open" */
  return (gpointer) & gpuprof_output_records;
}

static void
records_run_end (gpointer state, const GpuprofRunEnd * end)
{
  gpuprof_summary_log_records (end->snapshot);
}

/* interval=: a record per interval row */
static void
records_interval (gpointer state, const GpuprofInterval * iv)
{
  gpuprof_live_log_records (iv);
}

const GpuprofOutputClass gpuprof_output_records = {
  .name = "records",
  .enabled = records_enabled,
  .open = records_open,
  .run_end = records_run_end,
  .interval = records_interval,
};
