/* gpuprof: which element owns each thread of the process, and how.
 *
 * A pad task is owned by its element (stream-status); a thread that
 * appears during an element's state change was created by it (a worker:
 * /proc/self/task is listed at state-change pre and post, never on the
 * buffer path); a thread that pushes on an element's src pad outside a
 * chain call is its output thread. Threads seen at start or appearing
 * elsewhere belong to the application. One table keyed by OS thread id,
 * under one lock: written on state changes, stream-status and the first
 * loop push of a thread, read by snapshots and the GPU join. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_THREAD_KIND_APPLICATION = 0,
  GPUPROF_THREAD_KIND_STREAMING,        /* a pad task */
  GPUPROF_THREAD_KIND_WORKER,   /* created by the element */
  GPUPROF_THREAD_KIND_OUTPUT,   /* pushes on its src pad outside a chain */
} GpuprofThreadKind;

const gchar *gpuprof_thread_kind_name (GpuprofThreadKind kind);

/* Sets (or upgrades) the owner of @tid: STREAMING wins over the others,
 * and an owner once set is kept unless @kind is STREAMING. */
void gpuprof_owners_set (gint tid, guint32 element_id,
    GpuprofThreadKind kind);
/* Lists /proc/self/task: threads not seen before are @element_id's
 * workers (0: the application's), except GLib's and GStreamer's
 * process-wide helper threads (pool-spawner, gmain, gdbus, the system
 * clock's), the application's. Not on the buffer path. */
void gpuprof_owners_scan (guint32 element_id);
/* Element id owning @tid, 0 when none; its kind in @kind if not NULL. */
guint32 gpuprof_owners_lookup (gint tid, GpuprofThreadKind * kind);
/* Worker threads of @element_id (tids, free with g_array_unref). */
GArray *gpuprof_owners_workers (guint32 element_id);

/* Told each owner learnt (element id != 0), with the owners lock held:
 * short, no gpuprof_owners_* call. How the GPU side learns them without
 * gst/core depending on gst/gpu (the session sets it). */
typedef void (*GpuprofOwnersFunc) (gint tid, guint32 element_id,
    gpointer user_data);
/* Sets it (NULL: none) and replays the owners already known to it. */
void gpuprof_owners_set_listener (GpuprofOwnersFunc func, gpointer user_data);

G_END_DECLS
