/* gpuprof: which element owns each thread of the process, and how.
 *
 * A pad task is owned by its element (stream-status ENTER, posted on the
 * task's thread) until its task leaves it (LEAVE: the thread goes back to
 * GLib's pool, the process's); a thread that appears during an element's
 * state change was created by it (a worker: /proc/self/task is listed at
 * state-change pre and post); so is one that appears during one of an
 * element's first calls or one of a thread's first loops (call windows,
 * below); a thread that pushes on an element's src pad outside a chain call
 * is its output thread. GLib's and GStreamer's helpers are the process's;
 * threads there at the start are the application's. The rest are settled
 * by the CPU sampler when it first sees them (gpuprof_owners_first_sight(),
 * then by the name they inherited from their creator) or stay unattributed.
 *
 * One table keyed by OS thread id, under one lock: written on state
 * changes, stream-status, the first calls of elements and the first loops
 * of threads, the first push of an output thread and the sampler's passes;
 * read by snapshots, the sampler and the GPU join. Never on the steady
 * buffer path. docs/tracer.md, "Thread owners". */
#pragma once

#include <glib.h>

#include "gpuprof-api.h"

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_THREAD_KIND_APPLICATION = 0,
  GPUPROF_THREAD_KIND_STREAMING,        /* a pad task */
  GPUPROF_THREAD_KIND_WORKER,   /* created by the element */
  GPUPROF_THREAD_KIND_OUTPUT,   /* pushes on its src pad outside a chain */
  GPUPROF_THREAD_KIND_PROCESS,  /* GLib's and GStreamer's helpers, GLib's
                                 * pool threads between tasks, gpuprof's */
  GPUPROF_THREAD_KIND_UNATTRIBUTED,     /* no owner could be told */
} GpuprofThreadKind;

/* how an owner was learnt */
typedef enum
{
  GPUPROF_OWNER_BY_START = 0,   /* there at the first scan */
  GPUPROF_OWNER_BY_STATE_CHANGE,        /* appeared in its state change */
  GPUPROF_OWNER_BY_TASK,        /* stream-status: a pad task */
  GPUPROF_OWNER_BY_PUSH,        /* pushes on its src pad */
  GPUPROF_OWNER_BY_CALL,        /* appeared in one of its first calls */
  GPUPROF_OWNER_BY_NAME,        /* the sampler: the name it inherited */
} GpuprofOwnerHow;

GPUPROF_API
const gchar *gpuprof_thread_kind_name (GpuprofThreadKind kind);

/* Sets (or upgrades) the owner of @tid: STREAMING wins over the others,
 * and an owner once set is kept unless @kind is STREAMING. */
void gpuprof_owners_set (gint tid, guint32 element_id,
    GpuprofThreadKind kind);
/* The same from the thread @tid itself, which read its own CPU clock
 * (@cpu_ns, CLOCK_THREAD_CPUTIME_ID): the CPU before it is the former
 * owner's (gpuprof_owners_take_switches()) */
void gpuprof_owners_set_here (gint tid, guint32 element_id,
    GpuprofThreadKind kind, GpuprofOwnerHow how, guint64 cpu_ns);
/* Its task left the thread (stream-status LEAVE, on @tid itself): it is
 * back in GLib's pool, the process's, from @cpu_ns on */
void gpuprof_owners_release (gint tid, guint64 cpu_ns);
/* Lists /proc/self/task: threads not seen before are @element_id's
 * workers (0: the application's), except GLib's and GStreamer's
 * process-wide helper threads (pool-spawner, gmain, gdbus, the system
 * clock's) and, with @element_id 0 after the first scan, GLib's pool
 * threads: the process's; a thread named like a call window's thread or a
 * task's ("dq:src": its creator's name) is left to that thread's element.
 * Not on the buffer path. */
GPUPROF_API
void gpuprof_owners_scan (guint32 element_id);
/* Element id owning @tid, 0 when none; its kind in @kind if not NULL. */
guint32 gpuprof_owners_lookup (gint tid, GpuprofThreadKind * kind);
/* the same, but a thread whose task left it (back in GLib's pool) gives
 * the element whose task it ran last: the owner a report shows */
guint32 gpuprof_owners_lookup_last (gint tid, GpuprofThreadKind * kind);
/* the same, with how it was learnt; FALSE when @tid was never seen */
GPUPROF_API
gboolean gpuprof_owners_get (gint tid, guint32 * element_id,
    GpuprofThreadKind * kind, GpuprofOwnerHow * how);
/* Worker threads of @element_id that appeared in its state changes (tids,
 * free with g_array_unref). */
GArray *gpuprof_owners_workers (guint32 element_id);
/* Bumped at every change of an owner: a reader that cached owners looks
 * again only when it moved (atomic) */
guint gpuprof_owners_generation (void);

