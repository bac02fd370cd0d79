/* gpuprof: thread owners. */
#include "gpuprof-owners.h"

#include <stdlib.h>

typedef struct
{
  guint32 element_id;
  GpuprofThreadKind kind;
} Owner;

static GMutex lock;
static GHashTable *owners;      /* tid -> Owner*, guarded by lock */
static GpuprofOwnersFunc listener;      /* guarded by lock */
static gpointer listener_data;

static void
told_locked (gint tid, const Owner * o)
{
  if (listener && o->element_id)
    listener (tid, o->element_id, listener_data);
}

static Owner *
owner_of_locked (gint tid, gboolean create)
{
  Owner *o;

  if (!owners)
    owners = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  o = g_hash_table_lookup (owners, GINT_TO_POINTER (tid));
  if (!o && create) {
    o = g_new0 (Owner, 1);
    g_hash_table_insert (owners, GINT_TO_POINTER (tid), o);
  }
  return o;
}

const gchar *
gpuprof_thread_kind_name (GpuprofThreadKind kind)
{
  switch (kind) {
    case GPUPROF_THREAD_KIND_STREAMING:
      return "streaming";
    case GPUPROF_THREAD_KIND_WORKER:
      return "worker";
    case GPUPROF_THREAD_KIND_OUTPUT:
      return "output";
    default:
      return "application";
  }
}

void
gpuprof_owners_set (gint tid, guint32 element_id, GpuprofThreadKind kind)
{
  Owner *o;

  g_mutex_lock (&lock);
  o = owner_of_locked (tid, TRUE);
  /* a pad task is its element's whatever was seen first; else the first
   * owner stays (a worker that also pushes becomes its output thread) */
  if (kind == GPUPROF_THREAD_KIND_STREAMING || !o->element_id
      || (o->element_id == element_id
          && o->kind == GPUPROF_THREAD_KIND_WORKER)) {
    o->element_id = element_id;
    o->kind = kind;
    told_locked (tid, o);
  }
  g_mutex_unlock (&lock);
}

/* Threads GLib and GStreamer start once for the whole process, in
 * whatever call first needs them: GLib >= 2.80's "pool-spawner" (it
 * creates the shared thread pool's threads), GLib's "gmain" worker and
 * "gdbus", GStreamer's system clock thread. One appearing in an element's
 * state change is the process's, not that element's worker. A thread sets
 * its own name as it starts, and is read at the end of the state change:
 * the spawner has run by then, as a task start waits for it to make the
 * task's thread. (Not started early at the tracer's start: a process that
 * forks after gst_init(), as GstCheck does per test, would wait forever in
 * the child for a spawner that stayed in the parent.) */
static gboolean
is_process_helper (gint tid)
{
  static const gchar *const helpers[] = { "pool-spawner", "gmain", "gdbus",
    "GstSystemClock", NULL
  };
  gchar *path = g_strdup_printf ("/proc/self/task/%d/comm", tid), *comm = NULL;
  gboolean helper = FALSE;

  if (g_file_get_contents (path, &comm, NULL, NULL))
    helper = g_strv_contains (helpers, g_strstrip (comm));
  g_free (comm);
  g_free (path);
  return helper;
}

void
gpuprof_owners_scan (guint32 element_id)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;

  if (!dir)
    return;
  g_mutex_lock (&lock);
  while ((name = g_dir_read_name (dir))) {
    gint tid = atoi (name);
    Owner *o;

    if (tid <= 0 || owner_of_locked (tid, FALSE))
      continue;
    o = owner_of_locked (tid, TRUE);
    o->element_id = element_id && !is_process_helper (tid) ? element_id : 0;
    o->kind = o->element_id ? GPUPROF_THREAD_KIND_WORKER :
        GPUPROF_THREAD_KIND_APPLICATION;
    told_locked (tid, o);
  }
  g_mutex_unlock (&lock);
  g_dir_close (dir);
}

guint32
gpuprof_owners_lookup (gint tid, GpuprofThreadKind * kind)
{
  Owner *o;
  guint32 id = 0;

  g_mutex_lock (&lock);
  o = owner_of_locked (tid, FALSE);
  if (o)
    id = o->element_id;
  if (kind)
    *kind = o ? o->kind : GPUPROF_THREAD_KIND_APPLICATION;
  g_mutex_unlock (&lock);
  return id;
}

GArray *
gpuprof_owners_workers (guint32 element_id)
{
  GArray *tids = g_array_new (FALSE, FALSE, sizeof (gint));
  GHashTableIter it;
  gpointer key, value;

  g_mutex_lock (&lock);
  if (owners) {
    g_hash_table_iter_init (&it, owners);
    while (g_hash_table_iter_next (&it, &key, &value)) {
      const Owner *o = value;
      gint tid = GPOINTER_TO_INT (key);

      if (o->element_id == element_id && o->kind == GPUPROF_THREAD_KIND_WORKER)
        g_array_append_val (tids, tid);
    }
  }
  g_mutex_unlock (&lock);
  return tids;
}

void
gpuprof_owners_set_listener (GpuprofOwnersFunc func, gpointer user_data)
{
  GHashTableIter it;
  gpointer key, value;

  g_mutex_lock (&lock);
  listener = func;
  listener_data = user_data;
  if (owners) {
    g_hash_table_iter_init (&it, owners);
    while (g_hash_table_iter_next (&it, &key, &value))
      told_locked (GPOINTER_TO_INT (key), value);
  }
  g_mutex_unlock (&lock);
}
