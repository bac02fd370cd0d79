/* gpuprof: batches — how an aggregator forms them and how they travel. */
#include "gpuprof-batch.h"

#include "gpuprof-bufmap.h"
#include "gpuprof-async.h"
#include "gpuprof-clock.h"
#include "gpuprof-gpu.h"
#include "gpuprof-histogram.h"
#include "gpuprof-stats.h"

#include <string.h>

#define SLOT_BITS 12            /* 4096 buffers of batches in flight */
#define N_ARRIVALS 1024         /* inputs not yet taken into a batch */
#define N_RECENT 512            /* batches a stage can still look up */
#define MAX_INPUTS 64           /* distinct inputs told apart */
#define N_FILLS 65              /* per-fill buckets: 1..64 frames, 64+ */
#define MIN_FILL_SAMPLES 4

#define REL __ATOMIC_RELAXED
#define LOAD(p) __atomic_load_n ((p), REL)
#define STORE(p, v) __atomic_store_n ((p), (v), REL)
#define ADD(p, v) __atomic_fetch_add ((p), (v), REL)

enum
{ REASON_NONE, REASON_FULL, REASON_TIMEOUT, REASON_EOS };

typedef struct
{
  guint64 seq;                  /* arrival number + 1 once written */
  guint64 ts;
  guint input;                  /* slot in input_ids */
  GpuprofOrigin origin;         /* its source's push (gpuprof-streams.h) */
} Arrival;

typedef struct
{
  guint64 num;                  /* batch number; 0 while being written */
  guint64 push_ts;
  guint64 frames;
  /* the sources' pushes of its first frames, for the streams' latency */
  guint n_origins;
  GpuprofOrigin origins[GPUPROF_STREAM_BATCH_FRAMES];
} Recent;

typedef struct
{
  /* written by the input threads */
  guint64 arrivals;
  Arrival ring[N_ARRIVALS];
  guint32 input_ids[MAX_INPUTS];        /* pad ids, slots claimed by CAS */
  guint64 frame_duration;
  /* written by the aggregator's pushing thread */
  guint64 consumed;
  guint64 batches, frames, inputs_sum, full, timeout, eos;
  gint last_reason;
  guint64 first_push, last_push;
  guint64 first_input;          /* arrival of the first batch's first frame */
  GpuprofHistogram frames_hist, wait_hist, latency_hist;
  Recent recent[N_RECENT];
} Agg;

typedef struct
{
  guint64 count;
  guint64 self_ns;
} Fill;

/* every element's slot (GpuprofElement.batch), made with its record */
typedef struct _GpuprofBatchElement
{
  GpuprofElement *element;
  gint batch_size;              /* -1: no such property; -2: not read yet */
  gint interval;                /* -1: no such property */
  Agg *agg;                     /* aggregators */
  /* as a stage of some aggregator's batches */
  guint32 agg_id;
  guint64 batches, frames, self_ns, offset_ns;
  guint64 first_push;           /* push of the first batch it processed */
  guint64 last_end;             /* end of its last batch call */
  Fill fills[N_FILLS];
  guint64 pending;              /* last batch received, for its next output */
} Elem;

struct _GpuprofBatches
{
  GMutex lock;                  /* creating an aggregator's part only */
  GpuprofStreams *streams;      /* told which frames a sink received */
  GpuprofObjects *objects;      /* batch ids name their aggregator by id */
  gint active;                  /* an aggregator was seen: follow buffers */
  /* a batch's buffer -> its GpuprofBatchId (a) */
  GpuprofBufEntry slots[1 << SLOT_BITS];
};

GpuprofBatches *
gpuprof_batches_new (GpuprofStreams * streams, GpuprofObjects * objects)
{
  GpuprofBatches *b = g_new0 (GpuprofBatches, 1);

  b->streams = streams;
  b->objects = objects;
  g_mutex_init (&b->lock);
  return b;
}

void
gpuprof_batches_free (GpuprofBatches * b)
{
  if (!b)
    return;
  g_mutex_clear (&b->lock);
  g_free (b);
}

/* ---------------------------------------------------------- elements */

void
gpuprof_batches_element_init (GpuprofBatches * b, GpuprofElement * e)
{
  Elem *st = g_new0 (Elem, 1);

  st->element = e;
  st->batch_size = -2;
  st->interval = -1;
  e->batch = st;
}

