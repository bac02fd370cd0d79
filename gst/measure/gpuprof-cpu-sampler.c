/* gpuprof: the CPU sampler (see gpuprof-cpu-sampler.h). */
#include "gpuprof-cpu-sampler.h"

#include "gpuprof-clock.h"
#include "gpuprof-cpu-limits.h"
#include "gpuprof-cpu-threads.h"
#include "gpuprof-owners.h"
#include "gpuprof-stats.h"
#include "gpuprof-thread.h"

#include <string.h>
#include <unistd.h>

/* stat (names, states) is read this often; schedstat every pass */
#define STAT_PERIOD_NS (G_GUINT64_CONSTANT (1000000000))
/* threads an element's figures keep apart (for busy) */
#define ELEMENT_THREADS 32
/* ended threads kept for the rows of a run; beyond, the oldest go */
#define MAX_ENDED 1024

/* one thread of the process, from the pass that first saw it */
typedef struct
{
  gint tid;
  guint64 start_ticks;
  gchar name[16];
  gchar read_name[16];          /* the name the last stat read gave */
  gboolean ended;
  guint64 first_ns, last_ns;    /* monotonic: first seen, last seen alive */
  guint64 cpu_ns, rd_ns;        /* since first seen */
  guint64 last_d_cpu;           /* its CPU in the last interval it lived */
  gboolean task_thread;         /* it ran a pad task: GLib's pool made it
                                 * (keeping the task's name afterwards) */
  guint32 runner;               /* a pool thread: the element it worked for
                                 * last (its row's owner) */
  GArray *shares;               /* Share, this pass */
} SThread;

/* an element's calls on a thread since the previous pass */
typedef struct _SElement SElement;
typedef struct
{
  SElement *se;
  guint64 self_ns, cpu_self_ns;
  guint64 first_ns;             /* of self_ns, start-up (not in busy) */
} Share;

typedef struct
{
  SThread *st;
  guint64 cpu_ns;
} ElementThread;

/* an element's figures over its pipeline's run window */
struct _SElement
{
  guint32 id;
  guint32 pipeline_id;
  gdouble cpu_ns, rd_ns;
  gdouble loop_rd_ns;           /* run delay of its loops (CPU-clock self) */
  ElementThread threads[ELEMENT_THREADS];
  guint n_threads;
  gboolean pool_user;           /* a pool thread was settled to it (a
                                 * window: a task runner, or next to one) */
  gboolean pool_maker;          /* it made a task runner's pool (the
                                 * object-created hook: videoconvert) */
  gdouble pass_self_ns;         /* its self time in this pass, all threads */
  /* its stats slots as last read */
  GpuprofThread *seen_thread[GPUPROF_THREAD_SLOTS];
  guint64 seen_self[GPUPROF_THREAD_SLOTS], seen_cpu[GPUPROF_THREAD_SLOTS];
  guint64 seen_first[GPUPROF_THREAD_SLOTS];
  guint64 seen_event[GPUPROF_THREAD_SLOTS];
};

typedef struct
{
  guint64 cpu_ns, rd_ns;
} Base;

/* a thread that ended since the previous pass, and its owner then */
typedef struct
{
  SThread *st;
  guint32 owner;
  GpuprofThreadKind kind;
} Ended;

/* a pipeline's run window */
typedef struct
{
  guint32 pipeline_id;
  guint64 start_ns;
  GHashTable *base;             /* SThread* -> Base: alive at the start */
  GpuprofCpuProcess proc0;
  guint64 throttled0;
  /* the intervals between passes since the start */
  guint64 samples, saturated;
  gdouble peak;                 /* utilisation (used / available) */
} Window;

struct _GpuprofCpuSampler
{
  GMutex lock;
  GpuprofMeasure *m;
  GpuprofCpuThreads *reader;
  GpuprofCpuLimitsReader *limits_reader;
  GHashTable *alive;            /* tid -> SThread* */
  GPtrArray *all;               /* SThread*, alive and ended */
  GPtrArray *rows;              /* this pass: SThread* of each reader row,
                                 * NULL for an ended one */
  GArray *ended;                /* Ended: this pass's */
  GHashTable *elements;         /* id -> SElement* */
  GHashTable *windows;          /* pipeline id -> Window* */
  guint64 start_ns;             /* the first pass */
  guint64 last_ns;              /* the last pass, monotonic (the tracer
                                 * clock is not settled before the first
                                 * hooks; only spans are used) */
  guint64 last_stat_ns;
  GpuprofCpuProcess proc, proc_first;
  GpuprofCpuLimits limits;
  guint64 throttled;            /* last cpu.stat reading, 0 when none */
  guint64 passes, cost_ns;
  gint pid;
  /* this pass: the hook clock now and at the previous pass, the threads
   * that ran hooks (read when first needed) */
  guint64 now_ts, last_ts;
  GPtrArray *hook_threads;
};

static guint64
proc_ns (const GpuprofCpuProcess * p)
{
  return p->user_ns + p->system_ns;
}

static void
sthread_free (SThread * st)
{
  g_array_unref (st->shares);
  g_free (st);
}

static void
window_free (Window * w)
{
  g_hash_table_unref (w->base);
  g_free (w);
}

GpuprofCpuSampler *
gpuprof_cpu_sampler_new (GpuprofMeasure * m, GError ** error)
{
  GpuprofCpuThreads *reader = gpuprof_cpu_threads_new (NULL, error);
  GpuprofCpuSampler *s;

  if (!reader)
    return NULL;
  s = g_new0 (GpuprofCpuSampler, 1);
  g_mutex_init (&s->lock);
  s->m = m;
  s->reader = reader;
  s->limits_reader = gpuprof_cpu_limits_reader_new (NULL);
  s->alive = g_hash_table_new (NULL, NULL);
  s->all = g_ptr_array_new_with_free_func ((GDestroyNotify) sthread_free);
  s->rows = g_ptr_array_new ();
  s->ended = g_array_new (FALSE, FALSE, sizeof (Ended));
  s->elements = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->windows = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) window_free);
  s->pid = getpid ();
  gpuprof_owners_log_switches (TRUE);
  gpuprof_cpu_sampler_pass (s);
  return s;
}

