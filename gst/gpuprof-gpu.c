/* gpuprof: GPU attribution — see gpuprof-gpu.h for the model.
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
 * Locking: 'lock' guards everything of the record side. The hot path touches
 * only its own thread slot and the read-mostly backend pointer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu.h"

#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>

/* ------------------------------------------------------------------ */
/* hot path: per-thread slots                                          */

#define N_THREAD_SLOTS 4096     /* power of two */
#define STACK_DEPTH 16

typedef struct
{
  volatile gint tid;            /* 0 = free; claimed once with a CAS */
  volatile gint last[GPUPROF_GPU_N_CHANNELS];   /* read by the record side */
  volatile gint owner[GPUPROF_GPU_N_CHANNELS];
  const gchar *volatile name;   /* interned */
  /* written by the owning thread only */
  gint depth[GPUPROF_GPU_N_CHANNELS];
  guint32 stack[GPUPROF_GPU_N_CHANNELS][STACK_DEPTH];
} ThreadSlot;

static ThreadSlot thread_slots[N_THREAD_SLOTS];
static __thread ThreadSlot *my_slot;
static __thread guint32 my_tid;
static gboolean use_pthread_ids;

volatile gint _gpuprof_gpu_channels_on;
static gint channels_wanted;    /* enabled by their users */
static gint channels_used;      /* ever enabled: those get statistics */
static const GpuprofGpuBackend *volatile backend;

/**
 * gpuprof_gpu_use_pthread_ids:
 * @use: key threads by (guint32) pthread_self() instead of gettid()
 *
 * For a CUPTI that cannot report system thread ids; call before any chain call.
 */
void
gpuprof_gpu_use_pthread_ids (gboolean use)
{
  use_pthread_ids = use;
}

/**
 * gpuprof_gpu_current_thread_id:
 *
 * Returns: the calling thread's id as CUPTI reports it in API records
 * (CUpti_ActivityAPI.threadId with CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM:
 * gettid()).
 */
guint32
gpuprof_gpu_current_thread_id (void)
{
  if (G_UNLIKELY (my_tid == 0)) {
    if (use_pthread_ids)
      my_tid = (guint32) (guintptr) pthread_self ();
    else
      my_tid = (guint32) syscall (SYS_gettid);
  }
  return my_tid;
}

static inline guint
tid_hash (guint32 tid)
{
  return (tid * 2654435761u) & (N_THREAD_SLOTS - 1);
}

static ThreadSlot *
find_slot (guint32 tid)
{
  guint h = tid_hash (tid), i;

  for (i = 0; i < N_THREAD_SLOTS; i++) {
    ThreadSlot *s = &thread_slots[(h + i) & (N_THREAD_SLOTS - 1)];
    gint t = g_atomic_int_get (&s->tid);
    if (t == (gint) tid)
      return s;
    if (t == 0)
      return NULL;
  }
  return NULL;
}

/* First sight of a thread: claim a slot (a recycled tid takes its old slot). */
static ThreadSlot *
claim_slot (void)
{
  guint32 tid = gpuprof_gpu_current_thread_id ();
  guint h = tid_hash (tid), i, c;

  for (i = 0; i < N_THREAD_SLOTS; i++) {
    ThreadSlot *s = &thread_slots[(h + i) & (N_THREAD_SLOTS - 1)];
    if (g_atomic_int_get (&s->tid) == (gint) tid
        || g_atomic_int_compare_and_exchange (&s->tid, 0, (gint) tid)) {
      for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
        s->depth[c] = 0;
        g_atomic_int_set (&s->last[c], 0);
        g_atomic_int_set (&s->owner[c], 0);
      }
      s->name = NULL;
      return s;
    }
  }
  return NULL;                  /* table full: this thread gets no fallback */
}

static inline ThreadSlot *
get_slot (void)
{
  if (G_UNLIKELY (my_slot == NULL))
    my_slot = claim_slot ();
  return my_slot;
}

void
_gpuprof_gpu_enter (GpuprofGpuChannel channel, guint32 element_id,
    guint64 seq)
{
  const GpuprofGpuBackend *b = backend;
  ThreadSlot *s = get_slot ();

  if (b)
    b->push (channel, gpuprof_gpu_encode_id (element_id, seq));
  if (s) {
    gint d = s->depth[channel];
    if (d < STACK_DEPTH)
      s->stack[channel][d] = element_id;
    s->depth[channel] = d + 1;
    g_atomic_int_set (&s->last[channel], (gint) element_id);
  }
}

void
_gpuprof_gpu_exit (GpuprofGpuChannel channel)
{
  const GpuprofGpuBackend *b = backend;
  ThreadSlot *s = get_slot ();
  gint d;
  guint32 popped, now;

  if (b)
    b->pop (channel);
  if (!s || s->depth[channel] <= 0)
    return;                     /* enabled in the middle of a call */
  d = --s->depth[channel];
  popped = d < STACK_DEPTH ? s->stack[channel][d] :
      (guint32) g_atomic_int_get (&s->last[channel]);
  if (d > 0)
    now = s->stack[channel][MIN (d, STACK_DEPTH) - 1];
  else if (g_atomic_int_get (&s->owner[channel]))
    now = g_atomic_int_get (&s->owner[channel]);
  else
    now = popped;               /* stays the last active element */
  g_atomic_int_set (&s->last[channel], (gint) now);
}

/**
 * gpuprof_gpu_set_thread_name:
 * @name: name for the calling thread ("q:src")
 *
 * Used in "unattributed (thread <name>)" rows. Copied (interned).
 */
void
gpuprof_gpu_set_thread_name (const gchar * name)
{
  ThreadSlot *s = get_slot ();

  if (s)
    s->name = g_intern_string (name);
}

/**
 * gpuprof_gpu_set_thread_element:
 * @channel: channel of @element_id
 * @element_id: the element whose task runs on this thread, 0 for none
 *
 * Work launched on this thread outside any chain call (a source's or an
 * aggregator's loop) is attributed to it rather than to the last element
 * whose chain call returned.
 */
void
gpuprof_gpu_set_thread_element (GpuprofGpuChannel channel, guint32 element_id)
{
  ThreadSlot *s = get_slot ();

  if (!s)
    return;
  g_atomic_int_set (&s->owner[channel], (gint) element_id);
  if (s->depth[channel] == 0 && element_id)
    g_atomic_int_set (&s->last[channel], (gint) element_id);
}

static void
update_channels_on (void)
{
  g_atomic_int_set (&_gpuprof_gpu_channels_on, backend ? channels_wanted : 0);
}

