/* gpuprof: the text of live snapshots (see gpuprof-live.h, docs/live.md).
 * Interval figures are differences between two cumulative snapshots of one
 * run, so the last cumulative object is the end-of-run summary itself. The
 * interval rows are the live tables of gpuprof-schema.h: JSON, CSV and
 * tracer records are written from their descriptions. */
#include "gpuprof-live.h"

#include <string.h>

#include "gpuprof-delta.h"
#include "gpuprof-json.h"
#include "gpuprof-summary.h"

/* what an element counts as its throughput: a sink what it received */
static guint64
element_frames (const GpuprofElementRow * row)
{
  return !g_strcmp0 (row->role, "sink") ? row->buffers_in : row->buffers_out;
}

/* counters never go back within a run; a row new to this interval counts
 * from zero */
static guint64
delta (guint64 now, guint64 before)
{
  return now > before ? now - before : 0;
}

static gdouble
rate (guint64 n, gdouble seconds)
{
  return seconds > 0.0 ? n / seconds : 0.0;
}

static void
fill_gpu_rows (GpuprofInterval * iv)
{
  const GpuprofSnapshot *snap = iv->snapshot;
  guint i;

  for (i = 0; snap->gpu_resources && i < snap->gpu_resources->len; i++) {
    const GpuprofGpuResourceRow *row = &g_array_index (snap->gpu_resources,
        GpuprofGpuResourceRow, i);
    const GpuprofGpuResourceRow *prev = iv->previous ?
        gpuprof_snapshot_find_gpu_resource (iv->previous, row->device) : NULL;
    GpuprofIntervalGpuRow r = { row->device, row->name };
    guint64 b;

    b = prev ? prev->readings : 0;
    r.readings = delta (row->readings, b);
#define MEAN(f) gpuprof_interval_mean (row->f, row->readings, \
    prev ? prev->f : 0.0, b)
    r.sm = MEAN (sm);
    r.mem = MEAN (mem);
    r.dec = MEAN (dec);
    r.enc = MEAN (enc);
    r.clock_mhz = MEAN (clock_mhz);
    r.throttled = MEAN (throttled);
#undef MEAN
    g_array_append_val (iv->gpus, r);
  }
}

void
gpuprof_live_interval_fill (GpuprofInterval * iv)
{
  const GpuprofSnapshot *snap = iv->snapshot;
  guint i;

  iv->elements = g_array_new (FALSE, TRUE, sizeof (GpuprofIntervalElementRow));
  iv->queues = g_array_new (FALSE, TRUE, sizeof (GpuprofIntervalQueueRow));
  iv->streams = g_array_new (FALSE, TRUE, sizeof (GpuprofIntervalStreamRow));
  iv->gpus = g_array_new (FALSE, TRUE, sizeof (GpuprofIntervalGpuRow));
  fill_gpu_rows (iv);
  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *row =
        &g_array_index (snap->elements, GpuprofElementRow, i);
    const GpuprofElementRow *prev = iv->previous ?
        gpuprof_snapshot_find_element (iv->previous, row->path) : NULL;
    GpuprofIntervalElementRow r = { row->path };

    r.buffers = delta (element_frames (row), prev ? element_frames (prev) : 0);
    r.self_ns = delta (row->self_ns, prev ? prev->self_ns : 0);
    r.blocked_ns = delta (row->blocked_ns, prev ? prev->blocked_ns : 0);
    r.wait_input_ns = delta (row->wait_input_ns, prev ? prev->wait_input_ns
        : 0);
    r.fps = rate (r.buffers, iv->interval_s);
    g_array_append_val (iv->elements, r);
  }
  for (i = 0; i < snap->queues->len; i++) {
    const GpuprofQueueRow *row =
        &g_array_index (snap->queues, GpuprofQueueRow, i);
    const GpuprofQueueRow *prev = iv->previous ?
        gpuprof_snapshot_find_queue (iv->previous, row->path) : NULL;
    GpuprofIntervalQueueRow r = { row->path, row->level_buffers,
      row->level_bytes, delta (row->buffers, prev ? prev->buffers : 0)
    };

    g_array_append_val (iv->queues, r);
  }
  for (i = 0; i < snap->streams->len; i++) {
    const GpuprofStreamRow *row =
        &g_array_index (snap->streams, GpuprofStreamRow, i);
    const GpuprofStreamRow *prev = iv->previous ?
        gpuprof_snapshot_find_stream (iv->previous, row->source) : NULL;
    GpuprofIntervalStreamRow r = { row->source, row->source_id };

    r.frames = delta (row->frames, prev ? prev->frames : 0);
    r.fps = rate (r.frames, iv->interval_s);
    r.delivered = delta (row->delivered, prev ? prev->delivered : 0);
    r.drops = delta (row->drops, prev ? prev->drops : 0);
    r.latency_p50_ns = row->latency_p50_ns;
    g_array_append_val (iv->streams, r);
  }
  iv->verdict = gpuprof_snapshot_delta (snap, iv->previous);
}

