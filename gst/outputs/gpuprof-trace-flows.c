/* gpuprof: host -> GPU launch arrows in the timeline trace: where each
 * starts.
 *
 * A settled GPU op names the host thread and the API time of its launch;
 * the arrow starts inside the chain call of the launching element that
 * holds that time. The chain call may be written before the op (it is
 * remembered), after it (the arrow waits), or never (the arrow is drawn at
 * CUPTI's time). The binder keeps its own per-thread state and hands the
 * arrows it places back to the format (gpuprof-trace-chrome.c), which
 * writes them: it calls nothing of the trace. Runs under the trace's lock
 * (gpuprof-trace-private.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-trace-private.h"

#include <gst/gst.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_trace_flows_debug);
#define GST_CAT_DEFAULT gpuprof_trace_flows_debug

#define RECENT_CHAINS GPUPROF_TRACE_RECENT_CHAINS
#define MAX_PENDING_FLOWS GPUPROF_TRACE_MAX_PENDING_FLOWS
/* an API call this close to a chain call of its element is taken as inside
 * it: the CUPTI clock and the hook clock agree to well under this */
#define LAUNCH_TOLERANCE_NS 1000

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

/* per host thread */
typedef struct
{
  RecentChain *recent;          /* ring of the last RECENT_CHAINS */
  guint recent_len, recent_next;
  GArray *pending_gpu;          /* PendingGpuFlow, from this thread */
} ThreadState;

struct _GpuprofTraceFlows
{
  GHashTable *threads;          /* host gpuprof thread id -> ThreadState */
};

static void
thread_state_free (gpointer p)
{
  ThreadState *ts = p;

  g_free (ts->recent);
  if (ts->pending_gpu)
    g_array_unref (ts->pending_gpu);
  g_free (ts);
}

GpuprofTraceFlows *
gpuprof_trace_flows_new (void)
{
  GpuprofTraceFlows *f = g_new0 (GpuprofTraceFlows, 1);

  GST_DEBUG_CATEGORY_INIT (gpuprof_trace_flows_debug, "gpuprof-trace", 0,
      "gpuprof timeline trace writer");
  f->threads = g_hash_table_new_full (NULL, NULL, NULL, thread_state_free);
  return f;
}

void
gpuprof_trace_flows_free (GpuprofTraceFlows * f)
{
  if (!f)
    return;
  g_hash_table_unref (f->threads);
  g_free (f);
}

/* @tid's state, made on first use when @make, else NULL when none */
static ThreadState *
thread_state (GpuprofTraceFlows * f, guint32 tid, gboolean make)
{
  gpointer key = GUINT_TO_POINTER (tid), ts = NULL;

  if (!g_hash_table_lookup_extended (f->threads, key, NULL, &ts) && make)
    g_hash_table_insert (f->threads, key, ts = g_new0 (ThreadState, 1));
  return ts;
}

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


guint64
gpuprof_trace_flows_clamp_into (guint64 ts, guint64 end, guint64 t)
{
  return clamp_into (ts, end, t);
}

/* an arrow placed: its start at @s_ts on @host_tid */
static void
place (GArray * out, guint32 host_tid, const PendingGpuFlow * pf,
    guint64 s_ts)
{
  GpuprofTraceArrow a = { host_tid, s_ts, pf->gpu_tid, pf->f_ts, pf->id };

  g_array_append_val (out, a);
}

/* A chain call of this thread was written: it may hold launches that
 * settled before it returned. */
static void
resolve_pending_gpu_flows (ThreadState * ts, const GpuprofEvent * ev,
    GArray * out)
{
  GArray *pending = ts->pending_gpu;
  guint64 end = ev->ts + ev->dur;
  guint i = 0;

  while (i < pending->len) {
    PendingGpuFlow *pf = &g_array_index (pending, PendingGpuFlow, i);

    if (pf->element_id == ev->element_id
        && chain_holds_launch (ev->ts, end, pf->api_ts)) {
      GST_LOG ("arrow %" G_GUINT64_FORMAT ": chain call came", pf->id);
      place (out, ev->thread_id, pf, clamp_into (ev->ts, end, pf->api_ts));
    } else if (pf->api_ts > ev->ts && pf->api_ts < end) {
      /* a call of another element around the launch: the element's own
       * call, innermost, came before it and was lost; trust CUPTI's time */
      place (out, ev->thread_id, pf, pf->api_ts);
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

void
gpuprof_trace_flows_bind (GpuprofTraceFlows * f, const GpuprofEvent * ev,
    guint64 f_ts, GArray * out)
{
  guint32 host_tid = GPUPROF_EVENT_GPU_HOST_THREAD (ev);
  ThreadState *h = thread_state (f, host_tid, TRUE);
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
      place (out, host_tid, &pf, clamp_into (rc->ts, rc->end, ev->self));
      return;
    }
  }
  if (!recent_covers (h, ev->self)) {
    /* older than what is remembered: inside the call by CUPTI's word */
    GST_LOG ("arrow %" G_GUINT64_FORMAT ": chain call forgotten", pf.id);
    place (out, host_tid, &pf, ev->self);
    return;
  }
  /* its chain call is still running (or its event is in a ring not drained
   * yet): bind when it is written */
  if (h->pending_gpu == NULL)
    h->pending_gpu = g_array_new (FALSE, FALSE, sizeof (PendingGpuFlow));
  if (h->pending_gpu->len >= MAX_PENDING_FLOWS) {
    PendingGpuFlow *old = &g_array_index (h->pending_gpu, PendingGpuFlow, 0);
    place (out, host_tid, old, old->api_ts);
    g_array_remove_index (h->pending_gpu, 0);
  }
  GST_LOG ("arrow %" G_GUINT64_FORMAT ": waits for its chain call", pf.id);
  g_array_append_val (h->pending_gpu, pf);
}

void
gpuprof_trace_flows_orphans (GpuprofTraceFlows * f, GArray * out)
{
  GHashTableIter it;
  gpointer k, v;
  guint i;

  g_hash_table_iter_init (&it, f->threads);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    ThreadState *ts = v;

    for (i = 0; ts->pending_gpu && i < ts->pending_gpu->len; i++) {
      PendingGpuFlow *pf = &g_array_index (ts->pending_gpu, PendingGpuFlow,
          i);
      place (out, GPOINTER_TO_UINT (k), pf, pf->api_ts);
    }
    if (ts->pending_gpu)
      g_array_set_size (ts->pending_gpu, 0);
  }
}

void
gpuprof_trace_flows_chain_written (GpuprofTraceFlows * f, gboolean remember,
    const GpuprofEvent * ev, GArray * out)
{
  ThreadState *ts = thread_state (f, ev->thread_id, remember);

  if (!ts)
    return;
  if (remember)
    remember_chain (ts, ev);
  if (ts->pending_gpu && ts->pending_gpu->len)
    resolve_pending_gpu_flows (ts, ev, out);
}
