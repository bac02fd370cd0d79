/* Helpers shared by the tests that run pipelines under the tracer: run a
 * pipeline to EOS, read its statistics back through the tracer's action
 * signals, and measure the truth in the same run (gpuprof-test-work.h,
 * pad probes) to compare them with. */
#pragma once

#include <gst/check/gstcheck.h>

#include "gpuprof-test-count.h"
#include "gpuprof-test-tracer.h"
#include "gpuprof-test-work.h"

G_BEGIN_DECLS

/* Runs the suite that @suite returns under GST_TRACERS=@tracers, set
 * before gst_check_init() so that the tracer is there from the start;
 * @file is the test's source (__FILE__). Returns main's exit status. */
gint gpuprof_test_main (gint * argc, gchar *** argv, const gchar * tracers,
    Suite * (*suite) (void), const gchar * name, const gchar * file);

/* GST_CHECK_MAIN with the tracer: main () runs @prefix_suite () as @name
 * under GST_TRACERS=@tracers. */
#define GPUPROF_TEST_MAIN(prefix, name, tracers)                      \
int                                                                   \
main (int argc, char **argv)                                          \
{                                                                     \
  return gpuprof_test_main (&argc, &argv, tracers, prefix##_suite,    \
      name, __FILE__);                                                \
}

GstTracer *gpuprof_test_tracer (void);
GstElement *gpuprof_test_parse (const gchar * description);
GstElement *gpuprof_test_run (const gchar * description);
/* Parses, and counts the buffers through the pads of @element into
 * @count (gpuprof-test-count.h). */
GstElement *gpuprof_test_parse_counting (const gchar * description,
    const gchar * element, GpuprofTestCount * count);
/* To NULL, and unref. */
void gpuprof_test_stop (GstElement * pipeline);
/* "pipelineN/name": each test's pipeline has its own number without fork */
gchar *gpuprof_test_path (GstElement * pipeline, const gchar * name);
/* Plays @pipeline until EOS or an error, at most @timeout: returns
 * GST_MESSAGE_EOS, GST_MESSAGE_ERROR (its text in @error when not %NULL,
 * to free) or 0 when neither came in time. Leaves the state as it is. */
GstMessageType gpuprof_test_play (GstElement * pipeline,
    GstClockTime timeout, gchar ** error);
/* Plays @pipeline to EOS (60 s at most); an error fails the test. */
void gpuprof_test_play_to_eos (GstElement * pipeline);
GstStructure *gpuprof_test_element_stats (const gchar * path);
/* of the element @name in @pipeline */
GstStructure *gpuprof_test_element_stats_of (GstElement * pipeline,
    const gchar * name);
GstStructure *gpuprof_test_queue_stats (const gchar * path);
/* of the element @name in @pipeline */
GstStructure *gpuprof_test_batch_stats (GstElement * pipeline,
    const gchar * name);
guint64 gpuprof_test_get_u64 (const GstStructure * s, const gchar * field);
gdouble gpuprof_test_get_double (const GstStructure * s, const gchar * field);
gchar *gpuprof_test_last_report (void);
/* The report of @pipeline while it runs ("get-report"). */
gchar *gpuprof_test_live_report (GstElement * pipeline);
/* @report for a failure message: printed whole on stderr, and its last
 * lines returned (the verdict). check's messages are short (8 KiB): a
 * longer one makes the test exit with the pipeline running, and
 * gst_deinit () then waits for its tasks until the test's timeout. */
const gchar *gpuprof_test_said (const gchar * report);
/* The cells of @thread's row in the Threads section of @report, split on
 * blanks: name, wall ms, work ms, occupied %, cpu ms, core wait ms, off cpu ms,
 * then top element, owner, kind
 * (an empty cell is not there: owner and kind are the last two). %NULL
 * when there is no such row. Free with g_strfreev (). */
gchar **gpuprof_test_thread_row (const gchar * report, const gchar * thread);
gboolean gpuprof_test_timing (void);
/* The H.264 clip GPUPROF_TEST_CLIP names, %NULL when it is not there (the
 * test that needs it skips). */
const gchar *gpuprof_test_clip (void);
void gpuprof_test_assert_near (const gchar * what, gdouble value,
    gdouble expected, gdouble tolerance);
/* A figure a fake scripted (fake NVML, fake CUPTI): exact, timing or not
 * (not gpuprof_test_assert_near, which only asks for a measurement where
 * timings are off) */
void gpuprof_test_assert_figure (const gchar * what, gdouble value,
    gdouble expected);
void gpuprof_test_assert_truth (const gchar * what, guint64 measured_ns,
    guint64 truth_ns, guint64 calls);
void gpuprof_test_assert_truth_with (const gchar * what, guint64 measured_ns,
    guint64 truth_ns, guint64 calls, guint64 extra_ns);
guint64 gpuprof_test_element_room (const gchar * path,
    const GpuprofTestTruth * up, const GpuprofTestTruth * x,
    const GpuprofTestTruth * child);
void gpuprof_test_assert_element_truth (const gchar * path,
    const GpuprofTestTruth * up, const GpuprofTestTruth * x,
    const GpuprofTestTruth * child);

/* Buffers crossing the "sink" and "src" pads of one element, counted by
 * pad probes (a buffer list counts its buffers), with the time each buffer
 * left. Owned by the pipeline; set up before PLAYING. */
typedef struct _GpuprofTestPadWatch GpuprofTestPadWatch;
GpuprofTestPadWatch *gpuprof_test_watch (GstElement * pipeline,
    const gchar * element);
guint64 gpuprof_test_watch_in (GpuprofTestPadWatch * w);
guint64 gpuprof_test_watch_out (GpuprofTestPadWatch * w);
/* Median residency in a non-leaky queue watched by @w, fed by the
 * gpuprofwork element @upstream: buffer n entered when upstream's push n
 * returned (a push into a full queue waits for room first) and left when
 * it crossed the queue's src pad. */
guint64 gpuprof_test_residency_p50 (GpuprofTestPadWatch * w,
    GstElement * pipeline, const gchar * upstream);

/* First and last data (buffers and events: stream-start to EOS) that
 * crossed one pad, monotonic ns: the span of the thread pushing there.
 * Owned by the pipeline; set up before PLAYING. */
typedef struct
{
  guint64 first_ns, last_ns;
} GpuprofTestSpan;
GpuprofTestSpan *gpuprof_test_watch_span (GstElement * pipeline,
    const gchar * element, const gchar * pad);

/* Blocks until @n more buffers entered the "sink" pad of @element. */
void gpuprof_test_wait_buffers (GstElement * bin, const gchar * element,
    guint n);

G_END_DECLS
