/* gpuprof: asynchronous elements (see gpuprof-async.h). */
#include "gpuprof-async.h"
#include "gpuprof-ids.h"

#include "gpuprof-nvtx.h"

#include <string.h>

#define N_ARRIVALS 256          /* buffers inside at once followed; more
                                 * are matched by order only */
#define MAX_SEARCH 64           /* arrivals looked at for a pointer match */

#define REL __ATOMIC_RELAXED
#define LOAD(p) __atomic_load_n ((p), REL)
#define STORE(p, v) __atomic_store_n ((p), (v), REL)
#define ADD(p, v) __atomic_fetch_add ((p), (v), REL)

typedef struct
{
  guint64 n;                    /* arrival number + 1 once written */
  gconstpointer key;
  guint64 ts;
  guint64 batch;
  guint64 nvtx_range;
} Arrival;

struct _GpuprofAsync
{
  GpuprofElement *element;
  gboolean confirmed;           /* its own thread pushed outside a chain */
  /* chain threads */
  guint64 head;                 /* arrivals so far */
  guint64 first_arrival;        /* of this run */
  Arrival ring[N_ARRIVALS];
  gint64 held;                  /* in flight now: chain threads and pusher */
  guint64 held_max;
  /* the pushing thread */
  guint64 tail;                 /* arrivals that left */
  guint64 skip;                 /* departures owed to unrecorded arrivals */
  guint64 departed, residency_sum;
  GpuprofHistogram residency;
  GpuprofWorkers workers;
  guint64 last_read_ts;         /* its workers' last reading at a push */
};

GpuprofAsync *
gpuprof_async_new (GpuprofElement * e, guint64 skip)
{
  GpuprofAsync *a = g_new0 (GpuprofAsync, 1);

  a->element = e;
  a->skip = skip;
  return a;
}

gboolean
gpuprof_async_confirmed (const GpuprofAsync * a)
{
  return __atomic_load_n (&a->confirmed, __ATOMIC_ACQUIRE);
}

void
gpuprof_async_confirm (GpuprofAsync * a)
{
  __atomic_store_n (&a->confirmed, TRUE, __ATOMIC_RELEASE);
}

void
gpuprof_async_free (GpuprofAsync * a)
{
  g_free (a);
}

/* ------------------------------------------------------ buffer path */

/* once: by the departure that matched it, or the arrival overwriting it */
static inline void
end_range (GpuprofAsync * a, Arrival * ar)
{
  guint64 range = __atomic_exchange_n (&ar->nvtx_range, 0, REL);

  if (range)
    gpuprof_nvtx_end (a->element, range);
}


void
gpuprof_async_arrive (GpuprofAsync * a, gconstpointer key, guint64 batch,
    gpointer nvtx_msg, guint64 payload, guint64 ts)
{
  guint64 n = ADD (&a->head, 1);
  Arrival *ar = &a->ring[n % N_ARRIVALS];

  if (G_UNLIKELY (!LOAD (&a->first_arrival)))
    STORE (&a->first_arrival, ts);
  /* an entry being overwritten was never matched: its range ends */
  if (G_UNLIKELY (LOAD (&ar->nvtx_range)))
    end_range (a, ar);
  __atomic_store_n (&ar->n, 0, __ATOMIC_RELEASE);
  STORE (&ar->key, key);
  STORE (&ar->ts, ts);
  STORE (&ar->batch, batch);
  STORE (&ar->nvtx_range, nvtx_msg ? gpuprof_nvtx_start (a->element,
          nvtx_msg, payload) : 0);
  __atomic_store_n (&ar->n, n + 1, __ATOMIC_RELEASE);
}

void
gpuprof_async_hold (GpuprofAsync * a, gint delta)
{
  gint64 now = ADD (&a->held, (gint64) delta) + delta;
  guint64 max = LOAD (&a->held_max);

  while (now > 0 && (guint64) now > max
      && !__atomic_compare_exchange_n (&a->held_max, &max, (guint64) now,
          TRUE, REL, REL));
}

/* the arrival numbered @i, or NULL when not written (yet) or overwritten */
static inline Arrival *
arrival (GpuprofAsync * a, guint64 i)
{
  Arrival *ar = &a->ring[i % N_ARRIVALS];

  return __atomic_load_n (&ar->n, __ATOMIC_ACQUIRE) == i + 1 ? ar : NULL;
}

/* The arrival @key left as: the same pointer among the oldest inside,
 * else the oldest. Arrivals overwritten while inside are passed over.
 * Only the pushing thread moves the tail; others read it (oldest). */
static Arrival *
match (GpuprofAsync * a, gconstpointer key, guint64 head)
{
  guint64 tail = MAX (LOAD (&a->tail), head > N_ARRIVALS ?
      head - N_ARRIVALS : 0), i, end = MIN (head, tail + MAX_SEARCH);
  Arrival *ar, *found = NULL;

  for (i = tail; i < end && !found; i++) {
    ar = arrival (a, i);
    if (ar && LOAD (&ar->key) == key)
      found = ar;
  }
  if (found) {
    /* those before it never left: dropped inside */
    for (; tail < i - 1; tail++) {
      if ((ar = arrival (a, tail)))
        end_range (a, ar);
    }
    tail = i;
  } else if (a->skip) {
    /* a buffer that arrived before it was followed */
    a->skip--;
  } else {
    for (; tail < head && !found; tail++)
      found = arrival (a, tail);
  }
  STORE (&a->tail, tail);
  return found;
}

