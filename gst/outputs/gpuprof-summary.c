/* gpuprof: run summary as JSON, CSV and GstTracerRecord lines.
 *
 * Every table and its columns come from gpuprof-schema.h; the JSON and CSV
 * writers and the tracer records below only walk those descriptions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-summary.h"
#include "gpuprof-outfile.h"
#include "gpuprof-json.h"

#include <math.h>
#include <string.h>

/* --- values ------------------------------------------------------------- */

/**
 * gpuprof_summary_append_csv:
 * @s: where to append
 * @str: (nullable): a cell's text
 *
 * Appends @str as one CSV cell (RFC 4180): quoted when it holds a comma, a
 * quote or a line break; nothing for %NULL.
 */
void
gpuprof_summary_append_csv (GString * s, const gchar * str)
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
        gpuprof_summary_append_csv (s, *(gchar * const *) member);
      else
        gpuprof_json_append_string (s, *(gchar * const *) member);
      break;
    case GPUPROF_FIELD_U64:
      g_string_append_printf (s, "%" G_GUINT64_FORMAT,
          *(const guint64 *) member);
      break;
    case GPUPROF_FIELD_DOUBLE:
      gpuprof_json_append_double (s, *(const gdouble *) member);
      break;
    case GPUPROF_FIELD_BOOLEAN:
      g_string_append (s, *(const gboolean *) member ? "true" : "false");
      break;
  }
}

/* --- JSON ---------------------------------------------------------------- */

/**
 * gpuprof_summary_append_json_row:
 * @s: where to append
 * @t: the row's table (a summary or a live table)
 * @row: the row
 *
 * The row as one JSON object, its fields in schema order.
 */
void
gpuprof_summary_append_json_row (GString * s, const GpuprofSummaryTable * t,
    gconstpointer row)
{
  guint j;

  g_string_append_c (s, '{');
  for (j = 0; j < t->n_fields; j++) {
    g_string_append_printf (s, "%s\"%s\": ", j ? ", " : "", t->fields[j].name);
    append_field (s, &t->fields[j], row, FALSE);
  }
  g_string_append_c (s, '}');
}

static void
append_json_table (GString * s, const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  guint i, n = gpuprof_summary_n_rows (snap, id);

  g_string_append_printf (s, "%s\n  \"%s\": ", id ? "," : "", t->name);
  /* a table of at most one row is an object, null when empty */
  if (t->single) {
    if (n)
      gpuprof_summary_append_json_row (s, t, gpuprof_summary_row (snap, id,
              0));
    else
      g_string_append (s, "null");
    return;
  }
  g_string_append_c (s, '[');
  for (i = 0; i < n; i++) {
    /* one row per line: diff-able, and grep-able */
    g_string_append (s, i ? ",\n    " : "\n    ");
    gpuprof_summary_append_json_row (s, t, gpuprof_summary_row (snap, id, i));
  }
  g_string_append (s, n ? "\n  ]" : "]");
}

/**
 * gpuprof_summary_to_json:
 * @snap: a snapshot
 *
 * The run summary, as documented in docs/summary-schema.md: schema name and
 * version, units, then every table of gpuprof-schema.h in its order (the
 * "run" object, elements, queues, threads, batches, stages, advice, the GPU
 * tables), rows in the snapshot's order. Times in ns, sizes in bytes,
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
      "\"fraction\": \"0..1\"},");
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++)
    append_json_table (s, snap, id);
  g_string_append (s, "\n}\n");
  return g_string_free (s, FALSE);
}

/* --- CSV ----------------------------------------------------------------- */

/**
 * gpuprof_summary_append_csv_header:
 * @s: where to append
 * @t: a table
 * @prefix: (nullable): put before each column name ("interval_")
 * @skip: leading columns left out (the key a row shares with another)
 *
 * The table's column names, comma-separated, no line end.
 */
void
gpuprof_summary_append_csv_header (GString * s, const GpuprofSummaryTable * t,
    const gchar * prefix, guint skip)
{
  guint j;

  for (j = skip; j < t->n_fields; j++)
    g_string_append_printf (s, "%s%s%s", j > skip ? "," : "",
        prefix ? prefix : "", t->fields[j].name);
}

/**
 * gpuprof_summary_append_csv_row:
 * @s: where to append
 * @t: the row's table
 * @row: the row
 * @skip: leading columns left out
 *
 * The row's cells, comma-separated, no line end.
 */