void
gpuprof_batches_element_fini (GpuprofBatches * b, GpuprofElement * e)
{
  Elem *st = e->batch;

  e->batch = NULL;
  if (st) {
    g_free (st->agg);
    g_free (st);
  }
}

static inline Elem *
elem_peek (GpuprofBatches * b, GpuprofElement * e)
{
  return e->batch;
}

/* an aggregator's part on its first sight: the lock keeps two threads from
 * creating it twice */
static Elem *
elem_get (GpuprofBatches * b, GpuprofElement * e, gboolean aggregator)
{
  Elem *st = elem_peek (b, e);

  if (G_LIKELY (!st || st->agg || !aggregator))
    return st;
  g_mutex_lock (&b->lock);
  if (!st->agg)
    __atomic_store_n (&st->agg, g_new0 (Agg, 1), __ATOMIC_RELEASE);
  g_mutex_unlock (&b->lock);
  return st;
}

static Elem *
elem_by_id (GpuprofBatches * b, guint32 id)
{
  GpuprofElement *e = gpuprof_objects_element_by_id (b->objects, id);

  return e ? e->batch : NULL;
}

/* an int-like property as a gint; -1 when the element has none */
static gint
int_property (GObject * obj, const gchar * name)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      name);
  GValue v = G_VALUE_INIT;
  gint out = -1;

  if (!ps || !(ps->flags & G_PARAM_READABLE))
    return -1;
  g_value_init (&v, ps->value_type);
  g_object_get_property (obj, name, &v);
  if (G_VALUE_HOLDS_UINT (&v))
    out = (gint) MIN (g_value_get_uint (&v), G_MAXINT);
  else if (G_VALUE_HOLDS_INT (&v))
    out = g_value_get_int (&v);
  else if (G_VALUE_HOLDS_UINT64 (&v))
    out = (gint) MIN (g_value_get_uint64 (&v), G_MAXINT);
  else if (G_VALUE_HOLDS_INT64 (&v))
    out = (gint) CLAMP (g_value_get_int64 (&v), -1, G_MAXINT);
  g_value_unset (&v);
  return out;
}

void
gpuprof_batches_read_properties (GpuprofBatches * b, GpuprofElement * e)
{
  /* a snapshot reads them too, where the element may be finalizing */
  GstElement *element = gpuprof_objects_ref_element (NULL, e);
  gint batch_size, interval;
  Elem *st;

  if (!element)
    return;
  batch_size = int_property (G_OBJECT (element), "batch-size");
  interval = int_property (G_OBJECT (element), "interval");
  gst_object_unref (element);
  if (batch_size < 0 && interval < 0 && e->role != GPUPROF_ROLE_AGGREGATOR)
    return;
  st = elem_get (b, e, e->role == GPUPROF_ROLE_AGGREGATOR);
  if (!st)
    return;
  STORE (&st->batch_size, batch_size);
  STORE (&st->interval, interval);
}

/* ------------------------------------------------------ buffer table */

static GpuprofBatchId
slot_lookup (GpuprofBatches * b, gconstpointer key)
{
  guint64 id, unused;

  return gpuprof_bufmap_lookup (b->slots, SLOT_BITS, key, &id, &unused) ?
      id : 0;
}

static void
slot_insert (GpuprofBatches * b, gconstpointer key, GpuprofBatchId id)
{
  gpuprof_bufmap_insert (b->slots, SLOT_BITS, key, id, 0);
}

static void
slot_remove (GpuprofBatches * b, gconstpointer key)
{
  gpuprof_bufmap_remove (b->slots, SLOT_BITS, key);
}

/* ------------------------------------------------------- aggregators */

static guint
input_slot (Agg * a, guint32 pad_id)
{
  guint i, k;

  for (k = 0; k < MAX_INPUTS; k++) {
    guint32 expected = 0;
    i = (pad_id + k) & (MAX_INPUTS - 1);
    if (LOAD (&a->input_ids[i]) == pad_id)
      return i;
    if (__atomic_compare_exchange_n (&a->input_ids[i], &expected, pad_id,
            FALSE, REL, REL) || expected == pad_id)
      return i;
  }
  return pad_id & (MAX_INPUTS - 1);     /* more than 64 inputs: shared bits */
}