/**
 * gpuprof_gpu_set_backend:
 * @backend: (nullable): push/pop functions; NULL turns the hot path off
 *
 * @backend must stay valid until replaced.
 */
void
gpuprof_gpu_set_backend (const GpuprofGpuBackend * b)
{
  backend = b;
  update_channels_on ();
}

/**
 * gpuprof_gpu_enable_channel:
 * @channel: the channel
 * @enable: whether its users' enter/exit calls push ids
 *
 * Enable before streaming starts: a call in progress when the state changes
 * pushes without popping, or pops what it did not push.
 */
void
gpuprof_gpu_enable_channel (GpuprofGpuChannel channel, gboolean enable)
{
  if (enable) {
    g_atomic_int_or (&channels_wanted, 1 << channel);
    g_atomic_int_or (&channels_used, 1 << channel);
  } else {
    g_atomic_int_and (&channels_wanted, ~(1 << channel));
  }
  update_channels_on ();
}

gboolean
gpuprof_gpu_channel_enabled (GpuprofGpuChannel channel)
{
  return (g_atomic_int_get (&_gpuprof_gpu_channels_on) & (1 << channel)) != 0;
}

/* ------------------------------------------------------------------ */
/* record side                                                         */

#define ENTRY_HAVE_API    (1 << 0)
#define ENTRY_HAVE_EXT(c) (1 << (1 + (c)))
#define ENTRY_GRAPH       (1 << 4)
#define ENTRY_READY       (1 << 5)

typedef struct _PendingOp PendingOp;
struct _PendingOp
{
  GpuprofGpuOp op;              /* name interned */
  PendingOp *next;
};

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

typedef struct
{
  GpuprofGpuCost cost;
  guint64 by_thread_ns;
  guint64 buffers;
  GHashTable *kernels;          /* interned name -> KernelAgg */
} ElementAgg;

typedef struct
{
  guint64 ns;
  guint64 count;
} KernelAgg;

typedef struct
{
  guint64 key;                  /* external id */
  GpuprofGpuCost cost;
  gboolean used;
} RingSlot;

typedef struct
{
  GpuprofGpuTotals totals;
  GHashTable *elements;         /* element id -> ElementAgg */
  GHashTable *unattributed;     /* tid -> GpuprofGpuThreadStats */
  GHashTable *unattributed_kernels;     /* interned name -> KernelAgg */
  RingSlot *ring;
  guint ring_size;
  guint ring_next;
  GHashTable *ring_index;       /* guint64* key (in ring) -> RingSlot */
} Channel;

typedef struct
{
  guint64 start, end;
} Interval;

typedef struct
{
  guint32 device_id;
  gboolean seen;
  guint64 first, last;
  guint64 committed_busy;
  guint64 committed_end;
  GArray *pending;              /* Interval, sorted, disjoint */
  GpuprofGpuGap gaps[GPUPROF_GPU_MAX_GAPS];
  guint n_gaps;
} Device;

static GMutex lock;
static gboolean initialised;
static GpuprofGpuConfig config = { 2 * GST_SECOND, 262144, 8192 };

static GHashTable *entries;     /* corr -> Entry */
static Entry *oldest, *newest;
static guint n_entries;
static GQueue ready = G_QUEUE_INIT;     /* corr ids joined, in join order */
static guint64 epoch;
static guint64 engine_now;
static guint64 settled_arrival;
static Channel channels[GPUPROF_GPU_N_CHANNELS];
static GHashTable *devices;     /* device id -> Device */
static guint64 dropped_records;
static guint64 api_records, external_records;
static guint64 pending_ops;

static GPtrArray *names;        /* registered element names, id = index + 1 */
static GHashTable *name_ids;

static void
element_agg_free (gpointer p)
{
  ElementAgg *a = p;
  g_hash_table_unref (a->kernels);
  g_free (a);
}

static void
device_free (gpointer p)
{
  Device *d = p;
  g_array_unref (d->pending);
  g_free (d);
}

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
channel_init (Channel * ch)
{
  memset (&ch->totals, 0, sizeof (ch->totals));
  ch->elements = g_hash_table_new_full (NULL, NULL, NULL, element_agg_free);
  ch->unattributed = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ch->unattributed_kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ch->ring_size = MAX (config.ring_size, 1);
  ch->ring = g_new0 (RingSlot, ch->ring_size);
  ch->ring_next = 0;
  ch->ring_index = g_hash_table_new (g_int64_hash, g_int64_equal);
}

static void
channel_clear (Channel * ch)
{
  g_clear_pointer (&ch->elements, g_hash_table_unref);
  g_clear_pointer (&ch->unattributed, g_hash_table_unref);
  g_clear_pointer (&ch->unattributed_kernels, g_hash_table_unref);
  g_clear_pointer (&ch->ring_index, g_hash_table_unref);
  g_clear_pointer (&ch->ring, g_free);
}

static void
ensure_init_locked (void)
{
  guint c;

  if (initialised)
    return;
  entries = g_hash_table_new (NULL, NULL);
  devices = g_hash_table_new_full (NULL, NULL, NULL, device_free);
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
    channel_init (&channels[c]);
  if (!names) {
    names = g_ptr_array_new_with_free_func (g_free);
    name_ids = g_hash_table_new (g_str_hash, g_str_equal);
  }
  initialised = TRUE;
}

static void
clear_locked (void)
{
  GHashTableIter it;
  gpointer v;
  guint c;

  if (!initialised)
    return;
  g_hash_table_iter_init (&it, entries);
  while (g_hash_table_iter_next (&it, NULL, &v))
    entry_free (v);
  g_clear_pointer (&entries, g_hash_table_unref);
  oldest = newest = NULL;
  n_entries = 0;
  g_queue_clear (&ready);
  g_clear_pointer (&devices, g_hash_table_unref);
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
    channel_clear (&channels[c]);
  epoch = engine_now = settled_arrival = 0;
  dropped_records = api_records = external_records = pending_ops = 0;
  initialised = FALSE;
}

/**
 * gpuprof_gpu_configure:
 * @config: limits; zero fields keep their defaults
 *
 * Clears all records and statistics (call before a run).
 */
void
gpuprof_gpu_configure (const GpuprofGpuConfig * c)
{
  g_mutex_lock (&lock);
  clear_locked ();
  if (c->retain_ns)
    config.retain_ns = c->retain_ns;
  if (c->max_pending)
    config.max_pending = c->max_pending;
  if (c->ring_size)
    config.ring_size = c->ring_size;
  g_mutex_unlock (&lock);
}

