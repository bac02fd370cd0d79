/* A gated test thread: see gpuprof-test-gate.h. */
#include "gpuprof-test-gate.h"

#include <unistd.h>
#include <sys/syscall.h>

static void
wait_for (GpuprofTestGate * gate, gboolean * flag)
{
  while (!*flag)
    g_cond_wait (&gate->cond, &gate->lock);
}

static void
set (GpuprofTestGate * gate, gboolean * flag)
{
  *flag = TRUE;
  g_cond_broadcast (&gate->cond);
}

static gpointer
gate_main (gpointer data)
{
  GpuprofTestGate *gate = data;

  g_mutex_lock (&gate->lock);
  gate->tid = (guint32) syscall (SYS_gettid);
  g_cond_broadcast (&gate->cond);
  wait_for (gate, &gate->go);
  g_mutex_unlock (&gate->lock);
  gate->func (gate->data);
  g_mutex_lock (&gate->lock);
  set (gate, &gate->done);
  wait_for (gate, &gate->release);
  g_mutex_unlock (&gate->lock);
  return NULL;
}

void
gpuprof_test_gate_start (GpuprofTestGate * gate, const gchar * name,
    GpuprofTestGateFunc func, gpointer data)
{
  g_mutex_init (&gate->lock);
  g_cond_init (&gate->cond);
  gate->tid = 0;
  gate->go = gate->done = gate->release = FALSE;
  gate->func = func;
  gate->data = data;
  gate->thread = g_thread_new (name, gate_main, gate);
  g_mutex_lock (&gate->lock);
  while (!gate->tid)
    g_cond_wait (&gate->cond, &gate->lock);
  g_mutex_unlock (&gate->lock);
}

void
gpuprof_test_gate_run (GpuprofTestGate * gate)
{
  g_mutex_lock (&gate->lock);
  set (gate, &gate->go);
  wait_for (gate, &gate->done);
  g_mutex_unlock (&gate->lock);
}

void
gpuprof_test_gate_end (GpuprofTestGate * gate)
{
  g_mutex_lock (&gate->lock);
  set (gate, &gate->release);
  g_mutex_unlock (&gate->lock);
  g_thread_join (gate->thread);
  g_mutex_clear (&gate->lock);
  g_cond_clear (&gate->cond);
}
