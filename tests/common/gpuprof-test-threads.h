/* Truth about this process's threads, read from /proc in the test itself:
 * each thread's name, CPU and run delay (schedstat), and the process's CPU
 * (getrusage, ended threads included), to compare the CPU sampler's
 * figures with (GLib only). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gint tid;
  gchar comm[16];
  guint64 cpu_ns;               /* schedstat 1: time on a CPU */
  guint64 run_delay_ns;         /* schedstat 2: runnable, waiting for a core */
} GpuprofTestTask;

/* every thread of the process now (GpuprofTestTask; free with
 * g_array_unref) */
GArray *gpuprof_test_tasks (void);
/* getrusage (RUSAGE_SELF): user + system, every thread ended or not */
guint64 gpuprof_test_process_cpu_ns (void);

/* which threads are an element's, by name (a thread an element starts
 * carries its creator's name, a task's thread its task's) */
typedef gboolean (*GpuprofTestTaskFilter) (const gchar * comm,
    gpointer data);

/* The CPU of the threads @mine selects since @before (a listing) and
 * @process_before (the process's CPU then): the process's CPU since then
 * less that of the live threads @mine does not select — so threads of
 * theirs that ended on the way (GLib pool threads come and go) count too.
 * Threads that ended and are not @mine's must not have run since
 * @before. */
guint64 gpuprof_test_threads_cpu (GArray * before, guint64 process_before,
    GpuprofTestTaskFilter mine, gpointer data);
/* The run delay since @before of the live threads @mine selects */
guint64 gpuprof_test_threads_run_delay (GArray * before,
    GpuprofTestTaskFilter mine, gpointer data);

G_END_DECLS
