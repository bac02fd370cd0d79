/* gpuprof: timeline trace writer (see gpuprof-trace.h, docs/trace.md).
 *
 * Threads: streaming threads only push into their rings. Everything else
 * here runs in whoever drains — the writer thread every DRAIN_PERIOD_US, or
 * the caller of gpuprof_trace_flush()/close() — serialised by drain_lock.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-trace.h"

#include <gst/gst.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_trace_debug);
#define GST_CAT_DEFAULT gpuprof_trace_debug

#define DRAIN_PERIOD_US (20 * G_TIME_SPAN_MILLISECOND)
#define BATCH_EVENTS 1024
/* write out the chunk when it reaches this size: bounds the writer's memory */
#define CHUNK_BYTES (1 << 20)
/* a drain this large means producers are fast: drain again at once */
#define BUSY_DRAIN_EVENTS 4096
/* GPU launch arrows waiting for their chain slice, per thread */
#define MAX_PENDING_FLOWS 256
/* chain calls remembered per thread, to bind GPU launch arrows into them */
#define RECENT_CHAINS 1024
/* an API call this close to a chain call of its element is taken as inside
 * it: the CUPTI clock and the hook clock agree to well under this */
#define LAUNCH_TOLERANCE_NS 1000
/* distinct kernel names kept; later ones are written as "kernel" */
#define MAX_NAMES 65536

typedef struct
{
  gchar *json;                  /* JSON-escaped name, quotes included */
  gboolean wanted;              /* matches the element filter */
} ElementName;

typedef struct
{
  guint32 element_id;
  guint64 ts;
  guint64 end;
} RecentChain;

/* a GPU launch arrow whose chain call has not been written yet */
typedef struct
{
  guint32 element_id;
  guint32 gpu_tid;
  guint64 api_ts;
  guint64 f_ts;
  guint64 id;
} PendingGpuFlow;

typedef struct
{
  gchar *name;                  /* last name written as thread_name */
  gboolean gpu_track;           /* a pseudo thread: one GPU stream */
  RecentChain *recent;          /* ring of the last RECENT_CHAINS chain calls */
  guint recent_len, recent_next;
  GArray *pending_gpu;          /* PendingGpuFlow, launched from this thread */
} ThreadState;

struct _GpuprofTrace
{
  gchar *path;
  GpuprofTraceNames names;
  GRegex *filter;
  guint64 max_bytes;
  gint pid;

  /* lock guards: rings, ring_by_tid, stop */
  GMutex lock;
  GCond cond;
  GPtrArray *rings;
  GHashTable *ring_by_tid;
  gboolean stop;
  gboolean gpu_producer;        /* a GPU op ring exists */
  GThread *thread;

  /* for threads without a ring of their own; shared_lock serialises pushes */
  GMutex shared_lock;
  GpuprofRing *shared_ring;

  /* names_lock guards the kernel name table */
  GMutex names_lock;
  GHashTable *name_ids;         /* name -> id */
  GPtrArray *name_json;         /* id - 1 -> JSON-escaped name */

  /* drain_lock guards everything below */
  GMutex drain_lock;
  gint fd;
  GString *out;
  GpuprofEvent *batch;
  GPtrArray *drain_rings;
  GHashTable *elements;         /* id -> ElementName */
  GHashTable *pads;             /* id -> JSON-escaped name */
  GHashTable *threads;          /* tid -> ThreadState */
  gchar *pipeline_name;
  guint n_gpu_tracks;
  gboolean remember_chains;     /* copy of gpu_producer: arrows to bind */
  gboolean first_event;
  gboolean writing;             /* FALSE after the cap, an error or close */
  gboolean closed;
  guint64 last_ts;
  gchar *error_message;
  GpuprofTraceStats stats;      /* events_lost is summed from the rings */
};

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

static void
append_json_string (GString * s, const gchar * str)
{
  const guchar *p;

  g_string_append_c (s, '"');
  for (p = (const guchar *) str; *p; p++) {
    if (*p == '"' || *p == '\\') {
      g_string_append_c (s, '\\');
      g_string_append_c (s, *p);
    } else if (*p < 0x20) {
      g_string_append_printf (s, "\\u%04x", *p);
    } else {
      g_string_append_c (s, *p);
    }
  }
  g_string_append_c (s, '"');
}

static gchar *
json_quote (const gchar * str)
{
  GString *s = g_string_new (NULL);

  append_json_string (s, str);
  return g_string_free (s, FALSE);
}

/* --- names --------------------------------------------------------------- */

static ElementName *
element_name (GpuprofTrace * trace, guint32 id)
{
  ElementName *en = g_hash_table_lookup (trace->elements, GUINT_TO_POINTER (id));
  gchar *path = NULL;

  if (en)
    return en;
  if (trace->names.element_path)
    path = trace->names.element_path (id, trace->names.user_data);
  if (path == NULL) {
    /* not cached: the name may be known at the next event */
    static ElementName unknown = { (gchar *) "\"?\"", TRUE };
    return &unknown;
  }
  en = g_new0 (ElementName, 1);
  en->json = json_quote (path);
  en->wanted = trace->filter == NULL || g_regex_match (trace->filter, path, 0,
      NULL);
  g_free (path);
  g_hash_table_insert (trace->elements, GUINT_TO_POINTER (id), en);
  return en;
}

