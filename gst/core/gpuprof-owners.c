/* gpuprof: thread owners (see gpuprof-owners.h). */
#include "gpuprof-owners.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

typedef struct
{
  guint32 element_id;
  GpuprofThreadKind kind;
  GpuprofOwnerHow how;
  guint32 former_id;            /* released: whose task it ran last */
  GpuprofThreadKind former_kind;
} Owner;

/* one of an element's first calls, open on thread tid */
typedef struct
{
  guint id;
  gint tid;
  guint32 element_id;
  gboolean state;               /* a state change: its scans claim */
  gchar comm[16];
} Window;

/* a thread that appeared while windows were open on several threads */
#define MAX_CANDIDATES 8
typedef struct
{
  guint32 best;                 /* the element of the window closed last */
  guint windows[MAX_CANDIDATES];        /* ids of the candidates still open */
  guint n;
  guint passes;                 /* sampler passes since it was seen */
  gboolean pool;                /* a thread of GLib's pool */
} Pending;

#define MAX_SWITCHES 4096

static GMutex lock;
static GHashTable *owners;      /* tid -> Owner*, guarded by lock */
static GArray *windows;         /* Window, oldest first; lock */
static GHashTable *pending;     /* tid -> Pending*; lock */
static guint next_window_id;    /* lock */
static GArray *switches;        /* GpuprofOwnerSwitch; lock */
static gboolean log_switches;   /* lock */
static guint generation;        /* atomic */
static gboolean scanned;        /* the first scan was made; lock */
static GpuprofOwnersFunc listener;      /* guarded by lock */
static gpointer listener_data;

static void
told_locked (gint tid, const Owner * o)
{
  __atomic_add_fetch (&generation, 1, __ATOMIC_RELEASE);
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
    case GPUPROF_THREAD_KIND_PROCESS:
      return "process";
    case GPUPROF_THREAD_KIND_UNATTRIBUTED:
      return "unattributed";
    default:
      return "application";
  }
}

guint
gpuprof_owners_generation (void)
{
  return __atomic_load_n (&generation, __ATOMIC_ACQUIRE);
}

/* the owner of @tid so far kept the CPU up to @cpu_ns (0: unknown) */
static void
log_switch_locked (gint tid, const Owner * before, guint64 cpu_ns)
{
  GpuprofOwnerSwitch s = { tid, cpu_ns, before->element_id, before->kind };

  if (!log_switches || !cpu_ns)
    return;
  if (!switches)
    switches = g_array_new (FALSE, FALSE, sizeof (GpuprofOwnerSwitch));
  if (switches->len >= MAX_SWITCHES)
    g_array_remove_index (switches, 0);
  g_array_append_val (switches, s);
}

static void
set_locked (gint tid, guint32 element_id, GpuprofThreadKind kind,
    GpuprofOwnerHow how, guint64 cpu_ns)
{
  Owner *o = owner_of_locked (tid, TRUE), before = *o;

  /* a pad task is its element's whatever was seen first; else the first
   * owner stays (a worker that also pushes becomes its output thread) */
  if (kind == GPUPROF_THREAD_KIND_STREAMING || !o->element_id
      || (o->element_id == element_id
          && o->kind == GPUPROF_THREAD_KIND_WORKER)) {
    o->element_id = element_id;
    o->kind = kind;
    o->how = how;
    if (before.element_id != element_id || before.kind != kind)
      log_switch_locked (tid, &before, cpu_ns);
    told_locked (tid, o);
  }
  if (pending)
    g_hash_table_remove (pending, GINT_TO_POINTER (tid));
}

void
gpuprof_owners_set (gint tid, guint32 element_id, GpuprofThreadKind kind)
{
  g_mutex_lock (&lock);
  set_locked (tid, element_id, kind, kind == GPUPROF_THREAD_KIND_STREAMING ?
      GPUPROF_OWNER_BY_TASK : GPUPROF_OWNER_BY_PUSH, 0);
  g_mutex_unlock (&lock);
}

void
gpuprof_owners_set_here (gint tid, guint32 element_id,
    GpuprofThreadKind kind, GpuprofOwnerHow how, guint64 cpu_ns)
{
  g_mutex_lock (&lock);
  set_locked (tid, element_id, kind, how, cpu_ns);
  g_mutex_unlock (&lock);
}