/**
 * gpuprof_gpu_reset:
 *
 * Forgets every record and statistic and the thread slots' elements; keeps
 * the configuration, backend, channels and registered names.
 */
void
gpuprof_gpu_reset (void)
{
  guint i, c;

  g_mutex_lock (&lock);
  clear_locked ();
  g_mutex_unlock (&lock);
  for (i = 0; i < N_THREAD_SLOTS; i++)
    for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
      if (g_atomic_int_get (&thread_slots[i].tid))
        g_atomic_int_set (&thread_slots[i].last[c], 0);
}

/* -- entries -- */

static Entry *
entry_get_locked (guint32 corr)
{
  Entry *e = g_hash_table_lookup (entries, GUINT_TO_POINTER (corr));

  if (e)
    return e;
  e = g_new0 (Entry, 1);
  e->corr = corr;
  e->arrival = ARRIVAL_UNSET;
  e->prev = newest;
  if (newest)
    newest->next = e;
  else
    oldest = e;
  newest = e;
  n_entries++;
  g_hash_table_insert (entries, GUINT_TO_POINTER (corr), e);
  return e;
}

static void
entry_remove_locked (Entry * e)
{
  if (e->prev)
    e->prev->next = e->next;
  else
    oldest = e->next;
  if (e->next)
    e->next->prev = e->prev;
  else
    newest = e->prev;
  n_entries--;
  g_hash_table_remove (entries, GUINT_TO_POINTER (e->corr));
  pending_ops -= e->n_ops;
  entry_free (e);
}

static void
maybe_ready_locked (Entry * e)
{
  if (e->ops && (e->flags & ENTRY_HAVE_API) && !(e->flags & ENTRY_READY)) {
    e->flags |= ENTRY_READY;
    e->joined_epoch = epoch;
    g_queue_push_tail (&ready, GUINT_TO_POINTER (e->corr));
  }
}

static gboolean settle_entry_locked (Entry * e, gboolean unjoined);
static void evict_locked (void);

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

  g_mutex_lock (&lock);
  ensure_init_locked ();
  e = entry_get_locked (op->correlation_id);
  p = g_new (PendingOp, 1);
  p->op = *op;
  p->op.name = op->name ? g_intern_string (op->name) : NULL;
  p->next = e->ops;
  e->ops = p;
  e->n_ops++;
  pending_ops++;
  if (op->graph_id)
    e->flags |= ENTRY_GRAPH;
  maybe_ready_locked (e);
  evict_locked ();
  g_mutex_unlock (&lock);
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

  g_mutex_lock (&lock);
  ensure_init_locked ();
  api_records++;
  e = entry_get_locked (correlation_id);
  e->flags |= ENTRY_HAVE_API;
  e->thread_id = thread_id;
  e->api_start = start;
  e->api_end = end;
  maybe_ready_locked (e);
  evict_locked ();
  g_mutex_unlock (&lock);
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
    guint64 external_id)
{
  Entry *e;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  external_records++;
  e = entry_get_locked (correlation_id);
  e->flags |= ENTRY_HAVE_EXT (channel);
  e->ext[channel] = external_id;
  evict_locked ();
  g_mutex_unlock (&lock);
}

/**
 * gpuprof_gpu_add_dropped:
 * @n_records: records CUPTI could not store (cuptiActivityGetNumDroppedRecords)
 */
void
gpuprof_gpu_add_dropped (guint64 n_records)
{
  g_mutex_lock (&lock);
  dropped_records += n_records;
  g_mutex_unlock (&lock);
}

/* -- accounting -- */

static void
cost_add (GpuprofGpuCost * c, const GpuprofGpuOp * op, guint64 ns)
{
  switch (op->kind) {
    case GPUPROF_GPU_OP_KERNEL:
      c->kernel_ns += ns;
      c->kernels++;
      break;
    case GPUPROF_GPU_OP_MEMCPY:
      c->copy_ns += ns;
      c->copies++;
      c->copy_bytes += op->bytes;
      break;
    case GPUPROF_GPU_OP_MEMSET:
      c->memset_ns += ns;
      c->memsets++;
      c->memset_bytes += op->bytes;
      break;
  }
}

static void
kernel_add (GHashTable * kernels, const GpuprofGpuOp * op, guint64 ns)
{
  KernelAgg *k;
  const gchar *name = op->name ? op->name : g_intern_static_string ("?");

  if (op->kind != GPUPROF_GPU_OP_KERNEL)
    return;
  k = g_hash_table_lookup (kernels, name);
  if (!k) {
    k = g_new0 (KernelAgg, 1);
    g_hash_table_insert (kernels, (gpointer) name, k);
  }
  k->ns += ns;
  k->count++;
}

static void
thread_name_for (guint32 tid, gchar * out, gsize size)
{
  ThreadSlot *s;
  gchar path[64], buf[64] = "";
  FILE *f;

  if (tid == 0) {
    g_strlcpy (out, "unknown", size);
    return;
  }
  s = find_slot (tid);
  if (s && s->name) {
    g_strlcpy (out, s->name, size);
    return;
  }
  /* a private thread of an element: the OS name, while it still exists */
  g_snprintf (path, sizeof (path), "/proc/self/task/%u/comm", tid);
  f = fopen (path, "r");
  if (f) {
    if (fgets (buf, sizeof (buf), f))
      g_strchomp (buf);
    fclose (f);
  }
  if (buf[0])
    g_snprintf (out, size, "%s, tid %u", buf, tid);
  else
    g_snprintf (out, size, "tid %u", tid);
}

static void
ring_add_locked (Channel * ch, ElementAgg * agg, guint64 key,
    const GpuprofGpuOp * op, guint64 ns)
{
  RingSlot *slot = g_hash_table_lookup (ch->ring_index, &key);

  if (!slot) {
    slot = &ch->ring[ch->ring_next];
    ch->ring_next = (ch->ring_next + 1) % ch->ring_size;
    if (slot->used)
      g_hash_table_remove (ch->ring_index, &slot->key);
    memset (slot, 0, sizeof (*slot));
    slot->key = key;
    slot->used = TRUE;
    g_hash_table_insert (ch->ring_index, &slot->key, slot);
    agg->buffers++;
  }
  cost_add (&slot->cost, op, ns);
}

