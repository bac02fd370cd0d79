/* gpuprof: the timeline trace read back (see gpuprof-trace-reader.h).
 *
 * One pass over the lines the writer wrote ("[", one event per line, "]"):
 * every event is parsed with json-glib; "gpuprof summary" events become
 * snapshots through the summary reader; the chain, queue, counter and
 * metadata events are aggregated as they come, so that a trace cut off
 * before its summary (a killed process) still gives elements, queues and
 * threads.
 */
#include "gpuprof-trace-reader.h"
#include "gpuprof-histogram.h"
#include "gpuprof-series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* GPU tracks' pseudo thread ids start here (docs/trace.md) */
#define GPU_TRACK_TID_BASE G_GUINT64_CONSTANT (1000000001)

/* --- reading members ---------------------------------------------------- */

static JsonObject *
object_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) :
      NULL;
}

static JsonNode *
value_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  return node && JSON_NODE_HOLDS_VALUE (node) ? node : NULL;
}

static const gchar *
string_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = value_member (obj, name);

  return node && json_node_get_value_type (node) == G_TYPE_STRING ?
      json_node_get_string (node) : NULL;
}

static gdouble
number_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = value_member (obj, name);

  if (node == NULL)
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return (gdouble) json_node_get_int (node);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return json_node_get_double (node);
  return 0;
}

static guint64
u64_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = value_member (obj, name);

  if (node && json_node_get_value_type (node) == G_TYPE_INT64)
    return json_node_get_int (node) > 0 ? (guint64) json_node_get_int (node) :
        0;
  return number_member (obj, name) > 0 ? (guint64) number_member (obj,
      name) : 0;
}

/* "12.345" µs -> 12345 ns: the writer keeps the ns in three decimals */
static guint64
ns_member (JsonObject * obj, const gchar * name)
{
  gdouble us = number_member (obj, name);

  return us > 0 ? (guint64) llround (us * 1000) : 0;
}

/* --- rebuilding figures from events ------------------------------------- */

typedef struct
{
  gchar *name;
  GpuprofHistogram self;        /* per call */
  guint64 self_sum, incl_sum;
  GHashTable *self_by_tid;      /* tid -> guint64* */
} ElementAgg;

typedef struct
{
  gchar *name;
  guint64 first, last, busy;
  GHashTable *self_by_element;  /* ElementAgg* -> guint64* */
} ThreadAgg;

typedef struct
{
  gchar *name;
  GpuprofHistogram residency;   /* per pushed buffer */
  guint64 drops, flushed, left, max_buffers, max_bytes;
} QueueAgg;

typedef struct
{
  QueueAgg *q;
  guint64 ts, n;
} EarlyEnd;

typedef struct
{
  const gchar *path;
  GpuprofSummaryReadFunc read_summary;
  GpuprofTraceContents *contents;
  GHashTable *elements;         /* name -> ElementAgg */
  GHashTable *threads;          /* tid -> ThreadAgg */
  GHashTable *queues;           /* name -> QueueAgg */
  GHashTable *open;             /* residency id -> enqueue ts */
  GHashTable *early;            /* residency id -> EarlyEnd: pushed before
                                 * its begin came in the file (the threads'
                                 * events are written per drain) */
  gchar *pipeline;
  guint64 first, last;
  GpuprofSeries *series;        /* buffers and levels over time */
} Reader;

static void
element_agg_free (ElementAgg * a)
{
  g_free (a->name);
  g_hash_table_unref (a->self_by_tid);
  g_free (a);
}

static void
thread_agg_free (ThreadAgg * a)
{
  g_free (a->name);
  g_hash_table_unref (a->self_by_element);
  g_free (a);
}

static void
queue_agg_free (QueueAgg * a)
{
  g_free (a->name);
  g_free (a);
}

static ThreadAgg *
thread_agg (Reader * rd, guint64 tid)
{
  ThreadAgg *t = g_hash_table_lookup (rd->threads, GSIZE_TO_POINTER (tid));

  if (t == NULL) {
    t = g_new0 (ThreadAgg, 1);
    t->name = g_strdup_printf ("thread %" G_GUINT64_FORMAT, tid);
    t->first = G_MAXUINT64;
    t->self_by_element = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    g_hash_table_insert (rd->threads, GSIZE_TO_POINTER (tid), t);
  }
  return t;
}