void
gpuprof_owners_release (gint tid, guint64 cpu_ns)
{
  Owner *o, before;

  g_mutex_lock (&lock);
  o = owner_of_locked (tid, TRUE);
  before = *o;
  if (o->element_id) {
    o->former_id = o->element_id;
    o->former_kind = o->kind;
  }
  o->element_id = 0;
  o->kind = GPUPROF_THREAD_KIND_PROCESS;
  o->how = GPUPROF_OWNER_BY_TASK;
  log_switch_locked (tid, &before, cpu_ns);
  told_locked (tid, o);
  g_mutex_unlock (&lock);
}

gboolean
gpuprof_owners_is_helper_name (const gchar * comm)
{
  /* GLib's and GStreamer's helpers, and gpuprof's own threads (keep in
   * step with their names: gpuprof_ticker_new(), g_thread_new()) */
  static const gchar *const helpers[] = { GPUPROF_OWNERS_SPAWNER_NAME,
    "gmain", "gdbus", "GstSystemClock", "gpuprof-bus", "gpuprof-live", "gpuprof-sampler",
    "gpuprof-checkpt", "gpuprof-metrics", "gpuprof-cupti", NULL
  };

  return g_strv_contains (helpers, comm);
}

gboolean
gpuprof_owners_is_pool_name (const gchar * comm)
{
  return g_str_has_prefix (comm, "pool") && !gpuprof_owners_is_helper_name
      (comm);
}

void
gpuprof_owners_read_name (gint tid, gchar comm[16])
{
  gchar path[48], *text = NULL;

  comm[0] = 0;
  g_snprintf (path, sizeof (path), "/proc/self/task/%d/comm", tid);
  if (g_file_get_contents (path, &text, NULL, NULL))
    g_strlcpy (comm, g_strstrip (text), 16);
  g_free (text);
}

static gboolean named_by_a_thread_locked (gint tid, const gchar * comm);
static gboolean call_windows_claim_locked (gint tid, const gchar * comm,
    const Window * closing, const Window * cands[], guint n);

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
    gchar comm[16];
    Owner *o;

    /* a thread pending is a call window's */
    if (tid <= 0 || owner_of_locked (tid, FALSE) || (pending
            && g_hash_table_contains (pending, GINT_TO_POINTER (tid))))
      continue;
    gpuprof_owners_read_name (tid, comm);
    /* one a streaming thread made (an element starting threads in its
     * first calls while a state change runs: the pipeline goes to PLAYING
     * as the first buffers flow) is that thread's element's */
    if (named_by_a_thread_locked (tid, comm))
      continue;
    o = owner_of_locked (tid, TRUE);
    /* a pool thread that appeared since (GLib starts them as work comes,
     * for any runner) is no more the application's than the next state
     * change's: the process's (the CPU sampler follows its runner) */
    if (gpuprof_owners_is_helper_name (comm) || (!element_id && scanned
            && gpuprof_owners_is_pool_name (comm))) {
      o->kind = GPUPROF_THREAD_KIND_PROCESS;
    } else {
      o->element_id = element_id;
      o->kind = element_id ? GPUPROF_THREAD_KIND_WORKER :
          GPUPROF_THREAD_KIND_APPLICATION;
    }
    o->how = element_id ? GPUPROF_OWNER_BY_STATE_CHANGE :
        GPUPROF_OWNER_BY_START;
    if (pending)
      g_hash_table_remove (pending, GINT_TO_POINTER (tid));
    told_locked (tid, o);
  }
  scanned = TRUE;
  g_mutex_unlock (&lock);
  g_dir_close (dir);
}

/* @tid's owner and kind; @last: a thread between owners answers with the
 * one it had last */
static guint32
lookup (gint tid, GpuprofThreadKind * kind, gboolean last)
{
  GpuprofThreadKind k;
  Owner *o;
  guint32 id = 0;

  g_mutex_lock (&lock);
  o = owner_of_locked (tid, FALSE);
  k = o ? o->kind : GPUPROF_THREAD_KIND_APPLICATION;
  if (o)
    id = o->element_id;
  if (last && o && !id && o->former_id) {
    id = o->former_id;
    k = o->former_kind;
  }
  g_mutex_unlock (&lock);
  if (kind)
    *kind = k;
  return id;
}

guint32
gpuprof_owners_lookup (gint tid, GpuprofThreadKind * kind)
{
  return lookup (tid, kind, FALSE);
}

guint32
gpuprof_owners_lookup_last (gint tid, GpuprofThreadKind * kind)
{
  return lookup (tid, kind, TRUE);
}

