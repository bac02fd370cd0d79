/* gpuprof: per-stream figures — each source's frames followed to a sink. */
#include "gpuprof-streams.h"

#include "gpuprof-bufmap.h"
#include "gpuprof-clock.h"
#include "gpuprof-histogram.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_streams_debug);
#define GST_CAT_DEFAULT gpuprof_streams_debug

#define MAX_STREAMS 256         /* sources tracked at once */
#define ORIGIN_BITS 13          /* 8192 buffers in flight with an origin */
#define N_SECONDS 8             /* per-second frame counts kept */
#define RECENT_S 4              /* whole seconds behind fps_recent */
#define SEQ_BITS 48
#define SEQ_MASK ((G_GUINT64_CONSTANT (1) << SEQ_BITS) - 1)

#define REL __ATOMIC_RELAXED
#define LOAD(p) __atomic_load_n ((p), REL)
#define STORE(p, v) __atomic_store_n ((p), (v), REL)
#define ADD(p, v) __atomic_fetch_add ((p), (v), REL)

/* frames pushed in one second of the clock */
typedef struct
{
  guint64 sec;                  /* ts / 1 s + 1; 0: unused */
  guint64 count;
} Second;

typedef struct
{
  guint32 element_id;           /* the source; 0: a free slot */
  GpuprofElement *element;      /* for paths at snapshot; registry owns it */
  guint64 frames, first_ts, last_ts;
  guint64 delivered, newest;    /* frames that reached a sink; the newest */
  guint32 mux_id, mux_pad_id;   /* the mux input it enters, first seen */
  Second seconds[N_SECONDS];    /* written by the source's thread only */
  GpuprofHistogram latency;
} Stream;

/* every element's slot (GpuprofElement.stream), made with its record */
struct _GpuprofStreamElement
{
  guint16 stream;               /* a source's stream index + 1, 0: none */
  /* what it received, for its next output */
  gconstpointer key;            /* the buffer received */
  guint64 tag, ts;
};

struct _GpuprofStreams
{
  GMutex lock;                  /* creating and recycling streams */
  Stream *streams[MAX_STREAMS];
  gboolean told_full;           /* more sources than MAX_STREAMS: said */
  /* a buffer in flight -> its origin: tag (a), ts (b) */
  GpuprofBufEntry entries[1 << ORIGIN_BITS];
};

GpuprofStreams *
gpuprof_streams_new (void)
{
  GpuprofStreams *s = g_new0 (GpuprofStreams, 1);

  GST_DEBUG_CATEGORY_INIT (gpuprof_streams_debug, "gpuprof", 0,
      "gpuprof tracer");
  g_mutex_init (&s->lock);
  return s;
}

void
gpuprof_streams_free (GpuprofStreams * s)
{
  guint i;

  if (!s)
    return;
  for (i = 0; i < MAX_STREAMS; i++)
    g_free (s->streams[i]);
  g_mutex_clear (&s->lock);
  g_free (s);
}

static inline guint64
tag_make (guint index, guint64 seq)
{
  return ((guint64) (index + 1) << SEQ_BITS) | (seq & SEQ_MASK);
}

static inline Stream *
stream_of_tag (GpuprofStreams * s, guint64 tag)
{
  guint index = (guint) (tag >> SEQ_BITS);

  if (!index || index > MAX_STREAMS)
    return NULL;
  return __atomic_load_n (&s->streams[index - 1], __ATOMIC_ACQUIRE);
}

/* the source's stream if it has one, without a lock */
static Stream *
stream_get_index (GpuprofStreams * s, GpuprofElement * e, guint * index)
{
  guint16 k = __atomic_load_n (&e->stream->stream, __ATOMIC_ACQUIRE);
  Stream *st = k ? __atomic_load_n (&s->streams[k - 1], __ATOMIC_ACQUIRE) :
      NULL;

  *index = k - 1;
  return st && LOAD (&st->element_id) == e->id ? st : NULL;
}