static void
element_name_free (gpointer p)
{
  ElementName *en = p;

  g_free (en->json);
  g_free (en);
}

static const gchar *
pad_name (GpuprofTrace * trace, guint32 id)
{
  gchar *json = g_hash_table_lookup (trace->pads, GUINT_TO_POINTER (id));
  gchar *name = NULL;

  if (json)
    return json;
  if (id != 0 && trace->names.pad_name)
    name = trace->names.pad_name (id, trace->names.user_data);
  if (name == NULL)
    return "\"\"";
  json = json_quote (name);
  g_free (name);
  g_hash_table_insert (trace->pads, GUINT_TO_POINTER (id), json);
  return json;
}

static void
thread_state_free (gpointer p)
{
  ThreadState *ts = p;

  g_free (ts->name);
  g_free (ts->recent);
  if (ts->pending_gpu)
    g_array_unref (ts->pending_gpu);
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
  g_string_append (s, ",\"pid\":");
  append_u64 (s, trace->pid);
  g_string_append (s, ",\"tid\":");
  append_u64 (s, tid);
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
  gchar *name_json = json_quote (what);

  begin_event (trace, "M", NULL, name_json, tid);
  g_string_append (trace->out, ",\"ts\":0,\"args\":{\"name\":");
  append_json_string (trace->out, name);
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
  if (trace->names.thread_name)
    name = trace->names.thread_name (tid, trace->names.user_data);
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
    g_string_append (s, ",\"buffers\":");
    append_u64 (s, ev->self);
  }
}

static void
write_flow (GpuprofTrace * trace, const gchar * ph, guint32 tid, guint64 ts,
    guint64 id)
{
  begin_event (trace, ph, "flow", "\"buffer\"", tid);
  append_ts (trace, ts);
  g_string_append (trace->out, ",\"id\":");
  append_u64 (trace->out, id);
  end_event (trace);
}

/* --- GPU ops and their launch arrows ------------------------------------ */

static void
remember_chain (ThreadState * ts, const GpuprofEvent * ev)
{
  RecentChain *rc;

  if (ts->recent == NULL)
    ts->recent = g_new (RecentChain, RECENT_CHAINS);
  rc = &ts->recent[ts->recent_next];
  rc->element_id = ev->element_id;
  rc->ts = ev->ts;
  rc->end = ev->ts + ev->dur;
  ts->recent_next = (ts->recent_next + 1) % RECENT_CHAINS;
  if (ts->recent_len < RECENT_CHAINS)
    ts->recent_len++;
}

static gboolean
chain_holds_launch (guint64 ts, guint64 end, guint64 api_ts)
{
  return api_ts + LAUNCH_TOLERANCE_NS >= ts && api_ts <= end +
      LAUNCH_TOLERANCE_NS;
}

/* Strictly inside the slice, so viewers that bind by time find it open
 * whatever the clock rounding was. */
static guint64
clamp_into (guint64 ts, guint64 end, guint64 t)
{
  if (end < ts + 2)
    return ts;
  return CLAMP (t, ts + 1, end - 1);
}

static void
write_gpu_flow (GpuprofTrace * trace, guint32 host_tid, guint64 s_ts,
    guint32 gpu_tid, guint64 f_ts, guint64 id)
{
  if (!trace->writing)
    return;
  begin_event (trace, "s", "flow", "\"launch\"", host_tid);
  append_ts (trace, s_ts);
  g_string_append (trace->out, ",\"id\":");
  append_u64 (trace->out, id);
  end_event (trace);
  /* bound to the op's own slice, not to the next one on the track */
  begin_event (trace, "f", "flow", "\"launch\"", gpu_tid);
  append_ts (trace, f_ts);
  g_string_append (trace->out, ",\"bp\":\"e\",\"id\":");
  append_u64 (trace->out, id);
  end_event (trace);
}

static void
write_pending_gpu_flow (GpuprofTrace * trace, guint32 host_tid,
    const PendingGpuFlow * pf, guint64 s_ts)
{
  write_gpu_flow (trace, host_tid, s_ts, pf->gpu_tid, pf->f_ts, pf->id);
}

/* A chain call of this thread was written: it may hold launches that
 * settled before it returned. */
static void
resolve_pending_gpu_flows (GpuprofTrace * trace, ThreadState * ts,
    const GpuprofEvent * ev)
{
  GArray *pending = ts->pending_gpu;
  guint64 end = ev->ts + ev->dur;
  guint i = 0;

  while (i < pending->len) {
    PendingGpuFlow *pf = &g_array_index (pending, PendingGpuFlow, i);

    if (pf->element_id == ev->element_id
        && chain_holds_launch (ev->ts, end, pf->api_ts)) {
      GST_LOG ("arrow %" G_GUINT64_FORMAT ": chain call came", pf->id);
      write_pending_gpu_flow (trace, ev->thread_id, pf,
          clamp_into (ev->ts, end, pf->api_ts));
    } else if (pf->api_ts > ev->ts && pf->api_ts < end) {
      /* a call of another element around the launch: the element's own
       * call, innermost, came before it and was lost; trust CUPTI's time */
      write_pending_gpu_flow (trace, ev->thread_id, pf, pf->api_ts);
    } else {
      i++;
      continue;
    }
    g_array_remove_index (pending, i);
  }
}

