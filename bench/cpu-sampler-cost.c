/* What the CPU readers cost the sampler (docs/benchmarks.md, "CPU
 * readers"): a process with THREADS idle threads (default 100), PASSES
 * passes of the threads reader (default 1000) with stat and schedstat,
 * then with schedstat alone, then the limits and process readers. Prints
 * the CPU and wall time per pass, per thread, and what a 10 Hz sampler
 * costs in % of one core.
 *
 *   build/bench/cpu-sampler-cost [THREADS] [PASSES] */
#include <glib.h>
#include <stdlib.h>
#include <time.h>

#include "gpuprof-cpu-limits.h"
#include "gpuprof-cpu-threads.h"

static GMutex lock;
static GCond cond;
static gboolean done;

static gpointer
idle_thread (gpointer data)
{
  g_mutex_lock (&lock);
  while (!done)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
  return NULL;
}

static guint64
clock_ns (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

typedef void (*PassFunc) (gpointer data);

static void
report (const gchar * what, PassFunc func, gpointer data, guint passes,
    guint threads)
{
  guint64 cpu0, wall0, cpu, wall;
  guint i;

  func (data);                  /* warm: the arrays grown */
  cpu0 = clock_ns (CLOCK_THREAD_CPUTIME_ID);
  wall0 = clock_ns (CLOCK_MONOTONIC);
  for (i = 0; i < passes; i++)
    func (data);
  cpu = clock_ns (CLOCK_THREAD_CPUTIME_ID) - cpu0;
  wall = clock_ns (CLOCK_MONOTONIC) - wall0;
  g_print ("%-28s %9.1f %9.1f %11.2f %12.3f\n", what,
      cpu / 1e3 / passes, wall / 1e3 / passes,
      threads ? cpu / 1e3 / passes / threads : 0.0,
      cpu / 1e9 / passes * 10 * 100);
}

static void
pass_all (gpointer t)
{
  gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL);
}

static void
pass_schedstat (gpointer t)
{
  gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_SCHEDSTAT);
}

static void
pass_limits (gpointer r)
{
  GpuprofCpuLimits l;

  gpuprof_cpu_limits_read (r, &l);
}

static void
pass_process (gpointer data)
{
  GpuprofCpuProcess p;

  gpuprof_cpu_process_read (&p);
}

int
main (int argc, char **argv)
{
  guint threads = argc > 1 ? (guint) atoi (argv[1]) : 100;
  guint passes = argc > 2 ? (guint) atoi (argv[2]) : 1000;
  GPtrArray *pool = g_ptr_array_new ();
  GpuprofCpuThreads *t;
  GpuprofCpuLimitsReader *r;
  GpuprofCpuLimits l;
  const gchar *why = NULL, *cg;
  guint i, grown;

  for (i = 1; i < threads; i++)
    g_ptr_array_add (pool, g_thread_new ("idle", idle_thread, NULL));
  t = gpuprof_cpu_threads_new (NULL, NULL);
  r = gpuprof_cpu_limits_reader_new (NULL);
  gpuprof_cpu_limits_read (r, &l);
  cg = gpuprof_cpu_limits_reader_cgroup (r, &why);
  g_print ("threads in the process: %u, passes: %u, cores available: %.2f "
      "(%s), cgroup: %s\n", gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL),
      passes, l.available, gpuprof_cpu_limit_name (l.limited_by),
      cg ? cg : why);
  g_print ("%-28s %9s %9s %11s %12s\n", "reader", "cpu us", "wall us",
      "cpu us/thr", "% core@10Hz");
  grown = gpuprof_cpu_threads_grown (t);
  report ("threads: stat + schedstat", pass_all, t, passes, threads);
  report ("threads: schedstat only", pass_schedstat, t, passes, threads);
  report ("limits (cgroup, affinity)", pass_limits, r, passes, 0);
  report ("process (getrusage)", pass_process, NULL, passes, 0);
  g_print ("arrays grown while warm: %u\n",
      gpuprof_cpu_threads_grown (t) - grown);

  g_mutex_lock (&lock);
  done = TRUE;
  g_cond_broadcast (&cond);
  g_mutex_unlock (&lock);
  for (i = 0; i < pool->len; i++)
    g_thread_join (g_ptr_array_index (pool, i));
  g_ptr_array_unref (pool);
  gpuprof_cpu_threads_free (t);
  gpuprof_cpu_limits_reader_free (r);
  return 0;
}
