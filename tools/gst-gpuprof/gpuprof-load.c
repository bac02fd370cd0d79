/* gst-gpuprof: read a saved summary or trace back into snapshots.
 *
 * A summary is one JSON object (docs/summary-schema.md), read with
 * json-glib. A trace (docs/trace.md) can be gigabytes, so it is scanned line
 * by line — the writer puts one event per line — and only the summary events
 * at its end are parsed as JSON. A trace cut off by a kill has no summary:
 * then the chain, queue and counter events are aggregated instead.
 */
#include "gpuprof-load.h"
#include "gpuprof-summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK (gpuprof-load-error-quark, gpuprof_load_error);

/* --- summary JSON -> snapshot ------------------------------------------- */

/* json_object_get_object_member() complains about absent members */
static JsonObject *
object_member (JsonObject * obj, const gchar * name)
{
  JsonNode *node = obj ? json_object_get_member (obj, name) : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) :
      NULL;
}

static gboolean
read_field (JsonObject * obj, const GpuprofSummaryField * f, gpointer row,
    const gchar * where, GError ** err)
{
  gpointer member = (guint8 *) row + f->offset;
  JsonNode *node = json_object_get_member (obj, f->name);
  GType vt;

  /* absent: a reader newer than the writer; keep the zero default */
  if (node == NULL)
    return TRUE;
  vt = json_node_get_value_type (node);
  switch (f->type) {
    case GPUPROF_FIELD_STRING:
      if (JSON_NODE_HOLDS_NULL (node)) {
        g_clear_pointer ((gchar **) member, g_free);
        return TRUE;
      }
      if (vt != G_TYPE_STRING)
        break;
      g_free (*(gchar **) member);
      *(gchar **) member = json_node_dup_string (node);
      return TRUE;
    case GPUPROF_FIELD_U64:
      if (vt != G_TYPE_INT64 || json_node_get_int (node) < 0)
        break;
      *(guint64 *) member = json_node_get_int (node);
      return TRUE;
    case GPUPROF_FIELD_DOUBLE:
      if (vt != G_TYPE_INT64 && vt != G_TYPE_DOUBLE)
        break;
      *(gdouble *) member = json_node_get_double (node);
      return TRUE;
    case GPUPROF_FIELD_BOOLEAN:
      if (vt != G_TYPE_BOOLEAN)
        break;
      *(gboolean *) member = json_node_get_boolean (node);
      return TRUE;
  }
  g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
      "%s.%s: expected %s", where, f->name,
      f->type == GPUPROF_FIELD_STRING ? "a string" :
      f->type == GPUPROF_FIELD_U64 ? "an unsigned integer" :
      f->type == GPUPROF_FIELD_DOUBLE ? "a number" : "true or false");
  return FALSE;
}

static gboolean
read_row (JsonNode * rn, const GpuprofSummaryTable * t, gpointer row,
    const gchar * row_where, GError ** err)
{
  guint j;

  if (!JSON_NODE_HOLDS_OBJECT (rn)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: not an object", row_where);
    return FALSE;
  }
  for (j = 0; j < t->n_fields; j++)
    if (!read_field (json_node_get_object (rn), &t->fields[j], row,
            row_where, err))
      return FALSE;
  return TRUE;
}

/* every table as gpuprof-schema.h describes it: an array of row objects,
 * or for a one-row table an object (null: no row) */
static gboolean
read_table (JsonObject * root, GpuprofSnapshot * snap,
    GpuprofSummaryTableId id, const gchar * where, GError ** err)
{
  const GpuprofSummaryTable *t = gpuprof_summary_table (id);
  JsonNode *node = json_object_get_member (root, t->name);
  JsonArray *arr;
  gboolean ok = TRUE;
  guint i;

  if (node == NULL || (t->single && JSON_NODE_HOLDS_NULL (node)))
    return TRUE;
  if (t->single) {
    gchar *row_where = g_strdup_printf ("%s: %s", where, t->name);

    /* a half-read row is freed with the snapshot */
    ok = read_row (node, t, gpuprof_summary_add_row (snap, id), row_where,
        err);
    g_free (row_where);
    return ok;
  }
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: \"%s\" is not an array", where, t->name);
    return FALSE;
  }
  arr = json_node_get_array (node);
  for (i = 0; ok && i < json_array_get_length (arr); i++) {
    gchar *row_where = g_strdup_printf ("%s: %s[%u]", where, t->name, i);

    ok = read_row (json_array_get_element (arr, i), t,
        gpuprof_summary_add_row (snap, id), row_where, err);
    g_free (row_where);
  }
  return ok;
}

