/* A test thread that spins on a CPU and never blocks, optionally pinned to
 * one CPU (so two of them on one core wait for it, deterministically), with
 * its own CPU clock for the truth: CLOCK_THREAD_CPUTIME_ID of that thread
 * (pthread_getcpuclockid), read by any thread. Needs only GLib. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GpuprofTestSpinner GpuprofTestSpinner;

/* Starts thread @name (its OS name too) pinned to @cpu (-1: not pinned);
 * returns once it is pinned and spinning. */
GpuprofTestSpinner *gpuprof_test_spinner_start (const gchar * name, gint cpu);
/* gettid() of the thread */
gint gpuprof_test_spinner_tid (GpuprofTestSpinner * s);
/* its CPU time so far, ns (its own clock) */
guint64 gpuprof_test_spinner_cpu_ns (GpuprofTestSpinner * s);
/* Stops and joins it. */
void gpuprof_test_spinner_stop (GpuprofTestSpinner * s);

/* The first CPU in the calling thread's affinity mask */
gint gpuprof_test_first_cpu (void);
/* CLOCK_MONOTONIC, ns */
guint64 gpuprof_test_monotonic_ns (void);

G_END_DECLS
