/* Truth about this process's threads (see gpuprof-test-threads.h). */
#include "gpuprof-test-threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static gboolean
read_text (const gchar * path, gchar ** text)
{
  return g_file_get_contents (path, text, NULL, NULL);
}

GArray *
gpuprof_test_tasks (void)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GpuprofTestTask));
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir))) {
    GpuprofTestTask t = { 0 };
    gchar *path, *text = NULL;

    t.tid = atoi (name);
    path = g_strdup_printf ("/proc/self/task/%s/comm", name);
    if (read_text (path, &text))
      g_strlcpy (t.comm, g_strstrip (text), sizeof (t.comm));
    g_free (text);
    g_free (path);
    path = g_strdup_printf ("/proc/self/task/%s/schedstat", name);
    text = NULL;
    /* a thread gone between the listing and the read is left out */
    if (read_text (path, &text)
        && sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
            &t.cpu_ns, &t.run_delay_ns) == 2)
      g_array_append_val (out, t);
    g_free (text);
    g_free (path);
  }
  g_dir_close (dir);
  return out;
}

guint64
gpuprof_test_process_cpu_ns (void)
{
  struct rusage ru;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &ru), ==, 0);
  return ((guint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
      G_GUINT64_CONSTANT (1000000000) + ((guint64) ru.ru_utime.tv_usec +
      ru.ru_stime.tv_usec) * 1000;
}

static const GpuprofTestTask *
find (GArray * tasks, gint tid)
{
  guint i;

  for (i = 0; i < tasks->len; i++)
    if (g_array_index (tasks, GpuprofTestTask, i).tid == tid)
      return &g_array_index (tasks, GpuprofTestTask, i);
  return NULL;
}

/* @t's CPU or run delay since @before (all of it: a thread new since) */
static guint64
since (GArray * before, const GpuprofTestTask * t, gboolean delay)
{
  const GpuprofTestTask *b = find (before, t->tid);
  guint64 now = delay ? t->run_delay_ns : t->cpu_ns;
  guint64 then = b ? (delay ? b->run_delay_ns : b->cpu_ns) : 0;

  return now > then ? now - then : 0;
}

guint64
gpuprof_test_threads_cpu (GArray * before, guint64 process_before,
    GpuprofTestTaskFilter mine, gpointer data)
{
  GArray *now = gpuprof_test_tasks ();
  guint64 process = gpuprof_test_process_cpu_ns () - process_before;
  guint64 others = 0;
  guint i;

  for (i = 0; i < now->len; i++) {
    const GpuprofTestTask *t = &g_array_index (now, GpuprofTestTask, i);

    if (!mine (t->comm, data))
      others += since (before, t, FALSE);
  }
  g_array_unref (now);
  return process > others ? process - others : 0;
}

guint64
gpuprof_test_threads_run_delay (GArray * before, GpuprofTestTaskFilter mine,
    gpointer data)
{
  GArray *now = gpuprof_test_tasks ();
  guint64 sum = 0;
  guint i;

  for (i = 0; i < now->len; i++) {
    const GpuprofTestTask *t = &g_array_index (now, GpuprofTestTask, i);

    if (mine (t->comm, data))
      sum += since (before, t, TRUE);
  }
  g_array_unref (now);
  return sum;
}