/* Whether a chain call holding @api_ts, if already written, is still among
 * the remembered ones (they are kept in the order they ended). */
static gboolean
recent_covers (ThreadState * ts, guint64 api_ts)
{
  if (ts->recent_len < RECENT_CHAINS)
    return TRUE;
  return api_ts > ts->recent[ts->recent_next].end;
}

static void
bind_gpu_flow (GpuprofTrace * trace, const GpuprofEvent * ev, guint64 f_ts)
{
  guint32 host_tid = GPUPROF_EVENT_GPU_HOST_THREAD (ev);
  ThreadState *h = thread_state (trace, host_tid, FALSE);
  PendingGpuFlow pf = { ev->element_id, ev->thread_id, ev->self, f_ts,
    ev->flow
  };
  guint i;

  /* newest first: the launch is recent, and the innermost call of the
   * element was written before the calls around it */
  for (i = 0; i < h->recent_len; i++) {
    RecentChain *rc = &h->recent[(h->recent_next + RECENT_CHAINS - 1 - i) %
        RECENT_CHAINS];
    if (rc->element_id == ev->element_id
        && chain_holds_launch (rc->ts, rc->end, ev->self)) {
      GST_LOG ("arrow %" G_GUINT64_FORMAT ": chain call known", pf.id);
      write_pending_gpu_flow (trace, host_tid, &pf,
          clamp_into (rc->ts, rc->end, ev->self));
      return;
    }
  }
  if (!recent_covers (h, ev->self)) {
    /* older than what is remembered: inside the call by CUPTI's word */
    GST_LOG ("arrow %" G_GUINT64_FORMAT ": chain call forgotten", pf.id);
    write_pending_gpu_flow (trace, host_tid, &pf, ev->self);
    return;
  }
  /* its chain call is still running (or its event is in a ring not drained
   * yet): bind when it is written */
  if (h->pending_gpu == NULL)
    h->pending_gpu = g_array_new (FALSE, FALSE, sizeof (PendingGpuFlow));
  if (h->pending_gpu->len >= MAX_PENDING_FLOWS) {
    PendingGpuFlow *old = &g_array_index (h->pending_gpu, PendingGpuFlow, 0);
    write_pending_gpu_flow (trace, host_tid, old, old->api_ts);
    g_array_remove_index (h->pending_gpu, 0);
  }
  GST_LOG ("arrow %" G_GUINT64_FORMAT ": waits for its chain call", pf.id);
  g_array_append_val (h->pending_gpu, pf);
}

/* At close: arrows whose chain call never came are drawn at CUPTI's time */
static void
write_orphan_gpu_flows (GpuprofTrace * trace)
{
  GHashTableIter it;
  gpointer k, v;
  guint i;

  g_hash_table_iter_init (&it, trace->threads);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    ThreadState *ts = v;

    for (i = 0; ts->pending_gpu && i < ts->pending_gpu->len; i++) {
      PendingGpuFlow *pf = &g_array_index (ts->pending_gpu, PendingGpuFlow,
          i);
      write_pending_gpu_flow (trace, GPOINTER_TO_UINT (k), pf, pf->api_ts);
    }
    if (ts->pending_gpu)
      g_array_set_size (ts->pending_gpu, 0);
  }
}

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

  sort_json = json_quote ("thread_sort_index");
  begin_event (trace, "M", NULL, sort_json, ev->thread_id);
  g_string_append (trace->out, ",\"ts\":0,\"args\":{\"sort_index\":");
  append_u64 (trace->out, 1000000 + (ev->thread_id -
          GPUPROF_EVENT_GPU_TRACK_BASE));
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
  g_string_append (s, ",\"bytes\":");
  append_u64 (s, ev->size);
  g_string_append (s, ",\"correlation\":");
  append_u64 (s, GPUPROF_EVENT_GPU_CORRELATION (ev));
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
  g_string_append (s, "\",\"device\":");
  append_u64 (s, GPUPROF_EVENT_GPU_DEVICE (ev));
  g_string_append (s, ",\"stream\":");
  append_u64 (s, GPUPROF_EVENT_GPU_STREAM (ev));
  g_string_append (s, "}");
  end_event (trace);

  if (ev->flow && ev->self && GPUPROF_EVENT_GPU_HOST_THREAD (ev))
    bind_gpu_flow (trace, ev, clamp_into (ev->ts, ev->ts + ev->dur, ev->ts));
}

