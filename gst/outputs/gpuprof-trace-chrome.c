/* gpuprof: the timeline trace's format — Chrome trace-event JSON, one event
 * per line (see docs/trace.md). Turns each GpuprofEvent into its JSON event,
 * names threads and GPU tracks before their first event, and writes the
 * global "gpuprof summary" and "gpuprof trace" events. Runs under the
 * trace's lock (gpuprof-trace-private.h); the file around it is
 * gpuprof-trace.c, the events come over the core's bus (gpuprof-bus.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-json.h"
#include "gpuprof-trace-private.h"

#include <gst/gst.h>
#include <string.h>

typedef GpuprofTraceElementName ElementName;
typedef GpuprofTraceThreadState ThreadState;

/* --- small formatting helpers ------------------------------------------ */

static void
append_u64 (GString * s, guint64 v)
{
  gchar buf[24];
  gint i = sizeof (buf);

  do {
    buf[--i] = '0' + (v % 10);
    v /= 10;
  } while (v);
  g_string_append_len (s, buf + i, sizeof (buf) - i);
}

/* ns -> µs with three decimals: keeps ns precision in a µs field */
static void
append_us (GString * s, guint64 ns)
{
  guint frac = ns % 1000;

  append_u64 (s, ns / 1000);
  g_string_append_c (s, '.');
  g_string_append_c (s, '0' + frac / 100);
  g_string_append_c (s, '0' + frac / 10 % 10);
  g_string_append_c (s, '0' + frac % 10);
}
/* ,"member":value */
static void
append_member_u64 (GString * s, const gchar * member, guint64 v)
{
  g_string_append (s, member);
  append_u64 (s, v);
}

/* --- names --------------------------------------------------------------- */

/* what the name callback @ask says of @id: a new string, or NULL (no
 * callback, or the name is not known) */
static gchar *
ask_name (GpuprofTrace * trace, gchar * (*ask) (guint32, gpointer),
    guint32 id)
{
  return ask ? ask (id, trace->names.user_data) : NULL;
}

static ElementName *
element_name (GpuprofTrace * trace, guint32 id)
{
  ElementName *en = g_hash_table_lookup (trace->elements, GUINT_TO_POINTER (id));
  gchar *path;

  if (en)
    return en;
  path = ask_name (trace, trace->names.element_path, id);
  if (path == NULL) {
    /* not cached: the name may be known at the next event */
    static ElementName unknown = { (gchar *) "\"?\"", TRUE };
    return &unknown;
  }
  en = g_new0 (ElementName, 1);
  en->json = gpuprof_json_quote (path);
  en->wanted = trace->filter == NULL || g_regex_match (trace->filter, path, 0,
      NULL);
  g_free (path);
  g_hash_table_insert (trace->elements, GUINT_TO_POINTER (id), en);
  return en;
}

void
gpuprof_trace_chrome_element_name_free (gpointer p)
{
  ElementName *en = p;

  g_free (en->json);
  g_free (en);
}

static const gchar *
pad_name (GpuprofTrace * trace, guint32 id)
{
  gchar *json = g_hash_table_lookup (trace->pads, GUINT_TO_POINTER (id));
  gchar *name;

  if (json)
    return json;
  name = id ? ask_name (trace, trace->names.pad_name, id) : NULL;
  if (name == NULL)
    return "\"\"";
  json = gpuprof_json_quote (name);
  g_free (name);
  g_hash_table_insert (trace->pads, GUINT_TO_POINTER (id), json);
  return json;
}

void
gpuprof_trace_chrome_thread_state_free (gpointer p)
{
  ThreadState *ts = p;

  g_free (ts->name);
  g_free (ts);
}

/* --- event output -------------------------------------------------------- */

static void
begin_event (GpuprofTrace * trace, const gchar * ph, const gchar * cat,
    const gchar * name_json, guint32 tid)
{
  GString *s = trace->out;

  if (!trace->first_event)
    g_string_append (s, ",\n");
  trace->first_event = FALSE;
  g_string_append (s, "{\"ph\":\"");
  g_string_append (s, ph);
  g_string_append_c (s, '"');
  if (cat) {
    g_string_append (s, ",\"cat\":\"");
    g_string_append (s, cat);
    g_string_append_c (s, '"');
  }
  g_string_append (s, ",\"name\":");
  g_string_append (s, name_json);
  append_member_u64 (s, ",\"pid\":", trace->pid);
  append_member_u64 (s, ",\"tid\":", tid);
}

