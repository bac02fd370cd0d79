/* gpuprof: snapshots as Prometheus text exposition and as get-metrics'
 * structure.
 *
 * Each family is one column of a schema table (gpuprof-schema.h), so a
 * family is a line below, not code. The per-stream families keep the names
 * and labels of DeepStream 9's exporter (nvds_rest_server: gauges
 * fps_metrics / latency_metrics / frame_number_metrics with
 * labels app_name, metric_name, sensor_id, sensor_name, source_id), so its
 * dashboards read ours; the rest are gpuprof_*. */
#include "gpuprof-metrics.h"
#include "gpuprof-summary.h"

#include <string.h>

typedef struct
{
  const gchar *name;
  const gchar *type;            /* "counter", "gauge" or "histogram" */
  GpuprofSummaryTableId table;  /* a histogram's: where its labels come from */
  const gchar *column;          /* NULL: the number of rows; a histogram:
                                 * its name in the histograms table */
  gdouble scale;                /* ns -> s, ns -> ms */
  const gchar *metric_name;     /* DeepStream's families: their label */
  const gchar *help;
  guint max_rows;               /* 0: every row; else the first ones only */
} Family;

#define NS 1e-9
#define EL GPUPROF_SUMMARY_ELEMENTS
#define ST GPUPROF_SUMMARY_STREAMS