/* the source's stream; created on its first push (lock, once) */
static Stream *
stream_get (GpuprofStreams * s, GpuprofElement * e, guint * index)
{
  Stream *st = stream_get_index (s, e, index);
  guint i, free_slot = MAX_STREAMS;

  if (G_LIKELY (st))
    return st;
  g_mutex_lock (&s->lock);
  for (i = 0; i < MAX_STREAMS; i++) {
    st = s->streams[i];
    if (st && st->element_id == e->id)
      break;
    if ((!st || !st->element_id) && free_slot == MAX_STREAMS)
      free_slot = i;
  }
  if (i == MAX_STREAMS && free_slot < MAX_STREAMS) {
    i = free_slot;
    /* a recycled slot: a frame of its old source still in flight finds
     * element_id 0 while it is cleared (deliver_one) */
    st = s->streams[i] ? s->streams[i] : g_new0 (Stream, 1);
    __atomic_store_n (&st->element_id, 0, __ATOMIC_RELEASE);
    memset (st, 0, sizeof (Stream));
    st->element = e;
    __atomic_store_n (&st->element_id, e->id, __ATOMIC_RELEASE);
    __atomic_store_n (&s->streams[i], st, __ATOMIC_RELEASE);
  }
  if (i < MAX_STREAMS)
    __atomic_store_n (&e->stream->stream, (guint16) (i + 1),
        __ATOMIC_RELEASE);
  else if (!s->told_full) {
    s->told_full = TRUE;
    GST_WARNING ("more than %d sources at once: %s and later ones get no "
        "stream figures", MAX_STREAMS, e->path);
  }
  g_mutex_unlock (&s->lock);
  *index = i;
  return i < MAX_STREAMS ? s->streams[i] : NULL;
}

void
gpuprof_streams_element_init (GpuprofStreams * s, GpuprofElement * e)
{
  e->stream = g_new0 (GpuprofStreamElement, 1);
}

/* lock held: @e's stream, if any, is free for another source */
static void
release_locked (GpuprofStreams * s, GpuprofElement * e)
{
  Stream *st;
  guint index;

  /* the stream is recycled, never freed: origins in flight may name it */
  if ((st = stream_get_index (s, e, &index))) {
    __atomic_store_n (&st->element_id, 0, __ATOMIC_RELEASE);
    st->element = NULL;
  }
}

void
gpuprof_streams_element_fini (GpuprofStreams * s, GpuprofElement * e)
{
  g_mutex_lock (&s->lock);
  release_locked (s, e);
  g_mutex_unlock (&s->lock);
  g_clear_pointer (&e->stream, g_free);
}

/* ------------------------------------------------------- origins */

static gboolean
entry_find (GpuprofStreams * s, gconstpointer key, GpuprofOrigin * out)
{
  return gpuprof_bufmap_lookup (s->entries, ORIGIN_BITS, key, &out->tag,
      &out->ts) && out->tag;
}

static void
entry_set (GpuprofStreams * s, gconstpointer key, guint64 tag, guint64 ts)
{
  gpuprof_bufmap_insert (s->entries, ORIGIN_BITS, key, tag, ts);
}

/* ------------------------------------------------------ hot path */

static void
deliver_one (GpuprofStreams * s, const GpuprofOrigin * o, guint64 ts)
{
  Stream *st = stream_of_tag (s, o->tag);
  guint64 seq = o->tag & SEQ_MASK, cur;

  if (!st || !LOAD (&st->element_id))
    return;
  ADD (&st->delivered, 1);
  gpuprof_histogram_record (&st->latency, ts > o->ts ? ts - o->ts : 0);
  cur = LOAD (&st->newest);
  while (seq > cur && !__atomic_compare_exchange_n (&st->newest, &cur, seq,
          TRUE, REL, REL));
}

void
gpuprof_streams_deliver (GpuprofStreams * s, const GpuprofOrigin * o,
    guint n, guint64 ts)
{
  guint i;

  for (i = 0; i < n; i++)
    deliver_one (s, &o[i], ts);
}

/* one thread pushes from a source: no read-modify-write needed */
static inline void
count_second (Stream * st, guint64 ts, guint n)
{
  guint64 sec = ts / GST_SECOND + 1;
  Second *b = &st->seconds[sec % N_SECONDS];

  if (LOAD (&b->sec) != sec) {
    STORE (&b->count, 0);
    STORE (&b->sec, sec);
  }
  STORE (&b->count, LOAD (&b->count) + n);
}