void
gpuprof_cpu_sampler_free (GpuprofCpuSampler * s)
{
  if (!s)
    return;
  gpuprof_owners_log_switches (FALSE);
  gpuprof_cpu_threads_free (s->reader);
  gpuprof_cpu_limits_reader_free (s->limits_reader);
  g_hash_table_unref (s->windows);
  g_hash_table_unref (s->elements);
  g_hash_table_unref (s->alive);
  g_ptr_array_unref (s->all);
  g_ptr_array_unref (s->rows);
  g_array_unref (s->ended);
  g_mutex_clear (&s->lock);
  g_free (s);
}

void
gpuprof_cpu_sampler_lock (GpuprofCpuSampler * s)
{
  g_mutex_lock (&s->lock);
}

void
gpuprof_cpu_sampler_unlock (GpuprofCpuSampler * s)
{
  g_mutex_unlock (&s->lock);
}

void
gpuprof_cpu_sampler_cost (GpuprofCpuSampler * s, guint64 * passes,
    guint64 * cpu_ns)
{
  g_mutex_lock (&s->lock);
  *passes = s->passes;
  *cpu_ns = s->cost_ns;
  g_mutex_unlock (&s->lock);
}

/* ------------------------------------------------------------ elements */

static SElement *
element_of (GpuprofCpuSampler * s, guint32 id)
{
  SElement *se = g_hash_table_lookup (s->elements, GUINT_TO_POINTER (id));

  if (!se) {
    GpuprofElement *e = gpuprof_objects_element_by_id (s->m->objects, id);

    se = g_new0 (SElement, 1);
    se->id = id;
    se->pipeline_id = e ? __atomic_load_n (&e->pipeline_id,
        __ATOMIC_RELAXED) : 0;
    g_hash_table_insert (s->elements, GUINT_TO_POINTER (id), se);
  }
  return se;
}

/* @startup of @cpu was its start-up: in its CPU, not in its busy */
static void
element_add (SElement * se, SThread * st, gdouble cpu, gdouble rd,
    gdouble startup)
{
  guint i;

  se->cpu_ns += cpu;
  se->rd_ns += rd;
  for (i = 0; i < se->n_threads && se->threads[i].st != st; i++);
  if (i == se->n_threads) {
    if (i == ELEMENT_THREADS)
      return;
    se->threads[se->n_threads++].st = st;
  }
  se->threads[i].cpu_ns += (guint64) MAX (cpu - startup, 0);
}

/* each element's self time on each thread since the previous pass, as
 * shares of the threads it ran on */
static void
collect_shares (GpuprofCpuSampler * s)
{
  GPtrArray *all = gpuprof_objects_elements (s->m->objects);
  GHashTableIter it;
  gpointer value;
  guint i, k;

  g_hash_table_iter_init (&it, s->elements);
  while (g_hash_table_iter_next (&it, NULL, &value))
    ((SElement *) value)->pass_self_ns = 0;

  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    GpuprofElementStats *stats = e->stats;
    SElement *se;

    if (!stats)
      continue;
    se = element_of (s, e->id);
    se->pipeline_id = __atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED);
    if (__atomic_load_n (&e->pool_user, __ATOMIC_RELAXED))
      se->pool_maker = TRUE;
    for (k = 0; k < GPUPROF_THREAD_SLOTS; k++) {
      GpuprofThreadSlot *slot = &stats->slots[k];
      GpuprofThread *t = __atomic_load_n (&slot->thread, __ATOMIC_ACQUIRE);
      guint64 self = __atomic_load_n (&slot->self_ns, __ATOMIC_RELAXED);
      guint64 cpu = __atomic_load_n (&slot->cpu_self_ns, __ATOMIC_RELAXED);
      guint64 first = __atomic_load_n (&slot->first_ns, __ATOMIC_RELAXED);
      guint64 event = __atomic_load_n (&slot->event_ns, __ATOMIC_RELAXED);
      SThread *st;
      Share sh;

      /* a new run zeroed the slots: counted from 0 again */
      if (t != se->seen_thread[k] || self < se->seen_self[k]
          || cpu < se->seen_cpu[k] || first < se->seen_first[k]
          || event < se->seen_event[k]) {
        se->seen_thread[k] = t;
        se->seen_self[k] = se->seen_cpu[k] = se->seen_first[k] = 0;
        se->seen_event[k] = 0;
      }
      if (!t || (self == se->seen_self[k] && event == se->seen_event[k]))
        continue;
      sh.se = se;
      /* the events it handled there share the thread like its calls */
      sh.self_ns = self - se->seen_self[k] + event - se->seen_event[k];
      se->pass_self_ns += sh.self_ns;
      sh.cpu_self_ns = MIN (cpu - se->seen_cpu[k], sh.self_ns);
      sh.first_ns = MIN (first - se->seen_first[k], sh.self_ns);
      se->seen_self[k] = self;
      se->seen_cpu[k] = cpu;
      se->seen_first[k] = first;
      se->seen_event[k] = event;
      st = g_hash_table_lookup (s->alive, GINT_TO_POINTER (t->tid));
      if (st)
        g_array_append_val (st->shares, sh);
    }
  }
  g_ptr_array_unref (all);
}

/* ------------------------------------------------------------- owners */

