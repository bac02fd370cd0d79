/* Test elements whose cost is planted and whose truth is measured on their
 * own clocks, in the same run as the tracer measures them:
 *
 *   gpuprofwork     a filter; per buffer it sleeps or spins work-us, then
 *                   pushes; it records how long each call really took
 *   gpuprofworksrc  a source (GstBaseSrc); each create() sleeps or spins
 *                   work-us and is recorded the same way
 *
 * Tests compare the tracer's figures with these records, never with the
 * nominal work-us: g_usleep (500) takes 560-600 µs on a loaded machine.
 * Both are registered by gpuprof_test_register_elements () (the helpers in
 * gpuprof-test-util.c call it). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* What one element really did, read after the run. Wall times from
 * g_get_monotonic_time's clock (CLOCK_MONOTONIC), cpu from the calling
 * thread's CPU clock. For the source, "self" is create() and push is 0. */
typedef struct
{
  guint64 calls;
  guint64 self_ns;              /* in the element, without the push downstream */
  guint64 incl_ns;              /* the whole chain call, push included */
  guint64 push_ns;              /* inside gst_pad_push (): downstream's time */
  guint64 cpu_ns;               /* thread CPU time of the planted work */
  guint64 self_p50_ns;          /* median self time of one call */
  /* time the thread waited for a CPU (run delay, /proc schedstat; 0 where
   * the kernel does not say) in the whole calls and in the pushes */
  guint64 run_delay_ns;
  guint64 push_run_delay_ns;
} GpuprofTestTruth;

void gpuprof_test_register_elements (void);

/* The truth of the gpuprofwork/gpuprofworksrc element named @name in
 * @pipeline (fails the test when there is none). */
GpuprofTestTruth gpuprof_test_truth (GstElement * pipeline,
    const gchar * name);

/* When each of its gst_pad_push () calls returned (a gpuprofwork element;
 * monotonic ns, gpuprof_test_now_ns ()): the moment a buffer was in a
 * queue downstream, once the queue had room. Free with g_array_unref (). */
GArray *gpuprof_test_truth_push_ends (GstElement * pipeline,
    const gchar * name);

/* A test filter of one sink and one src pad, any caps: its class's pad
 * templates and metadata, and its pads (caps pass through) with @chain. */
void gpuprof_test_filter_class_init (GstElementClass * klass,
    const gchar * longname, const gchar * description);
void gpuprof_test_filter_add_pads (GstElement * element,
    GstPadChainFunction chain, GstPad ** sinkpad, GstPad ** srcpad);

/* Whether the kernel tells threads' run delay (run_delay_ns is 0 if not). */
gboolean gpuprof_test_run_delay_known (void);

/* CLOCK_MONOTONIC (the tracer's clock too), ns. */
guint64 gpuprof_test_now_ns (void);
/* Thread CPU time of the caller, ns. */
guint64 gpuprof_test_thread_cpu_ns (void);

G_END_DECLS
