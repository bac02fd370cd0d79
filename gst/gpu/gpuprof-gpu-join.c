/* gpuprof: GPU attribution, the join (gpuprof-gpu-join.h).
 *
 * How a GPU record finds its element
 * ----------------------------------
 * CUPTI delivers, in buffers that may come in any order:
 *   - the GPU record (kernel, memcpy, memset) with a correlation id,
 *   - the API record (runtime or driver call) with the same correlation id and
 *     the OS thread that made the call,
 *   - zero to two external correlation records (one per channel whose id
 *     stack was not empty during the call), same correlation id.
 * All three meet in one Entry keyed by the correlation id. An entry whose
 * GPU records and API record are both there is "joined"; it is settled at the
 * next gpuprof_gpu_settle() after the one that saw it join, so an external
 * record delivered one buffer later than its API record still counts. An
 * entry that waits longer than retain_ns (in arrival time), or is the oldest
 * when max_pending is reached, or is still there at a forced settle, is settled
 * with what it has and counted as unjoined: no record is ever dropped.
 * Host-only entries (API calls that launched nothing) are freed on expiry.
 *
 * Settling an op makes one GpuprofGpuSettledOp per used channel (the one
 * attribution rule, attribute_locked()) and hands it to the statistics and
 * to the op listeners alike.
 *
 * Locking: all of it under the engine's lock (gpuprof-gpu-engine.h).
 * Calls: the engine, the threads' slots, the launch table and the
 * statistics, nothing above.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-join.h"
#include "gpuprof-gpu-engine.h"
#include "gpuprof-gpu-launch.h"
#include "gpuprof-gpu-stats.h"
#include "gpuprof-gpu-threads.h"

#include <string.h>

#define ENTRY_HAVE_API    (1 << 0)
#define ENTRY_HAVE_EXT(c) (1 << (1 + (c)))
#define ENTRY_GRAPH       (1 << 4)
#define ENTRY_READY       (1 << 5)
#define ENTRY_HAVE_LAST(c) (1 << (6 + (c)))     /* ext[c]: element at launch */
#define ENTRY_HAVE_OWNER(c) (1 << (8 + (c)))    /* ext[c]: owner and batch */

typedef struct _PendingOp PendingOp;
struct _PendingOp
{
  GpuprofGpuOp op;              /* name interned */
  PendingOp *next;
};

/* CUPTI names a kernel with one pointer for all its records: interning is
 * cached per pointer (and checked, as a pointer may be reused for another
 * name after a module unload) */
#define NAME_CACHE 256          /* power of two */

/* entries get their arrival time at the first settle that sees them */
#define ARRIVAL_UNSET G_MAXUINT64

typedef struct _Entry Entry;
struct _Entry
{
  guint32 corr;
  guint32 flags;
  guint32 thread_id;
  guint64 api_start;            /* 0 when unknown */
  guint64 api_end;
  guint64 ext[GPUPROF_GPU_N_CHANNELS];
  guint64 arrival;              /* 'now' of the first settle after it came */
  guint64 joined_epoch;
  PendingOp *ops;
  guint n_ops;
  Entry *prev, *next;           /* arrival order */
};

/* the join's state: all under the engine's lock; set up on first use
 * (entries != NULL) */
static struct
{
  GHashTable *entries;          /* corr -> Entry */
  Entry *oldest, *newest;
  guint n_entries;
  GQueue ready;                 /* corr ids joined, in join order */
  guint64 epoch;                /* settles so far */
  guint64 now;                  /* 'now' of the last settle */
  guint64 settled_arrival;
  guint64 dropped_records;
  guint64 api_records, external_records;
  guint64 launch_records;
  guint64 pending_ops;
  /* CUPTI's kernel name pointer -> interned name */
  const gchar *name_raw[NAME_CACHE];
  const gchar *name_interned[NAME_CACHE];
} join;

static void
entry_free (Entry * e)
{
  while (e->ops) {
    PendingOp *n = e->ops->next;
    g_free (e->ops);
    e->ops = n;
  }
  g_free (e);
}

static void
ensure_locked (void)
{
  if (join.entries)
    return;
  join.entries = g_hash_table_new (NULL, NULL);
  g_queue_init (&join.ready);
}

void
gpuprof_gpu_join_clear_locked (void)
{
  GHashTableIter it;
  gpointer v;

  if (!join.entries)
    return;
  g_hash_table_iter_init (&it, join.entries);
  while (g_hash_table_iter_next (&it, NULL, &v))
    entry_free (v);
  g_clear_pointer (&join.entries, g_hash_table_unref);
  g_queue_clear (&join.ready);
  memset (&join, 0, sizeof (join));
}