/* A thread that appeared outside any call window: the name it carries is
 * its creator's until it names itself. A task's thread of that name is the
 * creator: the element it runs now, else its owner. */
static void
settle_by_name (GpuprofCpuSampler * s, gint tid, const gchar * comm)
{
  GPtrArray *threads;
  guint32 owner = 0;
  gboolean creator = FALSE;
  guint i;

  if (gpuprof_owners_first_sight (tid, comm))
    return;
  threads = gpuprof_thread_list ();
  /* every thread of GLib's pool has that name: it tells no creator */
  if (gpuprof_owners_is_pool_name (comm))
    g_ptr_array_set_size (threads, 0);
  for (i = 0; i < threads->len && !creator; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    gchar *name;

    if (t->tid == tid)
      continue;
    name = gpuprof_thread_dup_name (t);
    if (strlen (name) > 15)
      name[15] = 0;
    if (comm[0] && !strcmp (name, comm)) {
      GpuprofDoingKind kind;
      guint32 element;
      guint64 since;
      GpuprofThreadKind okind;

      creator = TRUE;
      if (gpuprof_thread_read_doing (t, &kind, &element, &since)
          && kind != GPUPROF_DOING_NOTHING && element)
        owner = element;
      else
        owner = gpuprof_owners_lookup_last (t->tid, &okind);
    }
    g_free (name);
  }
  g_ptr_array_unref (threads);
  if (owner)
    gpuprof_owners_settle (tid, owner, GPUPROF_THREAD_KIND_WORKER,
        GPUPROF_OWNER_BY_NAME);
  else if (gpuprof_owners_is_pool_name (comm))
    /* GLib's pool: a thread between tasks, or of a runner we cannot tell */
    gpuprof_owners_settle (tid, 0, GPUPROF_THREAD_KIND_PROCESS,
        GPUPROF_OWNER_BY_NAME);
  else
    gpuprof_owners_settle (tid, 0, creator || tid == s->pid ?
        GPUPROF_THREAD_KIND_APPLICATION : GPUPROF_THREAD_KIND_UNATTRIBUTED,
        GPUPROF_OWNER_BY_NAME);
}

/* ---------------------------------------------------------- apportion */

/* GLib names the threads of its shared pool "pool-<program>"; a pad
 * task's thread is one of them too (GStreamer's default task pool), and
 * keeps its task's name once back in the pool */
static gboolean
is_pool_thread (const SThread * st)
{
  return st->task_thread || gpuprof_owners_is_pool_name (st->name);
}

/* A thread of GLib's pool works for whichever task runner pushed work to
 * it, and the runner's caller waits in its call meanwhile: its CPU goes to
 * the elements that use the pool and had calls in this pass, by their
 * self time — those that made a runner's pool (certain) if any had, else
 * those a pool thread was settled to (a window may name one next to the
 * runner: a source whose first loop was open then). FALSE when none had. */
static gboolean
to_pool_users (GpuprofCpuSampler * s, SThread * st, gdouble cpu, gdouble rd)
{
  GHashTableIter it;
  gpointer value;
  gdouble self = 0, top = 0;
  gboolean makers = FALSE;

  g_hash_table_iter_init (&it, s->elements);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    SElement *se = value;

    if (se->pool_maker && se->pass_self_ns > 0)
      makers = TRUE;
  }
  g_hash_table_iter_init (&it, s->elements);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    SElement *se = value;

    if (makers ? se->pool_maker : se->pool_user)
      self += se->pass_self_ns;
  }
  if (self <= 0)
    return FALSE;
  g_hash_table_iter_init (&it, s->elements);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    SElement *se = value;

    if (!(makers ? se->pool_maker : se->pool_user) || se->pass_self_ns <= 0)
      continue;
    element_add (se, st, cpu * se->pass_self_ns / self,
        rd * se->pass_self_ns / self, 0);
    if (se->pass_self_ns > top) {
      top = se->pass_self_ns;
      st->runner = se->id;
    }
  }
  return TRUE;
}

/* @cpu and @rd of @st to its owner @owner (0: none) as @kind. A pool
 * thread (not a task's) follows its current runner, which no hook sees:
 * the element it was settled to (a window) is one of the pool's users, and
 * the CPU goes to the users that had calls in this pass (GLib hands an idle
 * thread to another pool; a window can name an element next to the
 * runner, whose calls are short), else to that element. The rest of the
 * application's and the process's threads keep theirs on their rows. */
static void
give_to_owner (GpuprofCpuSampler * s, SThread * st, guint32 owner,
    GpuprofThreadKind kind, gdouble cpu, gdouble rd)
{
  SElement *se = owner ? element_of (s, owner) : NULL;

  if (cpu <= 0 && rd <= 0)
    return;
  if (is_pool_thread (st) && (kind == GPUPROF_THREAD_KIND_WORKER
          || kind == GPUPROF_THREAD_KIND_PROCESS)) {
    if (se && kind == GPUPROF_THREAD_KIND_WORKER)
      se->pool_user = TRUE;
    if (to_pool_users (s, st, cpu, rd))
      return;
  }
  if (se)
    element_add (se, st, cpu, rd, 0);
}

/* the CPU and run delay outside calls go to the owners the thread had in
 * the interval: split at the switches it logged (their CPU stamps are on
 * the clock schedstat reads) */
