/* gpuprof: GPU attribution, the statistics (gpuprof-gpu-stats.h).
 *
 * Takes the settled ops from the join (one GpuprofGpuSettledOp per used
 * channel) and sums them: per channel, per element (with its kernels), per
 * launching thread for the unattributed, a ring of recent (element,
 * sequence) costs; per device, the union of busy intervals and the longest
 * idle gaps. The public getters copy out of these under the engine's lock
 * (gpuprof-gpu-engine.h). Calls: the engine, the threads' slots (names) and
 * the waits, nothing above.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-stats.h"
#include "gpuprof-gpu-engine.h"
#include "gpuprof-gpu-threads.h"
#include "gpuprof-gpu-wait.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  guint64 ns;
  guint64 count;
} KernelAgg;

/* per-op lookups are cached: a direct-mapped cache in front of each hash
 * table (entries are never freed before the table is: no invalidation) */
#define KERNEL_CACHE 8          /* power of two */
#define ELEMENT_CACHE 64        /* power of two */

typedef struct
{
  GpuprofGpuCost cost;
  guint64 by_thread_ns;
  guint64 buffers;
  GHashTable *kernels;          /* interned name -> KernelAgg */
  const gchar *kernel_key[KERNEL_CACHE];
  KernelAgg *kernel_val[KERNEL_CACHE];
  /* ring: the slot of the last sequence, the highest sequence seen */
  guint last_slot;
  gboolean any_seq;
  guint64 max_seq;
} ElementAgg;