static void
append_ts (GpuprofTrace * trace, guint64 ts)
{
  g_string_append (trace->out, ",\"ts\":");
  append_us (trace->out, ts);
  if (ts > trace->last_ts)
    trace->last_ts = ts;
}

static void
end_event (GpuprofTrace * trace)
{
  g_string_append_c (trace->out, '}');
  trace->stats.events_written++;
}

static void
write_metadata (GpuprofTrace * trace, const gchar * what, guint32 tid,
    const gchar * name)
{
  gchar *name_json = gpuprof_json_quote (what);

  begin_event (trace, "M", NULL, name_json, tid);
  g_string_append (trace->out, ",\"ts\":0,\"args\":{\"name\":");
  gpuprof_json_append_string (trace->out, name);
  g_string_append_c (trace->out, '}');
  end_event (trace);
  g_free (name_json);
}

static ThreadState *
thread_state (GpuprofTrace * trace, guint32 tid, gboolean renamed)
{
  ThreadState *ts = g_hash_table_lookup (trace->threads, GUINT_TO_POINTER (tid));
  gchar *name = NULL;

  if (ts && !renamed)
    return ts;
  if (ts == NULL) {
    ts = g_new0 (ThreadState, 1);
    g_hash_table_insert (trace->threads, GUINT_TO_POINTER (tid), ts);
  }
  name = ask_name (trace, trace->names.thread_name, tid);
  if (name == NULL && ts->name == NULL)
    name = g_strdup_printf ("thread %u", tid);
  if (name && g_strcmp0 (name, ts->name) != 0) {
    /* every thread is named before its first event */
    write_metadata (trace, "thread_name", tid, name);
    g_free (ts->name);
    ts->name = name;
  } else {
    g_free (name);
  }
  return ts;
}

static void
append_pts (GString * s, guint64 pts)
{
  g_string_append (s, ",\"pts\":");
  if (pts == G_MAXUINT64)
    g_string_append (s, "null");
  else
    append_u64 (s, pts);
}

/* One id per queue entry: pairs residency begin/end and the arrow; the
 * hooks make it unique per queue FIFO (gpuprof-event.h), else (an older
 * producer) per queue element. */
static guint64
queue_buffer_id (const GpuprofEvent * ev)
{
  if (ev->flow)
    return ev->flow;
  return ((guint64) ev->element_id << 36) | (ev->seq & G_GUINT64_CONSTANT
      (0xfffffffff));
}

static void
append_buffers (GString * s, const GpuprofEvent * ev)
{
  /* a list is one entry of several buffers */
  if (ev->self > 1) {
    append_member_u64 (s, ",\"buffers\":", ev->self);
  }
}

static void
write_flow (GpuprofTrace * trace, const gchar * ph, guint32 tid, guint64 ts,
    guint64 id)
{
  begin_event (trace, ph, "flow", "\"buffer\"", tid);
  append_ts (trace, ts);
  append_member_u64 (trace->out, ",\"id\":", id);
  end_event (trace);
}
/* the launch arrows the binder placed (gpuprof-trace-flows.c) */
static void
write_arrows (GpuprofTrace * trace)
{
  guint i;

  for (i = 0; i < trace->arrows->len && trace->writing; i++) {
    const GpuprofTraceArrow *a = &g_array_index (trace->arrows,
        GpuprofTraceArrow, i);

    begin_event (trace, "s", "flow", "\"launch\"", a->host_tid);
    append_ts (trace, a->s_ts);
    append_member_u64 (trace->out, ",\"id\":", a->id);
    end_event (trace);
    /* bound to the op's own slice, not to the next one on the track */
    begin_event (trace, "f", "flow", "\"launch\"", a->gpu_tid);
    append_ts (trace, a->f_ts);
    append_member_u64 (trace->out, ",\"bp\":\"e\",\"id\":", a->id);
    end_event (trace);
  }
  g_array_set_size (trace->arrows, 0);
}

