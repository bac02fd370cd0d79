/* A test thread that spins on a CPU and never blocks, optionally pinned to
 * one CPU (so two of them on one core wait for it, deterministically), with
 * its own CPU clock for the truth: CLOCK_THREAD_CPUTIME_ID of that thread
 * (pthread_getcpuclockid), read by any thread. It can run a function of
 * the test's between two turns of its loop: what it reads then of itself
 * is read while it runs. Needs only GLib. */
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
/* Runs @func (@data) on the spinning thread, between two turns of its
 * loop — so while it is on a CPU — and returns when it did */
void gpuprof_test_spinner_call (GpuprofTestSpinner * s, GFunc func,
    gpointer data);
/* Stops and joins it. */
void gpuprof_test_spinner_stop (GpuprofTestSpinner * s);

/* The first CPU in the calling thread's affinity mask */
gint gpuprof_test_first_cpu (void);
/* CLOCK_MONOTONIC, ns */
guint64 gpuprof_test_monotonic_ns (void);

G_END_DECLS