static void
give_to_owners (GpuprofCpuSampler * s, SThread * st, GArray * switches,
    guint64 total_cpu, guint64 d_cpu, gdouble cpu, gdouble rd)
{
  guint64 from = total_cpu - d_cpu, at;
  guint32 owner;
  GpuprofThreadKind kind;
  GpuprofOwnerHow how;
  guint i;

  for (i = 0; switches && i < switches->len && d_cpu; i++) {
    const GpuprofOwnerSwitch *sw =
        &g_array_index (switches, GpuprofOwnerSwitch, i);
    gdouble part;

    if (sw->tid != st->tid)
      continue;
    at = CLAMP (sw->cpu_ns, from, total_cpu);
    part = (gdouble) (at - from) / d_cpu;
    if (part > 0)
      give_to_owner (s, st, sw->element_id, sw->kind, cpu * part, rd * part);
    cpu -= cpu * part;
    rd -= rd * part;
    d_cpu -= at - from;
    from = at;
  }
  if (!gpuprof_owners_get (st->tid, &owner, &kind, &how))
    owner = 0, kind = GPUPROF_THREAD_KIND_APPLICATION;
  else if (how == GPUPROF_OWNER_BY_TASK)
    st->task_thread = TRUE;
  give_to_owner (s, st, owner, kind, cpu, rd);
}

/* @st is a queue's pad task */
static gboolean
queue_thread (GpuprofCpuSampler * s, const SThread * st)
{
  GpuprofThreadKind kind;
  guint32 owner = gpuprof_owners_lookup (st->tid, &kind);
  GpuprofElement *e = owner && kind == GPUPROF_THREAD_KIND_STREAMING ?
      gpuprof_objects_element_by_id (s->m->objects, owner) : NULL;

  return e && e->role == GPUPROF_ROLE_QUEUE;
}

/* The element whose call @st is in now gets up to @cpu (at most that
 * call's time since the previous pass) and its run delay (@rho per CPU).
 * What it got. */
static gdouble
to_running_call (GpuprofCpuSampler * s, SThread * st, gdouble cpu,
    gdouble rho)
{
  GpuprofDoingKind kind;
  guint32 element = 0;
  guint64 since = 0, from;
  gdouble part;
  guint i;

  if (!s->hook_threads)
    s->hook_threads = gpuprof_thread_list ();
  for (i = 0; i < s->hook_threads->len; i++) {
    GpuprofThread *t = g_ptr_array_index (s->hook_threads, i);

    if (t->tid == st->tid) {
      if (!gpuprof_thread_read_doing (t, &kind, &element, &since)
          || kind != GPUPROF_DOING_CHAIN)
        element = 0;
      break;
    }
  }
  if (!element || element == gpuprof_owners_lookup (st->tid, NULL))
    return 0;
  from = MAX (since, s->last_ts);
  part = MIN (cpu, s->now_ts > from ? (gdouble) (s->now_ts - from) : 0);
  if (part > 0) {
    GpuprofElement *e = gpuprof_objects_element_by_id (s->m->objects,
        element);
    /* its first call (none has ended yet), or any before the window
     * opened, is start-up: not in busy */
    gboolean startup = gpuprof_stats_get_window () ==
        GPUPROF_STATS_WINDOW_BEFORE || (e && e->stats
        && !__atomic_load_n (&e->stats->first_done, __ATOMIC_RELAXED));

    element_add (element_of (s, element), st, part, part * rho,
        startup ? part : 0);
  }
  return part;
}

/* @st's CPU and run delay since the previous pass to the elements whose
 * calls ran on it and to its owners (the header says how) */
static void
apportion (GpuprofCpuSampler * s, SThread * st, GArray * switches,
    const GpuprofCpuThread * row)
{
  gdouble d_cpu = row->delta.on_cpu_ns, d_rd = row->delta.run_delay_ns;
  gdouble rho = d_cpu > 0 ? d_rd / d_cpu : 0, sure = 0, wall = 0, self = 0;
  gdouble cpu_sure, cpu_wall, given_cpu = 0, given_rd = 0;
  guint i;

  for (i = 0; i < st->shares->len; i++) {
    const Share *sh = &g_array_index (st->shares, Share, i);

    sure += sh->cpu_self_ns;
    wall += sh->self_ns - sh->cpu_self_ns;
    self += sh->self_ns;
  }
  cpu_sure = MIN (sure, d_cpu);
  /* a queue's thread only waits outside its pushes (a few µs to dequeue):
   * its CPU is the calls', whatever its run delay on waking says */
  if (queue_thread (s, st))
    cpu_wall = MIN (d_cpu - cpu_sure, wall);
  else
    cpu_wall = MIN (d_cpu - cpu_sure, wall / (1 + rho));
  for (i = 0; i < st->shares->len; i++) {
    const Share *sh = &g_array_index (st->shares, Share, i);
    gdouble c = 0, r, loop;

    if (sure > 0)
      c += sh->cpu_self_ns * cpu_sure / sure;
    if (wall > 0)
      c += (sh->self_ns - sh->cpu_self_ns) * cpu_wall / wall;
    /* no CPU read: its run delay by its time there */
    r = d_cpu > 0 ? c * rho : d_rd * sh->self_ns / self;
    loop = sure > 0 ? sh->cpu_self_ns * cpu_sure / sure * rho : 0;
    element_add (sh->se, st, c, r, c * sh->first_ns / sh->self_ns);
    sh->se->loop_rd_ns += loop;
    given_cpu += c;
    given_rd += r;
  }
  g_array_set_size (st->shares, 0);
  /* a call still running at the pass is in no share yet: the CPU left,
   * up to the wall time since it began (or since the last pass), is that
   * call's (a decoder's 600 ms creation on a source's thread is not the
   * source's loop) */
  if (d_cpu > given_cpu) {
    gdouble c = to_running_call (s, st, d_cpu - given_cpu, rho);

    given_cpu += c;
    given_rd += c * rho;
  }
  give_to_owners (s, st, switches, row->total.on_cpu_ns,
      row->delta.on_cpu_ns, MAX (d_cpu - given_cpu, 0),
      MAX (d_rd - given_rd, 0));
}