/* *INDENT-OFF* */
static const Family families[] = {
  /* DeepStream 9 names (docs/metrics.md#deepstream) */
  {"fps_metrics", "gauge", ST, "fps_recent", 1, "stream_fps",
   "FPS metrics: frames per second of each stream over the last 4 s"},
  {"latency_metrics", "gauge", ST, "latency_p50_ns", 1e-6, "stream_latency_ms",
   "Latency metrics: median source push -> sink of each stream, ms"},
  {"frame_number_metrics", "gauge", ST, "frames", 1, "stream_frame_number",
   "Frame number metrics: frames each source pushed"},
  /* per stream; DeepStream's stream_count fails promtool's naming lint
   * (a gauge ending in _count): gpuprof_streams instead */
  {"gpuprof_streams", "gauge", ST, NULL, 1, NULL,
   "Sources that pushed frames"},
  {"gpuprof_stream_frames_total", "counter", ST, "frames", 1, NULL,
   "Frames the source pushed"},
  {"gpuprof_stream_delivered_total", "counter", ST, "delivered", 1, NULL,
   "Frames of the stream that reached a sink"},
  {"gpuprof_stream_dropped_total", "counter", ST, "drops", 1, NULL,
   "Frames older than the newest delivered one that reached no sink"},
  {"gpuprof_stream_fps", "gauge", ST, "fps", 1, NULL,
   "Frames per second over the stream's active time"},
  {"gpuprof_stream_fps_recent", "gauge", ST, "fps_recent", 1, NULL,
   "Frames per second over the last 4 whole seconds; 0 once it stopped"},
  {"gpuprof_stream_latency_p50_seconds", "gauge", ST, "latency_p50_ns", NS,
   NULL, "Median source push -> sink latency since the run started"},
  {"gpuprof_stream_latency_p99_seconds", "gauge", ST, "latency_p99_ns", NS,
   NULL, "99th percentile source push -> sink latency"},
  /* per element */
  {"gpuprof_element_work_seconds_total", "counter", EL, "self_ns", NS, NULL,
   "Self time: the element's own work"},
  {"gpuprof_element_wait_input_seconds_total", "counter", EL,
   "wait_input_ns", NS, NULL,
   "Its loop off the CPU between pushes, waiting for data"},
  {"gpuprof_element_blocked_seconds_total", "counter", EL, "blocked_ns", NS,
   NULL, "Time upstream threads waited inside its chain calls"},
  {"gpuprof_element_buffers_in_total", "counter", EL, "buffers_in", 1, NULL,
   "Buffers received on its sink pads"},
  {"gpuprof_element_buffers_out_total", "counter", EL, "buffers_out", 1, NULL,
   "Buffers pushed from its src pads"},
  {"gpuprof_element_busy_ratio", "gauge", EL, "busy", 1, NULL,
   "Share of its thread's wall time spent in its own work, 0..1"},
  {"gpuprof_element_gpu_seconds_total", "counter",
   GPUPROF_SUMMARY_GPU_ELEMENTS, "gpu_ns", NS, NULL,
   "GPU time attributed to the element (CUPTI)"},
  /* per queue */
  {"gpuprof_queue_max_level_buffers", "gauge", GPUPROF_SUMMARY_QUEUES,
   "max_level_buffers", 1, NULL, "Most buffers queued at once"},
  {"gpuprof_queue_max_level_bytes", "gauge", GPUPROF_SUMMARY_QUEUES,
   "max_level_bytes", 1, NULL, "Most bytes queued at once"},
  {"gpuprof_queue_residency_p99_seconds", "gauge", GPUPROF_SUMMARY_QUEUES,
   "residency_p99_ns", NS, NULL, "99th percentile time a buffer spent queued"},
  {"gpuprof_queue_backpressure_seconds_total", "counter",
   GPUPROF_SUMMARY_QUEUES, "backpressure_ns", NS, NULL,
   "Time the upstream thread was blocked on the full queue"},
  {"gpuprof_queue_dropped_total", "counter", GPUPROF_SUMMARY_QUEUES, "drops",
   1, NULL, "Buffers dropped by a leaky queue"},
  /* per aggregator */
  {"gpuprof_batches_total", "counter", GPUPROF_SUMMARY_BATCHES, "batches", 1,
   NULL, "Batches pushed"},
  {"gpuprof_batch_frames_total", "counter", GPUPROF_SUMMARY_BATCHES, "frames",
   1, NULL, "Frames taken into batches"},
  {"gpuprof_batch_timeouts_total", "counter", GPUPROF_SUMMARY_BATCHES,
   "timeout", 1, NULL, "Partial batches pushed by timeout"},
  {"gpuprof_batch_fill_ratio", "gauge", GPUPROF_SUMMARY_BATCHES, "fill", 1,
   NULL, "Mean frames per batch / batch-size, 0..1"},
  {"gpuprof_batch_wait_p99_seconds", "gauge", GPUPROF_SUMMARY_BATCHES,
   "wait_p99_ns", NS, NULL, "99th percentile batch formation wait"},
  {"gpuprof_batch_latency_p50_seconds", "gauge", GPUPROF_SUMMARY_BATCHES,
   "latency_p50_ns", NS, NULL, "Median batch push -> sink"},
  {"gpuprof_batch_latency_p99_seconds", "gauge", GPUPROF_SUMMARY_BATCHES,
   "latency_p99_ns", NS, NULL, "99th percentile batch push -> sink"},
  /* elements taken out of running pipelines, per factory: a bounded set
   * of series however many cameras come and go (docs/metrics.md#removed) */
  {"gpuprof_removed_elements_total", "counter", GPUPROF_SUMMARY_REMOVED,
   "elements", 1, NULL, "Elements that left the pipeline while it ran"},
  {"gpuprof_removed_work_seconds_total", "counter", GPUPROF_SUMMARY_REMOVED,
   "self_ns", NS, NULL, "Self time of the elements that left"},
  {"gpuprof_removed_buffers_out_total", "counter", GPUPROF_SUMMARY_REMOVED,
   "buffers_out", 1, NULL, "Buffers the elements that left pushed"},
  {"gpuprof_removed_stream_frames_total", "counter", GPUPROF_SUMMARY_REMOVED,
   "frames", 1, NULL, "Frames the sources that left pushed"},
  /* histograms: in the table of the same name, column: its "name" rows
   * (docs/metrics.md#histograms) */
  {"gpuprof_element_self_seconds", "histogram", EL, "element_self", 1, NULL,
   "Self time per call"},
  {"gpuprof_batch_latency_seconds", "histogram", GPUPROF_SUMMARY_BATCHES,
   "batch_latency", 1, NULL, "Batch push -> a sink receives it"},
  {"gpuprof_batch_fill_frames", "histogram", GPUPROF_SUMMARY_BATCHES,
   "batch_frames", 1, NULL, "Frames per batch"},
  {"gpuprof_stream_latency_seconds", "histogram", ST, "stream_latency", 1,
   NULL, "Source push -> a sink receives the frame or its batch"},
  /* ours (docs/metrics.md#overhead) */
  {"gpuprof_tracer_overhead_seconds_total", "counter", GPUPROF_SUMMARY_RUN,
   "tracer_overhead_ns", NS, NULL,
   "Estimated CPU time of gpuprof's own push and chain hooks"},
  /* GPU records lost */
  {"gpuprof_gpu_records_dropped_total", "counter", GPUPROF_SUMMARY_GPU,
   "dropped", 1, NULL, "GPU records CUPTI dropped (buffers full)"},
  /* what limits: rank 1 and the runner-up only, so that the series stay
   * few whatever the elements (docs/metrics.md#what-limits) */
  {"gpuprof_limit", "gauge", GPUPROF_SUMMARY_LIMITS, "utilisation", 1, NULL,
   "What limits the run (rank 1) and the runner-up (rank 2): utilisation, "
   "0..1 (a pacer's: the busiest stage's)", 2},
  {"gpuprof_limit_headroom_ratio", "gauge", GPUPROF_SUMMARY_LIMITS,
   "headroom", 1, NULL, "How much faster the run could go before this "
   "limits (rank 1: before the runner-up does)", 2},
  {"gpuprof_limit_rate", "gauge", GPUPROF_SUMMARY_LIMITS, "rate", 1, NULL,
   "Buffers per second through what limits (rank 1) and the runner-up; "
   "0 unknown", 2},
};
/* *INDENT-ON* */