void
gpuprof_trace_chrome_write_orphan_flows (GpuprofTrace * trace)
{
  gpuprof_trace_flows_orphans (trace->flows, trace->arrows);
  write_arrows (trace);
}

/* --- GPU ops ------------------------------------------------------------ */

/* One pseudo thread per (device, stream), named before its first op and
 * sorted after the streaming threads. */
static ThreadState *
gpu_track_state (GpuprofTrace * trace, const GpuprofEvent * ev)
{
  ThreadState *ts = g_hash_table_lookup (trace->threads,
      GUINT_TO_POINTER (ev->thread_id));
  gchar *name, *sort_json;

  if (ts)
    return ts;
  ts = g_new0 (ThreadState, 1);
  ts->gpu_track = TRUE;
  g_hash_table_insert (trace->threads, GUINT_TO_POINTER (ev->thread_id), ts);

  if (GPUPROF_EVENT_GPU_STREAM (ev) == G_MAXUINT32)
    name = g_strdup_printf ("GPU %u other streams",
        GPUPROF_EVENT_GPU_DEVICE (ev));
  else
    name = g_strdup_printf ("GPU %u stream %u", GPUPROF_EVENT_GPU_DEVICE (ev),
        GPUPROF_EVENT_GPU_STREAM (ev));
  write_metadata (trace, "thread_name", ev->thread_id, name);
  ts->name = name;

  sort_json = gpuprof_json_quote ("thread_sort_index");
  begin_event (trace, "M", NULL, sort_json, ev->thread_id);
  append_member_u64 (trace->out, ",\"ts\":0,\"args\":{\"sort_index\":",
      1000000 + (ev->thread_id - GPUPROF_EVENT_GPU_TRACK_BASE));
  g_string_append_c (trace->out, '}');
  end_event (trace);
  g_free (sort_json);
  trace->n_gpu_tracks++;
  return ts;
}

static const gchar *
interned_name_json (GpuprofTrace * trace, guint32 id)
{
  const gchar *json = NULL;

  g_mutex_lock (&trace->names_lock);
  if (id >= 1 && id <= trace->name_json->len)
    json = g_ptr_array_index (trace->name_json, id - 1);
  g_mutex_unlock (&trace->names_lock);
  /* the strings live until gpuprof_trace_free() */
  return json;
}

static void
append_size (GString * s, guint64 bytes)
{
  if (bytes < 1000)
    g_string_append_printf (s, "%u B", (guint) bytes);
  else if (bytes < 1000000)
    g_string_append_printf (s, "%.1f kB", bytes / 1e3);
  else if (bytes < G_GUINT64_CONSTANT (1000000000))
    g_string_append_printf (s, "%.1f MB", bytes / 1e6);
  else
    g_string_append_printf (s, "%.1f GB", bytes / 1e9);
}