/* --------------------------------------------------------------- pass */

/* A thread seen (by a scan) before it named itself: one that names
 * itself as a helper of GLib's, GStreamer's or gpuprof's is the process's,
 * whatever state change or call it appeared in (GLib starts gmain when
 * something first needs it) */
static void
helper_named (gint tid, const gchar * name)
{
  guint32 owner;
  GpuprofThreadKind kind;
  GpuprofOwnerHow how;

  if (gpuprof_owners_is_helper_name (name)
      && gpuprof_owners_get (tid, &owner, &kind, &how)
      && kind != GPUPROF_THREAD_KIND_STREAMING
      && kind != GPUPROF_THREAD_KIND_OUTPUT
      && kind != GPUPROF_THREAD_KIND_PROCESS)
    gpuprof_owners_settle (tid, 0, GPUPROF_THREAD_KIND_PROCESS, how);
}

static SThread *
thread_seen (GpuprofCpuSampler * s, const GpuprofCpuThread * row,
    guint64 since)
{
  SThread *st = g_new0 (SThread, 1);
  guint32 owner;
  GpuprofThreadKind kind;
  GpuprofOwnerHow how;

  st->tid = row->tid;
  st->start_ticks = row->start_ticks;
  g_strlcpy (st->name, row->name, sizeof (st->name));
  g_strlcpy (st->read_name, row->name, sizeof (st->read_name));
  st->first_ns = since;
  st->shares = g_array_new (FALSE, FALSE, sizeof (Share));
  g_hash_table_insert (s->alive, GINT_TO_POINTER (row->tid), st);
  g_ptr_array_add (s->all, st);
  if (!gpuprof_owners_get (row->tid, &owner, &kind, &how))
    settle_by_name (s, row->tid, row->name);
  else
    helper_named (row->tid, row->name);
  return st;
}

static void
thread_ended (GpuprofCpuSampler * s, SThread * st)
{
  Ended e = { st, 0, GPUPROF_THREAD_KIND_APPLICATION };

  st->ended = TRUE;
  g_array_set_size (st->shares, 0);
  g_hash_table_remove (s->alive, GINT_TO_POINTER (st->tid));
  /* its owner before a thread reusing its tid forgets it */
  e.owner = gpuprof_owners_lookup (st->tid, &e.kind);
  g_array_append_val (s->ended, e);
}

/* The SThread of a reader's row (NULL: it ended), a new one for a thread
 * not seen before */
static SThread *
thread_of_row (GpuprofCpuSampler * s, const GpuprofCpuThread * row,
    guint64 now)
{
  SThread *st = g_hash_table_lookup (s->alive, GINT_TO_POINTER (row->tid));

  if (row->flags & GPUPROF_CPU_THREAD_ENDED) {
    if (st && st->start_ticks == row->start_ticks)
      thread_ended (s, st);
    return NULL;
  }
  /* a tid the kernel gave again: another thread */
  if (st && st->start_ticks != row->start_ticks) {
    thread_ended (s, st);
    gpuprof_owners_forget (row->tid);
    st = NULL;
  }
  if (!st)
    st = thread_seen (s, row, s->passes ? s->last_ns : now);
  /* a name the reader read anew (the reader keeps its last between stat
   * reads: a name read here since must not go back to it) */
  if (row->name[0] && strcmp (row->name, st->read_name)) {
    g_strlcpy (st->read_name, row->name, sizeof (st->read_name));
    g_strlcpy (st->name, row->name, sizeof (st->name));
    helper_named (st->tid, st->name);
  } else if (!strcmp (st->name, GPUPROF_OWNERS_SPAWNER_NAME)) {
    /* GLib's spawner makes the shared pool's threads, and a new one
     * carries its name till it names itself: read again at every pass
     * (the names come with stat, once a second), or a pool thread first
     * seen so keeps its CPU off the pool's users */
    gchar now[16];

    gpuprof_owners_read_name (st->tid, now);
    if (now[0])
      g_strlcpy (st->name, now, sizeof (st->name));
  }
  return st;
}

/* What the threads that ended since the previous pass did after their
 * last reading is in no row, but in the process's CPU: @used (the
 * process's, read right after the threads) less @live (its live threads').
 * It goes to those threads, by their CPU in the interval before (each at
 * most the wall time since its last reading), and on to their owners.
 * With none ended it stays the rest of the process (threads that started
 * and ended between two passes; the skew of the two readings). */
static void
give_ended (GpuprofCpuSampler * s, guint64 now, guint64 used, guint64 live)
{
  gdouble rest = (gdouble) used - (gdouble) live, weight = 0;
  guint i;

  if (!s->ended->len || rest <= 0)
    return;
  for (i = 0; i < s->ended->len; i++)
    weight += MAX (g_array_index (s->ended, Ended, i).st->last_d_cpu, 1);
  for (i = 0; i < s->ended->len; i++) {
    const Ended *e = &g_array_index (s->ended, Ended, i);
    gdouble part = rest * MAX (e->st->last_d_cpu, 1) / weight;
    guint64 since = now > e->st->last_ns ? now - e->st->last_ns : 0;

    part = MIN (part, (gdouble) since);
    e->st->cpu_ns += (guint64) part;
    give_to_owner (s, e->st, e->owner, e->kind, part, 0);
  }
}

/* the process's CPU now (into s->proc), and what it used since the
 * previous pass */
static guint64
read_process (GpuprofCpuSampler * s)
{
  GpuprofCpuProcess proc;
  guint64 used;

  gpuprof_cpu_process_read (&proc);
  used = proc_ns (&proc) > proc_ns (&s->proc) ?
      proc_ns (&proc) - proc_ns (&s->proc) : 0;
  s->proc = proc;
  return used;
}