void
gpuprof_streams_push (GpuprofStreams * s, GpuprofElement * e,
    GstBuffer * buffer, guint n, guint64 ts)
{
  GpuprofStreamElement *pd;
  Stream *st;
  guint index;
  guint64 nth;

  if (e->role == GPUPROF_ROLE_SOURCE) {
    if (!(st = stream_get (s, e, &index)))
      return;
    if (!LOAD (&st->first_ts))
      STORE (&st->first_ts, ts);
    STORE (&st->last_ts, ts);
    /* numbered within the run: drops compare these numbers */
    nth = ADD (&st->frames, n) + n;
    count_second (st, ts, n);
    /* a list's buffers are counted, not followed */
    if (buffer)
      entry_set (s, buffer, tag_make (index, nth), ts);
    return;
  }
  pd = e->stream;
  if (!buffer || !LOAD (&pd->tag))
    return;
  /* in place: the same buffer goes on, its entry with it; else this
   * output carries the origin */
  if (LOAD (&pd->key) != (gconstpointer) buffer) {
    GpuprofOrigin o;
    if (!entry_find (s, buffer, &o))
      entry_set (s, buffer, LOAD (&pd->tag), LOAD (&pd->ts));
  }
  STORE (&pd->tag, 0);
}

void
gpuprof_streams_take_back (GpuprofStreams * s, GpuprofElement * e, guint n)
{
  guint index;
  Stream *st = e->role == GPUPROF_ROLE_SOURCE ?
      stream_get_index (s, e, &index) : NULL;

  /* the source's thread alone pushes its frames: no push races this */
  if (st && LOAD (&st->frames) >= n)
    __atomic_fetch_sub (&st->frames, n, REL);
}

gboolean
gpuprof_streams_chain (GpuprofStreams * s, GpuprofElement * e,
    GpuprofPad * pad, GstBuffer * buffer, guint64 ts, GpuprofOrigin * origin)
{
  GpuprofStreamElement *pd;
  Stream *st;

  if (!buffer || !entry_find (s, buffer, origin))
    return FALSE;
  switch (e->role) {
    case GPUPROF_ROLE_SINK:
      deliver_one (s, origin, ts);
      return TRUE;
    case GPUPROF_ROLE_AGGREGATOR:
      /* the first mux input a stream enters is its source_id */
      st = stream_of_tag (s, origin->tag);
      if (st && !LOAD (&st->mux_id)) {
        STORE (&st->mux_pad_id, pad->id);
        STORE (&st->mux_id, e->id);
      }
      return TRUE;
    case GPUPROF_ROLE_QUEUE:
      return FALSE;             /* the same pointer comes out */
    default:
      pd = e->stream;
      STORE (&pd->key, (gconstpointer) buffer);
      STORE (&pd->ts, origin->ts);
      STORE (&pd->tag, origin->tag);
      return FALSE;
  }
}

/* ---------------------------------------------------------- runs */

static Stream *
stream_peek (GpuprofStreams * s, GpuprofElement * e)
{
  guint index;

  return stream_get_index (s, e, &index);
}

void
gpuprof_streams_reset (GpuprofStreams * s, GpuprofElement * e)
{
  Stream *st;

  g_mutex_lock (&s->lock);
  /* at NULL: its source pushes no more */
  if ((st = stream_peek (s, e))) {
    st->frames = st->first_ts = st->last_ts = 0;
    st->delivered = st->newest = 0;
    st->mux_id = st->mux_pad_id = 0;
    memset (st->seconds, 0, sizeof (st->seconds));
    gpuprof_histogram_reset (&st->latency);
  }
  g_mutex_unlock (&s->lock);
}

void
gpuprof_streams_fold (GpuprofStreams * s, GpuprofElement * e,
    GpuprofRemovedRow * row)
{
  Stream *st;
  guint64 newest, delivered;

  g_mutex_lock (&s->lock);
  if ((st = stream_peek (s, e))) {
    row->frames += LOAD (&st->frames);
    delivered = LOAD (&st->delivered);
    newest = LOAD (&st->newest);
    row->delivered += delivered;
    /* as the streams table counts them */
    row->drops += newest > delivered ? newest - delivered : 0;
    release_locked (s, e);
  }
  g_mutex_unlock (&s->lock);
}

/* ------------------------------------------------------ snapshot */