static void
write_chain (GpuprofTrace * trace, ThreadState * ts, const GpuprofEvent * ev,
    ElementName * en)
{
  GString *s = trace->out;

  begin_event (trace, "X", "chain", en->json, ev->thread_id);
  append_ts (trace, ev->ts);
  g_string_append (s, ",\"dur\":");
  append_us (s, ev->dur);
  g_string_append (s, ",\"args\":{\"pad\":");
  g_string_append (s, pad_name (trace, ev->pad_id));
  g_string_append (s, ",\"seq\":");
  append_u64 (s, ev->seq);
  append_pts (s, ev->pts);
  g_string_append (s, ",\"size\":");
  append_u64 (s, ev->size);
  g_string_append (s, ",\"self_ns\":");
  append_u64 (s, ev->self);
  if (ev->flow) {
    g_string_append (s, ",\"flow\":");
    append_u64 (s, ev->flow);
  }
  g_string_append_c (s, '}');
  end_event (trace);
  if (trace->remember_chains)
    remember_chain (ts, ev);
  if (ts->pending_gpu && ts->pending_gpu->len)
    resolve_pending_gpu_flows (trace, ts, ev);
}

static void
write_queue_in (GpuprofTrace * trace, const GpuprofEvent * ev,
    ElementName * en)
{
  GString *s = trace->out;

  begin_event (trace, "b", "queue", en->json, ev->thread_id);
  append_ts (trace, ev->ts);
  g_string_append (s, ",\"id\":");
  append_u64 (s, queue_buffer_id (ev));
  g_string_append (s, ",\"args\":{\"seq\":");
  append_u64 (s, ev->seq);
  append_pts (s, ev->pts);
  g_string_append (s, ",\"size\":");
  append_u64 (s, ev->size);
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
  g_string_append (s, ",\"id\":");
  append_u64 (s, id);
  g_string_append (s, ",\"args\":{\"result\":\"");
  g_string_append (s, results[outcome < G_N_ELEMENTS (results) ? outcome : 0]);
  g_string_append_c (s, '"');
  append_buffers (s, ev);
  g_string_append_c (s, '}');
  end_event (trace);
  if (outcome == 0)
    write_buffer_arrow (trace, ev, id);
}

static void
write_queue_level (GpuprofTrace * trace, const GpuprofEvent * ev,
    ElementName * en)
{
  GString *s = trace->out;
  gchar *name;

  /* "pipeline0/q level": strip the closing quote and add the suffix */
  name = g_strdup_printf ("%.*s level\"", (gint) strlen (en->json) - 1,
      en->json);
  begin_event (trace, "C", "queue", name, ev->thread_id);
  g_free (name);
  append_ts (trace, ev->ts);
  g_string_append (s, ",\"args\":{\"buffers\":");
  append_u64 (s, ev->self);
  g_string_append (s, ",\"bytes\":");
  append_u64 (s, ev->size);
  g_string_append_c (s, '}');
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
    append_json_string (s, gst_state_change_get_name ((GstStateChange)
            ev->seq));
  } else {
    g_string_append (s, "\"seq\":");
    append_u64 (s, ev->seq);
  }
  g_string_append_c (s, '}');
  end_event (trace);
}

/* --- writing the file ---------------------------------------------------- */

static void
fail (GpuprofTrace * trace, const gchar * what, gint errsv)
{
  if (trace->stats.failed)
    return;
  trace->stats.failed = TRUE;
  trace->writing = FALSE;
  trace->error_message =
      g_strdup_printf ("gpuprof: cannot %s trace file '%s': %s; "
      "tracing stopped, the pipeline goes on", what, trace->path,
      g_strerror (errsv));
  /* the one message for the user; later events are silently counted */
  GST_ERROR ("%s", trace->error_message);
  g_printerr ("%s\n", trace->error_message);
}

static void
write_out (GpuprofTrace * trace)
{
  const gchar *p = trace->out->str;
  gsize left = trace->out->len;

  while (left > 0 && !trace->stats.failed) {
    gssize n = write (trace->fd, p, left);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fail (trace, "write", n < 0 ? errno : ENOSPC);
      break;
    }
    p += n;
    left -= n;
    trace->stats.bytes_written += n;
  }
  g_string_truncate (trace->out, 0);
}

static gboolean
over_cap (GpuprofTrace * trace)
{
  return trace->max_bytes > 0
      && trace->stats.bytes_written + trace->out->len > trace->max_bytes;
}

static void
write_cap_mark (GpuprofTrace * trace)
{
  GString *s = trace->out;

  begin_event (trace, "i", "gpuprof", "\"gpuprof trace capped\"", 0);
  append_ts (trace, trace->last_ts);
  g_string_append (s, ",\"s\":\"g\",\"args\":{\"max_bytes\":");
  append_u64 (s, trace->max_bytes);
  g_string_append (s, "}}");
  trace->stats.events_written++;
}