/* the process's cores over the interval since the previous pass (@used of
 * its CPU), into every window */
static void
sample_process (GpuprofCpuSampler * s, guint64 now, guint64 used,
    guint64 sum_cpu, guint64 sum_rd)
{
  guint64 dt = now > s->last_ns ? now - s->last_ns : 0;
  gdouble cores, util;
  gboolean saturated;
  GHashTableIter it;
  gpointer value;

  gpuprof_cpu_limits_read (s->limits_reader, &s->limits);
  s->throttled = s->limits.have_throttle ?
      s->limits.throttle.throttled_ns : 0;
  if (!dt || !s->passes)
    return;
  cores = (gdouble) used / dt;
  util = s->limits.available > 0 ? cores / s->limits.available : 0;
  saturated = util >= GPUPROF_CPU_SATURATED_USED || (sum_cpu + sum_rd
      && (gdouble) sum_rd / (sum_cpu + sum_rd) >= GPUPROF_CPU_SATURATED_WAIT);
  g_hash_table_iter_init (&it, s->windows);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    Window *w = value;

    w->samples++;
    w->saturated += saturated;
    w->peak = MAX (w->peak, util);
  }
}

static void
pass_locked (GpuprofCpuSampler * s)
{
  guint64 cpu0 = gpuprof_thread_cpu_now ();
  guint64 now = gpuprof_clock_monotonic_ns (), sum_cpu = 0, sum_rd = 0, used;
  guint what = GPUPROF_CPU_READ_SCHEDSTAT, n, i;
  GArray *switches;

  if (now - s->last_stat_ns >= STAT_PERIOD_NS || !s->passes) {
    what = GPUPROF_CPU_READ_ALL;
    s->last_stat_ns = now;
  }
  n = gpuprof_cpu_threads_read (s->reader, what);
  used = read_process (s);
  s->now_ts = gpuprof_clock_now ();
  switches = gpuprof_owners_take_switches ();
  /* the threads first: the calls on a thread new in this pass are its */
  g_array_set_size (s->ended, 0);
  g_ptr_array_set_size (s->rows, n);
  for (i = 0; i < n; i++)
    g_ptr_array_index (s->rows, i) = thread_of_row (s,
        gpuprof_cpu_threads_row (s->reader, i), now);
  collect_shares (s);
  for (i = 0; i < n; i++) {
    const GpuprofCpuThread *row = gpuprof_cpu_threads_row (s->reader, i);
    SThread *st = g_ptr_array_index (s->rows, i);

    if (!st)
      continue;
    st->cpu_ns += row->delta.on_cpu_ns;
    st->rd_ns += row->delta.run_delay_ns;
    st->last_d_cpu = row->delta.on_cpu_ns;
    st->last_ns = now;
    sum_cpu += row->delta.on_cpu_ns;
    sum_rd += row->delta.run_delay_ns;
    apportion (s, st, switches, row);
  }
  if (s->passes)
    give_ended (s, now, used, sum_cpu);
  g_clear_pointer (&s->hook_threads, g_ptr_array_unref);
  s->last_ts = s->now_ts;
  g_array_unref (switches);
  gpuprof_owners_settle_pending (3);
  sample_process (s, now, used, sum_cpu, sum_rd);
  if (!s->passes) {
    s->start_ns = now;
    s->proc_first = s->proc;
  }
  s->last_ns = now;
  s->passes++;
  s->cost_ns += gpuprof_thread_cpu_now () - cpu0;
}

void
gpuprof_cpu_sampler_pass (GpuprofCpuSampler * s)
{
  g_mutex_lock (&s->lock);
  pass_locked (s);
  g_mutex_unlock (&s->lock);
}

gboolean
gpuprof_cpu_sampler_tick (gint64 now_us, gpointer sampler)
{
  gpuprof_cpu_sampler_pass (sampler);
  return FALSE;
}

/* ------------------------------------------------------------ windows */

/* threads that ended before every window started are in no run any more */
static void
prune_locked (GpuprofCpuSampler * s)
{
  GHashTableIter it;
  gpointer value;
  guint64 oldest = G_MAXUINT64;
  guint i, ended = 0;

  g_hash_table_iter_init (&it, s->windows);
  while (g_hash_table_iter_next (&it, NULL, &value))
    oldest = MIN (oldest, ((Window *) value)->start_ns);
  for (i = s->all->len; i > 0; i--) {
    SThread *st = g_ptr_array_index (s->all, i - 1);

    if (!st->ended)
      continue;
    if (st->last_ns < oldest || ++ended > MAX_ENDED) {
      g_hash_table_iter_init (&it, s->windows);
      while (g_hash_table_iter_next (&it, NULL, &value))
        g_hash_table_remove (((Window *) value)->base, st);
      g_ptr_array_remove_index (s->all, i - 1);
    }
  }
}

void
gpuprof_cpu_sampler_run_start (GpuprofCpuSampler * s, GpuprofPipeline * pl)
{
  Window *w = g_new0 (Window, 1);
  GHashTableIter it;
  gpointer value;
  guint i;

  g_mutex_lock (&s->lock);
  pass_locked (s);
  w->pipeline_id = pl->id;
  w->start_ns = s->last_ns;
  w->base = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  w->proc0 = s->proc;
  w->throttled0 = s->throttled;
  for (i = 0; i < s->all->len; i++) {
    SThread *st = g_ptr_array_index (s->all, i);
    Base *b = g_new (Base, 1);

    b->cpu_ns = st->cpu_ns;
    b->rd_ns = st->rd_ns;
    g_hash_table_insert (w->base, st, b);
  }
  g_hash_table_replace (s->windows, GUINT_TO_POINTER (pl->id), w);
  /* its elements count from here */
  g_hash_table_iter_init (&it, s->elements);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    SElement *se = value;

    if (se->pipeline_id != pl->id)
      continue;
    se->cpu_ns = se->rd_ns = se->loop_rd_ns = 0;
    se->n_threads = 0;
    memset (se->threads, 0, sizeof (se->threads));
  }
  prune_locked (s);
  g_mutex_unlock (&s->lock);
}

