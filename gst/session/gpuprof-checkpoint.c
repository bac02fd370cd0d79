/* gpuprof: the checkpoint thread (see gpuprof-checkpoint.h). It waits on
 * a condition variable with a deadline, as the live thread does: no GLib
 * main loop is needed, and stopping it is immediate. */
#include "gpuprof-checkpoint.h"

#include <unistd.h>

struct _GpuprofCheckpoint
{
  gint64 period_us;
  GpuprofCheckpointFunc func;
  gpointer user_data;
  GThread *thread;
  pid_t pid;                    /* the process the thread runs in */
  GMutex lock;                  /* guards stop */
  GCond cond;
  gboolean stop;
};

static gpointer
checkpoint_thread (gpointer data)
{
  GpuprofCheckpoint *c = data;
  gint64 next = g_get_monotonic_time () + c->period_us;

  g_mutex_lock (&c->lock);
  while (!c->stop) {
    gint64 now;

    if (g_cond_wait_until (&c->cond, &c->lock, next))
      continue;                 /* woken: stop, or spurious */
    g_mutex_unlock (&c->lock);
    c->func (c->user_data);
    now = g_get_monotonic_time ();
    next += c->period_us;
    if (next <= now)
      next = now + c->period_us;
    g_mutex_lock (&c->lock);
  }
  g_mutex_unlock (&c->lock);
  return NULL;
}

GpuprofCheckpoint *
gpuprof_checkpoint_start (gdouble period_s, GpuprofCheckpointFunc func,
    gpointer user_data)
{
  GpuprofCheckpoint *c = g_new0 (GpuprofCheckpoint, 1);

  c->period_us = MAX ((gint64) (period_s * G_USEC_PER_SEC), 1000);
  c->func = func;
  c->user_data = user_data;
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  c->pid = getpid ();
  c->thread = g_thread_new ("gpuprof-checkpt", checkpoint_thread, c);
  return c;
}

void
gpuprof_checkpoint_stop (GpuprofCheckpoint * c)
{
  if (!c)
    return;
  /* a child forked after the tracer started has no such thread (nothing
   * to join, and its lock may be held by the parent's thread) */
  if (getpid () != c->pid) {
    g_thread_unref (c->thread);
    g_free (c);
    return;
  }
  g_mutex_lock (&c->lock);
  c->stop = TRUE;
  g_cond_signal (&c->cond);
  g_mutex_unlock (&c->lock);
  g_thread_join (c->thread);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}