/* The one attribution rule, shared by the statistics and the op listeners */
static guint32
attribute_locked (guint c, const Entry * e, gboolean * by_thread)
{
  guint32 element = 0;

  *by_thread = FALSE;
  if (e->flags & ENTRY_HAVE_EXT (c)) {
    element = gpuprof_gpu_id_element (e->ext[c]);
  } else if (e->flags & ENTRY_HAVE_API) {
    ThreadSlot *s = find_slot (e->thread_id);
    if (s) {
      element = (guint32) g_atomic_int_get (&s->last[c]);
      *by_thread = element != 0;
    }
  }
  return element;
}

static void
account_channel_locked (guint c, const Entry * e, const GpuprofGpuOp * op,
    guint64 ns, guint32 element, gboolean by_thread)
{
  Channel *ch = &channels[c];
  ElementAgg *agg;

  ch->totals.total_ns += ns;
  ch->totals.records++;

  if (element == 0) {
    guint32 tid = (e->flags & ENTRY_HAVE_API) ? e->thread_id : 0;
    GpuprofGpuThreadStats *t =
        g_hash_table_lookup (ch->unattributed, GUINT_TO_POINTER (tid));
    if (!t) {
      t = g_new0 (GpuprofGpuThreadStats, 1);
      t->thread_id = tid;
      thread_name_for (tid, t->name, sizeof (t->name));
      g_hash_table_insert (ch->unattributed, GUINT_TO_POINTER (tid), t);
    }
    cost_add (&t->cost, op, ns);
    kernel_add (ch->unattributed_kernels, op, ns);
    ch->totals.unattributed_ns += ns;
    return;
  }

  agg = g_hash_table_lookup (ch->elements, GUINT_TO_POINTER (element));
  if (!agg) {
    agg = g_new0 (ElementAgg, 1);
    agg->kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    g_hash_table_insert (ch->elements, GUINT_TO_POINTER (element), agg);
  }
  cost_add (&agg->cost, op, ns);
  kernel_add (agg->kernels, op, ns);
  if (by_thread) {
    agg->by_thread_ns += ns;
    ch->totals.thread_ns += ns;
  } else {
    ch->totals.external_ns += ns;
    if (gpuprof_gpu_id_seq (e->ext[c]) != GPUPROF_GPU_SEQ_NONE)
      ring_add_locked (ch, agg, e->ext[c], op, ns);
  }
}

static gint
gap_cmp (gconstpointer a, gconstpointer b)
{
  const GpuprofGpuGap *x = a, *y = b;
  return x->duration < y->duration ? 1 : x->duration > y->duration ? -1 : 0;
}

static void
gaps_add (GpuprofGpuGap * gaps, guint * n, guint64 start, guint64 duration)
{
  if (duration == 0)
    return;
  if (*n < GPUPROF_GPU_MAX_GAPS) {
    gaps[(*n)++] = (GpuprofGpuGap) { start, duration };
  } else if (duration > gaps[GPUPROF_GPU_MAX_GAPS - 1].duration) {
    gaps[GPUPROF_GPU_MAX_GAPS - 1] = (GpuprofGpuGap) { start, duration };
  } else {
    return;
  }
  qsort (gaps, *n, sizeof (GpuprofGpuGap), gap_cmp);
}

/* Keeps the parts of the gaps inside [t0, t1]: records from before the run
 * (CUDA context set-up at plugin load) must not make idle time outside it.
 * Only the longest gaps are kept as records arrive, so one outside the run
 * may have pushed out a shorter one inside. */
static void
gaps_clip (GpuprofGpuGap * gaps, guint * n, guint64 t0, guint64 t1)
{
  GpuprofGpuGap in[GPUPROF_GPU_MAX_GAPS];
  guint i, count = *n;

  memcpy (in, gaps, sizeof (in));
  *n = 0;
  for (i = 0; i < count; i++) {
    guint64 a = MAX (in[i].start, t0);
    guint64 b = MIN (in[i].start + in[i].duration, t1);
    if (b > a)
      gaps_add (gaps, n, a, b - a);
  }
}

/* Union of intervals: pending ones stay sorted and disjoint until they are
 * older than retain_ns behind the newest end, then move into the totals. */
static void
device_add_interval (Device * d, guint64 start, guint64 end)
{
  guint i, j;
  Interval *iv;

  if (!d->seen || start < d->first)
    d->first = start;
  d->seen = TRUE;
  d->last = MAX (d->last, end);
  if (start < d->committed_end)
    start = d->committed_end;   /* later than retain_ns: clipped */
  if (end <= start)
    return;

  iv = (Interval *) d->pending->data;
  for (i = 0; i < d->pending->len && iv[i].end < start; i++);
  j = i;
  while (j < d->pending->len && iv[j].start <= end) {
    start = MIN (start, iv[j].start);
    end = MAX (end, iv[j].end);
    j++;
  }
  if (j > i)
    g_array_remove_range (d->pending, i, j - i);
  g_array_insert_val (d->pending, i, ((Interval) {
          start, end}));
}

static void
device_commit (Device * d, gboolean force)
{
  guint n = 0;
  Interval *iv = (Interval *) d->pending->data;

  while (n < d->pending->len &&
      (force || iv[n].end + config.retain_ns < d->last)) {
    if (d->committed_end)
      gaps_add (d->gaps, &d->n_gaps, d->committed_end,
          iv[n].start - d->committed_end);
    d->committed_busy += iv[n].end - iv[n].start;
    d->committed_end = iv[n].end;
    n++;
  }
  if (n)
    g_array_remove_range (d->pending, 0, n);
}

static void
account_device_locked (const GpuprofGpuOp * op)
{
  Device *d = g_hash_table_lookup (devices, GUINT_TO_POINTER (op->device_id));

  if (!d) {
    d = g_new0 (Device, 1);
    d->device_id = op->device_id;
    d->pending = g_array_new (FALSE, FALSE, sizeof (Interval));
    g_hash_table_insert (devices, GUINT_TO_POINTER (op->device_id), d);
  }
  device_add_interval (d, op->start, op->end);
}

/* -- op listeners: guarded by 'lock', called with it held -- */

typedef struct
{
  guint id;
  GpuprofGpuChannel channel;
  GpuprofGpuOpFunc func;
  gpointer user_data;
} OpListener;

static GArray *op_listeners;    /* OpListener */
static guint next_op_listener_id = 1;

