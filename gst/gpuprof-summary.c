/* gpuprof: run summary as JSON, CSV and GstTracerRecord lines.
 *
 * Each table's fields are listed once, in the X-macros below; the JSON and
 * CSV writers, the tracer records and the reader in tools/ all follow them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-summary.h"

#include <math.h>
#include <string.h>

/* F (member, type, description) */
#define ELEMENT_FIELDS(F) \
  F (path, STRING, "element path, e.g. pipeline0/infer") \
  F (factory, STRING, "element factory name") \
  F (role, STRING, "source, filter, queue, aggregator or sink") \
  F (thread, STRING, "thread where the element spent most self time") \
  F (buffers_in, U64, "buffers received on its sink pads") \
  F (buffers_out, U64, "buffers pushed from its src pads") \
  F (calls, U64, "chain calls, or source loop iterations") \
  F (self_ns, U64, "total self time, ns") \
  F (incl_ns, U64, "total inclusive time of its calls, ns") \
  F (self_p50_ns, U64, "median self time per call, ns") \
  F (self_p95_ns, U64, "95th percentile self time per call, ns") \
  F (self_p99_ns, U64, "99th percentile self time per call, ns") \
  F (self_max_ns, U64, "largest self time of one call, ns") \
  F (thread_self_ns, U64, "self time on 'thread', ns") \
  F (thread_wall_ns, U64, "wall time of 'thread' during the run, ns") \
  F (busy, DOUBLE, "thread_self_ns / thread_wall_ns, 0..1") \
  F (blocked_ns, U64, "time upstream threads waited inside its chain calls (full queue, a muxer's hand-over), ns") \
  F (waits_on_clock, BOOLEAN, "synced sink or live source: times include clock waits")

#define QUEUE_FIELDS(F) \
  F (path, STRING, "queue path") \
  F (buffers, U64, "buffers dequeued (pushed out)") \
  F (residency_p50_ns, U64, "median time a buffer spent queued, ns") \
  F (residency_p99_ns, U64, "99th percentile residency, ns") \
  F (residency_max_ns, U64, "largest residency, ns") \
  F (residency_mean_ns, U64, "mean residency, ns") \
  F (max_level_buffers, U64, "most buffers queued at once") \
  F (max_level_bytes, U64, "most bytes queued at once") \
  F (max_level_time_ns, U64, "most buffer duration queued at once, ns") \
  F (backpressure_ns, U64, "time the upstream thread was blocked on the full queue, ns") \
  F (upstream_wall_ns, U64, "wall time of the upstream thread, ns") \
  F (drops, U64, "buffers dropped by a leaky queue") \
  F (flushed, U64, "buffers discarded by flushes") \
  F (left, U64, "buffers never pushed: downstream stopped, or inside when the run ended")

#define THREAD_FIELDS(F) \
  F (name, STRING, "thread name, from its GstTask") \
  F (wall_ns, U64, "wall time of the thread during the run, ns") \
  F (busy_ns, U64, "sum of element self time on the thread, ns") \
  F (top_element, STRING, "element with the most self time on the thread")

#define BATCH_FIELDS(F) \
  F (path, STRING, "aggregator path") \
  F (factory, STRING, "aggregator factory name") \
  F (batches, U64, "buffers pushed, one per batch") \
  F (frames, U64, "input buffers taken into the batches") \
  F (frames_mean, DOUBLE, "frames per batch") \
  F (frames_p99, U64, "99th percentile frames per batch") \
  F (batch_size, U64, "its batch-size property, 0 when none") \
  F (fill, DOUBLE, "frames_mean / batch_size, 0..1; 0 when no batch-size") \
  F (inputs, U64, "sink pads that delivered frames (live inputs)") \
  F (inputs_mean, DOUBLE, "distinct inputs per batch") \
  F (wait_p50_ns, U64, "median formation wait (first input -> push), ns") \
  F (wait_p99_ns, U64, "99th percentile formation wait, ns") \
  F (full, U64, "pushes with batch-size frames") \
  F (timeout, U64, "partial pushes before the end (timeout)") \
  F (eos, U64, "partial last push at EOS") \
  F (interval_ns, U64, "mean time between pushes, ns") \
  F (frame_interval_ns, U64, "frame interval of the inputs, ns; 0 unknown") \
  F (latency_p50_ns, U64, "median push -> sink, ns; 0 when no sink saw it") \
  F (latency_p99_ns, U64, "99th percentile push -> sink, ns")