static QueueAgg *
queue_agg (Reader * rd, const gchar * name)
{
  QueueAgg *q = g_hash_table_lookup (rd->queues, name);

  if (q == NULL) {
    q = g_new0 (QueueAgg, 1);
    q->name = g_strdup (name);
    g_hash_table_insert (rd->queues, q->name, q);
  }
  return q;
}

static void
add_to (GHashTable * table, gpointer key, guint64 v)
{
  guint64 *sum = g_hash_table_lookup (table, key);

  if (sum == NULL) {
    sum = g_new0 (guint64, 1);
    g_hash_table_insert (table, key, sum);
  }
  *sum += v;
}

static void
add_chain (Reader * rd, JsonObject * ev)
{
  const gchar *name = string_member (ev, "name");
  guint64 tid = u64_member (ev, "tid");
  guint64 ts = ns_member (ev, "ts"), dur = ns_member (ev, "dur");
  guint64 self = u64_member (object_member (ev, "args"), "self_ns");
  ElementAgg *a;
  ThreadAgg *t = thread_agg (rd, tid);

  if (name == NULL)
    name = "";
  a = g_hash_table_lookup (rd->elements, name);
  if (a == NULL) {
    a = g_new0 (ElementAgg, 1);
    a->name = g_strdup (name);
    a->self_by_tid = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    g_hash_table_insert (rd->elements, a->name, a);
  }
  gpuprof_histogram_record (&a->self, self);
  a->self_sum += self;
  a->incl_sum += dur;
  add_to (a->self_by_tid, GSIZE_TO_POINTER (tid), self);
  add_to (t->self_by_element, a, self);
  t->busy += self;
  t->first = MIN (t->first, ts);
  t->last = MAX (t->last, ts + dur);
  rd->first = MIN (rd->first, ts);
  rd->last = MAX (rd->last, ts + dur);
  /* one chain call, one buffer (a buffer list counts once) */
  gpuprof_series_add_buffers (rd->series, name, ts, 1);
}

static void
add_metadata (Reader * rd, JsonObject * ev)
{
  const gchar *what = string_member (ev, "name");
  const gchar *name = string_member (object_member (ev, "args"), "name");

  if (name == NULL || what == NULL)
    return;
  if (strcmp (what, "thread_name") == 0) {
    ThreadAgg *t = thread_agg (rd, u64_member (ev, "tid"));

    g_free (t->name);
    t->name = g_strdup (name);
  } else if (strcmp (what, "process_name") == 0) {
    g_free (rd->pipeline);
    rd->pipeline = g_strdup (name);
  }
}

static void
add_residency (QueueAgg * q, guint64 begin, guint64 end, guint64 n)
{
  gpuprof_histogram_record_n (&q->residency, end > begin ? end - begin : 0,
      n);
}

static void
add_queue_event (Reader * rd, JsonObject * ev, gchar ph)
{
  guint64 id = u64_member (ev, "id"), ts = ns_member (ev, "ts");
  gpointer key = GSIZE_TO_POINTER (id);
  JsonObject *args = object_member (ev, "args");
  const gchar *result, *name;
  QueueAgg *q;
  guint64 n;

  if (ph == 'b') {
    EarlyEnd *end = g_hash_table_lookup (rd->early, key);
    guint64 *at;

    if (end) {
      add_residency (end->q, ts, end->ts, end->n);
      g_hash_table_remove (rd->early, key);
      return;
    }
    at = g_new (guint64, 1);
    *at = ts;
    g_hash_table_insert (rd->open, key, at);
    return;
  }
  name = string_member (ev, "name");
  q = queue_agg (rd, name ? name : "");
  result = string_member (args, "result");
  /* a buffer list is one residency of "buffers" buffers */
  n = value_member (args, "buffers") ? u64_member (args, "buffers") : 1;
  if (!g_strcmp0 (result, "dropped")) {
    q->drops += n;
  } else if (!g_strcmp0 (result, "flushed")) {
    q->flushed += n;
  } else if (!g_strcmp0 (result, "left")) {
    q->left += n;
  } else {
    guint64 *at = g_hash_table_lookup (rd->open, key);

    if (at) {
      add_residency (q, *at, ts, n);
    } else {
      EarlyEnd *end = g_new (EarlyEnd, 1);

      end->q = q;
      end->ts = ts;
      end->n = n;
      g_hash_table_insert (rd->early, key, end);
    }
  }
  g_hash_table_remove (rd->open, key);
}