/* versions 1 and 2: the run's figures at the top and in "verdict" */
static void
read_run_v2 (JsonObject * obj, GpuprofSnapshot * snap)
{
  JsonObject *verdict = object_member (obj, "verdict");

  g_free (snap->pipeline);
  snap->pipeline = g_strdup (json_object_get_string_member_with_default (obj,
          "pipeline", ""));
  snap->wall_ns = json_object_get_int_member_with_default (obj, "wall_ns", 0);
  if (verdict == NULL)
    return;
  snap->bottleneck = g_strdup (json_object_get_string_member_with_default
      (verdict, "bottleneck", NULL));
  snap->bottleneck_thread =
      g_strdup (json_object_get_string_member_with_default (verdict, "thread",
          NULL));
  snap->bottleneck_busy =
      json_object_get_double_member_with_default (verdict, "busy", 0);
  snap->bottleneck_ns_per_buffer =
      json_object_get_int_member_with_default (verdict, "ns_per_buffer", 0);
}

/**
 * gpuprof_summary_from_json:
 * @root: a parsed summary (docs/summary-schema.md)
 * @where: file name (and line) for error messages
 * @err: where to put what is wrong
 *
 * Returns: (transfer full) (nullable): the snapshot, %NULL on error
 */
GpuprofSnapshot *
gpuprof_summary_from_json (JsonNode * root, const gchar * where,
    GError ** err)
{
  GpuprofSnapshot *snap;
  JsonObject *obj;
  guint id;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)
      || g_strcmp0 (json_object_get_string_member_with_default
          (json_node_get_object (root), "schema", ""),
          GPUPROF_SUMMARY_SCHEMA) != 0) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: not a gpuprof summary (no \"schema\": \"%s\")", where,
        GPUPROF_SUMMARY_SCHEMA);
    return NULL;
  }
  obj = json_node_get_object (root);
  if (json_object_get_int_member_with_default (obj, "version", 0) >
      GPUPROF_SUMMARY_VERSION) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: summary version %" G_GINT64_FORMAT " is newer than this "
        "gst-gpuprof reads (%d)", where,
        json_object_get_int_member_with_default (obj, "version", 0),
        GPUPROF_SUMMARY_VERSION);
    return NULL;
  }

  snap = gpuprof_snapshot_new (NULL);
  if (!json_object_has_member (obj,
          gpuprof_summary_table (GPUPROF_SUMMARY_RUN)->name))
    read_run_v2 (obj, snap);
  for (id = 0; id < GPUPROF_SUMMARY_N_TABLES; id++) {
    if (!read_table (obj, snap, id, where, err)) {
      gpuprof_snapshot_free (snap);
      return NULL;
    }
  }
  return snap;
}

/* --- file -> run --------------------------------------------------------- */

static GpuprofRun *
run_new (void)
{
  GpuprofRun *run = g_new0 (GpuprofRun, 1);

  run->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_snapshot_free);
  return run;
}

/**
 * gpuprof_run_free:
 * @run: (transfer full) (nullable): a run
 */
void
gpuprof_run_free (GpuprofRun * run)
{
  if (run == NULL)
    return;
  g_ptr_array_unref (run->snapshots);
  g_free (run->trace_note);
  g_free (run);
}

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

static JsonNode *
parse_line (JsonParser * parser, const gchar * line, const gchar * path,
    guint64 lineno, GError ** err)
{
  GError *e = NULL;

  if (!json_parser_load_from_data (parser, line, -1, &e)) {
    set_syntax_error (err, path, lineno, e);
    g_error_free (e);
    return NULL;
  }
  return json_parser_get_root (parser);
}

static GpuprofRun *
load_summary (const gchar * path, GError ** err)
{
  JsonParser *parser = json_parser_new ();
  GpuprofSnapshot *snap = NULL;
  GError *e = NULL;
  GpuprofRun *run = NULL;

  /* json-glib names the file, line and column of a syntax error */
  if (!json_parser_load_from_file (parser, path, &e)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s", e->message);
    g_error_free (e);
  } else {
    snap = gpuprof_summary_from_json (json_parser_get_root (parser), path,
        err);
  }
  if (snap) {
    run = run_new ();
    g_ptr_array_add (run->snapshots, snap);
  }
  g_object_unref (parser);
  return run;
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

static void
note_trace_stats (GpuprofRun * run, JsonNode * root)
{
  JsonObject *args = JSON_NODE_HOLDS_OBJECT (root) ?
      object_member (json_node_get_object (root), "args") : NULL;
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
    g_free (run->trace_note);
    run->trace_note = g_string_free (s, FALSE);
  } else {
    g_string_free (s, TRUE);
  }
}