#define STAGE_FIELDS(F) \
  F (path, STRING, "stage (element) path") \
  F (factory, STRING, "factory name") \
  F (aggregator, STRING, "aggregator whose batches it processed") \
  F (thread, STRING, "thread where it spent most self time") \
  F (batches, U64, "batches processed") \
  F (frames, U64, "frames in those batches") \
  F (self_ns, U64, "self time spent on batches, ns") \
  F (ns_per_batch, U64, "self time per batch, ns") \
  F (ns_per_frame, U64, "self time per frame, ns") \
  F (gpu_ns, U64, "GPU time attributed (CUPTI), ns; 0 when off") \
  F (gpu_ns_per_batch, U64, "GPU time per batch, ns") \
  F (batch_size, U64, "its own batch-size property, 0 when none") \
  F (interval, U64, "its interval property + 1, 0 when none") \
  F (fill_lo_frames, U64, "smallest fill seen in >= 4 batches") \
  F (fill_lo_ns_per_frame, U64, "self time per frame at that fill, ns") \
  F (fill_hi_frames, U64, "largest fill seen in >= 4 batches") \
  F (fill_hi_ns_per_frame, U64, "self time per frame at that fill, ns") \
  F (waits_on_clock, BOOLEAN, "synced sink: time includes clock waits") \
  F (span_ns, U64, "first batch's push (aggregator: first input) to the end of its last batch, ns") \
  F (util, DOUBLE, "self_ns / span_ns: busy share of the time it had batches, 0..1") \
  F (limiting, BOOLEAN, "the stage that limits throughput")

#define ADVICE_FIELDS(F) \
  F (rule, STRING, "mux-batch, infer-batch, queue, interval or drop-osd") \
  F (stage, STRING, "element whose knob it is") \
  F (setting, STRING, "the knob and its value, e.g. batch-size=8") \
  F (reason, STRING, "why, with the numbers")