static void
add_counter (Reader * rd, JsonObject * ev)
{
  const gchar *name = string_member (ev, "name");
  JsonObject *args = object_member (ev, "args");
  gchar *queue;
  QueueAgg *q;

  if (name == NULL || !g_str_has_suffix (name, " level"))
    return;
  queue = g_strndup (name, strlen (name) - strlen (" level"));
  q = queue_agg (rd, queue);
  g_free (queue);
  q->max_buffers = MAX (q->max_buffers, u64_member (args, "buffers"));
  gpuprof_series_add_level (rd->series, q->name, ns_member (ev, "ts"),
      u64_member (args, "buffers"));
  q->max_bytes = MAX (q->max_bytes, u64_member (args, "bytes"));
}

/* GPU tracks (docs/trace.md) are not elements or streaming threads */
static gboolean
is_gpu_event (JsonObject * ev)
{
  return !g_strcmp0 (string_member (ev, "cat"), "gpu")
      || u64_member (ev, "tid") >= GPU_TRACK_TID_BASE;
}

static void
aggregate (Reader * rd, JsonObject * ev)
{
  const gchar *ph = string_member (ev, "ph");

  if (ph == NULL || is_gpu_event (ev))
    return;
  switch (ph[0]) {
    case 'X':
      rd->contents->chain_events++;
      add_chain (rd, ev);
      break;
    case 'M':
      add_metadata (rd, ev);
      break;
    case 'b':
    case 'e':
      add_queue_event (rd, ev, ph[0]);
      break;
    case 'C':
      add_counter (rd, ev);
      break;
    default:
      break;
  }
}

static gpointer
key_of_max (GHashTable * table)
{
  GHashTableIter it;
  gpointer key, val, best = NULL;
  guint64 max = 0;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, &key, &val)) {
    if (best == NULL || *(guint64 *) val > max) {
      best = key;
      max = *(guint64 *) val;
    }
  }
  return best;
}

static void
element_row_from (Reader * rd, ElementAgg * a, GpuprofSnapshot * snap)
{
  GpuprofElementRow row = { 0, };
  gpointer tid = key_of_max (a->self_by_tid);
  ThreadAgg *t = g_hash_table_lookup (rd->threads, tid);

  row.path = g_strdup (a->name);
  row.factory = g_strdup ("");
  row.role = g_strdup (g_hash_table_contains (rd->queues, a->name) ?
      "queue" : "");
  row.thread = g_strdup (t ? t->name : "");
  row.buffers_in = row.calls = a->self.count;
  row.self_ns = a->self_sum;
  row.incl_ns = a->incl_sum;
  row.self_p50_ns = gpuprof_histogram_percentile (&a->self, 0.50);
  row.self_p95_ns = gpuprof_histogram_percentile (&a->self, 0.95);
  row.self_p99_ns = gpuprof_histogram_percentile (&a->self, 0.99);
  row.self_max_ns = a->self.max;
  if (t) {
    row.thread_self_ns = *(guint64 *) g_hash_table_lookup (a->self_by_tid, tid);
    row.thread_wall_ns = t->last - t->first;
    row.busy = row.thread_wall_ns ?
        (gdouble) row.thread_self_ns / row.thread_wall_ns : 0;
  }
  g_array_append_val (snap->elements, row);
}

static void
queue_row_from (QueueAgg * q, GpuprofSnapshot * snap)
{
  GpuprofQueueRow row = { 0, };
  const GpuprofHistogram *h = &q->residency;

  row.path = g_strdup (q->name);
  row.buffers = h->count;
  row.residency_p50_ns = gpuprof_histogram_percentile (h, 0.50);
  row.residency_p99_ns = gpuprof_histogram_percentile (h, 0.99);
  row.residency_max_ns = h->max;
  row.residency_mean_ns = h->count ? h->sum / h->count : 0;
  row.max_level_buffers = q->max_buffers;
  row.max_level_bytes = q->max_bytes;
  row.drops = q->drops;
  row.flushed = q->flushed;
  row.left = q->left;
  g_array_append_val (snap->queues, row);
}