/**
 * gpuprof_gpu_get_totals:
 * @channel: the channel
 * @totals: (out): filled: the statistics' sums and the join's counters
 */
void
gpuprof_gpu_get_totals (GpuprofGpuChannel channel, GpuprofGpuTotals * totals)
{
  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  gpuprof_gpu_stats_totals_locked (channel, totals);
  totals->pending = join.pending_ops;
  totals->dropped = join.dropped_records;
  totals->api_records = join.api_records;
  totals->external_records = join.external_records;
  totals->launch_records = join.launch_records;
  totals->pending_ids = join.n_entries;
  gpuprof_gpu_engine_unlock ();
}

/* -- entries -- */

static Entry *
entry_get_locked (guint32 corr)
{
  Entry *e = g_hash_table_lookup (join.entries, GUINT_TO_POINTER (corr));

  if (e)
    return e;
  e = g_new0 (Entry, 1);
  e->corr = corr;
  e->arrival = ARRIVAL_UNSET;
  e->prev = join.newest;
  if (join.newest)
    join.newest->next = e;
  else
    join.oldest = e;
  join.newest = e;
  join.n_entries++;
  g_hash_table_insert (join.entries, GUINT_TO_POINTER (corr), e);
  return e;
}

static void
entry_remove_locked (Entry * e)
{
  if (e->prev)
    e->prev->next = e->next;
  else
    join.oldest = e->next;
  if (e->next)
    e->next->prev = e->prev;
  else
    join.newest = e->prev;
  join.n_entries--;
  g_hash_table_remove (join.entries, GUINT_TO_POINTER (e->corr));
  join.pending_ops -= e->n_ops;
  entry_free (e);
}

static void
maybe_ready_locked (Entry * e)
{
  if (e->ops && (e->flags & ENTRY_HAVE_API) && !(e->flags & ENTRY_READY)) {
    e->flags |= ENTRY_READY;
    e->joined_epoch = join.epoch;
    g_queue_push_tail (&join.ready, GUINT_TO_POINTER (e->corr));
  }
}

/* The one attribution rule, shared by the statistics and the op listeners */
static void
attribute_locked (GpuprofGpuChannel c, const Entry * e,
    const GpuprofGpuOp * op, gboolean unjoined, GpuprofGpuSettledOp * so)
{
  gboolean have_api = (e->flags & ENTRY_HAVE_API) != 0;

  so->op = op;
  so->channel = c;
  so->by = GPUPROF_GPU_BY_NONE;
  so->element_id = 0;
  so->seq = GPUPROF_GPU_SEQ_NONE;
  /* an id with element 0 (a ghost pad's query) says nothing: the thread's */
  if ((e->flags & ENTRY_HAVE_EXT (c)) && gpuprof_gpu_id_element (e->ext[c])) {
    so->element_id = gpuprof_gpu_id_element (e->ext[c]);
    so->by = GPUPROF_GPU_BY_EXTERNAL;
    so->seq = gpuprof_gpu_id_seq (e->ext[c]);
  } else if (e->flags & ENTRY_HAVE_OWNER (c)) {
    /* an owned thread, outside calls: the owner's oldest batch at launch */
    so->element_id = gpuprof_gpu_id_element (e->ext[c]);
    so->seq = gpuprof_gpu_id_seq (e->ext[c]);
    so->by = GPUPROF_GPU_BY_THREAD;
  } else if (e->flags & ENTRY_HAVE_LAST (c)) {
    so->element_id = (guint32) e->ext[c];
    if (so->element_id)
      so->by = GPUPROF_GPU_BY_THREAD;
  } else if (have_api) {
    guint32 owner;

    so->element_id = gpuprof_gpu_thread_last (e->thread_id, c, &owner);
    if (so->element_id)
      so->by = GPUPROF_GPU_BY_THREAD;
    /* activity path: the owner's oldest batch now, not at launch */
    if (owner && so->element_id == owner)
      so->seq = gpuprof_gpu_thread_owner_batch (c, owner, 0);
  }
  so->thread_id = have_api ? e->thread_id : 0;
  so->api_start = have_api ? e->api_start : 0;
  so->api_end = have_api ? e->api_end : 0;
  so->unjoined = unjoined;
}