void
gpuprof_live_interval_clear (GpuprofInterval * iv)
{
  g_clear_pointer (&iv->elements, g_array_unref);
  g_clear_pointer (&iv->queues, g_array_unref);
  g_clear_pointer (&iv->streams, g_array_unref);
  g_clear_pointer (&iv->verdict, gpuprof_snapshot_free);
  g_clear_pointer (&iv->gpus, g_array_unref);
}

static GArray *
live_rows (const GpuprofInterval * iv, GpuprofLiveTableId id)
{
  switch (id) {
    case GPUPROF_LIVE_INTERVAL_ELEMENTS:
      return iv->elements;
    case GPUPROF_LIVE_INTERVAL_QUEUES:
      return iv->queues;
    case GPUPROF_LIVE_INTERVAL_GPUS:
      return iv->gpus;
    default:
      return iv->streams;
  }
}

/* the cumulative table a live table's rows follow, row for row */
static GpuprofSummaryTableId
cumulative_table (GpuprofLiveTableId id)
{
  switch (id) {
    case GPUPROF_LIVE_INTERVAL_ELEMENTS:
      return GPUPROF_SUMMARY_ELEMENTS;
    case GPUPROF_LIVE_INTERVAL_QUEUES:
      return GPUPROF_SUMMARY_QUEUES;
    case GPUPROF_LIVE_INTERVAL_GPUS:
      return GPUPROF_SUMMARY_GPU_RESOURCES;
    default:
      return GPUPROF_SUMMARY_STREAMS;
  }
}

/* the JSON object up to the interval's figures, left open */
static GString *
json_head (const GpuprofInterval * iv)
{
  GString *s = g_string_new ("{\"seq\": ");
  guint id, i;

  g_string_append_printf (s, "%" G_GUINT64_FORMAT ", \"t_s\": ", iv->seq);
  gpuprof_json_append_double (s, iv->t_s);
  g_string_append (s, ", \"interval_s\": ");
  gpuprof_json_append_double (s, iv->interval_s);
  g_string_append_printf (s, ", \"final\": %s, \"pipeline\": ",
      iv->final ? "true" : "false");
  gpuprof_json_append_string (s, iv->snapshot->pipeline);
  g_string_append (s, ", \"interval\": {");
  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++) {
    const GpuprofSummaryTable *t = gpuprof_live_table (id);
    GArray *rows = live_rows (iv, id);

    g_string_append_printf (s, "%s\"%s\": [", id ? ", " : "", t->name);
    for (i = 0; i < rows->len; i++) {
      if (i)
        g_string_append (s, ", ");
      gpuprof_summary_append_json_row (s, t,
          rows->data + (gsize) i * t->row_size);
    }
    g_string_append_c (s, ']');
  }
  /* what limited the run in the interval: its ranked verdict */
  if (iv->verdict) {
    const GpuprofSummaryTable *t = gpuprof_summary_table
        (GPUPROF_SUMMARY_LIMITS);

    g_string_append_printf (s, ", \"%s\": [", t->name);
    for (i = 0; i < iv->verdict->limits->len; i++) {
      if (i)
        g_string_append (s, ", ");
      gpuprof_summary_append_json_row (s, t,
          gpuprof_summary_row (iv->verdict, GPUPROF_SUMMARY_LIMITS, i));
    }
    g_string_append_c (s, ']');
  }
  g_string_append_c (s, '}');
  return s;
}