static void
thread_row_from (ThreadAgg * t, GpuprofSnapshot * snap)
{
  GpuprofThreadRow row = { 0, };
  ElementAgg *top = key_of_max (t->self_by_element);

  if (t->first == G_MAXUINT64)
    return;                     /* named, but ran no chain call */
  row.name = g_strdup (t->name);
  row.wall_ns = t->last - t->first;
  row.busy_ns = t->busy;
  row.top_element = g_strdup (top ? top->name : "");
  g_array_append_val (snap->threads, row);
}

static GpuprofSnapshot *
rebuild_snapshot (Reader * rd)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new (rd->pipeline);
  GHashTableIter it;
  gpointer val;

  snap->wall_ns = rd->last > rd->first ? rd->last - rd->first : 0;
  g_hash_table_iter_init (&it, rd->elements);
  while (g_hash_table_iter_next (&it, NULL, &val))
    element_row_from (rd, val, snap);
  g_hash_table_iter_init (&it, rd->queues);
  while (g_hash_table_iter_next (&it, NULL, &val))
    queue_row_from (val, snap);
  g_hash_table_iter_init (&it, rd->threads);
  while (g_hash_table_iter_next (&it, NULL, &val))
    thread_row_from (val, snap);
  gpuprof_snapshot_sort (snap);
  gpuprof_snapshot_compute_verdict (snap);
  return snap;
}

/* --- the writer's own events --------------------------------------------- */

static void
note_trace_stats (GpuprofTraceContents * c, JsonObject * ev)
{
  JsonObject *args = object_member (ev, "args");
  GString *s;

  if (args == NULL)
    return;
  s = g_string_new (NULL);
  if (json_object_get_boolean_member_with_default (args, "capped", FALSE))
    g_string_append_printf (s, "trace capped at %.1f MB (trace-max-mb): %"
        G_GINT64_FORMAT " events not written; ",
        json_object_get_int_member_with_default (args, "max_bytes", 0) / 1e6,
        json_object_get_int_member_with_default (args, "events_dropped", 0));
  if (json_object_get_int_member_with_default (args, "events_lost", 0))
    g_string_append_printf (s, "%" G_GINT64_FORMAT " events lost (writer "
        "behind); ", json_object_get_int_member_with_default (args,
            "events_lost", 0));
  if (s->len) {
    g_string_truncate (s, s->len - 2);
    g_free (c->trace_note);
    c->trace_note = g_string_free (s, FALSE);
  } else {
    g_string_free (s, TRUE);
  }
}

static gboolean
read_summary (Reader * rd, JsonObject * ev, guint64 lineno, GError ** err)
{
  JsonObject *args = object_member (ev, "args");
  JsonNode *inner = args ? json_object_get_member (args, "summary") : NULL;
  gchar *where = g_strdup_printf ("%s:%" G_GUINT64_FORMAT, rd->path, lineno);
  GpuprofSnapshot *snap = rd->read_summary (inner, where, err);

  g_free (where);
  if (snap == NULL)
    return FALSE;
  g_ptr_array_add (rd->contents->snapshots, snap);
  return TRUE;
}

static gboolean
read_event (Reader * rd, JsonObject * ev, guint64 lineno, GError ** err)
{
  const gchar *name = string_member (ev, "name");

  if (!g_strcmp0 (name, "gpuprof summary"))
    return read_summary (rd, ev, lineno, err);
  if (!g_strcmp0 (name, "gpuprof trace")) {
    note_trace_stats (rd->contents, ev);
    return TRUE;
  }
  if (!g_strcmp0 (name, "gpuprof trace capped")) {
    if (!rd->contents->trace_note)
      rd->contents->trace_note = g_strdup ("trace capped (trace-max-mb)");
    return TRUE;
  }
  aggregate (rd, ev);
  return TRUE;
}

/* --- lines --------------------------------------------------------------- */

/* json-glib says "<data>:1:COL: ..." for a line we fed it: put our file and
 * line in front instead */
static void
set_syntax_error (GError ** err, const gchar * path, guint64 line,
    const GError * e)
{
  const gchar *msg = e->message;
  guint col = 0;

  if (g_str_has_prefix (msg, "<data>:")) {
    const gchar *p = strchr (msg + 7, ':');

    if (p && sscanf (p + 1, "%u:", &col) == 1)
      msg = strchr (p + 1, ':') + 1;
  }
  while (*msg == ' ')
    msg++;
  g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
      "%s:%" G_GUINT64_FORMAT ":%u: %s", path, line, col, msg);
}

