/* The fake libcupti (tests/gpu/fake-cupti.c) seen from a test: where it is,
 * its exported test functions, and the CUPTI loader started on it. No
 * GstCheck: failures abort with a message, as g_assert() does. */
#pragma once

#include "gpuprof-cupti.h"

G_BEGIN_DECLS

/* fake_cupti_launch(): @kind 0 kernel, 1 copy, 2 memset, on the calling
 * thread, lasting @dur_ns on the GPU; returns the correlation id */
typedef guint32 (*GpuprofTestLaunch) (gint kind, const gchar * name,
    guint64 dur_ns, guint64 bytes);

/* fake_cupti_event_record(): an event record (cuEventRecord...) on the
 * calling thread, @domain 0 driver, 1 runtime, @cbid its id there */
typedef void (*GpuprofTestEventRecord) (gint domain, guint32 cbid);

/* FAKE_CUPTI_PATH, or %NULL where the build has no fake libcupti */
const gchar *gpuprof_test_fake_cupti_path (void);
/* Opens the fake libcupti (once) and returns its function @name; aborts
 * when the library or the function is missing. */
gpointer gpuprof_test_fake_cupti_symbol (const gchar * name);
/* gpuprof_test_fake_cupti_symbol ("fake_cupti_launch") */
GpuprofTestLaunch gpuprof_test_fake_cupti_launch (void);
/* gpuprof_test_fake_cupti_symbol ("fake_cupti_event_record") */
GpuprofTestEventRecord gpuprof_test_fake_cupti_event_record (void);
/* The fake's int (*) (int) function @name called with @arg
 * (fake_cupti_kind_enabled, fake_cupti_callbacks_enabled...). */
gint gpuprof_test_fake_cupti_int (const gchar * name, gint arg);

/* Sets GST_TRACERS (before gst_init()) to the gpuprof tracer on the fake
 * libcupti: cupti=on, cupti-lib=FAKE_CUPTI_PATH, report=off, then @params
 * ("name=value,...", or %NULL). Returns FALSE, setting nothing, where the
 * build has no fake libcupti. */
gboolean gpuprof_test_fake_cupti_tracers (const gchar * params);
/* The same with cupti-path=argv[1] ("callback" without it), for a test run
 * once per path; returns the path, or %NULL (a line printed: exit 77 to
 * skip) where the build has no fake libcupti. */
const gchar *gpuprof_test_fake_cupti_tracers_args (gint argc, gchar ** argv);

/* Forgets the GPU engine's records and starts the CUPTI loader on the fake
 * libcupti with cupti=on and @path, the tracer channel on. Returns FALSE
 * (nothing started) where the build has no fake libcupti. */
gboolean gpuprof_test_fake_cupti_start (GpuprofCuptiPath path);
/* Stops the loader (every channel off); the fake libcupti stays open. */
void gpuprof_test_fake_cupti_stop (void);

/* A launch pattern and what it adds up to on the tracer channel: kernel
 * "convert" (1000 ns) in a chain call of element 7 (buffer 3), nested in it
 * a 4096-byte copy (250 ns) in element 8's call (buffer 4), a 64-byte
 * memset (50 ns) back in 7's, then kernel "outside" (10 ns) after both
 * calls, charged to 7 by its thread. @in_calls_start and @in_calls_end
 * (nullable) get gpuprof_clock_monotonic_ns() around the chain calls. */
void gpuprof_test_fake_cupti_pattern (guint64 * in_calls_start,
    guint64 * in_calls_end);
/* Asserts the totals, elements and buffer costs of the pattern, flushed. */
void gpuprof_test_fake_cupti_check_pattern (void);

/* Plays @pipeline; asserts that EOS comes before any error. Leaves the
 * state as it is. */
void gpuprof_test_cupti_play_to_eos (GstElement * pipeline);
/* "fakesrc (@n small buffers) ! identity name=@tap signal-handoffs=true !
 * identity name=@next ! fakesink": a handoff on @tap to act in a chain
 * call, @next after it */
GstElement *gpuprof_test_cupti_handoff_pipeline (guint n, const gchar * tap,
    const gchar * next);

G_END_DECLS