static void
write_event (GpuprofTrace * trace, const GpuprofEvent * ev)
{
  ElementName *en = NULL;
  ThreadState *ts;
  gsize mark = trace->out->len;
  gboolean first = trace->first_event;
  guint64 written = trace->stats.events_written;

  if (!trace->writing) {
    trace->stats.events_dropped++;
    return;
  }
  if (ev->element_id != 0) {
    en = element_name (trace, ev->element_id);
    if (!en->wanted) {
      trace->stats.events_filtered++;
      return;
    }
  }
  if (ev->type == GPUPROF_EVENT_GPU_OP)
    ts = gpu_track_state (trace, ev);
  else
    ts = thread_state (trace, ev->thread_id,
        ev->type == GPUPROF_EVENT_THREAD_NAME);

  switch (ev->type) {
    case GPUPROF_EVENT_CHAIN:
      if (en)
        write_chain (trace, ts, ev, en);
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
    default:
      break;
  }

  if (over_cap (trace)) {
    /* undo this event: the file stays below the cap, then say why it ends */
    g_string_truncate (trace->out, mark);
    trace->first_event = first;
    trace->stats.events_written = written;
    trace->stats.events_dropped++;
    trace->stats.capped = TRUE;
    trace->writing = FALSE;
    write_cap_mark (trace);
    GST_WARNING ("trace %s reached its cap of %" G_GUINT64_FORMAT
        " bytes: no more events", trace->path, trace->max_bytes);
  } else if (trace->out->len >= CHUNK_BYTES) {
    write_out (trace);
  }
}

static void
update_pipeline_name (GpuprofTrace * trace)
{
  gchar *name;

  if (!trace->names.pipeline_name || !trace->writing)
    return;
  name = trace->names.pipeline_name (trace->names.user_data);
  if (name && g_strcmp0 (name, trace->pipeline_name) != 0) {
    write_metadata (trace, "process_name", 0, name);
    g_free (trace->pipeline_name);
    trace->pipeline_name = name;
  } else {
    g_free (name);
  }
}

/* drain_lock held. Returns the number of events drained. */
static guint
drain_locked (GpuprofTrace * trace)
{
  guint total = 0, i, n, k;

  g_mutex_lock (&trace->lock);
  g_ptr_array_set_size (trace->drain_rings, 0);
  for (i = 0; i < trace->rings->len; i++)
    g_ptr_array_add (trace->drain_rings, g_ptr_array_index (trace->rings, i));
  trace->remember_chains = trace->gpu_producer;
  g_mutex_unlock (&trace->lock);

  update_pipeline_name (trace);

  g_mutex_lock (&trace->shared_lock);
  while ((n = gpuprof_ring_pop (trace->shared_ring, trace->batch,
              BATCH_EVENTS)) > 0) {
    for (k = 0; k < n; k++)
      write_event (trace, &trace->batch[k]);
    total += n;
  }
  g_mutex_unlock (&trace->shared_lock);

  for (i = 0; i < trace->drain_rings->len; i++) {
    GpuprofRing *ring = g_ptr_array_index (trace->drain_rings, i);

    /* take only what is there now, so a busy thread cannot starve others */
    guint level = gpuprof_ring_level (ring);

    while (level > 0 && (n = gpuprof_ring_pop (ring, trace->batch,
                MIN (level, BATCH_EVENTS))) > 0) {
      for (k = 0; k < n; k++)
        write_event (trace, &trace->batch[k]);
      level -= n;
      total += n;
    }
  }
  if (trace->out->len > 0 && !trace->stats.failed)
    write_out (trace);
  g_string_truncate (trace->out, 0);
  return total;
}

static gpointer
writer_thread (gpointer data)
{
  GpuprofTrace *trace = data;

  g_mutex_lock (&trace->lock);
  while (!trace->stop) {
    guint n;

    g_mutex_unlock (&trace->lock);
    g_mutex_lock (&trace->drain_lock);
    n = drain_locked (trace);
    g_mutex_unlock (&trace->drain_lock);
    g_mutex_lock (&trace->lock);
    if (n < BUSY_DRAIN_EVENTS && !trace->stop)
      g_cond_wait_until (&trace->cond, &trace->lock,
          g_get_monotonic_time () + DRAIN_PERIOD_US);
  }
  g_mutex_unlock (&trace->lock);
  return NULL;
}

/* --- public API ---------------------------------------------------------- */

/**
 * gpuprof_trace_new:
 * @path: file to write (created or truncated)
 * @names: how to turn ids into names; copied
 * @max_bytes: size cap of the file (the trace-max-mb parameter), 0 for none
 * @element_filter: (nullable): only elements whose path matches are traced
 *   (the trace-elements parameter); a reference is taken
 * @err: where to put the error when @path cannot be opened
 *
 * Opens @path, writes the opening bracket and starts the writer thread. When
 * the file cannot be created, prints one error for the user (naming the path
 * and the reason), sets @err and returns %NULL: the caller simply traces
 * nothing and must not print the error again.
 *
 * Returns: (transfer full) (nullable): the trace, or %NULL on error
 */