/* ------------------------------------------------------------- fill */

typedef struct
{
  guint64 start_ns, now_ns;
  Window *w;                    /* NULL: from the sampler's first pass */
} Span;

static guint64
thread_wall (const Span * sp, const SThread * st)
{
  guint64 from = MAX (st->first_ns, sp->start_ns);
  guint64 to = st->ended ? st->last_ns : sp->now_ns;

  return to > from ? to - from : 0;
}

static void
thread_in_window (const Span * sp, const SThread * st, guint64 * cpu,
    guint64 * rd)
{
  const Base *b = sp->w ? g_hash_table_lookup (sp->w->base, st) : NULL;

  *cpu = st->cpu_ns - (b ? MIN (b->cpu_ns, st->cpu_ns) : 0);
  *rd = st->rd_ns - (b ? MIN (b->rd_ns, st->rd_ns) : 0);
}

static void
fill_elements (GpuprofCpuSampler * s, const Span * sp, GpuprofSnapshot * snap,
    GPtrArray * elements)
{
  GHashTable *by_path = g_hash_table_new (g_str_hash, g_str_equal);
  guint i, k;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    g_hash_table_insert (by_path, e->path, e);
  }
  for (i = 0; i < snap->elements->len; i++) {
    GpuprofElementRow *row = &g_array_index (snap->elements,
        GpuprofElementRow, i);
    GpuprofElement *e = g_hash_table_lookup (by_path, row->path);
    SElement *se = e ? g_hash_table_lookup (s->elements,
        GUINT_TO_POINTER (e->id)) : NULL;
    gdouble busy = 0;

    if (!se)
      continue;
    row->cpu_ns = (guint64) se->cpu_ns;
    row->wait_core_ns = (guint64) se->rd_ns;
    row->threads = se->n_threads;
    for (k = 0; k < se->n_threads; k++) {
      guint64 wall = thread_wall (sp, se->threads[k].st);

      /* the steady state: its start-up's wall off the thread's too */
      wall -= MIN (wall, gpuprof_stats_startup_wall (e->stats,
              se->threads[k].st->tid));

      if (wall)
        busy = MAX (busy, MIN (1.0, (gdouble) se->threads[k].cpu_ns / wall));
    }
    row->busy = busy;
    /* waiting for a core is not waiting for input */
    row->wait_input_ns -= MIN (row->wait_input_ns, (guint64) se->loop_rd_ns);
  }
  g_hash_table_unref (by_path);
}

/* does @st's row belong in @pl's threads table: its owner is one of
 * @pl's elements, or it has none (the application's, the process's) */
static gboolean
thread_of_pipeline (GpuprofCpuSampler * s, const SThread * st,
    GpuprofPipeline * pl, guint32 * owner, GpuprofThreadKind * kind)
{
  GpuprofElement *e;

  *owner = gpuprof_owners_lookup_last (st->tid, kind);
  /* a pool thread between tasks: the runner it worked for last */
  if (st->runner && is_pool_thread (st)
      && *kind != GPUPROF_THREAD_KIND_STREAMING
      && *kind != GPUPROF_THREAD_KIND_OUTPUT) {
    *owner = st->runner;
    *kind = GPUPROF_THREAD_KIND_WORKER;
  }
  if (!*owner)
    return TRUE;
  e = gpuprof_objects_element_by_id (s->m->objects, *owner);
  return e && __atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED) == pl->id;
}

static gboolean
attributed (const GpuprofThreadRow * row)
{
  return g_strcmp0 (row->kind, "unattributed") != 0;
}

static void
fill_threads (GpuprofCpuSampler * s, const Span * sp, GpuprofSnapshot * snap,
    GpuprofPipeline * pl)
{
  GHashTable *by_tid = g_hash_table_new (NULL, NULL);
  guint64 sum = 0, owned = 0, proc, wall = sp->now_ns - sp->start_ns;
  GpuprofThreadRow rest = { 0 };
  guint i;

  for (i = 0; i < snap->threads->len; i++) {
    GpuprofThreadRow *row = &g_array_index (snap->threads, GpuprofThreadRow,
        i);
    if (row->tid)
      g_hash_table_insert (by_tid, GSIZE_TO_POINTER (row->tid),
          GUINT_TO_POINTER (i + 1));
  }
  for (i = 0; i < s->all->len; i++) {
    SThread *st = g_ptr_array_index (s->all, i);
    guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (by_tid,
            GSIZE_TO_POINTER ((gsize) st->tid)));
    GpuprofThreadRow *row, added = { 0 };
    guint64 cpu, rd, twall = thread_wall (sp, st);
    GpuprofThreadKind kind;
    guint32 owner;
    gchar *path;

    if (st->ended && st->last_ns < sp->start_ns)
      continue;
    thread_in_window (sp, st, &cpu, &rd);
    if (idx) {
      row = &g_array_index (snap->threads, GpuprofThreadRow, idx - 1);
    } else {
      if (!thread_of_pipeline (s, st, pl, &owner, &kind)
          || (!cpu && !owner))
        continue;
      path = owner ? gpuprof_objects_dup_element_path (s->m->objects,
          owner) : NULL;
      added.name = g_strdup (st->name);
      added.wall_ns = twall;
      /* a thread that runs no element call: its work is its CPU */
      added.busy_ns = owner ? MIN (cpu, twall) : 0;
      added.top_element = g_strdup (path ? path : "");
      added.owner = g_strdup (path ? path : "");
      added.kind = g_strdup (gpuprof_thread_kind_name (kind));
      added.tid = st->tid;
      g_free (path);
      g_array_append_val (snap->threads, added);
      row = &g_array_index (snap->threads, GpuprofThreadRow,
          snap->threads->len - 1);
      g_hash_table_insert (by_tid, GSIZE_TO_POINTER ((gsize) st->tid),
          GUINT_TO_POINTER (snap->threads->len));
    }
    row->cpu_ns = cpu;
    row->run_delay_ns = rd;
    row->off_cpu_ns = twall > cpu + rd ? twall - cpu - rd : 0;
    sum += cpu;
    if (attributed (row))
      owned += cpu;
    snap->cpu_wait_core_ns += rd;
  }
  g_hash_table_unref (by_tid);
  proc = proc_ns (&s->proc) - proc_ns (sp->w ? &sp->w->proc0 :
      &s->proc_first);
  snap->process_cpu_ns = proc;
  snap->attributed_cpu_ns = MIN (owned, proc);
  rest.name = g_strdup ("(rest of the process)");
  rest.wall_ns = wall;
  rest.top_element = g_strdup ("");
  rest.owner = g_strdup ("");
  rest.kind = g_strdup (gpuprof_thread_kind_name
      (GPUPROF_THREAD_KIND_UNATTRIBUTED));
  rest.cpu_ns = proc > sum ? proc - sum : 0;
  rest.off_cpu_ns = 0;
  g_array_append_val (snap->threads, rest);
}