static void
agg_input (GpuprofBatches * b, const GpuprofFrame * f, GstBuffer * buffer,
    guint64 ts, const GpuprofOrigin * origin)
{
  Elem *st = elem_get (b, f->element, TRUE);
  Agg *a;
  guint input, k;

  if (!st)
    return;
  a = st->agg;
  input = input_slot (a, f->pad->id);
  if (buffer && GST_BUFFER_DURATION_IS_VALID (buffer))
    STORE (&a->frame_duration, GST_BUFFER_DURATION (buffer));
  for (k = 0; k < f->n_buffers; k++) {
    guint64 n = ADD (&a->arrivals, 1);
    Arrival *ar = &a->ring[n % N_ARRIVALS];
    STORE (&ar->ts, ts);
    STORE (&ar->input, input);
    STORE (&ar->origin.tag, origin ? origin->tag : 0);
    STORE (&ar->origin.ts, origin ? origin->ts : 0);
    __atomic_store_n (&ar->seq, n + 1, __ATOMIC_RELEASE);
  }
  if (G_UNLIKELY (!LOAD (&b->active)))
    STORE (&b->active, 1);
}

/* The inputs a batch took, oldest first: the arrivals after those taken by
 * earlier batches. Returns the first one's time (0 unknown) and the set of
 * inputs; the frames' origins go to 'r'. Visits each arrival once over the
 * run: O(1) per input. */
static guint64
take_arrivals (Agg * a, guint64 frames, guint64 * inputs_mask, Recent * r)
{
  guint64 lo = a->consumed, hi = a->consumed + frames, i, first = 0;
  guint n = 0;

  if (hi - lo > N_ARRIVALS)
    lo = hi - N_ARRIVALS;
  *inputs_mask = 0;
  for (i = lo; i < hi; i++) {
    Arrival *ar = &a->ring[i % N_ARRIVALS];
    if (__atomic_load_n (&ar->seq, __ATOMIC_ACQUIRE) != i + 1)
      continue;                 /* overwritten, or still being written */
    if (!first || LOAD (&ar->ts) < first)
      first = LOAD (&ar->ts);
    *inputs_mask |= G_GUINT64_CONSTANT (1) << LOAD (&ar->input);
    if (LOAD (&ar->origin.tag) && n < GPUPROF_STREAM_BATCH_FRAMES) {
      STORE (&r->origins[n].tag, LOAD (&ar->origin.tag));
      STORE (&r->origins[n].ts, LOAD (&ar->origin.ts));
      n++;
    }
  }
  a->consumed = hi;
  STORE (&r->n_origins, n);
  return first;
}

static guint64
agg_push (GpuprofBatches * b, GpuprofElement * e, GstBuffer * buffer,
    guint64 seq, guint64 ts)
{
  Elem *st = elem_get (b, e, TRUE);
  Agg *a;
  gint batch_size;
  guint64 pending, frames, first, mask;
  gint reason;
  Recent *r;

  if (!st || seq == 0)
    return 0;
  a = st->agg;
  batch_size = LOAD (&st->batch_size);
  pending = __atomic_load_n (&a->arrivals, __ATOMIC_ACQUIRE) - a->consumed;
  /* a batching mux takes at most batch-size; the rest waits for the next */
  frames = batch_size > 0 ? MIN (pending, (guint64) batch_size) : pending;
  r = &a->recent[seq % N_RECENT];
  __atomic_store_n (&r->num, 0, __ATOMIC_RELEASE);
  first = take_arrivals (a, frames, &mask, r);
  reason = batch_size <= 0 ? REASON_NONE :
      frames >= (guint64) batch_size ? REASON_FULL : REASON_TIMEOUT;

  ADD (&a->batches, 1);
  ADD (&a->frames, frames);
  ADD (&a->inputs_sum, (guint64) __builtin_popcountll (mask));
  if (reason == REASON_FULL)
    ADD (&a->full, 1);
  else if (reason == REASON_TIMEOUT)
    ADD (&a->timeout, 1);
  a->last_reason = reason;
  gpuprof_histogram_record (&a->frames_hist, frames);
  if (first)
    gpuprof_histogram_record (&a->wait_hist, ts > first ? ts - first : 0);
  if (!LOAD (&a->first_push)) {
    STORE (&a->first_input, first && first < ts ? first : ts);
    STORE (&a->first_push, ts);
  }
  STORE (&a->last_push, ts);

  STORE (&r->push_ts, ts);
  STORE (&r->frames, frames);
  __atomic_store_n (&r->num, seq, __ATOMIC_RELEASE);
  slot_insert (b, buffer, gpuprof_batch_id_make (e->id, seq));
  if (G_UNLIKELY (!LOAD (&b->active)))
    STORE (&b->active, 1);
  return seq;
}

