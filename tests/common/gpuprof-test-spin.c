/* A spinning test thread: see gpuprof-test-spin.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "gpuprof-test-spin.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

struct _GpuprofTestSpinner
{
  gint cpu;
  gint tid;                     /* set once started */
  gint stop;
  GFunc call;                   /* to run on the thread (under lock) */
  gpointer call_data;
  gint pending;                 /* a call is waiting: checked each turn */
  clockid_t clock;
  GThread *thread;
  GMutex lock;
  GCond cond;
};

static gpointer
spin_main (gpointer data)
{
  GpuprofTestSpinner *s = data;
  volatile guint64 sink = 0;

  if (s->cpu >= 0) {
    cpu_set_t set;

    CPU_ZERO (&set);
    CPU_SET (s->cpu, &set);
    g_assert_cmpint (sched_setaffinity (0, sizeof (set), &set), ==, 0);
  }
  g_assert_cmpint (pthread_getcpuclockid (pthread_self (), &s->clock), ==, 0);
  g_mutex_lock (&s->lock);
  s->tid = (gint) syscall (SYS_gettid);
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
  /* never blocks (but to take a call): always on a CPU or waiting for one */
  while (!g_atomic_int_get (&s->stop)) {
    sink += 1;
    if (g_atomic_int_get (&s->pending)) {
      g_mutex_lock (&s->lock);
      s->call (s->call_data, NULL);
      s->call = NULL;
      g_atomic_int_set (&s->pending, 0);
      g_cond_broadcast (&s->cond);
      g_mutex_unlock (&s->lock);
    }
  }
  return NULL;
}

GpuprofTestSpinner *
gpuprof_test_spinner_start (const gchar * name, gint cpu)
{
  GpuprofTestSpinner *s = g_new0 (GpuprofTestSpinner, 1);

  s->cpu = cpu;
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  s->thread = g_thread_new (name, spin_main, s);
  g_mutex_lock (&s->lock);
  while (!s->tid)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
  return s;
}

gint
gpuprof_test_spinner_tid (GpuprofTestSpinner * s)
{
  return s->tid;
}

guint64
gpuprof_test_spinner_cpu_ns (GpuprofTestSpinner * s)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (s->clock, &ts), ==, 0);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

void
gpuprof_test_spinner_call (GpuprofTestSpinner * s, GFunc func, gpointer data)
{
  g_mutex_lock (&s->lock);
  s->call = func;
  s->call_data = data;
  g_atomic_int_set (&s->pending, 1);
  while (s->call)
    g_cond_wait (&s->cond, &s->lock);
  g_mutex_unlock (&s->lock);
}

void
gpuprof_test_spinner_stop (GpuprofTestSpinner * s)
{
  g_atomic_int_set (&s->stop, 1);
  g_thread_join (s->thread);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

gint
gpuprof_test_first_cpu (void)
{
  cpu_set_t set;
  gint i;

  g_assert_cmpint (sched_getaffinity (0, sizeof (set), &set), ==, 0);
  for (i = 0; i < CPU_SETSIZE; i++)
    if (CPU_ISSET (i, &set))
      return i;
  g_assert_not_reached ();
  return 0;
}

guint64
gpuprof_test_monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}