static void
call_op_listeners_locked (guint c, const Entry * e, const GpuprofGpuOp * op,
    guint32 element, gboolean by_thread, gboolean unjoined)
{
  GpuprofGpuSettledOp so;
  guint i;

  so.op = op;
  so.channel = c;
  so.by = element == 0 ? GPUPROF_GPU_BY_NONE : by_thread ?
      GPUPROF_GPU_BY_THREAD : GPUPROF_GPU_BY_EXTERNAL;
  so.element_id = element;
  so.seq = so.by == GPUPROF_GPU_BY_EXTERNAL ?
      gpuprof_gpu_id_seq (e->ext[c]) : GPUPROF_GPU_SEQ_NONE;
  so.thread_id = (e->flags & ENTRY_HAVE_API) ? e->thread_id : 0;
  so.api_start = (e->flags & ENTRY_HAVE_API) ? e->api_start : 0;
  so.api_end = (e->flags & ENTRY_HAVE_API) ? e->api_end : 0;
  so.unjoined = unjoined;
  for (i = 0; i < op_listeners->len; i++) {
    OpListener *l = &g_array_index (op_listeners, OpListener, i);
    if (l->channel == c)
      l->func (&so, l->user_data);
  }
}

/**
 * gpuprof_gpu_add_op_listener:
 * @channel: whose attribution @func gets (the channel must be enabled, or
 *   have been: only those are attributed)
 * @func: called once for every GPU record settled from now on, on the
 *   settling thread (the CUPTI collector, or whoever flushes) **with the
 *   engine lock held**: it must be short and must not call gpuprof_gpu_*
 * @user_data: for @func
 *
 * For consumers that want each op rather than sums (the trace's GPU
 * tracks, gpuprof-gputrace.c).
 *
 * Returns: an id for gpuprof_gpu_remove_op_listener()
 */
guint
gpuprof_gpu_add_op_listener (GpuprofGpuChannel channel, GpuprofGpuOpFunc func,
    gpointer user_data)
{
  OpListener l = { 0, channel, func, user_data };

  g_mutex_lock (&lock);
  if (!op_listeners)
    op_listeners = g_array_new (FALSE, FALSE, sizeof (OpListener));
  l.id = next_op_listener_id++;
  g_array_append_val (op_listeners, l);
  g_mutex_unlock (&lock);
  return l.id;
}

/**
 * gpuprof_gpu_remove_op_listener:
 * @id: from gpuprof_gpu_add_op_listener()
 *
 * When it returns, the listener is not running and will not be called again
 * (calls are made under the lock this takes).
 */
void
gpuprof_gpu_remove_op_listener (guint id)
{
  guint i;

  g_mutex_lock (&lock);
  for (i = 0; op_listeners && i < op_listeners->len; i++) {
    if (g_array_index (op_listeners, OpListener, i).id == id) {
      g_array_remove_index (op_listeners, i);
      break;
    }
  }
  g_mutex_unlock (&lock);
}

/* Returns whether the entry is done with (the caller frees it). */
static gboolean
settle_entry_locked (Entry * e, gboolean unjoined)
{
  guint c;
  gboolean graph = (e->flags & ENTRY_GRAPH) != 0;

  while (e->ops) {
    PendingOp *p = e->ops;
    guint64 ns = 0;

    if (p->op.end > p->op.start)
      ns = p->op.end - p->op.start;
    for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
      guint32 element;
      gboolean by_thread;

      if (!(g_atomic_int_get (&channels_used) & (1 << c)))
        continue;
      element = attribute_locked (c, e, &by_thread);
      account_channel_locked (c, e, &p->op, ns, element, by_thread);
      if (op_listeners && op_listeners->len)
        call_op_listeners_locked (c, e, &p->op, element, by_thread,
            unjoined);
      if (unjoined)
        channels[c].totals.unjoined++;
      if (ns == 0)
        channels[c].totals.untimed++;
      if (graph)
        channels[c].totals.graph_records++;
      if (ns && e->api_start && p->op.start < e->api_start)
        channels[c].totals.early++;
    }
    if (ns)
      account_device_locked (&p->op);
    e->ops = p->next;
    e->n_ops--;
    pending_ops--;
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
  while (n_entries > config.max_pending && oldest) {
    Entry *e = oldest;
    settle_entry_locked (e, !(e->flags & ENTRY_HAVE_API));
    entry_remove_locked (e);
  }
}

/* -- settle and listeners -- */

typedef struct
{
  guint id;
  GpuprofGpuSettleFunc func;
  gpointer user_data;
} Listener;

static GRecMutex listeners_lock;
static GArray *listeners;
static guint next_listener_id = 1;

/**
 * gpuprof_gpu_add_settle_listener:
 * @func: called after each gpuprof_gpu_settle(), on the settling thread,
 *   without the engine lock
 *
 * Returns: an id for gpuprof_gpu_remove_settle_listener()
 */
guint
gpuprof_gpu_add_settle_listener (GpuprofGpuSettleFunc func, gpointer user_data)
{
  Listener l = { 0, func, user_data };

  g_rec_mutex_lock (&listeners_lock);
  if (!listeners)
    listeners = g_array_new (FALSE, FALSE, sizeof (Listener));
  l.id = next_listener_id++;
  g_array_append_val (listeners, l);
  g_rec_mutex_unlock (&listeners_lock);
  return l.id;
}

/**
 * gpuprof_gpu_remove_settle_listener:
 * @id: from gpuprof_gpu_add_settle_listener()
 *
 * Waits for a call of it in progress on another thread to return.
 */
void
gpuprof_gpu_remove_settle_listener (guint id)
{
  guint i;

  g_rec_mutex_lock (&listeners_lock);
  for (i = 0; listeners && i < listeners->len; i++) {
    if (g_array_index (listeners, Listener, i).id == id) {
      g_array_remove_index (listeners, i);
      break;
    }
  }
  g_rec_mutex_unlock (&listeners_lock);
}

static void
call_listeners (void)
{
  Listener *copy;
  guint i, n;

  g_rec_mutex_lock (&listeners_lock);
  n = listeners ? listeners->len : 0;
  copy = n ? g_memdup2 (listeners->data, n * sizeof (Listener)) : NULL;
  for (i = 0; i < n; i++)
    copy[i].func (copy[i].user_data);
  g_free (copy);
  g_rec_mutex_unlock (&listeners_lock);
}

/**
 * gpuprof_gpu_settle:
 * @now: arrival clock, monotonic ns (the time the caller handed the latest
 *   records in)
 * @mode: what to settle, see #GpuprofGpuSettleMode
 *
 * Attributes the joined records that were joined before the previous call,
 * and those that waited retain_ns; frees host records that expired. Then
 * calls the settle listeners.
 */
