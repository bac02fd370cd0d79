/* gpuprof: asynchronous elements (see gpuprof-async.h). */
#include "gpuprof-async.h"
#include "gpuprof-batch.h"

#include "gpuprof-clock.h"
#include "gpuprof-nvtx.h"

#include <string.h>
#include <time.h>

#define N_ARRIVALS 256          /* buffers inside at once followed; more
                                 * are matched by order only */
#define MAX_SEARCH 64           /* arrivals looked at for a pointer match */
#define MAX_WORKERS GPUPROF_ASYNC_MAX_WORKERS

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

typedef struct
{
  gint tid;                     /* 0: free */
  gboolean alive;               /* else ended: what it did stays counted */
  gchar name[16];               /* the kernel's (comm) */
  guint64 last;                 /* its CPU clock at the last read */
  guint64 run_ns;               /* CPU in this run */
  guint64 first_ts, last_ts;    /* first seen in this run, last read alive */
} Worker;

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
  /* workers: whoever holds 'reading' */
  gint reading;
  Worker workers[MAX_WORKERS];
  guint64 last_read_ts;
};

/* Records by element id, for the GPU code: a launch on an owned thread
 * asks for its owner's oldest batch by id, in a CUPTI callback, so the
 * lookup takes no lock. One slot per id modulo the size; a colliding
 * element is simply not found (its launches get no batch). A record leaves
 * its slot before it is freed, which happens only after its run was
 * reported (gpuprof-objects.h), when its threads no longer launch. */
#define BY_ID_SLOTS 1024
static GpuprofAsync *by_id[BY_ID_SLOTS];

GpuprofAsync *
gpuprof_async_new (GpuprofElement * e, guint64 skip)
{
  GpuprofAsync *a = g_new0 (GpuprofAsync, 1), *none = NULL;

  a->element = e;
  a->skip = skip;
  __atomic_compare_exchange_n (&by_id[e->id % BY_ID_SLOTS], &none, a, FALSE,
      __ATOMIC_RELEASE, __ATOMIC_RELAXED);
  return a;
}