/* one GPU record, attributed for each used channel */
static void
settle_op_locked (const Entry * e, const GpuprofGpuOp * op, gboolean unjoined)
{
  guint c;
  gboolean graph = (e->flags & ENTRY_GRAPH) != 0;
  gint used = gpuprof_gpu_engine_channels_used ();
  guint64 ns = 0;

  if (op->end > op->start)
    ns = op->end - op->start;
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
    GpuprofGpuSettledOp so;

    if (!(used & (1 << c)))
      continue;
    attribute_locked (c, e, op, unjoined, &so);
    gpuprof_gpu_stats_account_locked (&so, ns, graph);
    if (gpuprof_gpu_engine_have_op_listeners_locked ())
      gpuprof_gpu_engine_call_op_listeners_locked (&so);
  }
  if (ns)
    gpuprof_gpu_stats_device_add_locked (op);
}

/* Returns whether the entry is done with (the caller frees it). */
static gboolean
settle_entry_locked (Entry * e, gboolean unjoined)
{
  gboolean graph = (e->flags & ENTRY_GRAPH) != 0;

  while (e->ops) {
    PendingOp *p = e->ops;

    settle_op_locked (e, &p->op, unjoined);
    e->ops = p->next;
    e->n_ops--;
    join.pending_ops--;
    g_free (p);
  }
  e->flags &= ~ENTRY_READY;
  /* a graph launch may deliver more records under this id: keep its host
   * records until they expire; otherwise the join is complete */
  return !graph;
}

static void
evict_locked (void)
{
  while (join.n_entries > gpuprof_gpu_engine_config_locked ()->max_pending && join.oldest) {
    Entry *e = join.oldest;
    settle_entry_locked (e, !(e->flags & ENTRY_HAVE_API));
    entry_remove_locked (e);
  }
}

static const gchar *
intern_cached_locked (const gchar * raw)
{
  guint h;

  if (!raw)
    return NULL;
  h = (guint) (((guintptr) raw >> 3) * 2654435761u) & (NAME_CACHE - 1);
  if (join.name_raw[h] != raw || strcmp (join.name_interned[h], raw)) {
    join.name_raw[h] = raw;
    join.name_interned[h] = g_intern_string (raw);
  }
  return join.name_interned[h];
}

/**
 * gpuprof_gpu_add_op:
 * @op: a GPU record; copied
 *
 * Record side: takes a kernel, memcpy or memset record in any order relative
 * to its API and external correlation records.
 */
void
gpuprof_gpu_add_op (const GpuprofGpuOp * op)
{
  Entry *e;
  PendingOp *p;

  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  e = entry_get_locked (op->correlation_id);
  p = g_new (PendingOp, 1);
  p->op = *op;
  p->op.name = intern_cached_locked (op->name);
  p->next = e->ops;
  e->ops = p;
  e->n_ops++;
  join.pending_ops++;
  if (op->graph_id)
    e->flags |= ENTRY_GRAPH;
  maybe_ready_locked (e);
  evict_locked ();
  gpuprof_gpu_engine_unlock ();
}

/**
 * gpuprof_gpu_add_api:
 * @correlation_id: correlation id of the call
 * @thread_id: OS thread that made it (CUpti_ActivityAPI.threadId)
 * @cbid: runtime or driver callback id (kept for debugging)
 * @start: call start, monotonic ns
 * @end: call end
 *
 * Record side: a runtime or driver API record.
 */
void
gpuprof_gpu_add_api (guint32 correlation_id, guint32 thread_id, guint32 cbid,
    guint64 start, guint64 end)
{
  Entry *e;

  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  join.api_records++;
  e = entry_get_locked (correlation_id);
  e->flags |= ENTRY_HAVE_API;
  e->thread_id = thread_id;
  e->api_start = start;
  e->api_end = end;
  maybe_ready_locked (e);
  evict_locked ();
  gpuprof_gpu_engine_unlock ();
}

/**
 * gpuprof_gpu_add_external:
 * @correlation_id: correlation id of the call
 * @channel: channel the id was pushed on (from the record's externalKind)
 * @external_id: the id pushed (gpuprof_gpu_encode_id())
 *
 * Record side: an external correlation record.
 */
void
gpuprof_gpu_add_external (guint32 correlation_id, GpuprofGpuChannel channel,
    GpuprofGpuExternalId external_id)
{
  Entry *e;

  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  join.external_records++;
  e = entry_get_locked (correlation_id);
  e->flags |= ENTRY_HAVE_EXT (channel);
  e->ext[channel] = external_id;
  evict_locked ();
  gpuprof_gpu_engine_unlock ();
}

