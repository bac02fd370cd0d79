/* gpuprof: owned threads' CPU clocks (see gpuprof-workers.h). */
#include "gpuprof-workers.h"

#include "gpuprof-clock.h"
#include "gpuprof-owners.h"

#include <string.h>
#include <time.h>

#define REL __ATOMIC_RELAXED
#define LOAD(p) __atomic_load_n ((p), REL)
#define STORE(p, v) __atomic_store_n ((p), (v), REL)

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
  gchar now[16];

  gpuprof_owners_read_name (tid, now);
  if (now[0])
    g_strlcpy (name, now, 16);
}

static gboolean
begin_reading (GpuprofWorkers * ws, gboolean wait)
{
  gint expected = 0;

  while (!__atomic_compare_exchange_n (&ws->reading, &expected, 1, FALSE,
          __ATOMIC_ACQUIRE, REL)) {
    if (!wait)
      return FALSE;
    expected = 0;
    g_thread_yield ();
  }
  return TRUE;
}

static void
end_reading (GpuprofWorkers * ws)
{
  __atomic_store_n (&ws->reading, 0, __ATOMIC_RELEASE);
}

/* 'reading' held: a thread no longer its owner's worker (it became a pad
 * task, an output thread, or went back to GLib's pool) is read no more;
 * looked at only when an owner changed anywhere (one load otherwise) */
static void
check_owners_locked (GpuprofWorkers * ws)
{
  guint gen = gpuprof_owners_generation (), i;

  if (gen == ws->owners_seen)
    return;
  ws->owners_seen = gen;
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    GpuprofWorkerClock *w = &ws->w[i];
    GpuprofThreadKind kind;

    if (w->alive && (gpuprof_owners_lookup (w->tid, &kind) != ws->owner_id
            || kind != GPUPROF_THREAD_KIND_WORKER))
      w->alive = FALSE;
  }
}

/* 'reading' held; @ts 0: off the buffer path, the clock is read here */
static void
sample_locked (GpuprofWorkers * ws, guint64 ts)
{
  guint64 now = ts ? ts : gpuprof_clock_now ();
  guint i;

  check_owners_locked (ws);
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    GpuprofWorkerClock *w = &ws->w[i];
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
}

static void
sample_named_locked (GpuprofWorkers * ws)
{
  guint i;

  sample_locked (ws, 0);
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    if (ws->w[i].alive)
      thread_comm (ws->w[i].tid, ws->w[i].name);
  }
}

gboolean
gpuprof_workers_sample (GpuprofWorkers * ws, guint64 ts)
{
  if (!begin_reading (ws, FALSE))
    return FALSE;
  sample_locked (ws, ts);
  end_reading (ws);
  return TRUE;
}

void
gpuprof_workers_sample_named (GpuprofWorkers * ws)
{
  begin_reading (ws, TRUE);
  sample_named_locked (ws);
  end_reading (ws);
}

void
gpuprof_workers_set (GpuprofWorkers * ws, guint32 owner_id,
    const gint * tids, guint n, guint64 ts)
{
  guint i, k;

  begin_reading (ws, TRUE);
  ws->owner_id = owner_id;
  ws->owners_seen = 0;          /* look at the owners at the next reading */
  for (k = 0; k < n; k++) {
    GpuprofWorkerClock *free_slot = NULL;

    for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
      if (ws->w[i].alive && ws->w[i].tid == tids[k])
        break;
      if (!ws->w[i].tid && !free_slot)
        free_slot = &ws->w[i];
    }
    /* new: counted from its start (a thread made for this run) */
    if (i == GPUPROF_WORKERS_MAX && free_slot) {
      free_slot->tid = tids[k];
      free_slot->alive = TRUE;
      free_slot->last = 0;
      free_slot->run_ns = 0;
      free_slot->first_ts = free_slot->last_ts = ts;
      free_slot->name[0] = 0;
      thread_comm (tids[k], free_slot->name);
    }
  }
  end_reading (ws);
}

void
gpuprof_workers_drop (GpuprofWorkers * ws, gint tid)
{
  guint i;

  begin_reading (ws, TRUE);
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    if (ws->w[i].alive && ws->w[i].tid == tid) {
      ws->w[i].tid = 0;
      ws->w[i].alive = FALSE;
      STORE (&ws->w[i].run_ns, 0);
    }
  }
  end_reading (ws);
}

guint
gpuprof_workers_list (GpuprofWorkers * ws,
    GpuprofWorker out[GPUPROF_WORKERS_MAX])
{
  guint i, n = 0;

  begin_reading (ws, TRUE);
  sample_named_locked (ws);
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    const GpuprofWorkerClock *w = &ws->w[i];

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
  end_reading (ws);
  return n;
}

guint64
gpuprof_workers_total (GpuprofWorkers * ws, GpuprofWorker * top)
{
  guint64 sum = 0;
  guint i;

  memset (top, 0, sizeof (*top));
  begin_reading (ws, TRUE);
  sample_named_locked (ws);
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    guint64 ns = LOAD (&ws->w[i].run_ns);

    sum += ns;
    if (ns > top->cpu_ns) {
      top->cpu_ns = ns;
      g_strlcpy (top->name, ws->w[i].name, sizeof (top->name));
    }
  }
  end_reading (ws);
  return sum;
}

void
gpuprof_workers_reset (GpuprofWorkers * ws)
{
  guint i;

  begin_reading (ws, TRUE);
  sample_locked (ws, 0);
  for (i = 0; i < GPUPROF_WORKERS_MAX; i++) {
    STORE (&ws->w[i].run_ns, 0);
    ws->w[i].first_ts = ws->w[i].last_ts;
    if (!ws->w[i].alive)
      ws->w[i].tid = 0;
  }
  end_reading (ws);
}