gboolean
gpuprof_owners_get (gint tid, guint32 * element_id, GpuprofThreadKind * kind,
    GpuprofOwnerHow * how)
{
  Owner *o;

  g_mutex_lock (&lock);
  o = owner_of_locked (tid, FALSE);
  if (o) {
    *element_id = o->element_id;
    *kind = o->kind;
    *how = o->how;
  }
  g_mutex_unlock (&lock);
  return o != NULL;
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

      if (o->element_id == element_id && o->kind == GPUPROF_THREAD_KIND_WORKER
          && o->how == GPUPROF_OWNER_BY_STATE_CHANGE)
        g_array_append_val (tids, tid);
    }
  }
  g_mutex_unlock (&lock);
  return tids;
}

/* ------------------------------------------------------- call windows */

static void
settle_locked (gint tid, guint32 element_id, GpuprofThreadKind kind,
    GpuprofOwnerHow how)
{
  Owner *o = owner_of_locked (tid, TRUE);

  o->element_id = element_id;
  o->kind = kind;
  o->how = how;
  if (pending)
    g_hash_table_remove (pending, GINT_TO_POINTER (tid));
  told_locked (tid, o);
}

/* the innermost open window of each thread but @closing's, then
 * @closing: where a thread that appeared now may come from */
static guint
candidates_locked (const Window * closing, const Window * out[],
    gboolean * state)
{
  guint i, j, n = 0;

  *state = FALSE;
  for (i = windows ? windows->len : 0; i > 0 && n < MAX_CANDIDATES - 1; i--) {
    const Window *w = &g_array_index (windows, Window, i - 1);
    gboolean inner_seen = FALSE;

    *state |= w->state;
    if (closing && w->tid == closing->tid)
      continue;
    for (j = 0; j < n && !inner_seen; j++)
      inner_seen = out[j]->tid == w->tid;
    if (!inner_seen)
      out[n++] = w;
  }
  if (closing)
    out[n++] = closing;
  return n;
}

/* A new thread carries its creator's name until it names itself (not
 * GLib's pool name: all its threads have it): settled to the window of
 * @cands whose thread has its name now or had it as its window opened (a
 * task renames its thread after that). TRUE when settled. */
static gboolean
by_name_locked (gint tid, const gchar * comm, const Window * cands[], guint n)
{
  gchar now[16];
  guint i;

  if (!comm[0] || gpuprof_owners_is_pool_name (comm))
    return FALSE;
  for (i = 0; i < n; i++) {
    gpuprof_owners_read_name (cands[i]->tid, now);
    if (!strcmp (cands[i]->comm, comm) || !strcmp (now, comm)) {
      settle_locked (tid, cands[i]->element_id, GPUPROF_THREAD_KIND_WORKER,
          cands[i]->state ? GPUPROF_OWNER_BY_STATE_CHANGE :
          GPUPROF_OWNER_BY_CALL);
      return TRUE;
    }
  }
  return FALSE;
}

/* TRUE when a thread of the process other than @tid is named @comm: a
 * task's name ("q:src") on a thread it made, its creator's. A ':' name no
 * other thread has is the thread's own: a task's thread that named itself,
 * or a library's worker that did (FFmpeg 7's "av:h264:df0"); either is
 * settled like any new thread (a task's thread is its element's as soon
 * as it runs the task, set_locked()). */
static gboolean
named_elsewhere (gint tid, const gchar * comm)
{
  GDir *dir;
  const gchar *name;
  gboolean found = FALSE;

  if (!strchr (comm, ':') || !(dir = g_dir_open ("/proc/self/task", 0, NULL)))
    return FALSE;
  while (!found && (name = g_dir_read_name (dir))) {
    gint other = atoi (name);
    gchar now[16];

    if (other <= 0 || other == tid)
      continue;
    gpuprof_owners_read_name (other, now);
    found = !strcmp (now, comm);
  }
  g_dir_close (dir);
  return found;
}

/* A thread that named itself (a ':' name no other thread carries) seen
 * while a state change runs: the call windows among @cands (@closing
 * one of them, or NULL) claim it now, as they may have closed by the time
 * the state change ends. TRUE when they did; FALSE when none is open (it
 * is the state change's). */
static gboolean
call_windows_beside_state_locked (gint tid, const gchar * comm,
    const Window * closing, const Window * cands[], guint n)
{
  guint i, calls = 0;

  for (i = 0; i < n; i++)
    if (!cands[i]->state)
      cands[calls++] = cands[i];
  return calls > 0 && call_windows_claim_locked (tid, comm, closing, cands,
      calls);
}

/* A thread a state change's scan finds that another thread made: named
 * like a window's thread (settled to it), or like a task's thread ("q:src"
 * with no window open there: the CPU sampler settles it by that name); or
 * one that named itself while call windows were open beside the state
 * change (an element starting threads in its first calls as the pipeline
 * goes to PLAYING): left to them. TRUE when it is not the scan's to
 * claim. */
