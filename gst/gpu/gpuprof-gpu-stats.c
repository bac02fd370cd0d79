/* gpuprof: GPU attribution, the statistics — see gpuprof-gpu-private.h.
 *
 * Takes the settled ops from the join (one GpuprofGpuSettledOp per used
 * channel) and sums them: per channel, per element (with its kernels), per
 * launching thread for the unattributed, a ring of recent (element,
 * sequence) costs; per device, the union of busy intervals and the longest
 * idle gaps. The public getters copy out of these under _gpuprof_gpu.lock.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-private.h"

#include <stdlib.h>
#include <string.h>

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

/* the statistics' state: all under _gpuprof_gpu.lock */
static struct
{
  Channel channels[GPUPROF_GPU_N_CHANNELS];
  GHashTable *devices;          /* device id -> Device */
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
  ch->ring_size = MAX (_gpuprof_gpu.config.ring_size, 1);
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

void
_gpuprof_gpu_stats_init_locked (void)
{
  guint c;

  sums.devices = g_hash_table_new_full (NULL, NULL, NULL, device_free);
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
    channel_init (&sums.channels[c]);
}

void
_gpuprof_gpu_stats_clear_locked (void)
{
  guint c;

  g_clear_pointer (&sums.devices, g_hash_table_unref);
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

/* the entry of @key in @table (values of @size bytes, freed by the
 * table), zeroed and inserted on first use; @made says whether it is new */
static gpointer
table_entry (GHashTable * table, gconstpointer key, gsize size,
    gboolean * made)
{
  gpointer v = g_hash_table_lookup (table, key);

  *made = v == NULL;
  if (!v) {
    v = g_malloc0 (size);
    g_hash_table_insert (table, (gpointer) key, v);
  }
  return v;
}

static void
kernel_add (GHashTable * kernels, const GpuprofGpuOp * op, guint64 ns)
{
  KernelAgg *k;
  const gchar *name = op->name ? op->name : g_intern_static_string ("?");
  gboolean made;

  if (op->kind != GPUPROF_GPU_OP_KERNEL)
    return;
  k = table_entry (kernels, name, sizeof (KernelAgg), &made);
  k->ns += ns;
  k->count++;
}

static void
ring_add_locked (Channel * ch, ElementAgg * agg, GpuprofGpuExternalId key,
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

static void
account_unattributed_locked (Channel * ch, const GpuprofGpuSettledOp * so,
    guint64 ns)
{
  gboolean made;
  GpuprofGpuThreadStats *t = table_entry (ch->unattributed,
      GUINT_TO_POINTER (so->thread_id), sizeof (GpuprofGpuThreadStats),
      &made);

  if (made) {
    t->thread_id = so->thread_id;
    _gpuprof_gpu_thread_name (so->thread_id, t->name, sizeof (t->name));
  }
  cost_add (&t->cost, so->op, ns);
  kernel_add (ch->unattributed_kernels, so->op, ns);
  ch->totals.unattributed_ns += ns;
}

static void
account_element_locked (Channel * ch, const GpuprofGpuSettledOp * so,
    guint64 ns)
{
  gboolean made;
  ElementAgg *agg = table_entry (ch->elements,
      GUINT_TO_POINTER (so->element_id), sizeof (ElementAgg), &made);

  if (made)
    agg->kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  cost_add (&agg->cost, so->op, ns);
  kernel_add (agg->kernels, so->op, ns);
  if (so->by == GPUPROF_GPU_BY_THREAD) {
    agg->by_thread_ns += ns;
    ch->totals.thread_ns += ns;
  } else {
    ch->totals.external_ns += ns;
    if (so->seq != GPUPROF_GPU_SEQ_NONE)
      ring_add_locked (ch, agg, gpuprof_gpu_encode_id (so->element_id,
              so->seq), so->op, ns);
  }
}

/* One settled op on one channel; @ns its duration (0: untimed), @graph
 * whether its launch was a CUDA graph's. */
void
_gpuprof_gpu_stats_account_locked (const GpuprofGpuSettledOp * so,
    guint64 ns, gboolean graph)
{
  Channel *ch = &sums.channels[so->channel];

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

  /* first interval ending at or after @start: binary search, as ends are
   * sorted too. A linear scan was O(pending) per op, and pending holds
   * every disjoint op of the last retain_ns (tens of thousands at 35k
   * ops/s): most of the collector's time per op */
  iv = (Interval *) d->pending->data;
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
      (force || iv[n].end + _gpuprof_gpu.config.retain_ns < d->last)) {
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
_gpuprof_gpu_stats_device_add_locked (const GpuprofGpuOp * op)
{
  gboolean made;
  Device *d = table_entry (sums.devices, GUINT_TO_POINTER (op->device_id),
      sizeof (Device), &made);

  if (made) {
    d->device_id = op->device_id;
    d->pending = g_array_new (FALSE, FALSE, sizeof (Interval));
  }
  device_add_interval (d, op->start, op->end);
}

/* At each settle: intervals older than retain_ns (all with @force) are final */
void
_gpuprof_gpu_stats_commit_locked (gboolean force)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, sums.devices);
  while (g_hash_table_iter_next (&it, NULL, &v))
    device_commit (v, force);
}

/* ------------------------------------------------------------------ */
/* queries                                                             */

/* A query's start: the engine locked, the statistics made if need be;
 * returns @channel's (unlock with g_mutex_unlock (&_gpuprof_gpu.lock)) */
static Channel *
lock_channel (GpuprofGpuChannel channel)
{
  g_mutex_lock (&_gpuprof_gpu.lock);
  _gpuprof_gpu_ensure_init_locked ();
  return &sums.channels[channel];
}

/**
 * gpuprof_gpu_get_totals:
 * @channel: the channel
 * @totals: (out): filled
 */
void
gpuprof_gpu_get_totals (GpuprofGpuChannel channel, GpuprofGpuTotals * totals)
{
  *totals = lock_channel (channel)->totals;
  _gpuprof_gpu_join_fill_totals_locked (totals);
  g_mutex_unlock (&_gpuprof_gpu.lock);
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

  g_hash_table_iter_init (&it, lock_channel (channel)->elements);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    ElementAgg *a = v;
    GpuprofGpuElementStats s = { GPOINTER_TO_UINT (k), a->cost,
      a->by_thread_ns, a->buffers
    };
    g_array_append_val (out, s);
  }
  g_mutex_unlock (&_gpuprof_gpu.lock);
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
  a = g_hash_table_lookup (lock_channel (channel)->elements,
      GUINT_TO_POINTER (element_id));
  if (a) {
    stats->cost = a->cost;
    stats->by_thread_ns = a->by_thread_ns;
    stats->buffers = a->buffers;
  }
  g_mutex_unlock (&_gpuprof_gpu.lock);
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

  g_hash_table_iter_init (&it, lock_channel (channel)->unattributed);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_array_append_vals (out, v, 1);
  g_mutex_unlock (&_gpuprof_gpu.lock);
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
  Channel *ch;

  ch = lock_channel (channel);
  g_hash_table_iter_init (&it, ch->elements);
  while (g_hash_table_iter_next (&it, &k, &v))
    collect_kernels (out, ((ElementAgg *) v)->kernels, GPOINTER_TO_UINT (k));
  collect_kernels (out, ch->unattributed_kernels, 0);
  g_mutex_unlock (&_gpuprof_gpu.lock);
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

  g_mutex_lock (&_gpuprof_gpu.lock);
  _gpuprof_gpu_ensure_init_locked ();
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
  g_mutex_unlock (&_gpuprof_gpu.lock);
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
  slot = g_hash_table_lookup (lock_channel (channel)->ring_index, &key);
  if (slot)
    *cost = slot->cost;
  g_mutex_unlock (&_gpuprof_gpu.lock);
  return slot != NULL;
}