void
gpuprof_batches_eos (GpuprofBatches * b, GpuprofPad * pad)
{
  Elem *st;

  if (!pad->element || pad->direction != GST_PAD_SRC
      || !(st = elem_peek (b, pad->element)) || !st->agg)
    return;
  /* the pushing thread sends EOS after its last batch */
  if (st->agg->last_reason == REASON_TIMEOUT) {
    ADD (&st->agg->timeout, (guint64) - 1);
    ADD (&st->agg->eos, 1);
    st->agg->last_reason = REASON_EOS;
  }
}

/* ----------------------------------------------------------- stages */

/* The batch 'id' if its aggregator still knows it (a stale pointer of a
 * long-gone batch does not match). */
static Recent *
recent_of (GpuprofBatches * b, GpuprofBatchId id, Recent * copy,
    gboolean origins)
{
  guint64 num = gpuprof_batch_id_num (id);
  Elem *agg = elem_by_id (b, gpuprof_batch_id_aggregator (id));
  Recent *r;
  guint k;

  if (!agg || !agg->agg)
    return NULL;
  r = &agg->agg->recent[num % N_RECENT];
  if (__atomic_load_n (&r->num, __ATOMIC_ACQUIRE) != num)
    return NULL;
  copy->push_ts = LOAD (&r->push_ts);
  copy->frames = LOAD (&r->frames);
  copy->n_origins = 0;
  /* read as written: atomics, checked by the number around them */
  for (k = 0; origins && k < MIN (LOAD (&r->n_origins),
          GPUPROF_STREAM_BATCH_FRAMES); k++) {
    copy->origins[k].tag = LOAD (&r->origins[k].tag);
    copy->origins[k].ts = LOAD (&r->origins[k].ts);
    copy->n_origins = k + 1;
  }
  copy->num = num;
  return __atomic_load_n (&r->num, __ATOMIC_ACQUIRE) == num ? copy : NULL;
}

guint64
gpuprof_batches_chain_pre (GpuprofBatches * b, GpuprofThread * t,
    GpuprofFrame * f, GstBuffer * buffer, guint64 ts,
    const GpuprofOrigin * origin)
{
  GpuprofElement *e = f->element;
  Recent copy;
  GpuprofBatchId id;
  Elem *st;

  if (e->role == GPUPROF_ROLE_AGGREGATOR) {
    /* an aggregator's input: counted, never followed as a batch */
    agg_input (b, f, buffer, ts, origin);
    return 0;
  }
  if (!LOAD (&b->active) || !buffer || e->role == GPUPROF_ROLE_QUEUE)
    return 0;
  if (!(id = slot_lookup (b, buffer)) || !recent_of (b, id, &copy,
          e->role == GPUPROF_ROLE_SINK && !origin))
    return 0;
  if (!(st = elem_get (b, e, FALSE)))
    return 0;
  if (e->role == GPUPROF_ROLE_SINK) {
    Elem *agg = elem_by_id (b, gpuprof_batch_id_aggregator (id));
    gpuprof_histogram_record (&agg->agg->latency_hist,
        ts > copy.push_ts ? ts - copy.push_ts : 0);
    /* a frame the sink got alone (funnel) was delivered already */
    if (b->streams)
      gpuprof_streams_deliver (b->streams, copy.origins, copy.n_origins, ts);
  }
  ADD (&st->offset_ns, ts > copy.push_ts ? ts - copy.push_ts : 0);
  if (!LOAD (&st->first_push))
    STORE (&st->first_push, copy.push_ts);
  /* an element followed as asynchronous carries each batch on with the
   * arrival its output matches (gpuprof_batches_carry), not the last one */
  if (!__atomic_load_n (&e->async, __ATOMIC_RELAXED))
    STORE (&st->pending, id);
  /* kept in the frame, so chain-post finds what chain-pre saw */
  f->batch_id = id;
  f->batch_frames = copy.frames;
  return copy.num;
}