static gboolean
named_by_a_thread_locked (gint tid, const gchar * comm)
{
  const Window *cands[MAX_CANDIDATES];
  gboolean state;
  guint n = candidates_locked (NULL, cands, &state);

  if (by_name_locked (tid, comm, cands, n) || named_elsewhere (tid, comm))
    return TRUE;
  return strchr (comm, ':') && call_windows_beside_state_locked (tid, comm,
      NULL, cands, n);
}

/* A thread no scan saw before (@comm its name): TRUE when settled or
 * pending */
static gboolean
first_sight_locked (gint tid, const gchar * comm, const Window * closing)
{
  const Window *cands[MAX_CANDIDATES];
  gboolean state;
  guint n;

  if (gpuprof_owners_is_helper_name (comm)) {
    settle_locked (tid, 0, GPUPROF_THREAD_KIND_PROCESS, GPUPROF_OWNER_BY_CALL);
    return TRUE;
  }
  n = candidates_locked (closing, cands, &state);
  if (by_name_locked (tid, comm, cands, n))
    return TRUE;
  /* a state change runs: the thread is its element's, as its end's scan
   * says (gpuprof_owners_scan()); but one that named itself like a task
   * while call windows are open beside it goes to them now: by the time
   * the state change ends they may have closed (a sink's first render
   * starting a helper as the pipeline goes to PLAYING) */
  if (state) {
    if (strchr (comm, ':') && !named_elsewhere (tid, comm))
      call_windows_beside_state_locked (tid, comm, closing, cands, n);
    return TRUE;
  }
  /* another task's name: that thread made it (its own window, or the
   * sampler by the name) */
  if (n == 0 || named_elsewhere (tid, comm))
    return FALSE;
  return call_windows_claim_locked (tid, comm, closing, cands, n);
}

/* @tid appeared while the call windows @cands (@closing among them, or
 * NULL) were open: the only one's worker, or pending on them all */
static gboolean
call_windows_claim_locked (gint tid, const gchar * comm,
    const Window * closing, const Window * cands[], guint n)
{
  Pending *p;
  guint i;

  if (n == 1) {
    settle_locked (tid, cands[0]->element_id, GPUPROF_THREAD_KIND_WORKER,
        GPUPROF_OWNER_BY_CALL);
    return TRUE;
  }
  if (!pending)
    pending = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  p = g_new0 (Pending, 1);
  p->best = closing ? closing->element_id : 0;
  p->pool = gpuprof_owners_is_pool_name (comm);
  for (i = 0; i < n; i++)
    if (cands[i] != closing)
      p->windows[p->n++] = cands[i]->id;
  g_hash_table_insert (pending, GINT_TO_POINTER (tid), p);
  return TRUE;
}

/* lists /proc/self/task: each thread not known yet is first seen now */
static void
scan_new_locked (const Window * closing)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;

  if (!dir)
    return;
  while ((name = g_dir_read_name (dir))) {
    gint tid = atoi (name);
    gchar comm[16];

    if (tid <= 0 || owner_of_locked (tid, FALSE)
        || (pending && g_hash_table_contains (pending, GINT_TO_POINTER (tid))))
      continue;
    gpuprof_owners_read_name (tid, comm);
    first_sight_locked (tid, comm, closing);
  }
  g_dir_close (dir);
}

/* @w closes: the threads pending on it may go to it (the window that
 * closes last wins) */
static void
window_closed_locked (const Window * w)
{
  GHashTableIter it;
  gpointer key, value;
  guint i;

  if (!pending)
    return;
  g_hash_table_iter_init (&it, pending);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    Pending *p = value;

    for (i = 0; i < p->n && p->windows[i] != w->id; i++);
    if (i == p->n)
      continue;
    p->windows[i] = p->windows[--p->n];
    p->best = w->element_id;
    /* a pool thread: the first to close wins (gpuprof-owners.h) */
    if (p->pool)
      p->n = 0;
    if (p->n == 0) {
      Owner *o = owner_of_locked (GPOINTER_TO_INT (key), TRUE);

      o->element_id = p->best;
      o->kind = GPUPROF_THREAD_KIND_WORKER;
      o->how = GPUPROF_OWNER_BY_CALL;
      told_locked (GPOINTER_TO_INT (key), o);
      g_hash_table_iter_remove (&it);
    }
  }
}