/* CUpti_ActivityMemcpyKind */
static const gchar *
copy_kind_name (guint kind)
{
  static const gchar *names[] = { "?", "HtoD", "DtoH", "HtoA", "AtoH",
    "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"
  };
  return kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

static void
write_gpu_op (GpuprofTrace * trace, const GpuprofEvent * ev, ElementName * en)
{
  static const gchar *kinds[] = { "kernel", "memcpy", "memset" };
  static const gchar *bys[] = { "external", "thread", "none" };
  GString *s = trace->out;
  guint kind = GPUPROF_EVENT_GPU_KIND (ev);
  guint by = GPUPROF_EVENT_GPU_BY (ev);
  const gchar *name_json = NULL;
  gchar *built = NULL;

  if (kind == 0) {
    name_json = interned_name_json (trace, ev->pad_id);
    if (name_json == NULL)
      name_json = "\"kernel\"";
  } else if (kind == 1) {
    GString *n = g_string_new ("\"memcpy ");
    g_string_append (n, copy_kind_name (GPUPROF_EVENT_GPU_COPY_KIND (ev)));
    g_string_append_c (n, ' ');
    append_size (n, ev->size);
    g_string_append_c (n, '"');
    name_json = built = g_string_free (n, FALSE);
  } else {
    name_json = "\"memset\"";
  }

  begin_event (trace, "X", "gpu", name_json, ev->thread_id);
  g_free (built);
  append_ts (trace, ev->ts);
  g_string_append (s, ",\"dur\":");
  append_us (s, ev->dur);
  g_string_append (s, ",\"args\":{\"element\":");
  g_string_append (s, en ? en->json : "\"unattributed\"");
  g_string_append (s, ",\"seq\":");
  if (ev->seq == G_MAXUINT64)
    g_string_append (s, "null");
  else
    append_u64 (s, ev->seq);
  append_member_u64 (s, ",\"bytes\":", ev->size);
  append_member_u64 (s, ",\"correlation\":",
      GPUPROF_EVENT_GPU_CORRELATION (ev));
  g_string_append (s, ",\"kind\":\"");
  g_string_append (s, kinds[kind < G_N_ELEMENTS (kinds) ? kind : 0]);
  g_string_append_c (s, '"');
  if (kind == 1) {
    g_string_append (s, ",\"copy\":\"");
    g_string_append (s, copy_kind_name (GPUPROF_EVENT_GPU_COPY_KIND (ev)));
    g_string_append_c (s, '"');
  }
  g_string_append (s, ",\"attribution\":\"");
  g_string_append (s, bys[by < G_N_ELEMENTS (bys) ? by : 2]);
  append_member_u64 (s, "\",\"device\":", GPUPROF_EVENT_GPU_DEVICE (ev));
  append_member_u64 (s, ",\"stream\":", GPUPROF_EVENT_GPU_STREAM (ev));
  g_string_append (s, "}");
  end_event (trace);

  if (ev->flow && ev->self && GPUPROF_EVENT_GPU_HOST_THREAD (ev)) {
    /* the host thread is named before the arrow starts on it */
    thread_state (trace, GPUPROF_EVENT_GPU_HOST_THREAD (ev), FALSE);
    gpuprof_trace_flows_bind (trace->flows, ev,
        gpuprof_trace_flows_clamp_into (ev->ts, ev->ts + ev->dur, ev->ts),
        trace->arrows);
    write_arrows (trace);
  }
}

static void
write_chain (GpuprofTrace * trace, const GpuprofEvent * ev, ElementName * en)
{
  GString *s = trace->out;

  begin_event (trace, "X", "chain", en->json, ev->thread_id);
  append_ts (trace, ev->ts);
  g_string_append (s, ",\"dur\":");
  append_us (s, ev->dur);
  g_string_append (s, ",\"args\":{\"pad\":");
  g_string_append (s, pad_name (trace, ev->pad_id));
  append_member_u64 (s, ",\"seq\":", ev->seq);
  append_pts (s, ev->pts);
  append_member_u64 (s, ",\"size\":", ev->size);
  append_member_u64 (s, ",\"self_ns\":", ev->self);
  if (ev->flow) {
    append_member_u64 (s, ",\"flow\":", ev->flow);
  }
  g_string_append_c (s, '}');
  end_event (trace);
  gpuprof_trace_flows_chain_written (trace->flows, trace->remember_chains,
      ev, trace->arrows);
  write_arrows (trace);
}

static void
write_queue_in (GpuprofTrace * trace, const GpuprofEvent * ev,
    ElementName * en)
{
  GString *s = trace->out;

  begin_event (trace, "b", "queue", en->json, ev->thread_id);
  append_ts (trace, ev->ts);
  append_member_u64 (s, ",\"id\":", queue_buffer_id (ev));
  append_member_u64 (s, ",\"args\":{\"seq\":", ev->seq);
  append_pts (s, ev->pts);
  append_member_u64 (s, ",\"size\":", ev->size);
  append_buffers (s, ev);
  g_string_append_c (s, '}');
  end_event (trace);
}

/* A pushed entry's arrow: from inside the queue's chain call that enqueued
 * it (one ns after its start, which is the enqueue) to the next slice of
 * the thread that pushed it. Both ends are written here, once the buffer
 * went out: a buffer dropped, flushed or left has no arrow (an arrow to
 * nowhere means nothing to a viewer), its residency end says why. */
static void
write_buffer_arrow (GpuprofTrace * trace, const GpuprofEvent * ev, guint64 id)
{
  guint32 in_thread = GPUPROF_EVENT_QUEUE_IN_THREAD (ev);
  guint64 in_ts = ev->ts > ev->dur ? ev->ts - ev->dur : 0;

  if (in_thread == 0)
    return;
  /* the enqueuing thread is named before an event of it is written */
  thread_state (trace, in_thread, FALSE);
  write_flow (trace, "s", in_thread, MIN (in_ts + 1, ev->ts), id);
  write_flow (trace, "f", ev->thread_id, ev->ts, id);
}

static void
write_queue_out (GpuprofTrace * trace, const GpuprofEvent * ev,
    ElementName * en)
{
  static const gchar *results[] = { "pushed", "dropped", "flushed", "left" };
  GString *s = trace->out;
  guint64 id = queue_buffer_id (ev);
  guint outcome = GPUPROF_EVENT_QUEUE_OUTCOME (ev);

  begin_event (trace, "e", "queue", en->json, ev->thread_id);
  append_ts (trace, ev->ts);
  append_member_u64 (s, ",\"id\":", id);
  g_string_append (s, ",\"args\":{\"result\":\"");
  g_string_append (s, results[outcome < G_N_ELEMENTS (results) ? outcome : 0]);
  g_string_append_c (s, '"');
  append_buffers (s, ev);
  g_string_append_c (s, '}');
  end_event (trace);
  if (outcome == 0)
    write_buffer_arrow (trace, ev, id);
}

/* a counter named for the element: "pipeline0/q level" */
static void
begin_counter (GpuprofTrace * trace, const GpuprofEvent * ev,
    ElementName * en, const gchar * cat, const gchar * suffix)
{
  /* strip the closing quote and add the suffix */
  gchar *name = g_strdup_printf ("%.*s %s\"", (gint) strlen (en->json) - 1,
      en->json, suffix);

  begin_event (trace, "C", cat, name, ev->thread_id);
  g_free (name);
  append_ts (trace, ev->ts);
}

static void
write_queue_level (GpuprofTrace * trace, const GpuprofEvent * ev,
    ElementName * en)
{
  GString *s = trace->out;

  begin_counter (trace, ev, en, "queue", "level");
  append_member_u64 (s, ",\"args\":{\"buffers\":", ev->self);
  append_member_u64 (s, ",\"bytes\":", ev->size);
  g_string_append_c (s, '}');
  end_event (trace);
}

/* interval=: "pipeline0/sink fps", one value per interval */
static void
write_rate (GpuprofTrace * trace, const GpuprofEvent * ev, ElementName * en)
{
  GString *s = trace->out;

  begin_counter (trace, ev, en, "live", "fps");
  g_string_append (s, ",\"args\":{\"fps\":");
  gpuprof_json_append_double (s, ev->dur ? ev->self * 1e9 / ev->dur : 0.0);
  g_string_append (s, "}");
  end_event (trace);
}

static void
write_mark (GpuprofTrace * trace, const GpuprofEvent * ev, ElementName * en)
{
  static const gchar *names[] = { "\"mark\"", "\"EOS\"", "\"flush-start\"",
    "\"flush-stop\"", "\"segment\"", "\"state-change\"", "\"queue-drop\""
  };
  GString *s = trace->out;
  guint64 kind = ev->arg0 < G_N_ELEMENTS (names) ? ev->arg0 : 0;

  begin_event (trace, "i", "mark", names[kind], ev->thread_id);
  append_ts (trace, ev->ts);
  g_string_append (s, ",\"s\":\"t\",\"args\":{");
  if (en) {
    g_string_append (s, "\"element\":");
    g_string_append (s, en->json);
    g_string_append (s, ",\"pad\":");
    g_string_append (s, pad_name (trace, ev->pad_id));
    g_string_append_c (s, ',');
  }
  if (kind == GPUPROF_MARK_STATE_CHANGE) {
    g_string_append (s, "\"transition\":");
    gpuprof_json_append_string (s,
        gst_state_change_get_name ((GstStateChange) ev->seq));
  } else {
    append_member_u64 (s, "\"seq\":", ev->seq);
  }
  g_string_append_c (s, '}');
  end_event (trace);
}

/* --- global events ------------------------------------------------------ */

void
gpuprof_trace_chrome_write_cap_mark (GpuprofTrace * trace)
{
  GString *s = trace->out;

  begin_event (trace, "i", "gpuprof", "\"gpuprof trace capped\"", 0);
  append_ts (trace, trace->last_ts);
  append_member_u64 (s, ",\"s\":\"g\",\"args\":{\"max_bytes\":",
      trace->max_bytes);
  g_string_append (s, "}}");
  trace->stats.events_written++;
}

static void
write_global_instant (GpuprofTrace * trace, const gchar * name_json,
    const gchar * args_json)
{
  begin_event (trace, "i", "gpuprof", name_json, 0);
  append_ts (trace, trace->last_ts);
  g_string_append (trace->out, ",\"s\":\"g\",\"args\":");
  g_string_append (trace->out, args_json);
  end_event (trace);
}

/* The run summary as a global instant event: `gst-gpuprof report` prints
 * the report from it. */
void
gpuprof_trace_chrome_write_summary (GpuprofTrace * trace,
    const gchar * summary_json)
{
  gchar *args, *p;

  /* one event per line, for readers that scan lines; a raw newline in JSON
   * is only ever whitespace */
  args = g_strdup_printf ("{\"summary\":%s}", summary_json);
  for (p = args; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  write_global_instant (trace, "\"gpuprof summary\"", args);
  g_free (args);
}

/* The writer's counters, last event of the file (events_lost summed by the
 * caller) */
void
gpuprof_trace_chrome_write_stats (GpuprofTrace * trace)
{
  GString *args = g_string_new (NULL);
  GpuprofTraceStats *st = &trace->stats;

  g_string_append_printf (args, "{\"clock\":\"us since gst_init\","
      "\"events_written\":%" G_GUINT64_FORMAT ",\"events_lost\":%"
      G_GUINT64_FORMAT ",\"events_dropped\":%" G_GUINT64_FORMAT
      ",\"events_filtered\":%" G_GUINT64_FORMAT ",\"max_bytes\":%"
      G_GUINT64_FORMAT ",\"capped\":%s}", st->events_written + 1,
      st->events_lost, st->events_dropped, st->events_filtered, st->max_bytes,
      st->capped ? "true" : "false");
  write_global_instant (trace, "\"gpuprof trace\"", args->str);
  g_string_free (args, TRUE);
}

void
gpuprof_trace_chrome_write_process_name (GpuprofTrace * trace,
    const gchar * name)
{
  write_metadata (trace, "process_name", 0, name);
}

/* One event in its JSON form, appended to trace->out. Returns %FALSE when
 * the element filter left it out. */
gboolean
gpuprof_trace_chrome_write_event (GpuprofTrace * trace,
    const GpuprofEvent * ev)
{
  ElementName *en = NULL;

  if (ev->element_id != 0) {
    en = element_name (trace, ev->element_id);
    if (!en->wanted)
      return FALSE;
  }
  /* its thread (or GPU track) is named before its first event */
  if (ev->type == GPUPROF_EVENT_GPU_OP)
    gpu_track_state (trace, ev);
  else
    thread_state (trace, ev->thread_id,
        ev->type == GPUPROF_EVENT_THREAD_NAME);

  switch (ev->type) {
    case GPUPROF_EVENT_CHAIN:
      if (en)
        write_chain (trace, ev, en);
      break;
    case GPUPROF_EVENT_QUEUE_IN:
      if (en)
        write_queue_in (trace, ev, en);
      break;
    case GPUPROF_EVENT_QUEUE_OUT:
      if (en)
        write_queue_out (trace, ev, en);
      break;
    case GPUPROF_EVENT_QUEUE_LEVEL:
      if (en)
        write_queue_level (trace, ev, en);
      break;
    case GPUPROF_EVENT_MARK:
      write_mark (trace, ev, en);
      break;
    case GPUPROF_EVENT_GPU_OP:
      write_gpu_op (trace, ev, en);
      break;
    case GPUPROF_EVENT_RATE:
      if (en)
        write_rate (trace, ev, en);
      break;
    default:
      break;
  }
  return TRUE;
}
