/* A thread of a test's own that waits at a gate: started (its OS thread id
 * known), then let through once to run a function (an element's private
 * thread launching GPU work, an application thread), then kept alive until
 * the test ends it, so what is read of it later (its OS name in
 * /proc/self/task) is still there. Needs only GLib. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*GpuprofTestGateFunc) (gpointer data);

typedef struct
{
  GMutex lock;
  GCond cond;
  guint32 tid;                  /* gettid() of the thread, once started */
  gboolean go, done, release;
  GpuprofTestGateFunc func;
  gpointer data;
  GThread *thread;
} GpuprofTestGate;

/* Starts thread @name (its OS name too); returns once its tid is known. */
void gpuprof_test_gate_start (GpuprofTestGate * gate, const gchar * name,
    GpuprofTestGateFunc func, gpointer data);
/* Lets it run its function, returns when the function did. */
void gpuprof_test_gate_run (GpuprofTestGate * gate);
/* Lets it end, joins it. */
void gpuprof_test_gate_end (GpuprofTestGate * gate);

G_END_DECLS