gchar *
gpuprof_live_json_point (const GpuprofInterval * iv)
{
  GString *s = json_head (iv);

  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

gchar *
gpuprof_live_json_line (const GpuprofInterval * iv)
{
  GString *s = json_head (iv);
  gchar *summary, *c;

  /* cumulative: the summary as stats= writes it, on one line (the JSON
   * has newlines only between tokens) */
  g_string_append (s, ", \"cumulative\": ");
  summary = gpuprof_summary_to_json (iv->snapshot);
  for (c = summary; *c; c++)
    if (*c != '\n')
      g_string_append_c (s, *c);
  g_free (summary);
  g_string_append (s, "}\n");
  return g_string_free (s, FALSE);
}

#define CSV_PREFIX "seq,t_s,interval_s,final,pipeline,"

gchar *
gpuprof_live_csv_header (GpuprofLiveTableId id)
{
  const GpuprofSummaryTable *t = gpuprof_live_table (id);
  GString *s = g_string_new (CSV_PREFIX);

  /* the cumulative row, then the interval's columns but its key */
  gpuprof_summary_append_csv_header (s, gpuprof_summary_table
      (cumulative_table (id)), NULL, 0);
  g_string_append_c (s, ',');
  gpuprof_summary_append_csv_header (s, t, "interval_", t->n_key);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}

void
gpuprof_live_append_csv (GString * s, const GpuprofInterval * iv,
    GpuprofLiveTableId id)
{
  const GpuprofSummaryTable *t = gpuprof_live_table (id);
  GpuprofSummaryTableId cid = cumulative_table (id);
  GArray *rows = live_rows (iv, id);
  guint i;

  for (i = 0; i < rows->len; i++) {
    g_string_append_printf (s, "%" G_GUINT64_FORMAT ",", iv->seq);
    gpuprof_json_append_double (s, iv->t_s);
    g_string_append_c (s, ',');
    gpuprof_json_append_double (s, iv->interval_s);
    g_string_append_printf (s, ",%d,", iv->final ? 1 : 0);
    gpuprof_summary_append_csv (s, iv->snapshot->pipeline);
    g_string_append_c (s, ',');
    gpuprof_summary_append_csv_row (s, gpuprof_summary_table (cid),
        gpuprof_summary_row (iv->snapshot, cid, i), 0);
    g_string_append_c (s, ',');
    gpuprof_summary_append_csv_row (s, t, rows->data + (gsize) i *
        t->row_size, t->n_key);
    g_string_append_c (s, '\n');
  }
}

void
gpuprof_live_log_records (const GpuprofInterval * iv)
{
  guint id;

  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++)
    gpuprof_summary_log_live_records (iv->snapshot->pipeline, iv->seq,
        iv->t_s, id, live_rows (iv, id));
}

gchar *
gpuprof_live_path (const gchar * json_path, const gchar * ext)
{
  gsize len = strlen (json_path);

  if (g_str_has_suffix (json_path, ".json"))
    len -= strlen (".json");
  return g_strdup_printf ("%.*s-live.%s", (gint) len, json_path, ext);
}