void
gpuprof_batches_chain_post (GpuprofBatches * b, GpuprofThread * t,
    const GpuprofFrame * f, guint64 self_ns)
{
  Elem *st;
  guint fill;

  if (!f->batch_id || !LOAD (&b->active)
      || f->element->role == GPUPROF_ROLE_AGGREGATOR
      || !(st = elem_peek (b, f->element)))
    return;
  ADD (&st->batches, 1);
  ADD (&st->frames, f->batch_frames);
  ADD (&st->self_ns, self_ns);
  /* one clock read per batch call: the end of the stage's busy span */
  STORE (&st->last_end, gpuprof_clock_now ());
  fill = (guint) MIN (f->batch_frames, N_FILLS - 1);
  ADD (&st->fills[fill].count, 1);
  ADD (&st->fills[fill].self_ns, self_ns);
  STORE (&st->agg_id, gpuprof_batch_id_aggregator (f->batch_id));
  /* the batch ended here: its pointer may be recycled for anything */
  if (f->element->role == GPUPROF_ROLE_SINK)
    slot_remove (b, f->key);
}

guint64
gpuprof_batches_push_pre (GpuprofBatches * b, GpuprofPad * pad,
    GstBuffer * buffer, guint64 seq, guint64 ts)
{
  GpuprofElement *e = pad->element;
  guint64 pending;
  Elem *st;

  if (!buffer)
    return 0;
  if (e->role == GPUPROF_ROLE_AGGREGATOR)
    return agg_push (b, e, buffer, seq, ts);
  if (!LOAD (&b->active))
    return 0;
  /* a source's new buffer is no batch, whatever an old entry says */
  if (e->role == GPUPROF_ROLE_SOURCE) {
    slot_remove (b, buffer);
    return 0;
  }
  if (!(st = elem_peek (b, e)) || !LOAD (&st->pending))
    return 0;
  pending = __atomic_exchange_n (&st->pending, 0, REL);
  /* in place: the same buffer goes on; else its next output carries it */
  if (pending && !slot_lookup (b, buffer))
    slot_insert (b, buffer, pending);
  return 0;
}

/* ----------------------------------------------------------- runs */

void
gpuprof_batches_reset (GpuprofBatches * b, GpuprofElement * e)
{
  Elem *st = elem_peek (b, e);

  if (!st)
    return;
  /* at NULL: no streaming thread writes */
  if (st->agg)
    memset (st->agg, 0, sizeof (Agg));
  st->agg_id = 0;
  st->batches = st->frames = st->self_ns = st->offset_ns = 0;
  st->first_push = st->last_end = 0;
  memset (st->fills, 0, sizeof (st->fills));
  st->pending = 0;
}

/* ------------------------------------------------------- snapshot */

/* the inputs' frame interval from their caps, when buffers had none */
static guint64
caps_frame_interval (GstElement * element)
{
  guint64 best = 0;
  GList *l;

  GST_OBJECT_LOCK (element);
  for (l = element->sinkpads; l; l = l->next) {
    GstCaps *caps = gst_pad_get_current_caps (l->data);
    gint n = 0, d = 1;
    if (caps && gst_caps_get_size (caps) > 0
        && gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
            "framerate", &n, &d) && n > 0)
      best = MAX (best, gst_util_uint64_scale (GST_SECOND, d, n));
    if (caps)
      gst_caps_unref (caps);
  }
  GST_OBJECT_UNLOCK (element);
  return best;
}

static guint
count_inputs (Agg * a)
{
  guint i, n = 0;

  for (i = 0; i < MAX_INPUTS; i++)
    n += LOAD (&a->input_ids[i]) != 0;
  return n;
}