void
gpuprof_summary_append_csv_row (GString * s, const GpuprofSummaryTable * t,
    gconstpointer row, guint skip)
{
  guint j;

  for (j = skip; j < t->n_fields; j++) {
    if (j > skip)
      g_string_append_c (s, ',');
    append_field (s, &t->fields[j], row, TRUE);
  }
}

/**
 * gpuprof_summary_table_to_csv:
 * @snap: a snapshot
 * @id: which table
 *
 * One table as CSV (RFC 4180): a header row of the JSON field names, then
 * one line per row; empty cell for a missing string.
 *
 * Returns: (transfer full): the CSV text
 */
gchar *
gpuprof_summary_table_to_csv (const GpuprofSnapshot * snap,
    GpuprofSummaryTableId id)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  GString *s = g_string_new (NULL);
  guint i, n = gpuprof_summary_n_rows (snap, id);

  gpuprof_summary_append_csv_header (s, t, NULL, 0);
  g_string_append (s, "\r\n");
  for (i = 0; i < n; i++) {
    gpuprof_summary_append_csv_row (s, t, gpuprof_summary_row (snap, id, i),
        0);
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

/**
 * gpuprof_summary_write:
 * @snap: a snapshot
 * @json_path: where the JSON summary goes (the stats= parameter, expanded)
 * @csv_base: (nullable): the path the CSV files are named from
 *   (gpuprof_summary_csv_path()); %NULL writes none
 *
 * Writes the JSON and one CSV per table by the rules of gpuprof-outfile.h:
 * each file replaced atomically, or written into a stream. A file that
 * fails is said (one line naming it and the reason); the others are
 * still written.
 *
 * Returns: %TRUE if every file was written
 */
gboolean
gpuprof_summary_write (const GpuprofSnapshot * snap, const gchar * json_path,
    const gchar * csv_base)
{
  gchar *text = gpuprof_summary_to_json (snap);
  gboolean ok = gpuprof_outfile_replace ("stats file", json_path, text,
      strlen (text));
  guint id;

  g_free (text);
  for (id = 0; csv_base && id < GPUPROF_SUMMARY_N_TABLES; id++) {
    gchar *path = gpuprof_summary_csv_path (csv_base, id);

    text = gpuprof_summary_table_to_csv (snap, id);
    ok &= gpuprof_outfile_replace ("stats CSV file", path, text,
        strlen (text));
    g_free (text);
    g_free (path);
  }
  return ok;
}

/**
 * gpuprof_summary_save:
 * @snap: a snapshot
 * @json_path: where to write the JSON summary
 * @err: where to put an error naming the summary when a file failed
 *
 * gpuprof_summary_write() with the CSV files beside @json_path (none when
 * it is a stream).
 *
 * Returns: %TRUE if every file was written
 */
gboolean
gpuprof_summary_save (const GpuprofSnapshot * snap, const gchar * json_path,
    GError ** err)
{
  gchar *base = gpuprof_outfile_sibling_base (json_path, NULL);
  gboolean ok = gpuprof_summary_write (snap, json_path, base);

  g_free (base);
  if (!ok)
    g_set_error (err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "cannot write the summary '%s' or a file beside it (said above)",
        json_path);
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
  "pipeline", GST_TYPE_STRUCTURE, value_spec (G_TYPE_STRING, "pipeline name"),

/* Up to GStreamer 1.29.1 record lines print strings raw ("(string)%s");
 * from 1.29.2 GstTraceFormat serializes them itself (quoted again, the
 * quotes would show). Read at run time: the binary may run on another
 * GStreamer than its headers. */
static gboolean
records_print_raw_strings (void)
{
  static gint raw = -1;
  guint major, minor, micro, nano;

  if (raw < 0) {
    gst_version (&major, &minor, &micro, &nano);
    raw = major == 1 && (minor < 29 || (minor == 29 && micro < 2));
  }
  return raw;
}

/* record lines print strings raw: quote those that would not read back as
 * one GstStructure value */
static const gchar *
record_str (GPtrArray * pool, const gchar * s)
{
  const gchar *p;
  GString *q;

  if (!records_print_raw_strings ())
    return s ? s : "";
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

#define PREFIX_SPEC(ID) PREFIX_SPEC_##ID
#define PREFIX_VALUE(ID) PREFIX_VALUE_##ID
#define PREFIX_SPEC_RUN
#define PREFIX_VALUE_RUN
#define PREFIX_SPEC_ELEMENTS PIPELINE_SPEC
#define PREFIX_SPEC_QUEUES PIPELINE_SPEC
#define PREFIX_SPEC_THREADS PIPELINE_SPEC
#define PREFIX_SPEC_LINKS PIPELINE_SPEC
#define PREFIX_SPEC_BATCHES PIPELINE_SPEC
#define PREFIX_SPEC_STAGES PIPELINE_SPEC
#define PREFIX_SPEC_ADVICE PIPELINE_SPEC
#define PREFIX_SPEC_STREAMS PIPELINE_SPEC
#define PREFIX_SPEC_REMOVED PIPELINE_SPEC
#define PREFIX_SPEC_POOLS PIPELINE_SPEC
#define PREFIX_SPEC_HISTOGRAMS PIPELINE_SPEC
#define PREFIX_SPEC_GPU_ELEMENTS PIPELINE_SPEC
#define PREFIX_SPEC_GPU_KERNELS PIPELINE_SPEC
#define PREFIX_SPEC_GPU_DEVICES PIPELINE_SPEC
#define PREFIX_SPEC_GPU PIPELINE_SPEC
#define PREFIX_SPEC_RESOURCES PIPELINE_SPEC
#define PREFIX_SPEC_LIMITS PIPELINE_SPEC
#define PREFIX_SPEC_GPU_RESOURCES PIPELINE_SPEC
#define PREFIX_VALUE_ELEMENTS , pipeline
#define PREFIX_VALUE_QUEUES , pipeline
#define PREFIX_VALUE_THREADS , pipeline
#define PREFIX_VALUE_LINKS , pipeline
#define PREFIX_VALUE_BATCHES , pipeline
#define PREFIX_VALUE_STAGES , pipeline
#define PREFIX_VALUE_ADVICE , pipeline
#define PREFIX_VALUE_STREAMS , pipeline
#define PREFIX_VALUE_REMOVED , pipeline
#define PREFIX_VALUE_POOLS , pipeline
#define PREFIX_VALUE_HISTOGRAMS , pipeline
#define PREFIX_VALUE_GPU_ELEMENTS , pipeline
#define PREFIX_VALUE_GPU_KERNELS , pipeline
#define PREFIX_VALUE_GPU_DEVICES , pipeline
#define PREFIX_VALUE_GPU , pipeline
#define PREFIX_VALUE_RESOURCES , pipeline
#define PREFIX_VALUE_LIMITS , pipeline
#define PREFIX_VALUE_GPU_RESOURCES , pipeline
/* a live record: which snapshot it belongs to */
#define LIVE_SPEC PIPELINE_SPEC \
  "seq", GST_TYPE_STRUCTURE, value_spec (G_TYPE_UINT64, "snapshot number"), \
  "t_s", GST_TYPE_STRUCTURE, value_spec (G_TYPE_DOUBLE, "seconds since the tracer started"),
#define PREFIX_SPEC_INTERVAL_ELEMENTS LIVE_SPEC
#define PREFIX_SPEC_INTERVAL_QUEUES LIVE_SPEC
#define PREFIX_SPEC_INTERVAL_STREAMS LIVE_SPEC
#define PREFIX_SPEC_INTERVAL_GPUS LIVE_SPEC
#define PREFIX_VALUE_INTERVAL_ELEMENTS , pipeline, seq, t_s
#define PREFIX_VALUE_INTERVAL_QUEUES , pipeline, seq, t_s
#define PREFIX_VALUE_INTERVAL_STREAMS , pipeline, seq, t_s
#define PREFIX_VALUE_INTERVAL_GPUS , pipeline, seq, t_s

/* GStreamer 1.29.2 (towards 1.30) deprecates GstTracerRecord for
 * GstTraceFormat and gst_trace_event() ("tracer: Reimplement
 * GstTracerRecord on top of GstTraceFormat and deprecate it"): records
 * still work there, but reach the debug log only through the log tracer
 * (gpuprof-output-records.c says so when they would vanish) */
#if GST_CHECK_VERSION(1, 29, 2)
#define RECORDS_API_BEGIN G_GNUC_BEGIN_IGNORE_DEPRECATIONS
#define RECORDS_API_END G_GNUC_END_IGNORE_DEPRECATIONS
#else
#define RECORDS_API_BEGIN
#define RECORDS_API_END
#endif

static GstTracerRecord *records[GPUPROF_SUMMARY_N_TABLES];
static GstTracerRecord *live_records[GPUPROF_LIVE_N_TABLES];

#define RECORD_NEW_IN(array, ENUM, ID, record) \
  array[ENUM] = gst_tracer_record_new ("gpuprof-" #record ".class", \
      PREFIX_SPEC (ID) GPUPROF_SCHEMA_##ID (RECORD_SPEC) NULL);
#define RECORD_NEW(ID, name, record, n_key, single) \
  RECORD_NEW_IN (records, GPUPROF_SUMMARY_##ID, ID, record)
#define LIVE_RECORD_NEW(ID, name, record, n_key, single) \
  RECORD_NEW_IN (live_records, GPUPROF_LIVE_##ID, ID, record)

static void
keep_records (GstTracerRecord ** array, guint n)
{
  guint i;

  /* created once per process and kept: like the core tracers' records */
  for (i = 0; i < n; i++)
    GST_OBJECT_FLAG_SET (array[i], GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

static gpointer
records_new (gpointer unused)
{
  RECORDS_API_BEGIN;
  GPUPROF_SCHEMA_TABLES (RECORD_NEW)
  GPUPROF_SCHEMA_LIVE_TABLES (LIVE_RECORD_NEW)
  RECORDS_API_END;
  keep_records (records, GPUPROF_SUMMARY_N_TABLES);
  keep_records (live_records, GPUPROF_LIVE_N_TABLES);
  return records;
}

static void
records_init (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, records_new, NULL);
}

/* gst_tracer_record_log() is variadic: one call per table, the row from
 * row_expr (i its index) */
#define RECORD_LOG_IN(array, ENUM, ID, row_expr) \
  case ENUM: { \
    const GPUPROF_SCHEMA_ROW_##ID *row = row_expr; \
    gst_tracer_record_log (array[id] PREFIX_VALUE (ID) \
        GPUPROF_SCHEMA_##ID (RECORD_VALUE)); \
    break; \
  }
#define RECORD_LOG(ID, name, record, n_key, single) \
  RECORD_LOG_IN (records, GPUPROF_SUMMARY_##ID, ID, \
      gpuprof_summary_row (snap, id, i))
#define LIVE_RECORD_LOG(ID, name, record, n_key, single) \
  RECORD_LOG_IN (live_records, GPUPROF_LIVE_##ID, ID, \
      &g_array_index (rows, GPUPROF_SCHEMA_ROW_##ID, i))

/**
 * gpuprof_summary_log_records:
 * @snap: a snapshot
 *
 * Logs the summary as GstTracerRecord lines (GST_DEBUG=GST_TRACER:7): one
 * "gpuprof-run" line, then one line per row of every other table
 * ("gpuprof-element", "gpuprof-queue", ..., "gpuprof-gpu-kernel"), each
 * starting with the pipeline name. The record types are created on the
 * first call.
 */
void
gpuprof_summary_log_records (const GpuprofSnapshot * snap)
{
  GPtrArray *pool = g_ptr_array_new_with_free_func (g_free);
  const gchar *pipeline = LOG_STRING (snap->pipeline);
  GpuprofSummaryTableId id;
  guint i;

  records_init ();
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    for (i = 0; i < gpuprof_summary_n_rows (snap, id); i++) {
      RECORDS_API_BEGIN;
      switch (id) {
          GPUPROF_SCHEMA_TABLES (RECORD_LOG)
        default:
          break;
      }
      RECORDS_API_END;
    }
  }
  g_ptr_array_unref (pool);
}

/**
 * gpuprof_summary_log_live_records:
 * @pipeline_name: the pipeline's name
 * @seq: the snapshot's number
 * @t_s: its time, seconds since the tracer started
 * @id: which live table
 * @rows: (element-type the table's row): its rows
 *
 * One "gpuprof-interval-element" (...) record line per row, each starting
 * with the pipeline, seq and t_s.
 */
void
gpuprof_summary_log_live_records (const gchar * pipeline_name, guint64 seq,
    gdouble t_s, GpuprofLiveTableId id, GArray * rows)
{
  GPtrArray *pool = g_ptr_array_new_with_free_func (g_free);
  const gchar *pipeline = LOG_STRING (pipeline_name);
  guint i;

  records_init ();
  for (i = 0; i < rows->len; i++) {
    RECORDS_API_BEGIN;
    switch (id) {
        GPUPROF_SCHEMA_LIVE_TABLES (LIVE_RECORD_LOG)
      default:
        break;
    }
    RECORDS_API_END;
  }
  g_ptr_array_unref (pool);
}