static void
append_escaped (GString * out, const gchar * s)
{
  for (; s && *s; s++) {
    if (*s == '\\' || *s == '"')
      g_string_append_c (out, '\\');
    if (*s == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *s);
  }
}

static void
label (GString * out, const gchar * key, const gchar * value)
{
  g_string_append_printf (out, "%s%s=\"", out->str[out->len - 1] == '{' ?
      "" : ",", key);
  append_escaped (out, value);
  g_string_append_c (out, '"');
}

static void
row_labels (GString * out, GpuprofSummaryTableId id, gconstpointer row)
{
  switch (id) {
    case GPUPROF_SUMMARY_STREAMS:{
      const GpuprofStreamRow *r = row;
      const gchar *slash = r->source ? strrchr (r->source, '/') : NULL;
      gchar *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->source_id);
      label (out, "source_id", n);
      label (out, "sensor_id", r->source);
      label (out, "sensor_name", slash ? slash + 1 : r->source);
      g_free (n);
      break;
    }
    case GPUPROF_SUMMARY_ELEMENTS:
    case GPUPROF_SUMMARY_GPU_ELEMENTS:
      label (out, "element", *(gchar * const *) row);
      break;
    case GPUPROF_SUMMARY_QUEUES:
      label (out, "queue", *(gchar * const *) row);
      break;
    case GPUPROF_SUMMARY_BATCHES:
      label (out, "aggregator", *(gchar * const *) row);
      break;
    case GPUPROF_SUMMARY_REMOVED:
      label (out, "factory", *(gchar * const *) row);
      break;
    case GPUPROF_SUMMARY_LIMITS:{
      const GpuprofLimitRow *r = row;
      gchar *rank = g_strdup_printf ("%" G_GUINT64_FORMAT, r->rank);
      label (out, "rank", rank);
      label (out, "kind", r->kind);
      label (out, "what", r->what);
      g_free (rank);
      break;
    }
    default:
      break;
  }
}

static const GpuprofSummaryField *
find_field (GpuprofSummaryTableId id, const gchar * name)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  guint j;

  for (j = 0; j < t->n_fields; j++)
    if (!strcmp (t->fields[j].name, name))
      return &t->fields[j];
  g_return_val_if_reached (NULL);
}