GpuprofTrace *
gpuprof_trace_new (const gchar * path, const GpuprofTraceNames * names,
    guint64 max_bytes, GRegex * element_filter, GError ** err)
{
  GpuprofTrace *trace;
  gint fd;

  g_return_val_if_fail (path != NULL, NULL);

  GST_DEBUG_CATEGORY_INIT (gpuprof_trace_debug, "gpuprof-trace", 0,
      "gpuprof timeline trace writer");

  fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    gint errsv = errno;
    gchar *msg = g_strdup_printf ("gpuprof: cannot create trace file '%s': "
        "%s; running without a trace", path, g_strerror (errsv));

    GST_ERROR ("%s", msg);
    g_printerr ("%s\n", msg);
    g_set_error_literal (err, G_FILE_ERROR, g_file_error_from_errno (errsv),
        msg);
    g_free (msg);
    return NULL;
  }

  trace = g_new0 (GpuprofTrace, 1);
  trace->path = g_strdup (path);
  if (names)
    trace->names = *names;
  trace->filter = element_filter ? g_regex_ref (element_filter) : NULL;
  trace->max_bytes = max_bytes;
  trace->stats.max_bytes = max_bytes;
  trace->pid = getpid ();
  trace->fd = fd;
  g_mutex_init (&trace->lock);
  g_cond_init (&trace->cond);
  g_mutex_init (&trace->drain_lock);
  g_mutex_init (&trace->shared_lock);
  g_mutex_init (&trace->names_lock);
  trace->name_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  trace->name_json = g_ptr_array_new_with_free_func (g_free);
  trace->rings = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_ring_free);
  trace->ring_by_tid = g_hash_table_new (NULL, NULL);
  trace->shared_ring = gpuprof_ring_new (0, 4096);
  trace->out = g_string_sized_new (CHUNK_BYTES + 4096);
  trace->batch = g_new (GpuprofEvent, BATCH_EVENTS);
  trace->drain_rings = g_ptr_array_new ();
  trace->elements = g_hash_table_new_full (NULL, NULL, NULL,
      element_name_free);
  trace->pads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  trace->threads = g_hash_table_new_full (NULL, NULL, NULL,
      thread_state_free);
  trace->first_event = TRUE;
  trace->writing = TRUE;

  g_string_append (trace->out, "[\n");
  write_out (trace);
  if (trace->stats.failed) {
    g_set_error_literal (err, G_FILE_ERROR, G_FILE_ERROR_IO,
        trace->error_message);
    trace->closed = TRUE;
    gpuprof_trace_free (trace);
    return NULL;
  }
  trace->thread = g_thread_new ("gpuprof-trace", writer_thread, trace);
  return trace;
}

/**
 * gpuprof_trace_ring_for_thread:
 * @trace: the trace
 * @thread_id: the calling thread's gpuprof id
 *
 * Called by a streaming thread the first time it has an event for the trace
 * (takes a lock and allocates); the hook keeps the pointer in its per-thread
 * state and calls gpuprof_trace_push() with it from then on. Only the thread
 * that asked may push to the ring. The ring lives until gpuprof_trace_free().
 *
 * Returns: (transfer none): the ring of @thread_id
 */
GpuprofRing *
gpuprof_trace_ring_for_thread (GpuprofTrace * trace, guint32 thread_id)
{
  return gpuprof_trace_ring_for_producer (trace, thread_id,
      GPUPROF_RING_DEFAULT_CAPACITY);
}

/**
 * gpuprof_trace_ring_for_producer:
 * @trace: the trace
 * @producer_id: a gpuprof thread id, or an id of the producer's own outside
 *   their range (GPUPROF_EVENT_GPU_TRACK_BASE for the GPU ops)
 * @capacity: events, 0 for the default; used when the ring is created
 *
 * Like gpuprof_trace_ring_for_thread(), for a producer that is not one
 * streaming thread: its pushes must be serialised by a lock of its own
 * (the GPU op listener runs under the correlation engine's lock).
 *
 * Returns: (transfer none): the ring of @producer_id
 */
GpuprofRing *
gpuprof_trace_ring_for_producer (GpuprofTrace * trace, guint32 producer_id,
    guint capacity)
{
  GpuprofRing *ring;
  guint32 thread_id = producer_id;

  g_mutex_lock (&trace->lock);
  ring = g_hash_table_lookup (trace->ring_by_tid, GUINT_TO_POINTER (thread_id));
  if (ring == NULL) {
    ring = gpuprof_ring_new (thread_id, capacity);
    /* chain calls are remembered only when arrows may need them */
    if (producer_id >= GPUPROF_EVENT_GPU_TRACK_BASE)
      trace->gpu_producer = TRUE;
    g_ptr_array_add (trace->rings, ring);
    g_hash_table_insert (trace->ring_by_tid, GUINT_TO_POINTER (thread_id),
        ring);
  }
  g_mutex_unlock (&trace->lock);
  return ring;
}

/**
 * gpuprof_trace_push_locked:
 * @trace: the trace
 * @ev: the event; copied
 *
 * For rare events from threads that have no ring (an application thread's
 * state change): takes a lock. Do not mix with gpuprof_trace_push() for the
 * same thread id, or that thread's events may come out of order.
 */
void
gpuprof_trace_push_locked (GpuprofTrace * trace, const GpuprofEvent * ev)
{
  g_mutex_lock (&trace->shared_lock);
  gpuprof_ring_push (trace->shared_ring, ev);
  g_mutex_unlock (&trace->shared_lock);
}