gchar *
gpuprof_live_csv_path (const gchar * json_path, GpuprofLiveTableId id)
{
  gchar *base, *path;

  if (id == GPUPROF_LIVE_INTERVAL_ELEMENTS)
    return gpuprof_live_path (json_path, "csv");
  base = gpuprof_live_path (json_path, "");
  base[strlen (base) - 1] = '\0';       /* "run-live." -> "run-live" */
  path = g_strdup_printf ("%s-%s.csv", base, gpuprof_live_table (id)->name);
  g_free (base);
  return path;
}

/* "GPU 0" of "GPU 0 NVIDIA H100 80GB HBM3": up to the second space */
static gint
gpu_label_len (const gchar * name)
{
  const gchar *sp = name ? strchr (name, ' ') : NULL;

  if (!name)
    return 0;
  sp = sp ? strchr (sp + 1, ' ') : NULL;
  return sp ? (gint) (sp - name) : (gint) strlen (name);
}

/* "gpuprof live 12.5 s pipeline0: sink 30.0 fps (1500 buffers); busiest
 * infer 4.1 ms self in 0.5 s; queue q 10 buffers (most 10)" */
gchar *
gpuprof_live_report (const GpuprofInterval * iv)
{
  const GpuprofSnapshot *snap = iv->snapshot;
  const GpuprofIntervalElementRow *busiest = NULL;
  GString *s = g_string_new (NULL);
  guint i;

  g_string_append_printf (s, "gpuprof live %.1f s %s%s:", iv->t_s,
      snap->pipeline ? snap->pipeline : "?", iv->final ? " (end)" : "");
  for (i = 0; i < iv->elements->len; i++) {
    const GpuprofElementRow *row =
        &g_array_index (snap->elements, GpuprofElementRow, i);
    const GpuprofIntervalElementRow *r =
        &g_array_index (iv->elements, GpuprofIntervalElementRow, i);

    if (r->self_ns && (!busiest || r->self_ns > busiest->self_ns))
      busiest = r;
    if (!g_strcmp0 (row->role, "sink"))
      g_string_append_printf (s, " %s %.1f fps (%" G_GUINT64_FORMAT
          " buffers);", row->path, r->fps, row->buffers_in);
  }
  if (busiest)
    g_string_append_printf (s, " busiest %s %.1f ms self in %.2f s",
        busiest->path, busiest->self_ns / 1e6, iv->interval_s);
  /* each stream's fps over the interval */
  for (i = 0; i < iv->streams->len; i++) {
    const GpuprofIntervalStreamRow *r =
        &g_array_index (iv->streams, GpuprofIntervalStreamRow, i);

    g_string_append_printf (s, "%s stream %" G_GUINT64_FORMAT " %s %.1f fps",
        i ? "," : ";", r->source_id, r->source, r->fps);
  }
  /* what limited the run in the interval */
  if (iv->verdict && iv->verdict->limit_kind)
    g_string_append_printf (s, "; limit: %s %s %.0f%% (headroom %.2fx)",
        iv->verdict->limit_kind, iv->verdict->limit_what,
        iv->verdict->limit_utilisation * 100, iv->verdict->limit_headroom);
  /* each GPU's engines over the interval (NVML) */
  for (i = 0; iv->gpus && i < iv->gpus->len; i++) {
    const GpuprofIntervalGpuRow *r =
        &g_array_index (iv->gpus, GpuprofIntervalGpuRow, i);

    if (r->readings)
      g_string_append_printf (s, "; %.*s NVDEC %.0f%% SM %.0f%%%s",
          gpu_label_len (r->name), r->name, r->dec * 100, r->sm * 100,
          r->throttled >= 0.5 ? " (throttled)" : "");
  }
  /* queues holding buffers now, against the most they held in the run */
  for (i = 0; i < iv->queues->len; i++) {
    const GpuprofQueueRow *row =
        &g_array_index (snap->queues, GpuprofQueueRow, i);

    if (row->level_buffers)
      g_string_append_printf (s, "; queue %s %" G_GUINT64_FORMAT
          " buffers (most %" G_GUINT64_FORMAT ")", row->path,
          row->level_buffers, row->max_level_buffers);
  }
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}
