/* gpuprof: per-thread state. */
#include "gpuprof-thread.h"

#include "gpuprof-owners.h"

#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/prctl.h>

/* a plain TLS pointer: the hooks ask for it several times per buffer, and
 * the record is kept for the whole process (no destroy notify needed) */
__thread GpuprofThread *_gpuprof_current_thread
    __attribute__ ((tls_model ("initial-exec")));
static GMutex threads_lock;
static GPtrArray *threads;      /* GpuprofThread*, guarded by threads_lock */
static guint32 next_thread_id = 1;      /* guarded by threads_lock */

static GpuprofThread *
thread_new (void)
{
  GpuprofThread *t = g_new0 (GpuprofThread, 1);
  char os_name[17] = "";

  t->tid = (gint) syscall (SYS_gettid);
  if (prctl (PR_GET_NAME, os_name, 0, 0, 0) == 0 && os_name[0])
    g_strlcpy (t->name, os_name, sizeof (t->name));
  else
    g_snprintf (t->name, sizeof (t->name), "thread %d", t->tid);
  t->cache_generation = -1;
  t->loop_windows_left = GPUPROF_OWNERS_FIRST_LOOPS;
  t->frames = t->inline_frames;
  t->capacity = GPUPROF_INLINE_DEPTH;

  g_mutex_lock (&threads_lock);
  if (!threads)
    threads = g_ptr_array_new ();
  t->id = next_thread_id++;
  g_ptr_array_add (threads, t);
  g_mutex_unlock (&threads_lock);
  return t;
}

GpuprofThread *
_gpuprof_thread_new_current (void)
{
  /* kept for the whole process: elements' stats point at it */
  _gpuprof_current_thread = thread_new ();
  return _gpuprof_current_thread;
}

/* A chain deeper than the inline frames: the stack doubles on the heap
 * (once per thread and size, so the buffer path does not allocate). Past
 * GPUPROF_MAX_DEPTH the call is not timed (its post hook finds no frame):
 * said once. */
GpuprofFrame *
_gpuprof_thread_grow (GpuprofThread * t)
{
  static gsize warned = 0;
  guint capacity = t->capacity * 2;

  if (t->capacity >= GPUPROF_MAX_DEPTH) {
    if (g_once_init_enter (&warned)) {
      g_printerr ("gpuprof: calls nested deeper than %d on thread '%s' are "
          "not timed\n", GPUPROF_MAX_DEPTH, t->name);
      g_once_init_leave (&warned, 1);
    }
    return NULL;
  }
  if (t->frames == t->inline_frames) {
    t->frames = g_new (GpuprofFrame, capacity);
    memcpy (t->frames, t->inline_frames, sizeof (t->inline_frames));
  } else {
    t->frames = g_renew (GpuprofFrame, t->frames, capacity);
  }
  t->capacity = capacity;
  return &t->frames[t->depth++];
}

void
_gpuprof_thread_first_touch (GpuprofThread * t, guint64 ts)
{
  __atomic_store_n (&t->first_ts, ts ? ts : 1, __ATOMIC_RELAXED);
  t->loop_mark = ts;
  t->loop_child_ns = 0;
  t->loop_cpu_mark = gpuprof_thread_cpu_now ();
}

guint64
gpuprof_thread_cpu_now (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

void
gpuprof_thread_add_busy (GpuprofThread * t, guint64 ns)
{
  /* only the owning thread writes */
  __atomic_store_n (&t->busy_ns,
      __atomic_load_n (&t->busy_ns, __ATOMIC_RELAXED) + ns, __ATOMIC_RELAXED);
}

gboolean
gpuprof_thread_read_doing (GpuprofThread * t, GpuprofDoingKind * kind,
    guint32 * element_id, guint64 * since)
{
  guint64 word = __atomic_load_n (&t->doing, __ATOMIC_ACQUIRE);

  *since = __atomic_load_n (&t->doing_since, __ATOMIC_RELAXED);
  *kind = (GpuprofDoingKind) (word >> 32);
  *element_id = (guint32) word;
  /* the pair belongs together if the word did not move meanwhile (a
   * same word with a newer time is as true) */
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  return __atomic_load_n (&t->doing, __ATOMIC_RELAXED) == word;
}

void
gpuprof_thread_set_name (GpuprofThread * t, const gchar * name,
    gboolean from_task)
{
  /* a task name is better than the truncated OS name; keep the first one */
  if (t->named_by_task && !from_task)
    return;
  g_mutex_lock (&threads_lock);
  g_strlcpy (t->name, name, sizeof (t->name));
  t->named_by_task = from_task;
  g_mutex_unlock (&threads_lock);
}

GPtrArray *
gpuprof_thread_list (void)
{
  GPtrArray *copy = g_ptr_array_new ();
  guint i;

  g_mutex_lock (&threads_lock);
  for (i = 0; threads && i < threads->len; i++)
    g_ptr_array_add (copy, g_ptr_array_index (threads, i));
  g_mutex_unlock (&threads_lock);
  return copy;
}

void
gpuprof_thread_reset_run (GpuprofThread * t)
{
  __atomic_store_n (&t->first_ts, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&t->last_ts, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&t->busy_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&t->ovh_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&t->ovh_samples, 0, __ATOMIC_RELAXED);
  gpuprof_thread_set_doing (t, GPUPROF_DOING_NOTHING, 0, 0);
}

gchar *
gpuprof_thread_dup_name (GpuprofThread * t)
{
  gchar *name;

  g_mutex_lock (&threads_lock);
  name = g_strdup (t->name);
  g_mutex_unlock (&threads_lock);
  return name;
}

gchar *
gpuprof_thread_dup_name_of (guint32 id)
{
  gchar *name = NULL;
  guint i;

  g_mutex_lock (&threads_lock);
  for (i = 0; threads && i < threads->len && !name; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);

    if (t->id == id)
      name = g_strdup (t->name);
  }
  g_mutex_unlock (&threads_lock);
  return name;
}