typedef gboolean (*LineFunc) (GpuprofRun * run, gchar * ev, const gchar * path,
    guint64 lineno, gpointer data, GError ** err);

/* Calls @func for every event line; checks that each is one JSON object.
 * Only the very last line of a trace without "]" may be cut off. */
static gboolean
scan_trace (GpuprofRun * run, FILE * f, const gchar * path, LineFunc func,
    gpointer data, GError ** err)
{
  gchar *buf = NULL;
  gsize cap = 0;
  gssize len;
  guint64 lineno = 0, bad_line = 0;
  gboolean closing = FALSE, ok = TRUE;

  rewind (f);
  while (ok && (len = getline (&buf, &cap, f)) >= 0) {
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
    ok = func (run, ev, path, lineno, data, err);
  }
  free (buf);
  if (!ok)
    return FALSE;
  if (bad_line && (closing || lineno > bad_line)) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:%" G_GUINT64_FORMAT ":1: malformed trace event (expected one "
        "JSON object per line, as gpuprof writes them)", path, bad_line);
    return FALSE;
  }
  run->truncated = !closing;
  return TRUE;
}

static gboolean
find_summaries (GpuprofRun * run, gchar * ev, const gchar * path,
    guint64 lineno, gpointer data, GError ** err)
{
  JsonParser *parser = data;
  gboolean summary = strstr (ev, "\"name\":\"gpuprof summary\"") != NULL;
  gboolean stats = strstr (ev, "\"name\":\"gpuprof trace\"") != NULL;
  JsonNode *root, *inner;
  JsonObject *args;
  GpuprofSnapshot *snap;
  gchar *where;

  if (strstr (ev, "\"name\":\"gpuprof trace capped\"") && !run->trace_note)
    run->trace_note = g_strdup ("trace capped (trace-max-mb)");
  if (!summary && !stats)
    return TRUE;
  root = parse_line (parser, ev, path, lineno, err);
  if (root == NULL)
    return FALSE;
  if (stats) {
    note_trace_stats (run, root);
    return TRUE;
  }
  where = g_strdup_printf ("%s:%" G_GUINT64_FORMAT, path, lineno);
  args = JSON_NODE_HOLDS_OBJECT (root) ?
      object_member (json_node_get_object (root), "args") : NULL;
  inner = args ? json_object_get_member (args, "summary") : NULL;
  snap = gpuprof_summary_from_json (inner, where, err);
  g_free (where);
  if (snap == NULL)
    return FALSE;
  g_ptr_array_add (run->snapshots, snap);
  return TRUE;
}

/* --- rebuilding figures from trace events ------------------------------- */

typedef struct
{
  gchar *name;
  GArray *self;                 /* guint64 per call */
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
  GArray *residency;            /* guint64 per pushed buffer */
  guint64 drops, flushed, left, max_buffers, max_bytes;
} QueueAgg;

typedef struct
{
  JsonParser *parser;
  GHashTable *elements;         /* name -> ElementAgg */
  GHashTable *threads;          /* tid -> ThreadAgg */
  GHashTable *queues;           /* name -> QueueAgg */
  GHashTable *open;             /* residency id -> enqueue ts */
  GHashTable *early;            /* residency id -> EarlyEnd: pushed before
                                 * its begin came in the file (the threads'
                                 * events are written per drain) */
  gchar *pipeline;
  guint64 first, last;
} Rebuild;

static const gchar *
find_key (const gchar * ev, const gchar * key)
{
  gchar pat[32];
  const gchar *p;

  g_snprintf (pat, sizeof (pat), "\"%s\":", key);
  p = strstr (ev, pat);
  return p ? p + strlen (pat) : NULL;
}

static guint64
get_u64 (const gchar * ev, const gchar * key)
{
  const gchar *p = find_key (ev, key);

  return p ? g_ascii_strtoull (p, NULL, 10) : 0;
}

