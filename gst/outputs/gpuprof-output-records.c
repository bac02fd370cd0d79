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

/* From GStreamer 1.29.2 (towards 1.30) a record reaches the debug log
 * only through the log tracer ("tracer: Reimplement GstTracerRecord on
 * top of GstTraceFormat and deprecate it"): asked for (GST_TRACER at
 * level 7) without it, the records would vanish. Later main (2026-07,
 * "tracer: auto-enable the log tracer when the GST_TRACER category is
 * active") starts it by itself, where the log tracer plugin is installed;
 * when none is active, this says so once, at run time, whatever headers
 * the tracer was built with. */
static void
warn_records_need_log (void)
{
  static gsize once = 0;
  GstDebugCategory *cat = NULL;
  guint major, minor, micro, nano;
  GList *tracers, *l;
  gboolean log = FALSE;

  if (!g_once_init_enter (&once))
    return;
  GST_DEBUG_CATEGORY_GET (cat, "GST_TRACER");
  gst_version (&major, &minor, &micro, &nano);
  if ((major == 1 && (minor > 29 || (minor == 29 && micro >= 2)))
      && cat && gst_debug_category_get_threshold (cat) >= GST_LEVEL_TRACE) {
    tracers = gst_tracing_get_active_tracers ();
    for (l = tracers; l; l = l->next)
      log = log || !g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstLogTracer");
    g_list_free_full (tracers, gst_object_unref);
    if (!log)
      g_printerr ("gpuprof: GStreamer %u.%u.%u writes tracer records "
          "(GST_DEBUG=GST_TRACER:7) only with the log tracer on: "
          "GST_TRACERS='gpuprof;log'\n", major, minor, micro);
  }
  g_once_init_leave (&once, 1);
}

static void
records_run_end (gpointer state, const GpuprofRunEnd * end)
{
  warn_records_need_log ();
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