#define TABLE_FIELD(row_type, member, type, desc) \
  { #member, GPUPROF_FIELD_##type, G_STRUCT_OFFSET (row_type, member), desc },
#define ELEMENT_FIELD(m, t, d) TABLE_FIELD (GpuprofElementRow, m, t, d)
#define QUEUE_FIELD(m, t, d) TABLE_FIELD (GpuprofQueueRow, m, t, d)
#define THREAD_FIELD(m, t, d) TABLE_FIELD (GpuprofThreadRow, m, t, d)
#define BATCH_FIELD(m, t, d) TABLE_FIELD (GpuprofBatchRow, m, t, d)
#define STAGE_FIELD(m, t, d) TABLE_FIELD (GpuprofStageRow, m, t, d)
#define ADVICE_FIELD(m, t, d) TABLE_FIELD (GpuprofAdviceRow, m, t, d)

static const GpuprofSummaryField element_fields[] = {
  ELEMENT_FIELDS (ELEMENT_FIELD)
};

static const GpuprofSummaryField queue_fields[] = {
  QUEUE_FIELDS (QUEUE_FIELD)
};

static const GpuprofSummaryField thread_fields[] = {
  THREAD_FIELDS (THREAD_FIELD)
};

static const GpuprofSummaryField batch_fields[] = {
  BATCH_FIELDS (BATCH_FIELD)
};

static const GpuprofSummaryField stage_fields[] = {
  STAGE_FIELDS (STAGE_FIELD)
};

static const GpuprofSummaryField advice_fields[] = {
  ADVICE_FIELDS (ADVICE_FIELD)
};

static const GpuprofSummaryTable tables[GPUPROF_SUMMARY_N_TABLES] = {
  {"elements", sizeof (GpuprofElementRow), element_fields,
      G_N_ELEMENTS (element_fields)},
  {"queues", sizeof (GpuprofQueueRow), queue_fields,
      G_N_ELEMENTS (queue_fields)},
  {"threads", sizeof (GpuprofThreadRow), thread_fields,
      G_N_ELEMENTS (thread_fields)},
  {"batches", sizeof (GpuprofBatchRow), batch_fields,
      G_N_ELEMENTS (batch_fields)},
  {"stages", sizeof (GpuprofStageRow), stage_fields,
      G_N_ELEMENTS (stage_fields)},
  {"advice", sizeof (GpuprofAdviceRow), advice_fields,
      G_N_ELEMENTS (advice_fields)},
};

/**
 * gpuprof_summary_table:
 * @id: which table
 *
 * Returns: (transfer none): the description of table @id
 */
const GpuprofSummaryTable *
gpuprof_summary_table (GpuprofSummaryTableId id)
{
  g_return_val_if_fail (id < GPUPROF_SUMMARY_N_TABLES, NULL);
  return &tables[id];
}

/**
 * gpuprof_summary_rows:
 * @snap: a snapshot
 * @id: which table
 *
 * Returns: (transfer none): the rows of table @id in @snap
 */
GArray *
gpuprof_summary_rows (const GpuprofSnapshot * snap, GpuprofSummaryTableId id)
{
  switch (id) {
    case GPUPROF_SUMMARY_ELEMENTS:
      return snap->elements;
    case GPUPROF_SUMMARY_QUEUES:
      return snap->queues;
    case GPUPROF_SUMMARY_THREADS:
      return snap->threads;
    case GPUPROF_SUMMARY_BATCHES:
      return snap->batches;
    case GPUPROF_SUMMARY_STAGES:
      return snap->stages;
    case GPUPROF_SUMMARY_ADVICE:
      return snap->advice;
    default:
      g_return_val_if_reached (NULL);
  }
}

/* --- values -------------------------------------------------------------- */

/**
 * gpuprof_summary_append_double:
 * @s: where to append
 * @v: value
 *
 * Appends the shortest text that reads back as exactly @v (JSON has no NaN
 * or infinity: those become 0).
 */
void
gpuprof_summary_append_double (GString * s, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    v = 0;
  g_ascii_formatd (buf, sizeof (buf), "%.15g", v);
  if (g_ascii_strtod (buf, NULL) != v)
    g_ascii_formatd (buf, sizeof (buf), "%.17g", v);
  g_string_append (s, buf);
}

static void
append_json_string (GString * s, const gchar * str)
{
  const guchar *p;

  if (str == NULL) {
    g_string_append (s, "null");
    return;
  }
  g_string_append_c (s, '"');
  for (p = (const guchar *) str; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (s, '\\');
    if (*p < 0x20)
      g_string_append_printf (s, "\\u%04x", *p);
    else
      g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
}

static void
append_csv_string (GString * s, const gchar * str)
{
  const gchar *p;

  if (str == NULL)
    return;
  if (strpbrk (str, ",\"\r\n") == NULL) {
    g_string_append (s, str);
    return;
  }
  g_string_append_c (s, '"');
  for (p = str; *p; p++) {
    if (*p == '"')
      g_string_append_c (s, '"');
    g_string_append_c (s, *p);
  }
  g_string_append_c (s, '"');
}

static void
append_field (GString * s, const GpuprofSummaryField * f, gconstpointer row,
    gboolean csv)
{
  gconstpointer member = (const guint8 *) row + f->offset;

  switch (f->type) {
    case GPUPROF_FIELD_STRING:
      if (csv)
        append_csv_string (s, *(gchar * const *) member);
      else
        append_json_string (s, *(gchar * const *) member);
      break;
    case GPUPROF_FIELD_U64:
      g_string_append_printf (s, "%" G_GUINT64_FORMAT,
          *(const guint64 *) member);
      break;
    case GPUPROF_FIELD_DOUBLE:
      gpuprof_summary_append_double (s, *(const gdouble *) member);
      break;
    case GPUPROF_FIELD_BOOLEAN:
      g_string_append (s, *(const gboolean *) member ? "true" : "false");
      break;
  }
}

/**
 * gpuprof_summary_row_to_structure:
 * @id: which table
 * @row: a row of that table
 *
 * Returns: (transfer full): the row as a GstStructure named "gpuprof-" +
 * the table name, fields named as in the JSON
 */
GstStructure *
gpuprof_summary_row_to_structure (GpuprofSummaryTableId id, gconstpointer row)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  gchar *name = g_strdup_printf ("gpuprof-%s", t->name);
  GstStructure *s = gst_structure_new_empty (name);
  guint j;

  g_free (name);
  for (j = 0; j < t->n_fields; j++) {
    const GpuprofSummaryField *f = &t->fields[j];
    gconstpointer m = (const guint8 *) row + f->offset;

    switch (f->type) {
      case GPUPROF_FIELD_STRING:
        gst_structure_set (s, f->name, G_TYPE_STRING, *(gchar * const *) m,
            NULL);
        break;
      case GPUPROF_FIELD_U64:
        gst_structure_set (s, f->name, G_TYPE_UINT64, *(const guint64 *) m,
            NULL);
        break;
      case GPUPROF_FIELD_DOUBLE:
        gst_structure_set (s, f->name, G_TYPE_DOUBLE, *(const gdouble *) m,
            NULL);
        break;
      case GPUPROF_FIELD_BOOLEAN:
        gst_structure_set (s, f->name, G_TYPE_BOOLEAN, *(const gboolean *) m,
            NULL);
        break;
    }
  }
  return s;
}

/* --- JSON ---------------------------------------------------------------- */

static void
append_json_table (GString * s, const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id)
{
  const GpuprofSummaryTable *t = &tables[id];
  GArray *rows = gpuprof_summary_rows (snap, id);
  guint i, j, n = rows ? rows->len : 0;

  g_string_append_printf (s, ",\n  \"%s\": [", t->name);
  for (i = 0; i < n; i++) {
    gconstpointer row = rows->data + (gsize) i * t->row_size;

    /* one row per line: diff-able, and grep-able */
    g_string_append (s, i ? ",\n    {" : "\n    {");
    for (j = 0; j < t->n_fields; j++) {
      g_string_append_printf (s, "%s\"%s\": ", j ? ", " : "",
          t->fields[j].name);
      append_field (s, &t->fields[j], row, FALSE);
    }
    g_string_append_c (s, '}');
  }
  g_string_append (s, n ? "\n  ]" : "]");
}

/**
 * gpuprof_summary_to_json:
 * @snap: a snapshot
 *
 * The run summary, as documented in docs/summary-schema.md: schema name and
 * version, units, pipeline, wall time, verdict and the elements, queues,
 * threads, batches, stages and advice tables, in the snapshot's order. Times in ns, sizes in bytes,
 * fractions 0..1.
 *
 * Returns: (transfer full): the JSON text, ending with a newline
 */
gchar *
gpuprof_summary_to_json (const GpuprofSnapshot * snap)
{
  GString *s = g_string_new ("{\n");
  guint id;

  g_string_append_printf (s, "  \"schema\": \"%s\",\n  \"version\": %d,\n",
      GPUPROF_SUMMARY_SCHEMA, GPUPROF_SUMMARY_VERSION);
  g_string_append (s, "  \"units\": {\"time\": \"ns\", \"size\": \"bytes\", "
      "\"fraction\": \"0..1\"},\n  \"pipeline\": ");
  append_json_string (s, snap->pipeline);
  g_string_append_printf (s, ",\n  \"wall_ns\": %" G_GUINT64_FORMAT,
      snap->wall_ns);
  g_string_append (s, ",\n  \"verdict\": {\"bottleneck\": ");
  append_json_string (s, snap->bottleneck);
  g_string_append (s, ", \"thread\": ");
  append_json_string (s, snap->bottleneck_thread);
  g_string_append (s, ", \"busy\": ");
  gpuprof_summary_append_double (s, snap->bottleneck_busy);
  g_string_append_printf (s, ", \"ns_per_buffer\": %" G_GUINT64_FORMAT "}",
      snap->bottleneck_ns_per_buffer);
  g_string_append (s, ",\n  \"gpu_section\": ");
  append_json_string (s, snap->gpu_section);
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++)
    append_json_table (s, snap, id);
  g_string_append (s, "\n}\n");
  return g_string_free (s, FALSE);
}