/* "sink_3" -> 3; G_MAXUINT64 when the name ends in no number */
static guint64
pad_index (const gchar * name)
{
  const gchar *p = name ? strrchr (name, '_') : NULL;
  gchar *end = NULL;
  guint64 v;

  if (!p || !p[1])
    return G_MAXUINT64;
  v = g_ascii_strtoull (p + 1, &end, 10);
  return end && !*end ? v : G_MAXUINT64;
}

static gint
cmp_streams (gconstpointer a, gconstpointer b)
{
  const GpuprofStreamRow *x = a, *y = b;

  if (x->source_id != y->source_id)
    return x->source_id < y->source_id ? -1 : 1;
  return g_strcmp0 (x->source, y->source);
}

/* the last RECENT_S whole seconds before now, after the first (partial)
 * second of the stream; just after its start, its fps so far */
static gdouble
fps_recent (Stream * st, gdouble fps, guint64 now)
{
  guint64 now_sec = now / GST_SECOND + 1;
  guint64 first_sec = LOAD (&st->first_ts) / GST_SECOND + 1;
  guint64 hi = now_sec - 1, lo = MAX (now_sec - MIN (now_sec, RECENT_S),
      first_sec + 1), sum = 0;
  guint i;

  if (hi < lo)
    return fps;
  for (i = 0; i < N_SECONDS; i++) {
    guint64 sec = LOAD (&st->seconds[i].sec);
    if (sec >= lo && sec <= hi)
      sum += LOAD (&st->seconds[i].count);
  }
  return (gdouble) sum / (hi - lo + 1);
}

static void
fill_stream_row (GpuprofStreamRow * row, Stream * st, GpuprofObjects * o)
{
  guint64 first = LOAD (&st->first_ts), last = LOAD (&st->last_ts);
  guint64 newest = LOAD (&st->newest), mux = LOAD (&st->mux_id);

  row->source = g_strdup (st->element->path);
  row->frames = LOAD (&st->frames);
  row->active_ns = last > first ? last - first : 0;
  /* frames - 1 intervals between the first push and the last */
  row->fps = row->active_ns && row->frames > 1 ?
      (row->frames - 1) * 1e9 / row->active_ns : 0;
  row->fps_recent = fps_recent (st, row->fps, gpuprof_clock_now ());
  row->delivered = LOAD (&st->delivered);
  row->drops = newest > row->delivered ? newest - row->delivered : 0;
  row->latency_p50_ns = gpuprof_histogram_percentile (&st->latency, 0.50);
  row->latency_p99_ns = gpuprof_histogram_percentile (&st->latency, 0.99);
  row->latency_max_ns = LOAD (&st->latency.max);
  if (mux) {
    gchar *agg = gpuprof_objects_dup_element_path (o, (guint32) mux);
    gchar *pad = gpuprof_objects_dup_pad_name (o, LOAD (&st->mux_pad_id));
    row->source_id = pad_index (pad);
    row->mux_pad = g_strdup_printf ("%s:%s", agg ? agg : "?", pad ? pad : "?");
    g_free (agg);
    g_free (pad);
  } else {
    row->source_id = G_MAXUINT64;
    row->mux_pad = g_strdup ("");
  }
}

void
gpuprof_streams_snapshot (GpuprofStreams * s, GpuprofObjects * o,
    GPtrArray * elements, GpuprofSnapshot * snap)
{
  guint64 next_id = 0;
  guint i, first = snap->streams->len;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    Stream *st = stream_peek (s, e);
    GpuprofStreamRow row = { 0 };

    if (!st || !LOAD (&st->frames))
      continue;
    fill_stream_row (&row, st, o);
    gpuprof_snapshot_add_histogram (snap, "stream_latency", e->path,
        &st->latency, TRUE);
    if (row.source_id != G_MAXUINT64)
      next_id = MAX (next_id, row.source_id + 1);
    g_array_append_val (snap->streams, row);
  }
  /* sources with no mux input: numbered after the mux's, in path order */
  g_array_sort (snap->streams, cmp_streams);
  for (i = first; i < snap->streams->len; i++) {
    GpuprofStreamRow *r = &g_array_index (snap->streams, GpuprofStreamRow, i);
    if (r->source_id == G_MAXUINT64)
      r->source_id = next_id++;
  }
}