/**
 * gpuprof_trace_wake:
 * @trace: the trace
 *
 * Asks the writer thread to drain now rather than at its next period (a
 * producer whose ring fills up in bursts). Takes a lock; never waits for I/O.
 */
void
gpuprof_trace_wake (GpuprofTrace * trace)
{
  g_mutex_lock (&trace->lock);
  g_cond_signal (&trace->cond);
  g_mutex_unlock (&trace->lock);
}

/**
 * gpuprof_trace_intern_name:
 * @trace: the trace
 * @name: a string an event refers to (a kernel name)
 *
 * Gives @name a small id that fits an event field (GPUPROF_EVENT_GPU_OP's
 * pad_id); the writer turns it back into the string. The same string gets
 * the same id. Takes a lock and may allocate: not for streaming threads.
 * At most 65536 names are kept: later ones get 0 ("no name").
 *
 * Returns: the id, >= 1, or 0
 */
guint32
gpuprof_trace_intern_name (GpuprofTrace * trace, const gchar * name)
{
  gpointer id;

  if (name == NULL)
    return 0;
  g_mutex_lock (&trace->names_lock);
  id = g_hash_table_lookup (trace->name_ids, name);
  if (id == NULL && trace->name_json->len < MAX_NAMES) {
    g_ptr_array_add (trace->name_json, json_quote (name));
    id = GUINT_TO_POINTER (trace->name_json->len);
    g_hash_table_insert (trace->name_ids, g_strdup (name), id);
  }
  g_mutex_unlock (&trace->names_lock);
  return GPOINTER_TO_UINT (id);
}

/**
 * gpuprof_trace_flush:
 * @trace: the trace
 *
 * Drains every ring to the file now, in the calling thread (call it at EOS).
 * Waits for a drain already running in the writer thread.
 */
void
gpuprof_trace_flush (GpuprofTrace * trace)
{
  g_mutex_lock (&trace->drain_lock);
  drain_locked (trace);
  g_mutex_unlock (&trace->drain_lock);
}

