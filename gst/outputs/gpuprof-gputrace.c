/* gpuprof: GPU ops into the timeline trace (see gpuprof-gputrace.h).
 *
 * One process-wide attachment (there is one correlation engine). The op
 * listener runs with the engine lock held, which also serialises the pushes
 * into our one ring: it only converts, looks up small tables and copies an
 * event. Names (kernels, elements, threads) are resolved by the writer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gputrace.h"

#include "gpuprof-clock.h"
#include "gpuprof-gpu.h"
#include "gpuprof-thread.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_gputrace_debug);
#define GST_CAT_DEFAULT gpuprof_gputrace_debug

typedef struct
{
  GpuprofTrace *trace;
  GpuprofRing *ring;
  guint listener;
  GHashTable *tracks;           /* device << 32 | stream -> track number */
  GHashTable *names;            /* interned kernel name -> trace name id */
  GHashTable *host_threads;     /* OS tid -> gpuprof thread id */
  guint n_threads_seen;         /* length of the thread list at last refresh */
  guint64 next_flow;
  GpuprofGputraceStats stats;
} Gputrace;

/* attach/detach under attach_lock; 'current' is read by the listener, which
 * detach removes (waiting for it) before freeing */
static GMutex attach_lock;
static Gputrace *current;

static guint32
track_for (Gputrace * gt, guint32 device, guint32 * stream)
{
  guint64 key = ((guint64) device << 32) | *stream;
  gpointer n;

  if (g_hash_table_lookup_extended (gt->tracks, &key, NULL, &n))
    return GPOINTER_TO_UINT (n);
  if (g_hash_table_size (gt->tracks) >= GPUPROF_GPUTRACE_MAX_TRACKS) {
    /* bounded: a program cycling through streams shares one track */
    *stream = G_MAXUINT32;
    key = ((guint64) device << 32) | *stream;
    if (g_hash_table_lookup_extended (gt->tracks, &key, NULL, &n))
      return GPOINTER_TO_UINT (n);
  }
  n = GUINT_TO_POINTER (g_hash_table_size (gt->tracks) + 1);
  g_hash_table_insert (gt->tracks, g_memdup2 (&key, sizeof (key)), n);
  return GPOINTER_TO_UINT (n);
}

static guint32
name_for (Gputrace * gt, const gchar * interned)
{
  gpointer id;

  if (interned == NULL)
    return 0;
  id = g_hash_table_lookup (gt->names, interned);
  if (id == NULL) {
    id = GUINT_TO_POINTER (gpuprof_trace_intern_name (gt->trace, interned));
    if (id)
      g_hash_table_insert (gt->names, (gpointer) interned, id);
  }
  return GPOINTER_TO_UINT (id);
}

/* OS tid of the launching call -> the gpuprof thread whose track holds its
 * chain calls. The thread list is read again only when it grew, so a
 * private thread of an element costs a lookup, not a copy of the list. */
static guint32
host_thread_for (Gputrace * gt, guint32 os_tid)
{
  gpointer id;
  GPtrArray *threads;
  guint i;

  if (os_tid == 0)
    return 0;
  id = g_hash_table_lookup (gt->host_threads, GUINT_TO_POINTER (os_tid));
  if (id)
    return GPOINTER_TO_UINT (id);
  threads = gpuprof_thread_list ();
  if (threads->len != gt->n_threads_seen) {
    gt->n_threads_seen = threads->len;
    /* in creation order: a recycled OS tid ends on its newest thread */
    for (i = 0; i < threads->len; i++) {
      GpuprofThread *t = g_ptr_array_index (threads, i);
      g_hash_table_insert (gt->host_threads, GINT_TO_POINTER (t->tid),
          GUINT_TO_POINTER (t->id));
    }
    id = g_hash_table_lookup (gt->host_threads, GUINT_TO_POINTER (os_tid));
  }
  g_ptr_array_unref (threads);
  return GPOINTER_TO_UINT (id);
}

