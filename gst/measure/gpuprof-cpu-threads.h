/* gpuprof: the CPU of every thread of the process, read from /proc.
 *
 * One pass lists /proc/self/task and reads, for each thread, its
 * schedstat (time on a CPU, time runnable but waiting for a core, times it
 * was run) and its stat (user + system CPU, state, name, start time). The
 * readings go into a reusable array: a pass after the first compares each
 * thread with the previous pass (deltas) and says which threads appeared
 * and which ended in between (docs/resources.md, "CPU per thread").
 *
 * Threading contract: a GpuprofCpuThreads belongs to one thread at a time
 * (the sampler); it takes no lock and is never touched by a hook. A pass
 * does I/O (two small /proc reads per thread): never on the buffer path.
 * The rows stay valid until the next pass. Once the arrays have grown to
 * the number of threads, a pass allocates nothing; one file descriptor
 * (the task folder) stays open between passes.
 *
 * Units: ns. stat's user + system CPU has the kernel's tick resolution
 * (10 ms at USER_HZ 100); schedstat's times are exact ns but lag a running
 * thread by up to one scheduler tick. */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_CPU_READ_SCHEDSTAT = 1 << 0,  /* on_cpu, run_delay, timeslices */
  GPUPROF_CPU_READ_STAT = 1 << 1,       /* cpu, state, name, start */
  GPUPROF_CPU_READ_ALL = 3,
} GpuprofCpuReadFlags;

typedef enum
{
  /* not in the previous pass (never set in the first pass: the baseline) */
  GPUPROF_CPU_THREAD_NEW = 1 << 0,
  /* in the previous pass, gone now: its row keeps its last reading, with
   * zero deltas, for this one pass */
  GPUPROF_CPU_THREAD_ENDED = 1 << 1,
} GpuprofCpuThreadFlags;

/* Counters of one thread, all since the thread started */
typedef struct
{
  guint64 cpu_ns;               /* stat: utime + stime (tick resolution) */
  guint64 on_cpu_ns;            /* schedstat 1: time running on a CPU */
  guint64 run_delay_ns;         /* schedstat 2: runnable, waiting for a core
                                 * (a wait is added when it ends) */
  guint64 timeslices;           /* schedstat 3: times it was put on a CPU */
} GpuprofCpuTimes;

typedef struct
{
  gint tid;
  guint flags;                  /* GpuprofCpuThreadFlags */
  gchar name[16];               /* the kernel's (comm); kept between stat reads */
  gchar state;                  /* stat: 'R' running, 'S' sleeping, 'D'... 0: not read */
  guint64 start_ticks;          /* stat 22: start after boot, in clock ticks;
                                 * tells a reused tid from its former thread */
  GpuprofCpuTimes total;        /* since the thread started */
  GpuprofCpuTimes delta;        /* since the previous pass; a NEW thread's
                                 * since it started; 0 in the first pass */
} GpuprofCpuThread;

/* What one stat line holds that we use (gpuprof_cpu_parse_stat) */
typedef struct
{
  gchar name[16];
  gchar state;
  guint64 utime_ticks, stime_ticks;
  guint64 start_ticks;
} GpuprofCpuStat;

typedef struct _GpuprofCpuThreads GpuprofCpuThreads;

/* @task_dir: the folder to list, %NULL for "/proc/self/task" (tests give a
 * folder of their own with <tid>/stat and <tid>/schedstat files). %NULL
 * when it cannot be opened, with the reason in @error. */
GPUPROF_API
GpuprofCpuThreads *gpuprof_cpu_threads_new (const gchar * task_dir,
    GError ** error);
GPUPROF_API
void gpuprof_cpu_threads_free (GpuprofCpuThreads * t);

/* One pass: reads what @what says of every thread; stat is always read for
 * a thread not seen before. Returns the number of rows (threads alive now,
 * then those that ended since the previous pass), 0 when the folder could
 * not be listed. */
GPUPROF_API
guint gpuprof_cpu_threads_read (GpuprofCpuThreads * t, guint what);

/* The rows of the last pass: gpuprof_cpu_threads_read()'s count */
GPUPROF_API
guint gpuprof_cpu_threads_count (const GpuprofCpuThreads * t);
GPUPROF_API
const GpuprofCpuThread *gpuprof_cpu_threads_row (const GpuprofCpuThreads * t,
    guint i);
/* the row of a thread alive at the last pass, %NULL when none */
GPUPROF_API
const GpuprofCpuThread *gpuprof_cpu_threads_find (const GpuprofCpuThreads * t,
    gint tid);
/* passes made; CLOCK_MONOTONIC ns of the last pass and the one before
 * (0 before the second pass): the wall time the deltas cover */
GPUPROF_API
guint64 gpuprof_cpu_threads_passes (const GpuprofCpuThreads * t);
GPUPROF_API
guint64 gpuprof_cpu_threads_interval_ns (const GpuprofCpuThreads * t);
/* how often the arrays grew (allocations); flat once warm */
GPUPROF_API
guint gpuprof_cpu_threads_grown (const GpuprofCpuThreads * t);

/* Pure parsers of one file's text (@len bytes, not NUL-terminated) */
GPUPROF_API
gboolean gpuprof_cpu_parse_stat (const gchar * text, gsize len,
    GpuprofCpuStat * out);
/* schedstat: "on_cpu_ns run_delay_ns timeslices"; other fields untouched */
GPUPROF_API
gboolean gpuprof_cpu_parse_schedstat (const gchar * text, gsize len,
    GpuprofCpuTimes * out);

G_END_DECLS