static gdouble
field_value (const GpuprofSummaryField * f, gconstpointer row)
{
  gconstpointer m = (const guint8 *) row + f->offset;

  switch (f->type) {
    case GPUPROF_FIELD_U64:
      return (gdouble) * (const guint64 *) m;
    case GPUPROF_FIELD_DOUBLE:
      return *(const gdouble *) m;
    case GPUPROF_FIELD_BOOLEAN:
      return *(const gboolean *) m ? 1 : 0;
    default:
      return 0;
  }
}

/* one line: NAME{labels} v; @suffix ("_bucket"...) and @le for the
 * samples of a histogram */
static void
sample_full (GString * out, const Family * fam, const gchar * suffix,
    const GpuprofSnapshot * snap, gconstpointer row, const gchar * le,
    gdouble v)
{
  gchar num[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "%s%s{", fam->name, suffix);
  label (out, "pipeline", snap->pipeline);
  if (fam->metric_name) {
    label (out, "app_name", "ds");
    label (out, "metric_name", fam->metric_name);
  }
  if (row)
    row_labels (out, fam->table, row);
  if (le)
    label (out, "le", le);
  g_string_append_printf (out, "} %s\n",
      g_ascii_formatd (num, sizeof (num), "%.15g", v));
}

static void
sample (GString * out, const Family * fam, const GpuprofSnapshot * snap,
    gconstpointer row, gdouble v)
{
  sample_full (out, fam, "", snap, row, NULL, v);
}

/* the row of @id whose key (first member, a path) is @owner */
static gconstpointer
owner_row (const GpuprofSnapshot * snap, GpuprofSummaryTableId id,
    const gchar * owner)
{
  guint i, n = gpuprof_summary_n_rows (snap, id);

  for (i = 0; i < n; i++) {
    gconstpointer row = gpuprof_summary_row (snap, id, i);
    if (!g_strcmp0 (*(gchar * const *) row, owner))
      return row;
  }
  return NULL;
}

/* one histogram: cumulative _bucket lines on the ladder, +Inf, _sum,
 * _count; labelled like the family's table row of its owner */
static void
histogram_samples (GString * out, const Family * fam,
    const GpuprofSnapshot * snap, const GpuprofHistogramRow * h)
{
  gconstpointer row = owner_row (snap, fam->table, h->owner);
  const guint64 *cum = &h->le_00;
  gchar le[G_ASCII_DTOSTR_BUF_SIZE];
  guint k;

  if (!row)
    return;
  for (k = 0; k < GPUPROF_HISTOGRAM_LADDER; k++) {
    g_ascii_formatd (le, sizeof (le), "%.12g", h->le_first * (1 << k));
    sample_full (out, fam, "_bucket", snap, row, le, cum[k]);
  }
  sample_full (out, fam, "_bucket", snap, row, "+Inf", h->count);
  sample_full (out, fam, "_sum", snap, row, NULL, h->sum);
  sample_full (out, fam, "_count", snap, row, NULL, h->count);
}

static void
format_histogram (GString * out, const Family * fam, GPtrArray * snaps)
{
  guint s, i;

  for (s = 0; s < snaps->len; s++) {
    const GpuprofSnapshot *snap = g_ptr_array_index (snaps, s);

    for (i = 0; i < snap->histograms->len; i++) {
      const GpuprofHistogramRow *h =
          &g_array_index (snap->histograms, GpuprofHistogramRow, i);
      if (!g_strcmp0 (h->name, fam->column))
        histogram_samples (out, fam, snap, h);
    }
  }
}

static void
format_family (GString * out, const Family * fam, GPtrArray * snaps)
{
  const GpuprofSummaryField *f;
  guint s, i;

  g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n", fam->name,
      fam->help, fam->name, fam->type);
  if (!strcmp (fam->type, "histogram")) {
    format_histogram (out, fam, snaps);
    return;
  }
  f = fam->column ? find_field (fam->table, fam->column) : NULL;
  for (s = 0; s < snaps->len; s++) {
    const GpuprofSnapshot *snap = g_ptr_array_index (snaps, s);
    guint n = gpuprof_summary_n_rows (snap, fam->table);

    if (!fam->column) {
      sample (out, fam, snap, NULL, n);       /* a count of rows */
      continue;
    }
    if (fam->max_rows)
      n = MIN (n, fam->max_rows);
    for (i = 0; f && i < n; i++) {
      gconstpointer row = gpuprof_summary_row (snap, fam->table, i);
      sample (out, fam, snap, row, field_value (f, row) * fam->scale);
    }
  }
}