static void
fill_batch_row (GpuprofBatchRow * row, Elem * st)
{
  GpuprofElement *e = st->element;
  Agg *a = st->agg;
  guint64 batches = LOAD (&a->batches);

  row->path = g_strdup (e->path);
  row->factory = g_strdup (e->factory);
  row->batches = batches;
  row->frames = LOAD (&a->frames);
  row->frames_mean = batches ? (gdouble) row->frames / batches : 0;
  row->frames_p99 = gpuprof_histogram_percentile (&a->frames_hist, 0.99);
  row->batch_size = st->batch_size > 0 ? (guint64) st->batch_size : 0;
  row->fill = row->batch_size ? row->frames_mean / row->batch_size : 0;
  row->inputs = count_inputs (a);
  row->inputs_mean = batches ? (gdouble) LOAD (&a->inputs_sum) / batches : 0;
  row->wait_p50_ns = gpuprof_histogram_percentile (&a->wait_hist, 0.50);
  row->wait_p99_ns = gpuprof_histogram_percentile (&a->wait_hist, 0.99);
  row->full = LOAD (&a->full);
  row->timeout = LOAD (&a->timeout);
  row->eos = LOAD (&a->eos);
  if (batches > 1)
    row->interval_ns = (LOAD (&a->last_push) - LOAD (&a->first_push)) /
        (batches - 1);
  row->frame_interval_ns = LOAD (&a->frame_duration);
  if (!row->frame_interval_ns) {
    GstElement *el = gpuprof_objects_ref_element (NULL, e);

    if (el) {
      row->frame_interval_ns = caps_frame_interval (el);
      gst_object_unref (el);
    }
  }
  row->latency_p50_ns = gpuprof_histogram_percentile (&a->latency_hist, 0.50);
  row->latency_p99_ns = gpuprof_histogram_percentile (&a->latency_hist, 0.99);
}

/* per-frame time at the smallest and the largest fill seen often enough */
static void
fill_extremes (GpuprofStageRow * row, Elem * st)
{
  guint i, lo = 0, hi = 0;

  for (i = 1; i < N_FILLS; i++) {
    if (LOAD (&st->fills[i].count) < MIN_FILL_SAMPLES)
      continue;
    if (!lo)
      lo = i;
    hi = i;
  }
  if (!lo || lo == hi)
    return;
  row->fill_lo_frames = lo;
  row->fill_lo_ns_per_frame = LOAD (&st->fills[lo].self_ns) /
      LOAD (&st->fills[lo].count) / lo;
  row->fill_hi_frames = hi;
  row->fill_hi_ns_per_frame = LOAD (&st->fills[hi].self_ns) /
      LOAD (&st->fills[hi].count) / hi;
}

static gchar *
main_thread_name (GpuprofElement * e)
{
  const GpuprofThreadSlot *slot = gpuprof_stats_main_slot (e->stats);

  return slot ? gpuprof_thread_dup_name (slot->thread) : g_strdup ("");
}

static void
fill_stage_common (GpuprofStageRow * row, Elem * st)
{
  GpuprofElement *e = st->element;
  GpuprofGpuElementStats gs;

  row->path = g_strdup (e->path);
  row->factory = g_strdup (e->factory);
  row->thread = main_thread_name (e);
  row->ns_per_batch = row->batches ? row->self_ns / row->batches : 0;
  row->ns_per_frame = row->frames ? row->self_ns / row->frames : 0;
  if (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER)
      && gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, e->id, &gs)) {
    row->gpu_ns = gpuprof_gpu_cost_ns (&gs.cost);
    row->gpu_ns_per_batch = row->batches ? row->gpu_ns / row->batches : 0;
  }
  row->batch_size = st->batch_size > 0 ? (guint64) st->batch_size : 0;
  row->interval = st->interval >= 0 ? (guint64) st->interval + 1 : 0;
  row->waits_on_clock = e->waits_on_clock;
}

typedef struct
{
  GpuprofStageRow row;
  guint64 offset;               /* mean time from push to its arrival */
} StageSort;

static gint
cmp_stage (gconstpointer a, gconstpointer b)
{
  const StageSort *x = a, *y = b;
  gint c = g_strcmp0 (x->row.aggregator, y->row.aggregator);

  if (c)
    return c;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return g_strcmp0 (x->row.path, y->row.path);
}

/* An asynchronous stage works on its batches on its own threads too: its
 * work on all of them (gpuprof-async.h), the batches' share of its calls */
static guint64
async_stage_work (GpuprofElement * e, guint64 batches)
{
  guint64 calls = gpuprof_stats_calls (e->stats), all;
  GpuprofAsyncFigures f;

  gpuprof_async_figures (e->async, &f);
  all = gpuprof_stats_self_ns (e->stats) + f.worker_ns;
  return calls > batches ? (guint64) ((gdouble) all * batches / calls) : all;
}