/* --- CSV ----------------------------------------------------------------- */

/**
 * gpuprof_summary_table_to_csv:
 * @snap: a snapshot
 * @id: which table
 *
 * One table as CSV (RFC 4180): a header row of the JSON field names, then
 * one row per element/queue/thread; empty cell for a missing string.
 *
 * Returns: (transfer full): the CSV text
 */
gchar *
gpuprof_summary_table_to_csv (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  GArray *rows = gpuprof_summary_rows (snap, id);
  GString *s = g_string_new (NULL);
  guint i, j;

  for (j = 0; j < t->n_fields; j++)
    g_string_append_printf (s, "%s%s", j ? "," : "", t->fields[j].name);
  g_string_append (s, "\r\n");
  for (i = 0; rows && i < rows->len; i++) {
    gconstpointer row = rows->data + (gsize) i * t->row_size;

    for (j = 0; j < t->n_fields; j++) {
      if (j)
        g_string_append_c (s, ',');
      append_field (s, &t->fields[j], row, TRUE);
    }
    g_string_append (s, "\r\n");
  }
  return g_string_free (s, FALSE);
}

/**
 * gpuprof_summary_csv_path:
 * @json_path: the summary's file name
 * @id: which table
 *
 * "run.json" -> "run-elements.csv" (a name without ".json" gets the suffix
 * appended).
 *
 * Returns: (transfer full): the CSV file name for table @id
 */