void
gpuprof_trace_forget_names (GpuprofTrace * trace, const GArray * element_ids,
    const GArray * pad_ids)
{
  guint i;

  g_mutex_lock (&trace->drain_lock);
  for (i = 0; i < element_ids->len; i++)
    g_hash_table_remove (trace->elements,
        GUINT_TO_POINTER (g_array_index (element_ids, guint32, i)));
  for (i = 0; i < pad_ids->len; i++)
    g_hash_table_remove (trace->pads,
        GUINT_TO_POINTER (g_array_index (pad_ids, guint32, i)));
  g_mutex_unlock (&trace->drain_lock);
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

/* Written even after the cap: the summary is what `gst-gpuprof report`
 * needs, and it is small. */
static void
add_summary_locked (GpuprofTrace * trace, const gchar * summary_json)
{
  gchar *args, *p;

  if (trace->stats.failed || trace->closed)
    return;
  /* one event per line, for readers that scan lines; a raw newline in JSON
   * is only ever whitespace */
  args = g_strdup_printf ("{\"summary\":%s}", summary_json);
  for (p = args; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  write_global_instant (trace, "\"gpuprof summary\"", args);
  g_free (args);
  write_out (trace);
}

/**
 * gpuprof_trace_add_summary:
 * @trace: the trace
 * @summary_json: a run summary from gpuprof_summary_to_json()
 *
 * Drains, then writes @summary_json into the trace as a global instant event
 * "gpuprof summary", so `gst-gpuprof report` prints the report from the
 * trace. Call it once per pipeline report (the last one may instead be given
 * to gpuprof_trace_close()).
 */
void
gpuprof_trace_add_summary (GpuprofTrace * trace, const gchar * summary_json)
{
  g_return_if_fail (summary_json != NULL);

  g_mutex_lock (&trace->drain_lock);
  drain_locked (trace);
  add_summary_locked (trace, summary_json);
  g_mutex_unlock (&trace->drain_lock);
}

static guint64
sum_lost (GpuprofTrace * trace)
{
  guint64 lost;
  guint i;

  g_mutex_lock (&trace->lock);
  lost = gpuprof_ring_lost (trace->shared_ring);
  for (i = 0; i < trace->rings->len; i++)
    lost += gpuprof_ring_lost (g_ptr_array_index (trace->rings, i));
  g_mutex_unlock (&trace->lock);
  return lost;
}

static void
write_trace_stats (GpuprofTrace * trace)
{
  GString *args = g_string_new (NULL);
  GpuprofTraceStats *st = &trace->stats;

  st->events_lost = sum_lost (trace);
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

/**
 * gpuprof_trace_close:
 * @trace: the trace
 * @summary_json: (nullable): run summary to store, see
 *   gpuprof_trace_add_summary()
 * @err: where to put a write error
 *
 * Stops the writer thread, drains the rings, writes the summary, a final
 * "gpuprof trace" event with the writer's counters and the closing bracket,
 * and closes the file. Later pushes are counted, never written. Call it at
 * the end of the run (pipeline to NULL, process exit); calling it again does
 * nothing. The rings stay allocated until gpuprof_trace_free(), so a hook
 * still running cannot touch freed memory.
 *
 * Returns: %TRUE when the whole file was written
 */
gboolean
gpuprof_trace_close (GpuprofTrace * trace, const gchar * summary_json,
    GError ** err)
{
  g_mutex_lock (&trace->lock);
  trace->stop = TRUE;
  g_cond_signal (&trace->cond);
  g_mutex_unlock (&trace->lock);
  if (trace->thread) {
    g_thread_join (trace->thread);
    trace->thread = NULL;
  }

  g_mutex_lock (&trace->drain_lock);
  if (!trace->closed) {
    drain_locked (trace);
    write_orphan_gpu_flows (trace);
    if (summary_json)
      add_summary_locked (trace, summary_json);
    if (!trace->stats.failed) {
      write_trace_stats (trace);
      g_string_append (trace->out, "\n]\n");
      write_out (trace);
    }
    if (close (trace->fd) < 0)
      fail (trace, "close", errno);
    trace->fd = -1;
    trace->closed = TRUE;
    trace->writing = FALSE;
  }
  g_mutex_unlock (&trace->drain_lock);

  if (trace->stats.failed) {
    g_set_error_literal (err, G_FILE_ERROR, G_FILE_ERROR_IO,
        trace->error_message);
    return FALSE;
  }
  return TRUE;
}

/**
 * gpuprof_trace_free:
 * @trace: (transfer full) (nullable): the trace
 *
 * Closes the trace (without a summary) if needed and frees it, rings
 * included: call it only when no hook can push any more.
 */
void
gpuprof_trace_free (GpuprofTrace * trace)
{
  if (trace == NULL)
    return;
  if (!trace->closed)
    gpuprof_trace_close (trace, NULL, NULL);
  if (trace->fd >= 0)
    close (trace->fd);
  g_ptr_array_unref (trace->rings);
  g_hash_table_unref (trace->ring_by_tid);
  gpuprof_ring_free (trace->shared_ring);
  g_string_free (trace->out, TRUE);
  g_free (trace->batch);
  g_ptr_array_unref (trace->drain_rings);
  g_hash_table_unref (trace->elements);
  g_hash_table_unref (trace->pads);
  g_hash_table_unref (trace->threads);
  if (trace->filter)
    g_regex_unref (trace->filter);
  g_mutex_clear (&trace->lock);
  g_cond_clear (&trace->cond);
  g_mutex_clear (&trace->drain_lock);
  g_mutex_clear (&trace->shared_lock);
  g_mutex_clear (&trace->names_lock);
  g_hash_table_unref (trace->name_ids);
  g_ptr_array_unref (trace->name_json);
  g_free (trace->pipeline_name);
  g_free (trace->error_message);
  g_free (trace->path);
  g_free (trace);
}

/**
 * gpuprof_trace_get_path:
 * @trace: the trace
 *
 * Returns: the file name given to gpuprof_trace_new()
 */
const gchar *
gpuprof_trace_get_path (const GpuprofTrace * trace)
{
  return trace->path;
}

/**
 * gpuprof_trace_get_stats:
 * @trace: the trace
 * @stats: (out caller-allocates): the writer's counters so far
 */
void
gpuprof_trace_get_stats (GpuprofTrace * trace, GpuprofTraceStats * stats)
{
  g_mutex_lock (&trace->drain_lock);
  *stats = trace->stats;
  g_mutex_unlock (&trace->drain_lock);
  stats->events_lost = sum_lost (trace);
}

/**
 * gpuprof_trace_describe:
 * @trace: the trace
 *
 * One line for the end-of-run report, e.g. "trace: run.json, 12.3 MB,
 * 210000 events; capped at 10.0 MB (trace-max-mb), 5000 events not written".
 *
 * Returns: (transfer full): the line, without a newline
 */
gchar *
gpuprof_trace_describe (GpuprofTrace * trace)
{
  GpuprofTraceStats st;
  GString *s = g_string_new (NULL);

  gpuprof_trace_get_stats (trace, &st);
  g_string_append_printf (s, "trace: %s, %.1f MB, %" G_GUINT64_FORMAT
      " events", trace->path, st.bytes_written / 1e6, st.events_written);
  if (st.failed)
    g_string_append_printf (s, "; write failed, %" G_GUINT64_FORMAT
        " events not written", st.events_dropped);
  else if (st.capped)
    g_string_append_printf (s, "; capped at %.1f MB (trace-max-mb), %"
        G_GUINT64_FORMAT " events not written", st.max_bytes / 1e6,
        st.events_dropped);
  if (st.events_lost)
    g_string_append_printf (s, "; %" G_GUINT64_FORMAT " events lost "
        "(writer behind)", st.events_lost);
  if (st.events_filtered)
    g_string_append_printf (s, "; %" G_GUINT64_FORMAT " events filtered "
        "(trace-elements)", st.events_filtered);
  return g_string_free (s, FALSE);
}