void
gpuprof_gpu_settle (guint64 now, GpuprofGpuSettleMode mode)
{
  gboolean joined = mode != GPUPROF_GPU_SETTLE_NORMAL;
  gboolean force = mode == GPUPROF_GPU_SETTLE_ALL;
  guint64 this_epoch;
  GHashTableIter it;
  Entry *e;
  gpointer v;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  this_epoch = epoch;

  while (!g_queue_is_empty (&ready)) {
    guint32 corr = GPOINTER_TO_UINT (g_queue_peek_head (&ready));
    e = g_hash_table_lookup (entries, GUINT_TO_POINTER (corr));
    if (e && (e->flags & ENTRY_READY) && e->joined_epoch >= this_epoch
        && !joined)
      break;
    g_queue_pop_head (&ready);
    if (e && (e->flags & ENTRY_READY) && settle_entry_locked (e, FALSE))
      entry_remove_locked (e);
  }

  for (e = newest; e && e->arrival == ARRIVAL_UNSET; e = e->prev)
    e->arrival = now;

  while (oldest && (force || oldest->arrival + config.retain_ns <= now)) {
    e = oldest;
    settle_entry_locked (e, !(e->flags & ENTRY_HAVE_API));
    entry_remove_locked (e);
  }

  g_hash_table_iter_init (&it, devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    device_commit (v, force);

  settled_arrival = joined ? now : engine_now;
  engine_now = now;
  epoch++;
  g_mutex_unlock (&lock);

  call_listeners ();
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

  g_mutex_lock (&lock);
  t = settled_arrival;
  g_mutex_unlock (&lock);
  return t;
}

/* ------------------------------------------------------------------ */
/* queries                                                             */

/**
 * gpuprof_gpu_get_totals:
 * @channel: the channel
 * @totals: (out): filled
 */
void
gpuprof_gpu_get_totals (GpuprofGpuChannel channel, GpuprofGpuTotals * totals)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  *totals = channels[channel].totals;
  totals->pending = pending_ops;
  totals->dropped = dropped_records;
  totals->api_records = api_records;
  totals->external_records = external_records;
  totals->pending_ids = n_entries;
  g_mutex_unlock (&lock);
}

static gint
element_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = gpuprof_gpu_cost_ns (&((const GpuprofGpuElementStats *) a)->cost);
  guint64 y = gpuprof_gpu_cost_ns (&((const GpuprofGpuElementStats *) b)->cost);
  if (x != y)
    return x < y ? 1 : -1;
  return (gint) ((const GpuprofGpuElementStats *) a)->element_id -
      (gint) ((const GpuprofGpuElementStats *) b)->element_id;
}

/**
 * gpuprof_gpu_get_elements:
 * @channel: the channel
 *
 * Returns: (transfer full): GpuprofGpuElementStats of the elements with GPU
 * work, most GPU time first
 */
GArray *
gpuprof_gpu_get_elements (GpuprofGpuChannel channel)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GpuprofGpuElementStats));
  GHashTableIter it;
  gpointer k, v;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_iter_init (&it, channels[channel].elements);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    ElementAgg *a = v;
    GpuprofGpuElementStats s = { GPOINTER_TO_UINT (k), a->cost,
      a->by_thread_ns, a->buffers
    };
    g_array_append_val (out, s);
  }
  g_mutex_unlock (&lock);
  g_array_sort (out, element_cmp);
  return out;
}

/**
 * gpuprof_gpu_get_element:
 * @channel: the channel
 * @element_id: the element
 * @stats: (out): filled, zeroed when it has no GPU work
 *
 * Returns: whether @element_id has GPU work
 */
gboolean
gpuprof_gpu_get_element (GpuprofGpuChannel channel, guint32 element_id,
    GpuprofGpuElementStats * stats)
{
  ElementAgg *a;

  memset (stats, 0, sizeof (*stats));
  stats->element_id = element_id;
  g_mutex_lock (&lock);
  ensure_init_locked ();
  a = g_hash_table_lookup (channels[channel].elements,
      GUINT_TO_POINTER (element_id));
  if (a) {
    stats->cost = a->cost;
    stats->by_thread_ns = a->by_thread_ns;
    stats->buffers = a->buffers;
  }
  g_mutex_unlock (&lock);
  return a != NULL;
}

static gint
thread_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = gpuprof_gpu_cost_ns (&((const GpuprofGpuThreadStats *) a)->cost);
  guint64 y = gpuprof_gpu_cost_ns (&((const GpuprofGpuThreadStats *) b)->cost);
  return x < y ? 1 : x > y ? -1 : 0;
}

/**
 * gpuprof_gpu_get_unattributed:
 * @channel: the channel
 *
 * Returns: (transfer full): GpuprofGpuThreadStats, one per launching thread
 * (thread_id 0: records whose API record never came), most GPU time first
 */
GArray *
gpuprof_gpu_get_unattributed (GpuprofGpuChannel channel)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GpuprofGpuThreadStats));
  GHashTableIter it;
  gpointer v;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_iter_init (&it, channels[channel].unattributed);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_array_append_vals (out, v, 1);
  g_mutex_unlock (&lock);
  g_array_sort (out, thread_cmp);
  return out;
}

static gint
kernel_cmp (gconstpointer a, gconstpointer b)
{
  const GpuprofGpuKernelStats *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? 1 : -1;
  return strcmp (x->name, y->name);
}

static void
collect_kernels (GArray * out, GHashTable * kernels, guint32 element_id)
{
  GHashTableIter it;
  gpointer k, v;

  g_hash_table_iter_init (&it, kernels);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    KernelAgg *a = v;
    GpuprofGpuKernelStats s = { k, element_id, a->ns, a->count };
    g_array_append_val (out, s);
  }
}

/**
 * gpuprof_gpu_get_top_kernels:
 * @channel: the channel
 * @n: at most this many, 0 for all
 *
 * Returns: (transfer full): GpuprofGpuKernelStats per (kernel name, element),
 * most time first
 */
GArray *
gpuprof_gpu_get_top_kernels (GpuprofGpuChannel channel, guint n)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GpuprofGpuKernelStats));
  GHashTableIter it;
  gpointer k, v;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_iter_init (&it, channels[channel].elements);
  while (g_hash_table_iter_next (&it, &k, &v))
    collect_kernels (out, ((ElementAgg *) v)->kernels, GPOINTER_TO_UINT (k));
  collect_kernels (out, channels[channel].unattributed_kernels, 0);
  g_mutex_unlock (&lock);
  g_array_sort (out, kernel_cmp);
  if (n && out->len > n)
    g_array_set_size (out, n);
  return out;
}