gboolean
gpuprof_async_depart (GpuprofAsync * a, gconstpointer key, guint64 ts,
    guint64 * batch)
{
  guint64 head = __atomic_load_n (&a->head, __ATOMIC_ACQUIRE), res;
  Arrival *ar = match (a, key, head);
  guint64 arrived;

  ADD (&a->departed, 1);
  *batch = 0;
  if (!ar)
    return FALSE;
  arrived = LOAD (&ar->ts);
  *batch = LOAD (&ar->batch);
  end_range (a, ar);
  /* the entry may have been overwritten meanwhile: then no figure */
  if (__atomic_load_n (&ar->n, __ATOMIC_ACQUIRE) != LOAD (&a->tail))
    return FALSE;
  res = ts > arrived ? ts - arrived : 0;
  ADD (&a->residency_sum, res);
  gpuprof_histogram_record (&a->residency, res);
  return TRUE;
}

guint64
gpuprof_async_batch_after (const GpuprofAsync * a, guint64 after)
{
  guint64 tail = LOAD (&a->tail), head, i;

  head = __atomic_load_n (&a->head, __ATOMIC_ACQUIRE);
  for (i = tail; i < head && i < tail + MAX_SEARCH; i++) {
    const Arrival *ar = &a->ring[i % N_ARRIVALS];
    guint64 batch = LOAD (&ar->batch);

    if (__atomic_load_n (&ar->n, __ATOMIC_ACQUIRE) == i + 1 && batch
        && gpuprof_batch_id_num (batch) > after)
      return batch;
  }
  return 0;
}

guint64
gpuprof_async_oldest_batch (const GpuprofAsync * a)
{
  guint64 tail = LOAD (&a->tail);
  const Arrival *ar;
  guint64 batch;

  if (__atomic_load_n (&a->head, __ATOMIC_ACQUIRE) <= tail)
    return 0;
  ar = &a->ring[tail % N_ARRIVALS];
  batch = LOAD (&ar->batch);
  return __atomic_load_n (&ar->n, __ATOMIC_ACQUIRE) == tail + 1 ? batch : 0;
}

/* ---------------------------------------------------------- workers */

void
gpuprof_async_sample (GpuprofAsync * a, guint64 ts)
{
  if (gpuprof_async_confirmed (a) && gpuprof_workers_sample (&a->workers, ts))
    STORE (&a->last_read_ts, ts);
}

GpuprofWorkers *
gpuprof_async_get_workers (GpuprofAsync * a)
{
  return &a->workers;
}

/* ------------------------------------------------------------- runs */

void
gpuprof_async_drain (GpuprofAsync * a)
{
  guint64 head = __atomic_load_n (&a->head, __ATOMIC_ACQUIRE);
  guint64 tail = MAX (LOAD (&a->tail), head > N_ARRIVALS ?
      head - N_ARRIVALS : 0);

  for (; tail < head; tail++) {
    Arrival *ar = arrival (a, tail);
    if (ar)
      end_range (a, ar);
  }
  STORE (&a->tail, tail);
  a->skip = 0;
  STORE (&a->held, 0);
}

void
gpuprof_async_reset (GpuprofAsync * a)
{
  gpuprof_async_drain (a);
  gpuprof_workers_reset (&a->workers);
  a->last_read_ts = 0;
  a->first_arrival = 0;
  a->held_max = 0;
  a->departed = a->residency_sum = 0;
  gpuprof_histogram_reset (&a->residency);
}

void
gpuprof_async_figures (GpuprofAsync * a, GpuprofAsyncFigures * f)
{
  guint64 n = LOAD (&a->residency.count), first, last;
  GpuprofWorker top;

  memset (f, 0, sizeof (*f));
  f->worker_ns = gpuprof_workers_total (&a->workers, &top);
  f->worker_top_ns = top.cpu_ns;
  g_strlcpy (f->worker_name, top.name, sizeof (f->worker_name));
  f->departed = LOAD (&a->departed);
  f->residency_p50 = gpuprof_histogram_percentile (&a->residency, 0.50);
  f->residency_p99 = gpuprof_histogram_percentile (&a->residency, 0.99);
  f->residency_max = LOAD (&a->residency.max);
  f->residency_mean = n ? LOAD (&a->residency_sum) / n : 0;
  f->in_flight_max = LOAD (&a->held_max);
  first = LOAD (&a->first_arrival);
  last = LOAD (&a->last_read_ts);
  f->span_ns = last > first && first ? last - first : 0;
  /* Little's law: buffers inside on average = time inside / time */
  f->in_flight_mean = f->span_ns ?
      (gdouble) LOAD (&a->residency_sum) / f->span_ns : 0;
}