/* "12.345" µs -> 12345 ns, exactly */
static guint64
get_ns (const gchar * ev, const gchar * key)
{
  const gchar *p = find_key (ev, key);
  gchar *end;
  guint64 ns;
  gint digits;

  if (p == NULL)
    return 0;
  ns = g_ascii_strtoull (p, &end, 10) * 1000;
  if (*end == '.') {
    guint64 mult = 100;

    for (digits = 1, end++; g_ascii_isdigit (*end) && digits <= 3;
        digits++, end++, mult /= 10)
      ns += (*end - '0') * mult;
  }
  return ns;
}

static gchar *
get_string (const gchar * ev, const gchar * key)
{
  const gchar *p = find_key (ev, key);
  GString *s;

  if (p == NULL || *p != '"')
    return g_strdup ("");
  s = g_string_new (NULL);
  for (p++; *p && *p != '"'; p++) {
    if (*p == '\\' && p[1])
      p++;
    g_string_append_c (s, *p);
  }
  return g_string_free (s, FALSE);
}

static void
element_agg_free (ElementAgg * a)
{
  g_free (a->name);
  g_array_unref (a->self);
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
  g_array_unref (a->residency);
  g_free (a);
}

static ThreadAgg *
thread_agg (Rebuild * rb, guint64 tid)
{
  ThreadAgg *t = g_hash_table_lookup (rb->threads, GSIZE_TO_POINTER (tid));

  if (t == NULL) {
    t = g_new0 (ThreadAgg, 1);
    t->name = g_strdup_printf ("thread %" G_GUINT64_FORMAT, tid);
    t->first = G_MAXUINT64;
    t->self_by_element = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    g_hash_table_insert (rb->threads, GSIZE_TO_POINTER (tid), t);
  }
  return t;
}