typedef struct
{
  GpuprofGpuExternalId key;
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
  /* open addressing (linear probing), 1 + ring slot index, 0 = empty; a
   * GHashTable cost a lookup, a removal and an insertion per buffer */
  guint32 *ring_index;
  guint index_mask;             /* index size - 1: >= 2 * ring_size */
  guint32 element_key[ELEMENT_CACHE];
  ElementAgg *element_val[ELEMENT_CACHE];
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

/* the statistics' state: all under the engine's lock; set up on first use
 * (devices != NULL) */
static struct
{
  Channel channels[GPUPROF_GPU_N_CHANNELS];
  GHashTable *devices;          /* device id -> Device */
  Device *last_device;          /* of the last op: usually the next one's */
} sums;

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
channel_init (Channel * ch)
{
  memset (&ch->totals, 0, sizeof (ch->totals));
  ch->elements = g_hash_table_new_full (NULL, NULL, NULL, element_agg_free);
  ch->unattributed = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ch->unattributed_kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ch->ring_size = MAX (gpuprof_gpu_engine_config_locked ()->ring_size, 1);
  ch->ring = g_new0 (RingSlot, ch->ring_size);
  ch->ring_next = 0;
  ch->index_mask = 1;
  while (ch->index_mask + 1 < 2 * ch->ring_size)
    ch->index_mask = (ch->index_mask << 1) | 1;
  ch->ring_index = g_new0 (guint32, ch->index_mask + 1);
  memset (ch->element_key, 0, sizeof (ch->element_key));
  memset (ch->element_val, 0, sizeof (ch->element_val));
}

static void
channel_clear (Channel * ch)
{
  g_clear_pointer (&ch->elements, g_hash_table_unref);
  g_clear_pointer (&ch->unattributed, g_hash_table_unref);
  g_clear_pointer (&ch->unattributed_kernels, g_hash_table_unref);
  g_clear_pointer (&ch->ring_index, g_free);
  g_clear_pointer (&ch->ring, g_free);
}

static void
ensure_locked (void)
{
  guint c;

  if (sums.devices)
    return;
  sums.devices = g_hash_table_new_full (NULL, NULL, NULL, device_free);
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
    channel_init (&sums.channels[c]);
}

void
gpuprof_gpu_stats_clear_locked (void)
{
  guint c;

  g_clear_pointer (&sums.devices, g_hash_table_unref);
  sums.last_device = NULL;
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
    channel_clear (&sums.channels[c]);
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

static inline guint
ptr_hash (gconstpointer p, guint size)
{
  return (guint) (((guintptr) p >> 4) * 2654435761u) & (size - 1);
}

static KernelAgg *
kernel_get (GHashTable * kernels, const gchar * name)
{
  KernelAgg *k = g_hash_table_lookup (kernels, name);

  if (!k) {
    k = g_new0 (KernelAgg, 1);
    g_hash_table_insert (kernels, (gpointer) name, k);
  }
  return k;
}

static void
kernel_add (GHashTable * kernels, const GpuprofGpuOp * op, guint64 ns)
{
  KernelAgg *k;

  if (op->kind != GPUPROF_GPU_OP_KERNEL)
    return;
  k = kernel_get (kernels, op->name ? op->name :
      g_intern_static_string ("?"));
  k->ns += ns;
  k->count++;
}

/* kernel_add() for an element, through its cache (names are interned) */
static void
element_kernel_add (ElementAgg * agg, const GpuprofGpuOp * op, guint64 ns)
{
  const gchar *name = op->name;
  guint h;
  KernelAgg *k;

  if (op->kind != GPUPROF_GPU_OP_KERNEL)
    return;
  if (!name)
    name = g_intern_static_string ("?");
  h = ptr_hash (name, KERNEL_CACHE);
  if (agg->kernel_key[h] == name) {
    k = agg->kernel_val[h];
  } else {
    k = kernel_get (agg->kernels, name);
    agg->kernel_key[h] = name;
    agg->kernel_val[h] = k;
  }
  k->ns += ns;
  k->count++;
}

static inline guint
ring_hash (const Channel * ch, GpuprofGpuExternalId key)
{
  return (guint) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) &
      ch->index_mask;
}

/* where @key is in the index, or the empty position where it would go */
static guint
ring_find (const Channel * ch, GpuprofGpuExternalId key)
{
  guint i = ring_hash (ch, key);

  while (ch->ring_index[i] && ch->ring[ch->ring_index[i] - 1].key != key)
    i = (i + 1) & ch->index_mask;
  return i;
}

static RingSlot *
ring_lookup (const Channel * ch, GpuprofGpuExternalId key)
{
  guint32 v = ch->ring_index[ring_find (ch, key)];

  return v ? &ch->ring[v - 1] : NULL;
}

/* removes @key (present) from the index: backward shift, no tombstones */
static void
ring_index_remove (Channel * ch, GpuprofGpuExternalId key)
{
  guint i = ring_find (ch, key), j = i, home;

  for (;;) {
    ch->ring_index[i] = 0;
    do {
      j = (j + 1) & ch->index_mask;
      if (!ch->ring_index[j])
        return;
      home = ring_hash (ch, ch->ring[ch->ring_index[j] - 1].key);
      /* stays while its home is cyclically in (i, j] */
    } while (i <= j ? (i < home && home <= j) : (i < home || home <= j));
    ch->ring_index[i] = ch->ring_index[j];
    i = j;
  }
}

static void
ring_add_locked (Channel * ch, ElementAgg * agg, guint64 seq,
    GpuprofGpuExternalId key, const GpuprofGpuOp * op, guint64 ns)
{
  RingSlot *slot = NULL;

  /* the ops of one buffer come together, and buffers in order: the last
   * slot, or a sequence never seen (no lookup), is the common case. @seq
   * came through an id (40 bits): one that wrapped (the meter's PTS after
   * 18 min) is lower than the highest, so it is looked up */
  if (agg->any_seq && ch->ring[agg->last_slot].used
      && ch->ring[agg->last_slot].key == key)
    slot = &ch->ring[agg->last_slot];
  else if (!agg->any_seq || seq > agg->max_seq)
    slot = NULL;
  else
    slot = ring_lookup (ch, key);
  if (!agg->any_seq || seq > agg->max_seq)
    agg->max_seq = seq;
  agg->any_seq = TRUE;

  if (!slot) {
    slot = &ch->ring[ch->ring_next];
    ch->ring_next = (ch->ring_next + 1) % ch->ring_size;
    if (slot->used)
      ring_index_remove (ch, slot->key);
    memset (slot, 0, sizeof (*slot));
    slot->key = key;
    slot->used = TRUE;
    ch->ring_index[ring_find (ch, key)] = (guint32) (slot - ch->ring) + 1;
    agg->buffers++;
  }
  agg->last_slot = slot - ch->ring;
  cost_add (&slot->cost, op, ns);
}

static void
account_unattributed_locked (Channel * ch, const GpuprofGpuSettledOp * so,
    guint64 ns)
{
  GpuprofGpuThreadStats *t = g_hash_table_lookup (ch->unattributed,
      GUINT_TO_POINTER (so->thread_id));

  if (!t) {
    t = g_new0 (GpuprofGpuThreadStats, 1);
    t->thread_id = so->thread_id;
    gpuprof_gpu_thread_name (so->thread_id, t->name, sizeof (t->name));
    g_hash_table_insert (ch->unattributed, GUINT_TO_POINTER (so->thread_id),
        t);
  }
  cost_add (&t->cost, so->op, ns);
  kernel_add (ch->unattributed_kernels, so->op, ns);
  ch->totals.unattributed_ns += ns;
}

static void
account_element_locked (Channel * ch, const GpuprofGpuSettledOp * so,
    guint64 ns)
{
  guint h = so->element_id & (ELEMENT_CACHE - 1);
  ElementAgg *agg = NULL;

  /* element 0 is never accounted here: key 0 means an empty entry */
  if (ch->element_key[h] == so->element_id)
    agg = ch->element_val[h];
  if (!agg) {
    agg = g_hash_table_lookup (ch->elements, GUINT_TO_POINTER (so->element_id));
    if (!agg) {
      agg = g_new0 (ElementAgg, 1);
      agg->kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      g_hash_table_insert (ch->elements, GUINT_TO_POINTER (so->element_id),
          agg);
    }
    ch->element_key[h] = so->element_id;
    ch->element_val[h] = agg;
  }
  cost_add (&agg->cost, so->op, ns);
  element_kernel_add (agg, so->op, ns);
  if (so->by == GPUPROF_GPU_BY_THREAD) {
    agg->by_thread_ns += ns;
    ch->totals.thread_ns += ns;
  } else {
    ch->totals.external_ns += ns;
  }
  /* a chain call's buffer, or an owned thread's batch in flight */
  if (so->seq != GPUPROF_GPU_SEQ_NONE)
    ring_add_locked (ch, agg, so->seq, gpuprof_gpu_encode_id
        (so->element_id, so->seq), so->op, ns);
}

/* One settled op on one channel; @ns its duration (0: untimed), @graph
 * whether its launch was a CUDA graph's. */
void
gpuprof_gpu_stats_account_locked (const GpuprofGpuSettledOp * so,
    guint64 ns, gboolean graph)
{
  Channel *ch = &sums.channels[so->channel];

  ensure_locked ();
  ch->totals.total_ns += ns;
  ch->totals.records++;
  if (so->by == GPUPROF_GPU_BY_NONE)
    account_unattributed_locked (ch, so, ns);
  else
    account_element_locked (ch, so, ns);
  if (so->unjoined)
    ch->totals.unjoined++;
  if (ns == 0)
    ch->totals.untimed++;
  if (graph)
    ch->totals.graph_records++;
  if (ns && so->api_start && so->op->start < so->api_start)
    ch->totals.early++;
}

/* -- devices: busy time and gaps -- */

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
    gaps[(*n)++] = (GpuprofGpuGap) {
    start, duration};
  } else if (duration > gaps[GPUPROF_GPU_MAX_GAPS - 1].duration) {
    gaps[GPUPROF_GPU_MAX_GAPS - 1] = (GpuprofGpuGap) {
    start, duration};
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
  guint i, j, n;
  Interval *iv;

  if (!d->seen || start < d->first)
    d->first = start;
  d->seen = TRUE;
  d->last = MAX (d->last, end);
  if (start < d->committed_end)
    start = d->committed_end;   /* later than retain_ns: clipped */
  if (end <= start)
    return;

  /* ops mostly come in order: after the last pending interval, or
   * overlapping only it */
  n = d->pending->len;
  iv = (Interval *) d->pending->data;
  if (n == 0 || start > iv[n - 1].end) {
    g_array_append_val (d->pending, ((Interval) {
            start, end}));
    return;
  }
  if (start >= iv[n - 1].start) {
    iv[n - 1].end = MAX (iv[n - 1].end, end);
    return;
  }

  /* first interval ending at or after @start: binary search, as ends are
   * sorted too. A linear scan was O(pending) per op, and pending holds
   * every disjoint op of the last retain_ns (tens of thousands at 35k
   * ops/s): most of the collector's time per op */
  i = 0;
  j = d->pending->len;
  while (i < j) {
    guint mid = i + (j - i) / 2;
    if (iv[mid].end < start)
      i = mid + 1;
    else
      j = mid;
  }
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
      (force || iv[n].end + gpuprof_gpu_engine_config_locked ()->retain_ns < d->last)) {
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

/* A timed op's interval on its device (once per op, whatever the channels) */
void
gpuprof_gpu_stats_device_add_locked (const GpuprofGpuOp * op)
{
  Device *d = sums.last_device;

  ensure_locked ();
  if (!d || d->device_id != op->device_id)
    d = g_hash_table_lookup (sums.devices, GUINT_TO_POINTER (op->device_id));
  if (!d) {
    d = g_new0 (Device, 1);
    d->device_id = op->device_id;
    d->pending = g_array_new (FALSE, FALSE, sizeof (Interval));
    g_hash_table_insert (sums.devices, GUINT_TO_POINTER (op->device_id),
        d);
  }
  sums.last_device = d;
  device_add_interval (d, op->start, op->end);
}

/* At each settle: intervals older than retain_ns (all with @force) are final */
void
gpuprof_gpu_stats_commit_locked (gboolean force)
{
  GHashTableIter it;
  gpointer v;

  ensure_locked ();
  g_hash_table_iter_init (&it, sums.devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    device_commit (v, force);
}

/* ------------------------------------------------------------------ */
/* queries                                                             */

/* Takes the lock for a query (the sums set up on first use); returns
 * @channel's sums. */
static Channel *
query_lock (GpuprofGpuChannel channel)
{
  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  return &sums.channels[channel];
}

void
gpuprof_gpu_stats_totals_locked (GpuprofGpuChannel channel,
    GpuprofGpuTotals * totals)
{
  ensure_locked ();
  *totals = sums.channels[channel].totals;
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

  g_hash_table_iter_init (&it, query_lock (channel)->elements);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    ElementAgg *a = v;
    GpuprofGpuElementStats s = { GPOINTER_TO_UINT (k), a->cost,
      a->by_thread_ns, a->buffers
    };
    g_array_append_val (out, s);
  }
  gpuprof_gpu_engine_unlock ();
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
  a = g_hash_table_lookup (query_lock (channel)->elements,
      GUINT_TO_POINTER (element_id));
  if (a) {
    stats->cost = a->cost;
    stats->by_thread_ns = a->by_thread_ns;
    stats->buffers = a->buffers;
  }
  gpuprof_gpu_engine_unlock ();
  return a != NULL;
}

static gint
thread_cmp (gconstpointer a, gconstpointer b)
{
  guint64 x = gpuprof_gpu_cost_ns (&((const GpuprofGpuThreadStats *) a)->cost);
  guint64 y = gpuprof_gpu_cost_ns (&((const GpuprofGpuThreadStats *) b)->cost);
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Unattributed waits (gpuprof-gpu-wait.c): on the rows of their threads,
 * a row for a thread that only waited */
static void
add_thread_waits (GpuprofGpuChannel channel, GArray * rows)
{
  GArray *tids = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint i;

  for (i = 0; i < rows->len; i++)
    g_array_append_val (tids,
        g_array_index (rows, GpuprofGpuThreadStats, i).thread_id);
  gpuprof_gpu_waiting_threads (channel, tids);
  for (i = 0; i < tids->len; i++) {
    guint32 tid = g_array_index (tids, guint32, i);
    if (i >= rows->len) {
      GpuprofGpuThreadStats t = { 0, };
      t.thread_id = tid;
      gpuprof_gpu_thread_name (tid, t.name, sizeof (t.name));
      g_array_append_val (rows, t);
    }
    g_array_index (rows, GpuprofGpuThreadStats, i).wait_ns =
        tid ? gpuprof_gpu_get_thread_wait (channel, tid, NULL) : 0;
  }
  g_array_unref (tids);
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

  g_hash_table_iter_init (&it, query_lock (channel)->unattributed);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_array_append_vals (out, v, 1);
  gpuprof_gpu_engine_unlock ();
  add_thread_waits (channel, out);
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
  Channel *ch;
  gpointer k, v;

  ch = query_lock (channel);
  g_hash_table_iter_init (&it, ch->elements);
  while (g_hash_table_iter_next (&it, &k, &v))
    collect_kernels (out, ((ElementAgg *) v)->kernels, GPOINTER_TO_UINT (k));
  collect_kernels (out, ch->unattributed_kernels, 0);
  gpuprof_gpu_engine_unlock ();
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

  gpuprof_gpu_engine_lock ();
  ensure_locked ();
  g_hash_table_iter_init (&it, sums.devices);
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
  gpuprof_gpu_engine_unlock ();
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
  GpuprofGpuExternalId key = gpuprof_gpu_encode_id (element_id, seq);
  RingSlot *slot;

  memset (cost, 0, sizeof (*cost));
  slot = ring_lookup (query_lock (channel), key);
  if (slot)
    *cost = slot->cost;
  gpuprof_gpu_engine_unlock ();
  return slot != NULL;
}