gchar *
gpuprof_summary_csv_path (const gchar * json_path, GpuprofSummaryTableId id)
{
  gsize len = strlen (json_path);

  if (g_str_has_suffix (json_path, ".json"))
    len -= strlen (".json");
  return g_strdup_printf ("%.*s-%s.csv", (gint) len, json_path,
      gpuprof_summary_table (id)->name);
}

static gboolean
save_file (const gchar * path, const gchar * text, GError ** err)
{
  GError *e = NULL;

  /* written under a temporary name and renamed: never half a file */
  if (g_file_set_contents (path, text, -1, &e))
    return TRUE;
  g_set_error (err, e->domain, e->code, "cannot write summary file '%s': %s",
      path, e->message);
  g_error_free (e);
  return FALSE;
}

/**
 * gpuprof_summary_save:
 * @snap: a snapshot
 * @json_path: where to write the JSON summary (the stats= parameter)
 * @err: where to put an error naming the file that failed
 *
 * Writes the JSON summary to @json_path and one CSV per table next to it
 * (see gpuprof_summary_csv_path()). Each file is replaced atomically.
 *
 * Returns: %TRUE if every file was written
 */
gboolean
gpuprof_summary_save (const GpuprofSnapshot * snap, const gchar * json_path,
    GError ** err)
{
  gchar *text = gpuprof_summary_to_json (snap);
  gboolean ok = save_file (json_path, text, err);
  guint id;

  g_free (text);
  for (id = 0; ok && id < GPUPROF_SUMMARY_N_TABLES; id++) {
    gchar *path = gpuprof_summary_csv_path (json_path, id);

    text = gpuprof_summary_table_to_csv (snap, id);
    ok = save_file (path, text, err);
    g_free (text);
    g_free (path);
  }
  return ok;
}

/* --- GstTracerRecord ----------------------------------------------------- */

#define GTYPE_STRING G_TYPE_STRING
#define GTYPE_U64 G_TYPE_UINT64
#define GTYPE_DOUBLE G_TYPE_DOUBLE
#define GTYPE_BOOLEAN G_TYPE_BOOLEAN

static GstStructure *
value_spec (GType type, const gchar * description)
{
  return gst_structure_new ("value", "type", G_TYPE_GTYPE, type,
      "description", G_TYPE_STRING, description, NULL);
}

#define RECORD_SPEC(member, type, desc) \
  #member, GST_TYPE_STRUCTURE, value_spec (GTYPE_##type, desc),
#define PIPELINE_SPEC \
  "pipeline", GST_TYPE_STRUCTURE, value_spec (G_TYPE_STRING, "pipeline name")

/* record lines print strings raw ("(string)%s"): quote those that would
 * not read back as one GstStructure value */
static const gchar *
record_str (GPtrArray * pool, const gchar * s)
{
  const gchar *p;
  GString *q;

  if (s && *s) {
    for (p = s; *p; p++)
      if (!g_ascii_isalnum (*p) && !strchr ("_-+/:.", *p))
        break;
    if (*p == '\0')
      return s;
  }
  q = g_string_new ("\"");
  for (p = s ? s : ""; *p; p++) {
    if (*p == '"' || *p == '\\')
      g_string_append_c (q, '\\');
    g_string_append_c (q, *p);
  }
  g_string_append_c (q, '"');
  g_ptr_array_add (pool, g_string_free (q, FALSE));
  return g_ptr_array_index (pool, pool->len - 1);
}

#define LOG_STRING(v) record_str (pool, v)
#define LOG_U64(v) (v)
#define LOG_DOUBLE(v) (v)
#define LOG_BOOLEAN(v) (v)
#define RECORD_VALUE(member, type, desc) , LOG_##type (row->member)

typedef struct
{
  GstTracerRecord *run, *element, *queue, *thread, *batch, *stage, *advice;
} Records;