static QueueAgg *
queue_agg (Rebuild * rb, gchar * name)
{
  QueueAgg *q = g_hash_table_lookup (rb->queues, name);

  if (q == NULL) {
    q = g_new0 (QueueAgg, 1);
    q->name = name;
    q->residency = g_array_new (FALSE, FALSE, sizeof (guint64));
    g_hash_table_insert (rb->queues, q->name, q);
  } else {
    g_free (name);
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
add_chain (Rebuild * rb, const gchar * ev)
{
  gchar *name = get_string (ev, "name");
  guint64 tid = get_u64 (ev, "tid");
  guint64 ts = get_ns (ev, "ts"), dur = get_ns (ev, "dur");
  guint64 self = get_u64 (ev, "self_ns");
  ElementAgg *a = g_hash_table_lookup (rb->elements, name);
  ThreadAgg *t = thread_agg (rb, tid);

  if (a == NULL) {
    a = g_new0 (ElementAgg, 1);
    a->name = name;
    a->self = g_array_new (FALSE, FALSE, sizeof (guint64));
    a->self_by_tid = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    g_hash_table_insert (rb->elements, a->name, a);
  } else {
    g_free (name);
  }
  g_array_append_val (a->self, self);
  a->self_sum += self;
  a->incl_sum += dur;
  add_to (a->self_by_tid, GSIZE_TO_POINTER (tid), self);
  add_to (t->self_by_element, a, self);
  t->busy += self;
  t->first = MIN (t->first, ts);
  t->last = MAX (t->last, ts + dur);
  rb->first = MIN (rb->first, ts);
  rb->last = MAX (rb->last, ts + dur);
}

static gboolean
add_metadata (Rebuild * rb, gchar * ev, const gchar * path, guint64 lineno,
    GError ** err)
{
  JsonNode *root = parse_line (rb->parser, ev, path, lineno, err);
  JsonObject *o, *args;
  const gchar *what, *name;

  if (root == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return TRUE;
  o = json_node_get_object (root);
  what = json_object_get_string_member_with_default (o, "name", "");
  args = object_member (o, "args");
  name = args ? json_object_get_string_member_with_default (args, "name",
      NULL) : NULL;
  if (name && strcmp (what, "thread_name") == 0) {
    ThreadAgg *t = thread_agg (rb, json_object_get_int_member_with_default (o,
            "tid", 0));

    g_free (t->name);
    t->name = g_strdup (name);
  } else if (name && strcmp (what, "process_name") == 0) {
    g_free (rb->pipeline);
    rb->pipeline = g_strdup (name);
  }
  return TRUE;
}

typedef struct
{
  QueueAgg *q;
  guint64 ts, n;
} EarlyEnd;

static void
add_residency (QueueAgg * q, guint64 begin, guint64 end, guint64 n)
{
  guint64 res = end > begin ? end - begin : 0;

  for (; n > 0; n--)
    g_array_append_val (q->residency, res);
}

static void
add_queue_event (Rebuild * rb, const gchar * ev, gchar ph)
{
  guint64 id = get_u64 (ev, "id"), ts = get_ns (ev, "ts");
  gpointer key = GSIZE_TO_POINTER (id);
  QueueAgg *q;
  gchar *result;
  guint64 n;

  if (ph == 'b') {
    EarlyEnd *end = g_hash_table_lookup (rb->early, key);
    guint64 *at;

    if (end) {
      add_residency (end->q, ts, end->ts, end->n);
      g_hash_table_remove (rb->early, key);
      return;
    }
    at = g_new (guint64, 1);
    *at = ts;
    g_hash_table_insert (rb->open, key, at);
    return;
  }
  q = queue_agg (rb, get_string (ev, "name"));
  result = get_string (ev, "result");
  /* a buffer list is one residency of "buffers" buffers */
  n = find_key (ev, "buffers") ? get_u64 (ev, "buffers") : 1;
  if (strcmp (result, "dropped") == 0) {
    q->drops += n;
  } else if (strcmp (result, "flushed") == 0) {
    q->flushed += n;
  } else if (strcmp (result, "left") == 0) {
    q->left += n;
  } else {
    guint64 *at = g_hash_table_lookup (rb->open, key);

    if (at) {
      add_residency (q, *at, ts, n);
    } else {
      EarlyEnd *end = g_new (EarlyEnd, 1);

      end->q = q;
      end->ts = ts;
      end->n = n;
      g_hash_table_insert (rb->early, key, end);
    }
  }
  g_hash_table_remove (rb->open, key);
  g_free (result);
}

static void
add_counter (Rebuild * rb, const gchar * ev)
{
  gchar *name = get_string (ev, "name");
  QueueAgg *q;

  if (!g_str_has_suffix (name, " level")) {
    g_free (name);
    return;
  }
  name[strlen (name) - strlen (" level")] = '\0';
  q = queue_agg (rb, name);
  q->max_buffers = MAX (q->max_buffers, get_u64 (ev, "buffers"));
  q->max_bytes = MAX (q->max_bytes, get_u64 (ev, "bytes"));
}

#define GPU_TRACK_TID_BASE G_GUINT64_CONSTANT (1000000001)

static gboolean
is_gpu_event (const gchar * ev)
{
  const gchar *cat = find_key (ev, "cat");
  const gchar *tid = find_key (ev, "tid");

  if (cat && g_str_has_prefix (cat, "\"gpu\""))
    return TRUE;
  return tid && g_ascii_strtoull (tid, NULL, 10) >= GPU_TRACK_TID_BASE;
}

static gboolean
rebuild_line (GpuprofRun * run, gchar * ev, const gchar * path,
    guint64 lineno, gpointer data, GError ** err)
{
  Rebuild *rb = data;
  const gchar *ph = find_key (ev, "ph");

  if (ph == NULL || ph[0] != '"')
    return TRUE;
  /* GPU tracks (docs/trace.md) are not elements or streaming threads */
  if (is_gpu_event (ev))
    return TRUE;
  switch (ph[1]) {
    case 'X':
      run->chain_events++;
      add_chain (rb, ev);
      return TRUE;
    case 'M':
      return add_metadata (rb, ev, path, lineno, err);
    case 'b':
    case 'e':
      add_queue_event (rb, ev, ph[1]);
      return TRUE;
    case 'C':
      add_counter (rb, ev);
      return TRUE;
    default:
      return TRUE;
  }
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted values */
static guint64
percentile (GArray * sorted, gdouble q)
{
  if (sorted->len == 0)
    return 0;
  return g_array_index (sorted, guint64, (guint) ((sorted->len - 1) * q + 0.5));
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
element_row_from (Rebuild * rb, ElementAgg * a, GpuprofSnapshot * snap)
{
  GpuprofElementRow row = { 0, };
  gpointer tid = key_of_max (a->self_by_tid);
  ThreadAgg *t = g_hash_table_lookup (rb->threads, tid);

  g_array_sort (a->self, cmp_u64);
  row.path = g_strdup (a->name);
  row.factory = g_strdup ("");
  row.role = g_strdup (g_hash_table_contains (rb->queues, a->name) ?
      "queue" : "");
  row.thread = g_strdup (t ? t->name : "");
  row.buffers_in = row.calls = a->self->len;
  row.self_ns = a->self_sum;
  row.incl_ns = a->incl_sum;
  row.self_p50_ns = percentile (a->self, 0.50);
  row.self_p95_ns = percentile (a->self, 0.95);
  row.self_p99_ns = percentile (a->self, 0.99);
  row.self_max_ns = percentile (a->self, 1.0);
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
  guint64 sum = 0;
  guint i;

  g_array_sort (q->residency, cmp_u64);
  for (i = 0; i < q->residency->len; i++)
    sum += g_array_index (q->residency, guint64, i);
  row.path = g_strdup (q->name);
  row.buffers = q->residency->len;
  row.residency_p50_ns = percentile (q->residency, 0.50);
  row.residency_p99_ns = percentile (q->residency, 0.99);
  row.residency_max_ns = percentile (q->residency, 1.0);
  row.residency_mean_ns = q->residency->len ? sum / q->residency->len : 0;
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
rebuild_snapshot (Rebuild * rb)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new (rb->pipeline);
  GHashTableIter it;
  gpointer val;

  snap->wall_ns = rb->last > rb->first ? rb->last - rb->first : 0;
  g_hash_table_iter_init (&it, rb->elements);
  while (g_hash_table_iter_next (&it, NULL, &val))
    element_row_from (rb, val, snap);
  g_hash_table_iter_init (&it, rb->queues);
  while (g_hash_table_iter_next (&it, NULL, &val))
    queue_row_from (val, snap);
  g_hash_table_iter_init (&it, rb->threads);
  while (g_hash_table_iter_next (&it, NULL, &val))
    thread_row_from (val, snap);
  gpuprof_snapshot_sort (snap);
  gpuprof_snapshot_compute_verdict (snap);
  return snap;
}

static gboolean
load_trace_events (GpuprofRun * run, FILE * f, const gchar * path,
    JsonParser * parser, GError ** err)
{
  Rebuild rb = { parser, };
  gboolean ok;

  rb.elements = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) element_agg_free);
  rb.threads = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) thread_agg_free);
  rb.queues = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) queue_agg_free);
  rb.open = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  rb.early = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  rb.first = G_MAXUINT64;

  ok = scan_trace (run, f, path, rebuild_line, &rb, err);
  if (ok)
    g_ptr_array_add (run->snapshots, rebuild_snapshot (&rb));
  run->rebuilt = TRUE;

  g_hash_table_unref (rb.threads);
  g_hash_table_unref (rb.elements);
  g_hash_table_unref (rb.queues);
  g_hash_table_unref (rb.open);
  g_hash_table_unref (rb.early);
  g_free (rb.pipeline);
  return ok;
}