/**
 * gpuprof_gpu_get_devices:
 * @wall_start: start of the run (monotonic ns), 0 to use the first record
 * @wall_end: end of the run, 0 to use the last record
 *
 * Returns: (transfer full): GpuprofGpuDeviceStats per device, by device id.
 * busy_fraction is the busy time over the wall window; gaps include the idle
 * time before the first and after the last record within the window.
 */
GArray *
gpuprof_gpu_get_devices (guint64 wall_start, guint64 wall_end)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GpuprofGpuDeviceStats));
  GHashTableIter it;
  gpointer v;
  guint i;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_iter_init (&it, devices);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Device *d = v;
    GpuprofGpuDeviceStats s = { 0, };
    guint64 end = d->committed_end, t0, t1;

    s.device_id = d->device_id;
    s.first_ns = d->first;
    s.last_ns = d->last;
    s.busy_ns = d->committed_busy;
    memcpy (s.gaps, d->gaps, sizeof (s.gaps));
    s.n_gaps = d->n_gaps;
    for (i = 0; i < d->pending->len; i++) {
      Interval *iv = &g_array_index (d->pending, Interval, i);
      if (end)
        gaps_add (s.gaps, &s.n_gaps, end, iv->start - end);
      s.busy_ns += iv->end - iv->start;
      end = iv->end;
    }
    t0 = wall_start ? wall_start : d->first;
    t1 = wall_end ? wall_end : d->last;
    if (wall_start && d->first > wall_start)
      gaps_add (s.gaps, &s.n_gaps, wall_start, d->first - wall_start);
    if (wall_end && wall_end > d->last)
      gaps_add (s.gaps, &s.n_gaps, d->last, wall_end - d->last);
    if (wall_start && wall_end)
      gaps_clip (s.gaps, &s.n_gaps, wall_start, wall_end);
    s.busy_fraction = t1 > t0 ? (gdouble) s.busy_ns / (t1 - t0) : 0.0;
    g_array_append_val (out, s);
  }
  g_mutex_unlock (&lock);
  return out;
}

/**
 * gpuprof_gpu_get_buffer_cost:
 * @channel: the channel
 * @element_id: the element
 * @seq: sequence pushed with it
 * @cost: (out): filled, zeroed when unknown
 *
 * Looks in the ring of recent (element, sequence) costs.
 *
 * Returns: whether records for (@element_id, @seq) were settled
 */
gboolean
gpuprof_gpu_get_buffer_cost (GpuprofGpuChannel channel, guint32 element_id,
    guint64 seq, GpuprofGpuCost * cost)
{
  guint64 key = gpuprof_gpu_encode_id (element_id, seq);
  RingSlot *slot;

  memset (cost, 0, sizeof (*cost));
  g_mutex_lock (&lock);
  ensure_init_locked ();
  slot = g_hash_table_lookup (channels[channel].ring_index, &key);
  if (slot)
    *cost = slot->cost;
  g_mutex_unlock (&lock);
  return slot != NULL;
}

/* ------------------------------------------------------------------ */
/* report                                                              */

static gchar *
element_label (GpuprofGpuPathFunc path_func, gpointer user_data, guint32 id)
{
  gchar *p = path_func ? path_func (id, user_data) : NULL;
  return p ? p : g_strdup_printf ("element #%u", id);
}

#define MS(ns) ((ns) / 1e6)

static void
append_cost_row (GString * s, const gchar * label, const GpuprofGpuCost * c,
    guint64 buffers)
{
  guint64 ns = gpuprof_gpu_cost_ns (c);

  g_string_append_printf (s, "  %-40s %10.3f %10.3f %10.3f %10.3f %8"
      G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %10.2f", label, MS (ns),
      MS (c->kernel_ns), MS (c->copy_ns), MS (c->memset_ns), c->kernels,
      c->copies, (c->copy_bytes + c->memset_bytes) / (1024.0 * 1024.0));
  if (buffers)
    g_string_append_printf (s, " %8" G_GUINT64_FORMAT " %10.1f\n", buffers,
        ns / 1e3 / buffers);
  else
    g_string_append_printf (s, " %8s %10s\n", "-", "-");
}

/**
 * gpuprof_gpu_format_report:
 * @channel: the channel (the tracer's for its report)
 * @path_func: turns an element id into its path
 * @user_data: for @path_func
 * @wall_start: start of the run, monotonic ns (0: first GPU record)
 * @wall_end: end of the run (0: last GPU record)
 *
 * Formats the report's "GPU" section: per element, unattributed per thread,
 * totals with the attribution check, top kernels, devices. Settles nothing:
 * flush and settle (forced) first for a complete picture.
 *
 * Returns: (transfer full): the section, lines ending in '\n'
 */