static void
add_stages (GArray * sorted, GPtrArray * elements, GpuprofBatches * b)
{
  guint i;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    Elem *st = elem_peek (b, e), *agg;
    StageSort s = { {0} };

    if (!st)
      continue;
    if (st->agg && LOAD (&st->agg->batches)) {
      /* the aggregator is the first stage: its own work per batch */
      s.row.aggregator = g_strdup (e->path);
      s.row.batches = LOAD (&st->agg->batches);
      s.row.frames = LOAD (&st->agg->frames);
      s.row.self_ns = gpuprof_stats_self_ns (e->stats);
      /* its work on a batch is done between the first frame's arrival and
       * the push */
      s.row.span_ns = LOAD (&st->agg->last_push) -
          MIN (LOAD (&st->agg->first_input), LOAD (&st->agg->last_push));
      fill_stage_common (&s.row, st);
      g_array_append_val (sorted, s);
    } else if (!st->agg && LOAD (&st->batches)) {
      agg = elem_by_id (b, LOAD (&st->agg_id));
      s.row.aggregator = g_strdup (agg ? agg->element->path : "");
      s.row.batches = LOAD (&st->batches);
      s.row.frames = LOAD (&st->frames);
      s.row.self_ns = LOAD (&st->self_ns);
      if (e->async && gpuprof_async_confirmed (e->async))
        s.row.self_ns = async_stage_work (e, s.row.batches);
      /* a batch reaches it after its push; its last call ends after the
       * aggregator's last push: the stage's own span */
      s.row.span_ns = LOAD (&st->last_end) -
          MIN (LOAD (&st->first_push), LOAD (&st->last_end));
      s.offset = LOAD (&st->offset_ns) / s.row.batches + 1;
      fill_stage_common (&s.row, st);
      fill_extremes (&s.row, st);
      g_array_append_val (sorted, s);
    }
  }
}

void
gpuprof_batches_snapshot (GpuprofBatches * b, GPtrArray * elements,
    GpuprofSnapshot * snap)
{
  GArray *sorted = g_array_new (FALSE, TRUE, sizeof (StageSort));
  guint i;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    Elem *st = elem_peek (b, e);
    GpuprofBatchRow row = { 0 };

    if (!st || !st->agg || !LOAD (&st->agg->batches))
      continue;
    if (st->batch_size == -2)
      gpuprof_batches_read_properties (b, e);
    fill_batch_row (&row, st);
    g_array_append_val (snap->batches, row);
    gpuprof_snapshot_add_histogram (snap, "batch_latency", e->path,
        &st->agg->latency_hist, TRUE);
    gpuprof_snapshot_add_histogram (snap, "batch_frames", e->path,
        &st->agg->frames_hist, FALSE);
  }
  add_stages (sorted, elements, b);
  g_array_sort (sorted, cmp_stage);
  for (i = 0; i < sorted->len; i++)
    g_array_append_val (snap->stages, g_array_index (sorted, StageSort,
            i).row);
  g_array_unref (sorted);
}

void
gpuprof_batches_carry (GpuprofBatches * b, GstBuffer * buffer,
    GpuprofBatchId id)
{
  /* the same buffer, or a new one: it is that batch from now */
  if (id && buffer && LOAD (&b->active))
    slot_insert (b, buffer, id);
}

/* ---------------------------------------------------- GPU attribution */

guint64
gpuprof_batches_oldest_in_flight (GpuprofElement * e)
{
  GpuprofAsync *a = __atomic_load_n (&e->async, __ATOMIC_ACQUIRE);

  return a ? gpuprof_batch_id_num (gpuprof_async_oldest_batch (a)) : 0;
}

guint64
gpuprof_batches_in_flight_after_of_id (GpuprofBatches * b,
    guint32 element_id, guint64 after)
{
  GpuprofElement *e = gpuprof_objects_element_by_id (b->objects, element_id);
  GpuprofAsync *a = e ? __atomic_load_n (&e->async, __ATOMIC_ACQUIRE) : NULL;

  return a ? gpuprof_batch_id_num (gpuprof_async_batch_after (a, after)) : 0;
}