static void
window (guint32 element_id, gboolean open, gboolean state)
{
  gint tid = (gint) syscall (SYS_gettid);
  Window w = { 0 };
  guint i;

  g_mutex_lock (&lock);
  if (!windows)
    windows = g_array_new (FALSE, FALSE, sizeof (Window));
  if (open) {
    /* a state change's own scans list the threads (the hooks') */
    if (!state)
      scan_new_locked (NULL);
    w.id = ++next_window_id;
    w.tid = tid;
    w.element_id = element_id;
    w.state = state;
    if (prctl (PR_GET_NAME, w.comm, 0, 0, 0) != 0)
      w.comm[0] = 0;
    w.comm[15] = 0;
    g_array_append_val (windows, w);
  } else {
    for (i = windows->len; i > 0; i--) {
      if (g_array_index (windows, Window, i - 1).tid == tid)
        break;
    }
    if (i > 0) {
      w = g_array_index (windows, Window, i - 1);
      g_array_remove_index (windows, i - 1);
      if (!w.state) {
        scan_new_locked (&w);
        window_closed_locked (&w);
      }
    }
  }
  g_mutex_unlock (&lock);
}

void
gpuprof_owners_call_window (guint32 element_id, gboolean open)
{
  window (element_id, open, FALSE);
}

void
gpuprof_owners_state_window (guint32 element_id, gboolean open)
{
  window (element_id, open, TRUE);
}

guint32
gpuprof_owners_window_element (gint tid)
{
  guint32 id = 0;
  guint i;

  if (!tid)
    tid = (gint) syscall (SYS_gettid);
  g_mutex_lock (&lock);
  for (i = windows ? windows->len : 0; i > 0 && !id; i--)
    if (g_array_index (windows, Window, i - 1).tid == tid)
      id = g_array_index (windows, Window, i - 1).element_id;
  g_mutex_unlock (&lock);
  return id;
}

gboolean
gpuprof_owners_first_sight (gint tid, const gchar * comm)
{
  gboolean known;

  g_mutex_lock (&lock);
  known = owner_of_locked (tid, FALSE) != NULL || (pending
      && g_hash_table_contains (pending, GINT_TO_POINTER (tid)))
      || first_sight_locked (tid, comm, NULL);
  g_mutex_unlock (&lock);
  return known;
}

void
gpuprof_owners_settle (gint tid, guint32 element_id, GpuprofThreadKind kind,
    GpuprofOwnerHow how)
{
  g_mutex_lock (&lock);
  settle_locked (tid, element_id, kind, how);
  g_mutex_unlock (&lock);
}

void
gpuprof_owners_settle_pending (guint passes)
{
  GHashTableIter it;
  gpointer key, value;

  g_mutex_lock (&lock);
  if (pending) {
    g_hash_table_iter_init (&it, pending);
    while (g_hash_table_iter_next (&it, &key, &value)) {
      Pending *p = value;
      Owner *o;

      if (++p->passes < passes)
        continue;
      o = owner_of_locked (GPOINTER_TO_INT (key), TRUE);
      o->element_id = p->best;
      /* no window closed: a thread of GLib's pool is the process's, as
       * between tasks (the CPU sampler shares it among the pool's users);
       * another could be any of theirs */
      o->kind = p->best ? GPUPROF_THREAD_KIND_WORKER : p->pool ?
          GPUPROF_THREAD_KIND_PROCESS : GPUPROF_THREAD_KIND_UNATTRIBUTED;
      o->how = GPUPROF_OWNER_BY_CALL;
      told_locked (GPOINTER_TO_INT (key), o);
      g_hash_table_iter_remove (&it);
    }
  }
  g_mutex_unlock (&lock);
}

void
gpuprof_owners_forget (gint tid)
{
  g_mutex_lock (&lock);
  if (owners && g_hash_table_remove (owners, GINT_TO_POINTER (tid)))
    __atomic_add_fetch (&generation, 1, __ATOMIC_RELEASE);
  if (pending)
    g_hash_table_remove (pending, GINT_TO_POINTER (tid));
  g_mutex_unlock (&lock);
}

/* ----------------------------------------------------------- switches */

void
gpuprof_owners_log_switches (gboolean on)
{
  g_mutex_lock (&lock);
  log_switches = on;
  if (!on && switches)
    g_array_set_size (switches, 0);
  g_mutex_unlock (&lock);
}

GArray *
gpuprof_owners_take_switches (void)
{
  GArray *out;

  g_mutex_lock (&lock);
  out = switches ? switches : g_array_new (FALSE, FALSE,
      sizeof (GpuprofOwnerSwitch));
  switches = NULL;
  g_mutex_unlock (&lock);
  return out;
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