static void
on_op (const GpuprofGpuSettledOp * so, gpointer user_data)
{
  Gputrace *gt = user_data;
  const GpuprofGpuOp *op = so->op;
  GpuprofEvent ev = { 0, };
  guint32 stream = op->stream_id, track, host;

  if (op->start == 0 && op->end == 0) {
    gt->stats.untimed++;        /* no place on a timeline */
    return;
  }
  track = track_for (gt, op->device_id, &stream);
  host = host_thread_for (gt, so->thread_id);

  ev.type = GPUPROF_EVENT_GPU_OP;
  ev.element_id = so->element_id;
  ev.pad_id = op->kind == GPUPROF_GPU_OP_KERNEL ? name_for (gt, op->name) : 0;
  ev.thread_id = GPUPROF_EVENT_GPU_TRACK_BASE + track;
  ev.ts = gpuprof_clock_from_monotonic (op->start);
  ev.dur = op->end > op->start ? op->end - op->start : 0;
  ev.seq = so->seq == GPUPROF_GPU_SEQ_NONE ? G_MAXUINT64 : so->seq;
  ev.pts = gpuprof_event_gpu_host (host, op->correlation_id);
  ev.size = op->bytes;
  ev.self = so->api_start ? gpuprof_clock_from_monotonic (so->api_start) : 0;
  /* an arrow only from a chain call: launched under the element's id, on a
   * thread whose chain calls are in the trace */
  if (so->by == GPUPROF_GPU_BY_EXTERNAL && host && ev.self)
    ev.flow = ++gt->next_flow;
  ev.arg0 = gpuprof_event_gpu_where (op->device_id, stream, op->kind,
      op->copy_kind, so->by);

  if (!gpuprof_ring_push (gt->ring, &ev)) {
    gt->stats.lost++;
    return;
  }
  gt->stats.ops++;
  if (ev.flow)
    gt->stats.flows++;
  /* a burst (a forced flush at EOS): let the writer drain before it fills */
  if (gpuprof_ring_level (gt->ring) == GPUPROF_GPUTRACE_RING_CAPACITY / 4)
    gpuprof_bus_wake (gpuprof_trace_get_bus (gt->trace));
}

/**
 * gpuprof_gputrace_attach:
 * @trace: the open trace
 *
 * From now on every GPU record settled on the tracer channel is written to
 * @trace (call after gpuprof_cupti_start() succeeded and the tracer channel
 * is enabled). One trace at a time: a second attach replaces the first.
 *
 * Returns: %TRUE (attached)
 */
gboolean
gpuprof_gputrace_attach (GpuprofTrace * trace)
{
  static const GpuprofGpuListener listener = { on_op, NULL };
  Gputrace *gt;

  g_return_val_if_fail (trace != NULL, FALSE);
  GST_DEBUG_CATEGORY_INIT (gpuprof_gputrace_debug, "gpuprof-gputrace", 0,
      "gpuprof GPU ops in the trace");

  gpuprof_gputrace_detach (NULL);
  gt = g_new0 (Gputrace, 1);
  gt->trace = trace;
  gt->ring = gpuprof_trace_gpu_ring (trace, GPUPROF_GPUTRACE_RING_CAPACITY);
  gt->tracks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      NULL);
  gt->names = g_hash_table_new (NULL, NULL);
  gt->host_threads = g_hash_table_new (NULL, NULL);

  g_mutex_lock (&attach_lock);
  current = gt;
  gt->listener = gpuprof_gpu_add_listener (GPUPROF_GPU_CHANNEL_TRACER,
      &listener, gt);
  g_mutex_unlock (&attach_lock);
  GST_INFO ("GPU ops go to trace %s", gpuprof_trace_get_path (trace));
  return TRUE;
}

/**
 * gpuprof_gputrace_detach:
 * @trace: (nullable): the trace given to gpuprof_gputrace_attach(); %NULL
 *   for whichever is attached
 *
 * Stops writing GPU ops to @trace; waits for a call in progress. Call it
 * before gpuprof_trace_close() (after the last forced CUPTI flush, so the
 * last ops are in): what was pushed is written by the close.
 */
void
gpuprof_gputrace_detach (GpuprofTrace * trace)
{
  Gputrace *gt;

  g_mutex_lock (&attach_lock);
  gt = current;
  if (gt && (trace == NULL || gt->trace == trace))
    current = NULL;
  else
    gt = NULL;
  g_mutex_unlock (&attach_lock);
  if (gt == NULL)
    return;

  gpuprof_gpu_remove_listener (gt->listener);
  GST_INFO ("GPU ops in the trace: %" G_GUINT64_FORMAT " ops, %"
      G_GUINT64_FORMAT " arrows, %" G_GUINT64_FORMAT " untimed, %"
      G_GUINT64_FORMAT " lost", gt->stats.ops, gt->stats.flows,
      gt->stats.untimed, gt->stats.lost);
  g_hash_table_unref (gt->tracks);
  g_hash_table_unref (gt->names);
  g_hash_table_unref (gt->host_threads);
  g_free (gt);
}

/**
 * gpuprof_gputrace_get_stats:
 * @stats: (out): counters of the attached trace, zero when none
 */
void
gpuprof_gputrace_get_stats (GpuprofGputraceStats * stats)
{
  memset (stats, 0, sizeof (*stats));
  g_mutex_lock (&attach_lock);
  /* the listener writes them under the engine lock: a snapshot that may be
   * one op behind, good enough for counters */
  if (current)
    *stats = current->stats;
  g_mutex_unlock (&attach_lock);
}
