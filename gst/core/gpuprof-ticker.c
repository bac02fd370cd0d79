/* gpuprof: periodic work on a thread of our own (see gpuprof-ticker.h).
 *
 * Threads: lock guards the list and stop; the functions are called without
 * it, under calls (recursive: a function may remove itself), which
 * gpuprof_ticker_remove() takes to wait for a call in progress. Order:
 * lock, then calls (the ticker's thread takes calls before it lets go of
 * the list). */
#include "gpuprof-ticker.h"
#include "gpuprof-ids.h"

#include <unistd.h>

typedef struct
{
  guint id;
  gint64 period;
  gint64 next;                  /* when it is due, monotonic µs */
  GpuprofTickFunc func;
  gpointer user_data;
} Tick;

struct _GpuprofTicker
{
  gchar *name;
  GMutex lock;
  GCond cond;
  GArray *ticks;                /* Tick, in the order added */
  guint next_id;
  gboolean stop;
  GThread *thread;
  pid_t pid;                    /* the process the thread runs in */
  GThread *runner;              /* the thread itself, set by it (atomic) */
  GMutex calls;                 /* held while a tick's function runs (a
                                 * plain mutex: GLib allocates a recursive
                                 * one, which a forked child cannot free) */
};

GpuprofTicker *
gpuprof_ticker_new (const gchar * name)
{
  GpuprofTicker *ticker = g_new0 (GpuprofTicker, 1);

  ticker->name = g_strdup (name);
  g_mutex_init (&ticker->lock);
  g_cond_init (&ticker->cond);
  g_mutex_init (&ticker->calls);
  ticker->ticks = g_array_new (FALSE, FALSE, sizeof (Tick));
  ticker->next_id = 1;
  return ticker;
}

/* lock held: the earliest due time, G_MAXINT64 when nothing is */
static gint64
next_due_locked (GpuprofTicker * ticker)
{
  gint64 next = G_MAXINT64;
  guint i;

  for (i = 0; i < ticker->ticks->len; i++)
    next = MIN (next, g_array_index (ticker->ticks, Tick, i).next);
  return next;
}

/* lock held: @id's tick, NULL when it was removed */
static Tick *
tick_locked (GpuprofTicker * ticker, guint id)
{
  gint i = gpuprof_id_index (ticker->ticks, id);

  return i >= 0 ? &g_array_index (ticker->ticks, Tick, i) : NULL;
}

/* lock held: the first tick (in the order added) due at @now, moved to its
 * next time, copied into @out; FALSE when none is */
static gboolean
take_due_locked (GpuprofTicker * ticker, gint64 now, Tick * out)
{
  guint i;

  for (i = 0; i < ticker->ticks->len; i++) {
    Tick *t = &g_array_index (ticker->ticks, Tick, i);

    if (t->next > now)
      continue;
    *out = *t;
    t->next += t->period;
    /* late (a loaded machine): not made up for */
    if (t->next <= now)
      t->next = now + t->period;
    return TRUE;
  }
  return FALSE;
}

static gpointer
ticker_thread (gpointer data)
{
  GpuprofTicker *ticker = data;

  __atomic_store_n (&ticker->runner, g_thread_self (), __ATOMIC_RELEASE);
  g_mutex_lock (&ticker->lock);
  while (!ticker->stop) {
    gint64 now;
    Tick due;

    if (g_cond_wait_until (&ticker->cond, &ticker->lock,
            next_due_locked (ticker)))
      continue;                 /* woken: stop, a new tick, or spurious */
    now = g_get_monotonic_time ();
    /* those called are due a period later (or at once, when they ask):
     * each runs once per wake */
    while (!ticker->stop && take_due_locked (ticker, now, &due)) {
      gboolean again;
      Tick *t;

      /* taken before the list is let go: a remove after this waits */
      g_mutex_lock (&ticker->calls);
      g_mutex_unlock (&ticker->lock);
      again = due.func (now, due.user_data);
      g_mutex_unlock (&ticker->calls);
      g_mutex_lock (&ticker->lock);
      if (again && (t = tick_locked (ticker, due.id)))
        t->next = g_get_monotonic_time ();
    }
  }
  g_mutex_unlock (&ticker->lock);
  return NULL;
}

guint
gpuprof_ticker_add (GpuprofTicker * ticker, gint64 period_us,
    GpuprofTickFunc func, gpointer user_data)
{
  Tick t = { 0, period_us, 0, func, user_data };

  g_return_val_if_fail (period_us > 0 && func != NULL, 0);
  g_mutex_lock (&ticker->lock);
  t.id = ticker->next_id++;
  t.next = g_get_monotonic_time () + period_us;
  g_array_append_val (ticker->ticks, t);
  if (!ticker->thread && !ticker->stop) {
    ticker->pid = getpid ();
    ticker->thread = g_thread_new (ticker->name, ticker_thread, ticker);
  }
  g_cond_signal (&ticker->cond);
  g_mutex_unlock (&ticker->lock);
  return t.id;
}

void
gpuprof_ticker_remove (GpuprofTicker * ticker, guint id)
{
  gint i;

  g_mutex_lock (&ticker->lock);
  if ((i = gpuprof_id_index (ticker->ticks, id)) >= 0)
    g_array_remove_index (ticker->ticks, i);
  g_mutex_unlock (&ticker->lock);
  /* a call that took it before may still be running (not on the ticker's
   * own thread: a tick that removes a tick is that call) */
  if (g_thread_self () != __atomic_load_n (&ticker->runner, __ATOMIC_ACQUIRE)) {
    g_mutex_lock (&ticker->calls);
    g_mutex_unlock (&ticker->calls);
  }
}

void
gpuprof_ticker_wake (GpuprofTicker * ticker, guint id)
{
  Tick *t;

  g_mutex_lock (&ticker->lock);
  if ((t = tick_locked (ticker, id))) {
    t->next = MIN (t->next, g_get_monotonic_time ());
    g_cond_signal (&ticker->cond);
  }
  g_mutex_unlock (&ticker->lock);
}

void
gpuprof_ticker_free (GpuprofTicker * ticker)
{
  GThread *thread;

  if (ticker == NULL)
    return;
  /* a child forked after the thread started has no such thread: nothing
   * to join, and its locks may be held by the parent's thread */
  if (ticker->thread && getpid () != ticker->pid) {
    g_thread_unref (ticker->thread);
    g_array_unref (ticker->ticks);
    g_free (ticker->name);
    g_free (ticker);
    return;
  }
  g_mutex_lock (&ticker->lock);
  ticker->stop = TRUE;
  g_cond_signal (&ticker->cond);
  thread = ticker->thread;
  ticker->thread = NULL;
  g_mutex_unlock (&ticker->lock);
  if (thread)
    g_thread_join (thread);
  g_array_unref (ticker->ticks);
  g_mutex_clear (&ticker->lock);
  g_cond_clear (&ticker->cond);
  g_mutex_clear (&ticker->calls);
  g_free (ticker->name);
  g_free (ticker);
}