/* ---- the GPU's engines (NVML: gpu_resources rows), docs/metrics.md#gpu ----
 * Labels from fixed sets (engine, reason) times the devices: the number
 * of series is bounded whatever the run's length. */

typedef enum
{
  GPU_UTILIZATION,              /* gpuprof_gpu_utilization{engine} */
  GPU_THROTTLE,                 /* gpuprof_gpu_throttle_ratio{reason} */
  GPU_MEMORY,                   /* gpuprof_gpu_memory_used_bytes */
  DS_UTILIZATION,               /* DeepStream's utilization_metrics */
  DS_MEMORY,                    /* DeepStream's memory_metrics */
} GpuFamily;

static void
gpu_sample (GString * out, const gchar * name, const GpuprofSnapshot * snap,
    const GpuprofGpuResourceRow * r, const gchar * key, const gchar * value,
    const gchar * ds_metric, gdouble v)
{
  gchar num[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "%s{", name);
  label (out, "pipeline", snap->pipeline);
  if (ds_metric) {
    label (out, "app_name", "ds");
    label (out, "metric_name", ds_metric);
  }
  label (out, "device", r->device);
  label (out, "name", r->name);
  if (key)
    label (out, key, value);
  g_string_append_printf (out, "} %s\n",
      g_ascii_formatd (num, sizeof (num), "%.6g", v));
}

static void
gpu_row_samples (GString * out, GpuFamily f, const gchar * name,
    const GpuprofSnapshot * snap, const GpuprofGpuResourceRow * r)
{
  switch (f) {
    case GPU_UTILIZATION:
      gpu_sample (out, name, snap, r, "engine", "sm", NULL, r->last_sm);
      gpu_sample (out, name, snap, r, "engine", "memory", NULL, r->last_mem);
      gpu_sample (out, name, snap, r, "engine", "nvdec", NULL, r->last_dec);
      gpu_sample (out, name, snap, r, "engine", "nvenc", NULL, r->last_enc);
      break;
    case GPU_THROTTLE:
      gpu_sample (out, name, snap, r, "reason", "power_cap", NULL,
          r->power_capped);
      gpu_sample (out, name, snap, r, "reason", "thermal", NULL, r->thermal);
      gpu_sample (out, name, snap, r, "reason", "hw_slowdown", NULL,
          r->hw_slowdown);
      break;
    case GPU_MEMORY:
      gpu_sample (out, name, snap, r, NULL, NULL, NULL,
          (gdouble) r->last_mem_used);
      break;
    case DS_UTILIZATION:
      /* DeepStream's is a percentage */
      gpu_sample (out, name, snap, r, NULL, NULL, "system_gpu_utilization",
          r->last_sm * 100.0);
      break;
    case DS_MEMORY:
      gpu_sample (out, name, snap, r, NULL, NULL, "system_gpu_memory_gb",
          r->last_mem_used / 1e9);
      break;
  }
}