gchar *
gpuprof_gpu_format_report (GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data, guint64 wall_start,
    guint64 wall_end)
{
  GString *s = g_string_new (NULL);
  GArray *els = gpuprof_gpu_get_elements (channel);
  GArray *un = gpuprof_gpu_get_unattributed (channel);
  GArray *top = gpuprof_gpu_get_top_kernels (channel, 10);
  GArray *devs = gpuprof_gpu_get_devices (wall_start, wall_end);
  GpuprofGpuTotals t;
  guint i, g;

  gpuprof_gpu_get_totals (channel, &t);
  g_string_append_printf (s, "GPU (CUPTI): %" G_GUINT64_FORMAT " records, %"
      G_GUINT64_FORMAT " dropped by CUPTI, %" G_GUINT64_FORMAT
      " settled without their API record, %" G_GUINT64_FORMAT
      " still pending\n", t.records, t.dropped, t.unjoined, t.pending);
  g_string_append_printf (s, "  %-40s %10s %10s %10s %10s %8s %7s %10s %8s %10s\n",
      "element", "GPU ms", "kernel ms", "copy ms", "memset ms", "kernels",
      "copies", "MiB", "buffers", "us/buffer");
  for (i = 0; i < els->len; i++) {
    GpuprofGpuElementStats *e = &g_array_index (els, GpuprofGpuElementStats, i);
    gchar *label = element_label (path_func, user_data, e->element_id);
    append_cost_row (s, label, &e->cost, e->buffers);
    g_free (label);
  }
  for (i = 0; i < un->len; i++) {
    GpuprofGpuThreadStats *u = &g_array_index (un, GpuprofGpuThreadStats, i);
    gchar *label = g_strdup_printf ("unattributed (thread %s)", u->name);
    append_cost_row (s, label, &u->cost, 0);
    g_free (label);
  }
  g_string_append_printf (s, "  %-40s %10.3f   = %.3f by external id + %.3f "
      "by thread + %.3f unattributed\n", "total", MS (t.total_ns),
      MS (t.external_ns), MS (t.thread_ns), MS (t.unattributed_ns));

  if (top->len) {
    g_string_append_printf (s, "  %-50s %-30s %8s %10s %10s\n", "top kernels",
        "element", "calls", "total ms", "mean us");
    for (i = 0; i < top->len; i++) {
      GpuprofGpuKernelStats *k = &g_array_index (top, GpuprofGpuKernelStats, i);
      gchar *label = k->element_id ?
          element_label (path_func, user_data, k->element_id) :
          g_strdup ("unattributed");
      g_string_append_printf (s, "  %-50.50s %-30.30s %8" G_GUINT64_FORMAT
          " %10.3f %10.1f\n", k->name, label, k->count, MS (k->ns),
          k->count ? k->ns / 1e3 / k->count : 0.0);
      g_free (label);
    }
  }

  if (devs->len) {
    g_string_append_printf (s, "  %-8s %7s %10s %10s  %s\n", "device",
        "busy %", "busy ms", "span ms", "longest idle gaps (ms)");
    for (i = 0; i < devs->len; i++) {
      GpuprofGpuDeviceStats *d = &g_array_index (devs, GpuprofGpuDeviceStats,
          i);
      guint64 t0 = wall_start ? wall_start : d->first_ns;
      guint64 t1 = wall_end ? wall_end : d->last_ns;
      g_string_append_printf (s, "  %-8u %7.1f %10.3f %10.3f ", d->device_id,
          100.0 * d->busy_fraction, MS (d->busy_ns),
          t1 > t0 ? MS (t1 - t0) : 0.0);
      for (g = 0; g < d->n_gaps; g++)
        g_string_append_printf (s, " %.3f", MS (d->gaps[g].duration));
      g_string_append_c (s, '\n');
    }
  }

  g_array_unref (els);
  g_array_unref (un);
  g_array_unref (top);
  g_array_unref (devs);
  return g_string_free (s, FALSE);
}

/* ------------------------------------------------------------------ */
/* names                                                               */

static GpuprofGpuPathFunc path_funcs[GPUPROF_GPU_N_CHANNELS] = {
  NULL, gpuprof_gpu_registered_name
};
static gpointer path_data[GPUPROF_GPU_N_CHANNELS];

/**
 * gpuprof_gpu_set_path_func:
 * @channel: the channel whose ids @path_func knows
 * @path_func: (nullable): turns an element id into its path
 * @user_data: for @path_func
 *
 * The tracer registers its object ids here, so that tools in the process
 * (tests/gpu/gpuprof-gpu-check) can name the tracer channel's elements.
 * The meter channel uses gpuprof_gpu_registered_name() by default.
 */
void
gpuprof_gpu_set_path_func (GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data)
{
  path_funcs[channel] = path_func;
  path_data[channel] = user_data;
}

/**
 * gpuprof_gpu_element_path:
 * @channel: the channel of @element_id
 * @element_id: the element
 *
 * Returns: (transfer full): its path, or "element #<id>" when unknown
 */
gchar *
gpuprof_gpu_element_path (GpuprofGpuChannel channel, guint32 element_id)
{
  return element_label (path_funcs[channel], path_data[channel], element_id);
}

/**
 * gpuprof_gpu_register_name:
 * @name: an element path
 *
 * Ids for callers that have no object ids of their own (gpuprofmeter on the
 * meter channel). The same name always gets the same id.
 *
 * Returns: the id, >= 1
 */
guint32
gpuprof_gpu_register_name (const gchar * name)
{
  gpointer id;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  id = g_hash_table_lookup (name_ids, name);
  if (!id) {
    gchar *copy = g_strdup (name);
    g_ptr_array_add (names, copy);
    id = GUINT_TO_POINTER (names->len);
    g_hash_table_insert (name_ids, copy, id);
  }
  g_mutex_unlock (&lock);
  return GPOINTER_TO_UINT (id);
}

/**
 * gpuprof_gpu_registered_name:
 * @element_id: from gpuprof_gpu_register_name()
 * @unused: so that it is a #GpuprofGpuPathFunc
 *
 * Returns: (transfer full) (nullable): the name
 */
gchar *
gpuprof_gpu_registered_name (guint32 element_id, gpointer unused)
{
  gchar *name = NULL;

  g_mutex_lock (&lock);
  if (names && element_id >= 1 && element_id <= names->len)
    name = g_strdup (g_ptr_array_index (names, element_id - 1));
  g_mutex_unlock (&lock);
  return name;
}

/* ------------------------------------------------------------------ */
/* GpuprofGpuMeta                                                      */

GType
gpuprof_gpu_meta_api_get_type (void)
{
  static GType type;
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GpuprofGpuMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
gpu_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GpuprofGpuMeta *m = (GpuprofGpuMeta *) meta;

  m->sequence = 0;
  memset (&m->total, 0, sizeof (m->total));
  m->n_elements = 0;
  return TRUE;
}

static gboolean
gpu_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GpuprofGpuMeta *src = (GpuprofGpuMeta *) meta, *dst;

  /* plain data: copy it along with the buffer, whatever the transform */
  dst = gpuprof_buffer_add_gpu_meta (dest);
  if (!dst)
    return FALSE;
  dst->sequence = src->sequence;
  dst->total = src->total;
  dst->n_elements = src->n_elements;
  memcpy (dst->elements, src->elements, sizeof (src->elements));
  return TRUE;
}

const GstMetaInfo *
gpuprof_gpu_meta_get_info (void)
{
  static const GstMetaInfo *info;

  if (g_once_init_enter (&info)) {
    const GstMetaInfo *i = gst_meta_register (GPUPROF_GPU_META_API_TYPE,
        "GpuprofGpuMeta", sizeof (GpuprofGpuMeta), gpu_meta_init, NULL,
        gpu_meta_transform);
    g_once_init_leave (&info, i);
  }
  return info;
}

/**
 * gpuprof_buffer_add_gpu_meta:
 * @buffer: a writable buffer
 *
 * Returns: (transfer none): a zeroed GpuprofGpuMeta on @buffer
 */
GpuprofGpuMeta *
gpuprof_buffer_add_gpu_meta (GstBuffer * buffer)
{
  return (GpuprofGpuMeta *) gst_buffer_add_meta (buffer,
      gpuprof_gpu_meta_get_info (), NULL);
}