/* Call windows: one of an element's first calls (chain, an event it
 * handles) or one of a thread's first loops runs on the calling thread
 * from @open TRUE to @open FALSE (nested windows close innermost first).
 * /proc/self/task is listed at both ends; a thread that appeared in
 * between is the element's worker when it carries the calling thread's
 * name (a new thread inherits its creator's name) or a name of its own
 * (GLib's pool threads rename themselves at once) and no other window was
 * open on another thread; with several open, it is left pending and goes
 * to the window that closes last (the caller that waited for it), except
 * a thread of GLib's pool (named "pool-…", a name every pool thread has,
 * so never matched): it goes to the first of them that closes after it
 * was seen (its creator, a task runner, waits in its call for the jobs it
 * gave it and returns when they are done; the others may be blocked
 * elsewhere: a chain in an aggregator or a full queue, a source's first
 * loop). The CPU sampler shares a pool thread's CPU among the pool's users
 * by their calls in each pass (pool threads move between runners). A name
 * of another task ("q:src") is that thread's to claim, the name it has now
 * or had as its window opened; a ':' name no other thread carries is the
 * thread's own (FFmpeg 7's "av:h264:df0"), settled like any other. Off the
 * steady buffer path: the hooks open windows for a bounded number of first
 * calls (GPUPROF_OWNERS_FIRST_CALLS per element, GPUPROF_OWNERS_FIRST_LOOPS
 * per thread). */
#define GPUPROF_OWNERS_FIRST_CALLS 8
#define GPUPROF_OWNERS_FIRST_LOOPS 4
GPUPROF_API
void gpuprof_owners_call_window (guint32 element_id, gboolean open);
/* An element's state change runs on the calling thread (between the two
 * scans of its hooks): a thread that appears meanwhile is left to its
 * end's scan (gpuprof_owners_scan() with the element), unless it carries
 * the name of a call window's thread */
void gpuprof_owners_state_window (guint32 element_id, gboolean open);
/* the element of the innermost window open on @tid (0: the calling
 * thread): a call or a state change running there; 0 when none */
guint32 gpuprof_owners_window_element (gint tid);

/* The sampler's first sight of @tid (named @comm), which no scan saw:
 * TRUE when a window settles it or leaves it pending; FALSE: unknown, the
 * caller settles it (gpuprof_owners_settle()). */
GPUPROF_API
gboolean gpuprof_owners_first_sight (gint tid, const gchar * comm);
void gpuprof_owners_settle (gint tid, guint32 element_id,
    GpuprofThreadKind kind, GpuprofOwnerHow how);
/* Threads pending longer than @passes calls of this function (one per
 * sampler pass) go to their best candidate; with none (no window closed),
 * a pool thread is the process's and another unattributed */
GPUPROF_API
void gpuprof_owners_settle_pending (guint passes);
/* The thread ended (the sampler saw it go): its entry is forgotten, so a
 * tid the kernel reuses starts afresh */
GPUPROF_API
void gpuprof_owners_forget (gint tid);
/* GLib's spawner thread (GLib >= 2.80 makes the shared pool's threads
 * there): a new pool thread carries this name till it names itself */
#define GPUPROF_OWNERS_SPAWNER_NAME "pool-spawner"
/* GLib's and GStreamer's process-wide helpers (and gpuprof's own), by
 * name */
gboolean gpuprof_owners_is_helper_name (const gchar * comm);
/* the kernel's name of thread @tid of this process into @comm, "" when it
 * is gone (a /proc read: not on the buffer path) */
void gpuprof_owners_read_name (gint tid, gchar comm[16]);
/* GLib's shared pool names its threads "pool-<program>" (or "pool"): a
 * name that says nothing of who made the thread, as every pool thread
 * carries it */
gboolean gpuprof_owners_is_pool_name (const gchar * comm);

/* An owner switch made on the thread itself: the CPU of @tid before
 * @cpu_ns (its own clock) was @element_id's, as @kind. Logged only while
 * someone takes them (gpuprof_owners_log_switches()). */
typedef struct
{
  gint tid;
  guint64 cpu_ns;
  guint32 element_id;
  GpuprofThreadKind kind;
} GpuprofOwnerSwitch;
void gpuprof_owners_log_switches (gboolean on);
/* the switches since the last call, oldest first (free with
 * g_array_unref); at most 4096 are kept between two calls */
GArray *gpuprof_owners_take_switches (void);

/* Told each owner learnt (element id != 0), with the owners lock held:
 * short, no gpuprof_owners_* call. How the GPU side learns them without
 * gst/core depending on gst/gpu (the session sets it). */
typedef void (*GpuprofOwnersFunc) (gint tid, guint32 element_id,
    gpointer user_data);
/* Sets it (NULL: none) and replays the owners already known to it. */
void gpuprof_owners_set_listener (GpuprofOwnersFunc func, gpointer user_data);

G_END_DECLS