/**
 * gpuprof_gpu_add_launched_ops:
 * @ops: GPU records of the callback path; copied
 * @n_ops: how many
 *
 * Record side, cupti-path=callback: each record is attributed at once with
 * what its launching thread stored at API entry (gpuprof_gpu_launch_enter()),
 * no waiting, no join; one lock for the batch. A record whose launch is not
 * in the table (overwritten, or launched before the callbacks were on) is
 * settled unjoined and unattributed.
 */
void
gpuprof_gpu_add_launched_ops (const GpuprofGpuOp * ops, guint n_ops)
{
  guint i, c;

  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  join.launch_records += n_ops;
  for (i = 0; i < n_ops; i++) {
    GpuprofGpuOp op = ops[i];
    GpuprofGpuLaunch l;
    Entry e = { 0, };
    gboolean found = gpuprof_gpu_launch_lookup (op.correlation_id, &l);

    op.name = intern_cached_locked (op.name);
    e.corr = op.correlation_id;
    if (op.graph_id)
      e.flags |= ENTRY_GRAPH;
    if (found) {
      e.flags |= ENTRY_HAVE_API;
      e.thread_id = l.thread_id;
      e.api_start = l.api_start;
      e.api_end = l.api_start;  /* the call's end is not read */
      for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
        e.ext[c] = l.ext[c];
        if (l.flags & GPUPROF_GPU_LAUNCH_EXT (c))
          e.flags |= ENTRY_HAVE_EXT (c);
        else if (l.flags & GPUPROF_GPU_LAUNCH_OWNER (c))
          e.flags |= ENTRY_HAVE_OWNER (c);
        else if (l.flags & GPUPROF_GPU_LAUNCH_LAST (c))
          e.flags |= ENTRY_HAVE_LAST (c);
      }
    }
    settle_op_locked (&e, &op, !found);
  }
  gpuprof_gpu_engine_unlock ();
}

/**
 * gpuprof_gpu_add_dropped:
 * @n_records: records CUPTI could not store (cuptiActivityGetNumDroppedRecords)
 */
void
gpuprof_gpu_add_dropped (guint64 n_records)
{
  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  join.dropped_records += n_records;
  gpuprof_gpu_engine_unlock ();
}

/**
 * gpuprof_gpu_settle:
 * @now: arrival clock, monotonic ns (the time the caller handed the latest
 *   records in)
 * @mode: what to settle, see #GpuprofGpuSettleMode
 *
 * Attributes the joined records that were joined before the previous call,
 * and those that waited retain_ns; frees host records that expired. Then
 * calls the listeners' settled functions.
 */
void
gpuprof_gpu_settle (guint64 now, GpuprofGpuSettleMode mode)
{
  gboolean joined = mode != GPUPROF_GPU_SETTLE_NORMAL;
  gboolean force = mode == GPUPROF_GPU_SETTLE_ALL;
  guint64 this_epoch, retain_ns;
  Entry *e;

  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  this_epoch = join.epoch;
  retain_ns = gpuprof_gpu_engine_config_locked ()->retain_ns;

  while (!g_queue_is_empty (&join.ready)) {
    guint32 corr = GPOINTER_TO_UINT (g_queue_peek_head (&join.ready));
    e = g_hash_table_lookup (join.entries, GUINT_TO_POINTER (corr));
    if (e && (e->flags & ENTRY_READY) && e->joined_epoch >= this_epoch
        && !joined)
      break;
    g_queue_pop_head (&join.ready);
    if (e && (e->flags & ENTRY_READY) && settle_entry_locked (e, FALSE))
      entry_remove_locked (e);
  }

  for (e = join.newest; e && e->arrival == ARRIVAL_UNSET; e = e->prev)
    e->arrival = now;

  while (join.oldest && (force || join.oldest->arrival + retain_ns <= now)) {
    e = join.oldest;
    settle_entry_locked (e, !(e->flags & ENTRY_HAVE_API));
    entry_remove_locked (e);
  }

  gpuprof_gpu_stats_commit_locked (force);

  join.settled_arrival = joined ? now : join.now;
  join.now = now;
  join.epoch++;
  gpuprof_gpu_engine_unlock ();

  gpuprof_gpu_engine_call_settle_listeners ();
}

/**
 * gpuprof_gpu_settled_arrival:
 *
 * Returns: records handed in before this arrival time (the @now of the
 * settle before the last one, or of the last forced one) are settled.
 */
guint64
gpuprof_gpu_settled_arrival (void)
{
  guint64 t;

  gpuprof_gpu_engine_lock ();
  t = join.settled_arrival;
  gpuprof_gpu_engine_unlock ();
  return t;
}