static gpointer
records_new (gpointer unused)
{
  Records *r = g_new0 (Records, 1);

  r->run = gst_tracer_record_new ("gpuprof-run.class", PIPELINE_SPEC,
      "wall_ns", GST_TYPE_STRUCTURE, value_spec (G_TYPE_UINT64,
          "first to last activity, ns"),
      "bottleneck", GST_TYPE_STRUCTURE, value_spec (G_TYPE_STRING,
          "element whose thread is busiest"),
      "bottleneck_thread", GST_TYPE_STRUCTURE, value_spec (G_TYPE_STRING,
          "that thread"),
      "bottleneck_busy", GST_TYPE_STRUCTURE, value_spec (G_TYPE_DOUBLE,
          "busy fraction of that thread, 0..1"),
      "bottleneck_ns_per_buffer", GST_TYPE_STRUCTURE,
      value_spec (G_TYPE_UINT64, "self time per buffer of the bottleneck, ns"),
      NULL);
  r->element = gst_tracer_record_new ("gpuprof-element.class", PIPELINE_SPEC,
      ELEMENT_FIELDS (RECORD_SPEC) NULL);
  r->queue = gst_tracer_record_new ("gpuprof-queue.class", PIPELINE_SPEC,
      QUEUE_FIELDS (RECORD_SPEC) NULL);
  r->thread = gst_tracer_record_new ("gpuprof-thread.class", PIPELINE_SPEC,
      THREAD_FIELDS (RECORD_SPEC) NULL);
  r->batch = gst_tracer_record_new ("gpuprof-batch.class", PIPELINE_SPEC,
      BATCH_FIELDS (RECORD_SPEC) NULL);
  r->stage = gst_tracer_record_new ("gpuprof-stage.class", PIPELINE_SPEC,
      STAGE_FIELDS (RECORD_SPEC) NULL);
  r->advice = gst_tracer_record_new ("gpuprof-advice.class", PIPELINE_SPEC,
      ADVICE_FIELDS (RECORD_SPEC) NULL);
  /* created once per process and kept: like the core tracers' records */
  GST_OBJECT_FLAG_SET (r->run, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (r->element, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (r->queue, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (r->thread, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (r->batch, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (r->stage, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_OBJECT_FLAG_SET (r->advice, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  return r;
}

/**
 * gpuprof_summary_log_records:
 * @snap: a snapshot
 *
 * Logs the summary as GstTracerRecord lines (GST_DEBUG=GST_TRACER:7): one
 * "gpuprof-run" line, then one "gpuprof-element", "gpuprof-queue" and
 * "gpuprof-thread" line per row, each starting with the pipeline name. The
 * record types are created on the first call.
 */
void
gpuprof_summary_log_records (const GpuprofSnapshot * snap)
{
  static GOnce once = G_ONCE_INIT;
  GPtrArray *pool = g_ptr_array_new_with_free_func (g_free);
  const gchar *pipeline = LOG_STRING (snap->pipeline);
  Records *r = g_once (&once, records_new, NULL);
  guint i;

  gst_tracer_record_log (r->run, pipeline, snap->wall_ns,
      LOG_STRING (snap->bottleneck), LOG_STRING (snap->bottleneck_thread),
      snap->bottleneck_busy, snap->bottleneck_ns_per_buffer);
  for (i = 0; snap->elements && i < snap->elements->len; i++) {
    const GpuprofElementRow *row =
        &g_array_index (snap->elements, GpuprofElementRow, i);

    gst_tracer_record_log (r->element, pipeline ELEMENT_FIELDS (RECORD_VALUE));
  }
  for (i = 0; snap->queues && i < snap->queues->len; i++) {
    const GpuprofQueueRow *row =
        &g_array_index (snap->queues, GpuprofQueueRow, i);

    gst_tracer_record_log (r->queue, pipeline QUEUE_FIELDS (RECORD_VALUE));
  }
  for (i = 0; snap->threads && i < snap->threads->len; i++) {
    const GpuprofThreadRow *row =
        &g_array_index (snap->threads, GpuprofThreadRow, i);

    gst_tracer_record_log (r->thread, pipeline THREAD_FIELDS (RECORD_VALUE));
  }
  for (i = 0; snap->batches && i < snap->batches->len; i++) {
    const GpuprofBatchRow *row =
        &g_array_index (snap->batches, GpuprofBatchRow, i);

    gst_tracer_record_log (r->batch, pipeline BATCH_FIELDS (RECORD_VALUE));
  }
  for (i = 0; snap->stages && i < snap->stages->len; i++) {
    const GpuprofStageRow *row =
        &g_array_index (snap->stages, GpuprofStageRow, i);

    gst_tracer_record_log (r->stage, pipeline STAGE_FIELDS (RECORD_VALUE));
  }
  for (i = 0; snap->advice && i < snap->advice->len; i++) {
    const GpuprofAdviceRow *row =
        &g_array_index (snap->advice, GpuprofAdviceRow, i);

    gst_tracer_record_log (r->advice, pipeline ADVICE_FIELDS (RECORD_VALUE));
  }
  g_ptr_array_unref (pool);
}