static void
fill_run (GpuprofCpuSampler * s, const Span * sp, GpuprofSnapshot * snap)
{
  guint64 wall = sp->now_ns - sp->start_ns;

  snap->cpu_used = wall ? (gdouble) snap->process_cpu_ns / wall : 0;
  snap->cpu_available = s->limits.available;
  g_free (snap->cpu_limited_by);
  snap->cpu_limited_by = g_strdup (gpuprof_cpu_limit_name
      (s->limits.limited_by));
  snap->cpu_throttled_ns = sp->w && s->throttled > sp->w->throttled0 ?
      s->throttled - sp->w->throttled0 : 0;
}

static void
span_of (GpuprofCpuSampler * s, GpuprofPipeline * pl, Span * sp)
{
  sp->w = g_hash_table_lookup (s->windows, GUINT_TO_POINTER (pl->id));
  sp->start_ns = sp->w ? sp->w->start_ns : s->start_ns;
  sp->now_ns = s->last_ns;
}

static void fill_resources_locked (GpuprofCpuSampler * s,
    GpuprofPipeline * pl, GArray * rows);

void
gpuprof_cpu_sampler_fill (GpuprofCpuSampler * s, GpuprofSnapshot * snap,
    GpuprofPipeline * pl, GPtrArray * elements)
{
  Span sp;

  g_mutex_lock (&s->lock);
  pass_locked (s);
  span_of (s, pl, &sp);
  fill_elements (s, &sp, snap, elements);
  fill_threads (s, &sp, snap, pl);
  fill_run (s, &sp, snap);
  fill_resources_locked (s, pl, snap->resources);
  g_mutex_unlock (&s->lock);
}

static void
fill_resources_locked (GpuprofCpuSampler * s, GpuprofPipeline * pl,
    GArray * rows)
{
  GpuprofResourceRow row = { 0 };
  const GpuprofCpuLimits *l = &s->limits;
  gchar quota[64];
  Span sp;
  guint64 used, wall, rd = 0, cpu = 0;
  guint i;

  span_of (s, pl, &sp);
  wall = sp.now_ns - sp.start_ns;
  used = proc_ns (&s->proc) - proc_ns (sp.w ? &sp.w->proc0 : &s->proc_first);
  for (i = 0; i < s->all->len; i++) {
    SThread *st = g_ptr_array_index (s->all, i);
    guint64 c, r;

    if (st->ended && st->last_ns < sp.start_ns)
      continue;
    thread_in_window (&sp, st, &c, &r);
    cpu += c;
    rd += r;
  }
  row.kind = g_strdup ("cpu");
  row.name = g_strdup ("cpus");
  row.device = g_strdup ("");
  row.utilisation = wall && l->available > 0 ?
      (gdouble) used / wall / l->available : 0;
  if (sp.w) {
    row.peak = sp.w->peak;
    row.samples = sp.w->samples;
    row.saturated = sp.w->samples ?
        (gdouble) sp.w->saturated / sp.w->samples : 0;
  }
  if (l->quota_state == GPUPROF_CPU_QUOTA_SET)
    g_snprintf (quota, sizeof (quota), "quota %.2f", l->quota);
  else
    g_snprintf (quota, sizeof (quota), "%s",
        l->quota_state == GPUPROF_CPU_QUOTA_NONE ? "no quota" : "quota unknown");
  row.detail = g_strdup_printf ("%.2f of %.4g cores (online %u, affinity %u, "
      "%s; limited by %s); threads waited %.0f %% of their runnable time "
      "for a core%s", wall ? (gdouble) used / wall : 0.0, l->available,
      l->online, l->affinity, quota, gpuprof_cpu_limit_name (l->limited_by),
      cpu + rd ? 100.0 * rd / (cpu + rd) : 0.0,
      sp.w && s->throttled > sp.w->throttled0 ? "; throttled" : "");
  g_array_append_val (rows, row);
}

void
gpuprof_cpu_sampler_fill_resources (GpuprofCpuSampler * s,
    GpuprofPipeline * pl, GArray * rows)
{
  g_mutex_lock (&s->lock);
  fill_resources_locked (s, pl, rows);
  g_mutex_unlock (&s->lock);
}