GpuprofAsync *
gpuprof_async_of_id (guint32 element_id)
{
  GpuprofAsync *a =
      __atomic_load_n (&by_id[element_id % BY_ID_SLOTS], __ATOMIC_ACQUIRE);

  return a && a->element->id == element_id ? a : NULL;
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
  GpuprofAsync *me = a;

  __atomic_compare_exchange_n (&by_id[a->element->id % BY_ID_SLOTS], &me,
      NULL, FALSE, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
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

/* Another thread's CPU clock, as pthread_getcpuclockid() makes it from
 * the thread id (Linux: CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD_MASK). 0 when
 * the thread is gone. */
static guint64
thread_cpu_of (gint tid)
{
  clockid_t clock = (clockid_t) ((~(guint) tid) << 3) | 6;
  struct timespec ts;

  if (clock_gettime (clock, &ts) != 0)
    return 0;
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* the kernel's name of a thread of this process; kept when it is gone */
static void
thread_comm (gint tid, gchar name[16])
{
  gchar *path = g_strdup_printf ("/proc/self/task/%d/comm", tid);
  gchar *text = NULL;

  if (g_file_get_contents (path, &text, NULL, NULL))
    g_strlcpy (name, g_strchomp (text), 16);
  g_free (text);
  g_free (path);
}

static gboolean
begin_reading (GpuprofAsync * a, gboolean wait)
{
  gint expected = 0;

  while (!__atomic_compare_exchange_n (&a->reading, &expected, 1, FALSE,
          __ATOMIC_ACQUIRE, REL)) {
    if (!wait)
      return FALSE;
    expected = 0;
    g_thread_yield ();
  }
  return TRUE;
}

static void
end_reading (GpuprofAsync * a)
{
  __atomic_store_n (&a->reading, 0, __ATOMIC_RELEASE);
}

/* 'reading' held; @ts 0: off the buffer path, the clock is read here */
static void
sample_locked (GpuprofAsync * a, guint64 ts)
{
  guint64 now = ts ? ts : gpuprof_clock_now ();
  guint i;

  for (i = 0; i < MAX_WORKERS; i++) {
    Worker *w = &a->workers[i];
    guint64 cpu;

    if (!w->alive)
      continue;
    if (!(cpu = thread_cpu_of (w->tid))) {
      w->alive = FALSE;         /* ended: its last reading stays counted */
      continue;
    }
    if (cpu > w->last)
      STORE (&w->run_ns, w->run_ns + (cpu - w->last));
    w->last = cpu;
    w->last_ts = now;
  }
  if (ts)
    STORE (&a->last_read_ts, ts);
}

void
gpuprof_async_sample (GpuprofAsync * a, guint64 ts)
{
  if (!gpuprof_async_confirmed (a) || !begin_reading (a, FALSE))
    return;
  sample_locked (a, ts);
  end_reading (a);
}

void
gpuprof_async_set_workers (GpuprofAsync * a, const gint * tids, guint n,
    guint64 ts)
{
  guint i, k;

  begin_reading (a, TRUE);
  for (k = 0; k < n; k++) {
    Worker *free_slot = NULL;

    for (i = 0; i < MAX_WORKERS; i++) {
      if (a->workers[i].alive && a->workers[i].tid == tids[k])
        break;
      if (!a->workers[i].tid && !free_slot)
        free_slot = &a->workers[i];
    }
    /* new: counted from its start (a worker made for this run) */
    if (i == MAX_WORKERS && free_slot) {
      free_slot->tid = tids[k];
      free_slot->alive = TRUE;
      free_slot->last = 0;
      free_slot->run_ns = 0;
      free_slot->first_ts = free_slot->last_ts = ts;
      free_slot->name[0] = 0;
      thread_comm (tids[k], free_slot->name);
    }
  }
  end_reading (a);
}

void
gpuprof_async_drop_worker (GpuprofAsync * a, gint tid)
{
  guint i;

  begin_reading (a, TRUE);
  for (i = 0; i < MAX_WORKERS; i++) {
    if (a->workers[i].alive && a->workers[i].tid == tid) {
      a->workers[i].tid = 0;
      a->workers[i].alive = FALSE;
      STORE (&a->workers[i].run_ns, 0);
    }
  }
  end_reading (a);
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
  guint i;

  gpuprof_async_drain (a);
  begin_reading (a, TRUE);
  /* CPU before this run is not its */
  sample_locked (a, 0);
  for (i = 0; i < MAX_WORKERS; i++) {
    STORE (&a->workers[i].run_ns, 0);
    a->workers[i].first_ts = a->workers[i].last_ts;
    if (!a->workers[i].alive)
      a->workers[i].tid = 0;
  }
  a->last_read_ts = 0;
  end_reading (a);
  a->first_arrival = 0;
  a->held_max = 0;
  a->departed = a->residency_sum = 0;
  gpuprof_histogram_reset (&a->residency);
}

/* 'reading' held: a snapshot's reading, with the names (a thread names
 * itself once started, often after it was seen) */
static void
sample_named_locked (GpuprofAsync * a)
{
  guint i;

  sample_locked (a, 0);
  for (i = 0; i < MAX_WORKERS; i++) {
    if (a->workers[i].alive)
      thread_comm (a->workers[i].tid, a->workers[i].name);
  }
}

void
gpuprof_async_sample_named (GpuprofAsync * a)
{
  begin_reading (a, TRUE);
  sample_named_locked (a);
  end_reading (a);
}

guint
gpuprof_async_workers (GpuprofAsync * a,
    GpuprofAsyncWorker out[GPUPROF_ASYNC_MAX_WORKERS])
{
  guint i, n = 0;

  begin_reading (a, TRUE);
  sample_named_locked (a);
  for (i = 0; i < MAX_WORKERS; i++) {
    const Worker *w = &a->workers[i];

    /* a slot freed: its thread pushes, a row of its own */
    if (!w->tid)
      continue;
    out[n].tid = w->tid;
    g_strlcpy (out[n].name, w->name, sizeof (out[n].name));
    out[n].cpu_ns = LOAD (&w->run_ns);
    out[n].first_ts = w->first_ts;
    out[n].last_ts = w->last_ts;
    n++;
  }
  end_reading (a);
  return n;
}

void
gpuprof_async_figures (GpuprofAsync * a, GpuprofAsyncFigures * f)
{
  guint64 n = LOAD (&a->residency.count), first, last;
  guint i;

  memset (f, 0, sizeof (*f));
  begin_reading (a, TRUE);
  sample_named_locked (a);
  for (i = 0; i < MAX_WORKERS; i++) {
    guint64 ns = LOAD (&a->workers[i].run_ns);

    f->worker_ns += ns;
    if (ns > f->worker_top_ns) {
      f->worker_top_ns = ns;
      g_strlcpy (f->worker_name, a->workers[i].name, sizeof (f->worker_name));
    }
  }
  end_reading (a);
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