/* Trace lines: "[", then "{...}," per event, then "]". Returns the event
 * text without separators, or NULL for a line without an event. */
static gchar *
event_text (gchar * line, gboolean * closing)
{
  gchar *end;

  g_strstrip (line);
  if (*line == '[')
    line = g_strchug (line + 1);
  if (*line == ']') {
    *closing = TRUE;
    return NULL;
  }
  end = line + strlen (line);
  if (end > line && end[-1] == ',')
    *--end = '\0';
  return *line ? line : NULL;
}

/* Reads every event line; each must be one JSON object. Only the very last
 * line of a trace without "]" may be cut off. */
static gboolean
scan_trace (Reader * rd, FILE * f, GError ** err)
{
  JsonParser *parser = json_parser_new ();
  gchar *buf = NULL;
  gsize cap = 0;
  guint64 lineno = 0, bad_line = 0;
  gboolean closing = FALSE, ok = TRUE;

  rewind (f);
  while (ok && getline (&buf, &cap, f) >= 0) {
    GError *e = NULL;
    JsonNode *root;
    gchar *ev;

    lineno++;
    if (bad_line)
      break;
    ev = event_text (buf, &closing);
    if (ev == NULL)
      continue;
    if (closing || *ev != '{' || ev[strlen (ev) - 1] != '}') {
      bad_line = lineno;
      continue;
    }
    if (!json_parser_load_from_data (parser, ev, -1, &e)) {
      set_syntax_error (err, rd->path, lineno, e);
      g_error_free (e);
      ok = FALSE;
      break;
    }
    root = json_parser_get_root (parser);
    if (JSON_NODE_HOLDS_OBJECT (root))
      ok = read_event (rd, json_node_get_object (root), lineno, err);
  }
  free (buf);
  g_object_unref (parser);
  if (!ok)
    return FALSE;
  if (bad_line && (closing || lineno > bad_line)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:%" G_GUINT64_FORMAT ":1: malformed trace event (expected one "
        "JSON object per line, as gpuprof writes them)", rd->path, bad_line);
    return FALSE;
  }
  rd->contents->truncated = !closing;
  return TRUE;
}

/**
 * gpuprof_trace_read:
 * @f: the trace file, open for reading (read from its start)
 * @path: its name, for messages
 * @read_summary: turns each embedded summary into a snapshot
 * @contents: (out caller-allocates): what the trace holds; clear it with
 *   gpuprof_trace_contents_clear() whatever the result
 * @err: what went wrong; syntax errors name @path, the line and the column
 *
 * Returns: %TRUE when the trace was read
 */
gboolean
gpuprof_trace_read (FILE * f, const gchar * path,
    GpuprofSummaryReadFunc read_summary, GpuprofTraceContents * contents,
    GError ** err)
{
  Reader rd = { path, read_summary, contents };
  gboolean ok;

  memset (contents, 0, sizeof (*contents));
  contents->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_snapshot_free);
  rd.elements = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) element_agg_free);
  rd.threads = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) thread_agg_free);
  rd.queues = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) queue_agg_free);
  rd.open = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  rd.early = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  rd.first = G_MAXUINT64;
  rd.series = gpuprof_series_new ();

  ok = scan_trace (&rd, f, err);
  if (ok)
    contents->series_json = gpuprof_series_to_json (rd.series,
        GPUPROF_SERIES_POINTS);
  gpuprof_series_free (rd.series);
  if (ok && contents->snapshots->len == 0) {
    /* no summary: the process was killed before the run ended */
    g_ptr_array_add (contents->snapshots, rebuild_snapshot (&rd));
    contents->rebuilt = TRUE;
  }

  g_hash_table_unref (rd.threads);
  g_hash_table_unref (rd.elements);
  g_hash_table_unref (rd.queues);
  g_hash_table_unref (rd.open);
  g_hash_table_unref (rd.early);
  g_free (rd.pipeline);
  return ok;
}

void
gpuprof_trace_contents_clear (GpuprofTraceContents * contents)
{
  g_clear_pointer (&contents->snapshots, g_ptr_array_unref);
  g_clear_pointer (&contents->trace_note, g_free);
  g_clear_pointer (&contents->series_json, g_free);
}
