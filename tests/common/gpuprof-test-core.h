/* Helpers of the tests that drive the core library without a pipeline
 * (GLib tests): the names the trace writer asks for (GpuprofTraceNames) as
 * one table instead of a set of callbacks in each test, and a temporary
 * folder for the files they write. */
#pragma once

#include "gpuprof-trace.h"

G_BEGIN_DECLS

/* Pad ids of the made-up pipeline: pad GPUPROF_TEST_PAD_BASE + i is the
 * sink pad of element i. */
#define GPUPROF_TEST_PAD_BASE 10

/* Names of a pipeline "pipeline0" whose element id i is @elements[i - 1]
 * (a %NULL-terminated table, kept by the caller), pad id
 * GPUPROF_TEST_PAD_BASE + i is "<element's own name>:sink", thread 1
 * "src:src", thread 2 "q:src" and any other thread "main". */
GpuprofTraceNames gpuprof_test_trace_names (const gchar * const *elements);

/* A trace writer on an event bus of its own (gpuprof-bus.h), as the
 * session makes one: gpuprof_trace_new() on a new bus (freed again when
 * the trace cannot open). */
GpuprofTrace *gpuprof_test_trace_new (const gchar * path,
    const GpuprofTraceNames * names, guint64 max_bytes, GRegex * filter,
    GError ** err);
/* the ring of producer @id (a gpuprof thread id) on @trace's bus */
GpuprofRing *gpuprof_test_trace_ring (GpuprofTrace * trace, guint32 id);
/* frees @trace, then its bus */
void gpuprof_test_trace_free (GpuprofTrace * trace);

/* Runs the trace checker CHECK_TRACE names (tests/trace/check-trace.sh)
 * with @opts (%NULL-terminated, or %NULL) on the trace at @path; its
 * output goes to the test log, and to stderr when it fails. Returns its
 * exit status, -1 when it did not exit. */
gint gpuprof_test_check_trace (const gchar * path, const gchar * const *opts);

/* The start of a GLib test program: gst_init(), g_test_init() and, with
 * @tmpl, a new temporary folder (returned; %NULL without @tmpl). */
gchar *gpuprof_test_core_init (gint * argc, gchar *** argv,
    const gchar * tmpl);

/* Messages g_printerr() printed since gpuprof_test_count_printerr() (each
 * goes to the test log instead of stderr); a test sets it to 0 before what
 * it checks. */
extern guint gpuprof_test_printerr_count;
void gpuprof_test_count_printerr (void);

/* A new temporary folder (g_dir_make_tmp() with @tmpl); aborts on failure. */
gchar *gpuprof_test_tmpdir_new (const gchar * tmpl);
/* Ends the run: removes @tmpdir with what is in it when @status is 0 (a
 * failed run, or any with GPUPROF_KEEP_TMP set, keeps its files to look
 * at), frees it and returns @status, or 1 when the folder could not be
 * removed. */
gint gpuprof_test_tmpdir_done (gchar * tmpdir, gint status);

G_END_DECLS