static GpuprofRun *
load_trace (FILE * f, const gchar * path, GError ** err)
{
  GpuprofRun *run = run_new ();
  JsonParser *parser = json_parser_new ();
  gboolean ok = scan_trace (run, f, path, find_summaries, parser, err);

  if (ok && run->snapshots->len == 0)
    ok = load_trace_events (run, f, path, parser, err);
  g_object_unref (parser);
  if (!ok) {
    gpuprof_run_free (run);
    return NULL;
  }
  return run;
}

/**
 * gpuprof_run_load:
 * @path: a summary (stats=) or trace (trace=) file
 * @err: what went wrong; the message names @path and, for syntax errors,
 *   the line and column
 *
 * Returns: (transfer full) (nullable): the run, %NULL on error
 */
GpuprofRun *
gpuprof_run_load (const gchar * path, GError ** err)
{
  FILE *f = fopen (path, "r");
  GpuprofRun *run = NULL;
  gint c;

  if (f == NULL) {
    gint errsv = errno;

    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_READ,
        "%s: %s", path, g_strerror (errsv));
    return NULL;
  }
  do
    c = fgetc (f);
  while (c == ' ' || c == '\t' || c == '\r' || c == '\n');

  if (c == '{')
    run = load_summary (path, err);
  else if (c == '[')
    run = load_trace (f, path, err);
  else if (c == EOF && ferror (f))
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_READ,
        "%s: %s", path, g_strerror (errno));
  else if (c == EOF)
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:1:1: empty file", path);
  else
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:1:1: not a gpuprof summary or trace (expected '{' or '[')",
        path);
  fclose (f);
  return run;
}