static void
format_gpu_families (GString * out, GPtrArray * snaps)
{
  static const struct
  {
    GpuFamily f;
    const gchar *name, *help;
  } fams[] = {
    {GPU_UTILIZATION, "gpuprof_gpu_utilization",
        "Newest NVML reading of each engine of a GPU the pipeline uses: "
          "share of NVML's sample period it was busy, 0..1"},
    {GPU_THROTTLE, "gpuprof_gpu_throttle_ratio",
        "Share of the run's NVML readings whose clocks were held down, by "
          "reason family, 0..1"},
    {GPU_MEMORY, "gpuprof_gpu_memory_used_bytes",
        "Device memory in use at the newest reading, all processes"},
    {DS_UTILIZATION, "utilization_metrics",
        "Utilization metrics (DeepStream's family): the GPU's SM %"},
    {DS_MEMORY, "memory_metrics",
        "Memory metrics (DeepStream's family): the GPU's memory used, GB"},
  };
  guint k, s, i;

  for (k = 0; k < G_N_ELEMENTS (fams); k++) {
    gboolean any = FALSE;

    for (s = 0; s < snaps->len; s++) {
      const GpuprofSnapshot *snap = g_ptr_array_index (snaps, s);

      for (i = 0; snap->gpu_resources && i < snap->gpu_resources->len; i++) {
        if (!any)
          g_string_append_printf (out, "# HELP %s %s\n# TYPE %s gauge\n",
              fams[k].name, fams[k].help, fams[k].name);
        any = TRUE;
        gpu_row_samples (out, fams[k].f, fams[k].name, snap,
            &g_array_index (snap->gpu_resources, GpuprofGpuResourceRow, i));
      }
    }
  }
}

gchar *
gpuprof_metrics_format (GPtrArray * snaps, guint64 scrape_ns)
{
  GString *out = g_string_new (NULL);
  gchar num[G_ASCII_DTOSTR_BUF_SIZE];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (families); i++)
    format_family (out, &families[i], snaps);
  format_gpu_families (out, snaps);
  g_string_append_printf (out, "# HELP gpuprof_scrape_duration_seconds "
      "What the previous scrape cost the tracer (snapshots and text)\n"
      "# TYPE gpuprof_scrape_duration_seconds gauge\n"
      "gpuprof_scrape_duration_seconds %s\n",
      g_ascii_formatd (num, sizeof (num), "%.9g", scrape_ns / 1e9));
  return g_string_free (out, FALSE);
}

/* one table's rows as a GST_TYPE_ARRAY of their structures */
static void
set_rows (GstStructure * s, const gchar * key, const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id)
{
  GValue arr = G_VALUE_INIT;
  guint i, n = gpuprof_summary_n_rows (snap, id);

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gpuprof_summary_row_to_structure (id,
            gpuprof_summary_row (snap, id, i)));
    gst_value_array_append_and_take_value (&arr, &v);
  }
  gst_structure_take_value (s, key, &arr);
}

GstStructure *
gpuprof_metrics_structure (const GpuprofSnapshot * snap)
{
  GstStructure *s = gst_structure_new ("gpuprof-metrics",
      "pipeline", G_TYPE_STRING, snap->pipeline,
      "wall_ns", G_TYPE_UINT64, snap->wall_ns,
      "tracer_overhead_ns", G_TYPE_UINT64, snap->tracer_overhead_ns, NULL);
  GValue run = G_VALUE_INIT;

  set_rows (s, "streams", snap, GPUPROF_SUMMARY_STREAMS);
  set_rows (s, "elements", snap, GPUPROF_SUMMARY_ELEMENTS);
  /* elements that left the running pipeline, folded per factory */
  set_rows (s, "removed", snap, GPUPROF_SUMMARY_REMOVED);
  /* buffer pools (GStreamer >= 1.28), destroyed ones folded */
  set_rows (s, "pools", snap, GPUPROF_SUMMARY_POOLS);
  /* the verdict: the run row (limit_*, next_*) and the ranked limits */
  g_value_init (&run, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&run, gpuprof_summary_row_to_structure
      (GPUPROF_SUMMARY_RUN, snap));
  gst_structure_take_value (s, "run", &run);
  set_rows (s, "limits", snap, GPUPROF_SUMMARY_LIMITS);
  set_rows (s, "resources", snap, GPUPROF_SUMMARY_RESOURCES);
  /* GPU time per element, only when GPU attribution is on (one gpu row) */
  if (gpuprof_summary_n_rows (snap, GPUPROF_SUMMARY_GPU))
    set_rows (s, "gpu_elements", snap, GPUPROF_SUMMARY_GPU_ELEMENTS);
  return s;
}
