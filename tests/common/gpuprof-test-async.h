/* gpuprofasync: a test element shaped like DeepStream's nvinfer, whose
 * cost is planted and measured on its own clocks.
 *
 *   chain          queues the buffer and returns; it blocks while
 *                  max-in-flight buffers are queued, worked on or waiting
 *                  to be pushed
 *   worker thread  ("gpuprofasync-w") sleeps or spins work-us per buffer and
 *                  records the wall and thread CPU time of that work
 *   output thread  ("gpuprofasync-o") pushes the buffers, in order
 *
 * copy=true: the worker replaces each buffer with a copy (a new buffer
 * out, as a non-in-place element).
 *
 * Serialized events (segment, EOS, ...) travel the same queue, so they
 * leave after the buffers before them. Flushes drop what is queued.
 * Registered by gpuprof_test_register_elements (). */
#pragma once

#include "gpuprof-test-work.h"

G_BEGIN_DECLS

typedef struct
{
  /* self_ns: wall time of the planted work on the worker thread;
   * cpu_ns: the worker's thread CPU time of it; incl_ns: the worker's
   * whole time per buffer; push_ns: the output thread inside
   * gst_pad_push (); calls: buffers worked on */
  GpuprofTestTruth work;
  guint64 chained;              /* buffers that entered the chain */
  guint64 pushed;               /* buffers the output thread pushed */
  guint64 dropped;              /* dropped by a flush or stop, or refused */
  guint64 chain_waits;          /* chain calls that waited for room */
  guint64 chain_wait_ns;        /* time the chain spent waiting for room */
  guint max_in_flight_seen;     /* most buffers ever in flight at once */
  gboolean chain_waiting;       /* a chain is waiting for room right now */
  guint64 worker_cpu_ns;        /* the worker thread's CPU clock after its
                                 * last item: all it spent since it started */
  guint64 chain_cpu_ns;         /* thread CPU time inside the chain calls */
  guint64 output_cpu_ns;        /* the output thread's CPU time between the
                                 * end of a push and the start of the next */
  /* the threads that did the work and the pushes (pointers compared only) */
  gpointer worker_thread;
  gpointer output_thread;
} GpuprofTestAsyncTruth;

void gpuprof_test_register_async (void);

/* Called on the worker thread for each buffer after its planted work (a
 * GPU launch, in tests/gpu), @n counting the buffers of the run of the
 * worker from 1. Set before the pipeline starts; NULL to unset. */
typedef void (*GpuprofTestAsyncWorkHook) (GstElement * element, guint64 n,
    gpointer user_data);
void gpuprof_test_async_set_work_hook (GpuprofTestAsyncWorkHook hook,
    gpointer user_data);
/* The same on the output thread, before it pushes each buffer (a wait on
 * the GPU for the buffer's work, in tests/gpu), @n counting the buffers
 * it pushes from 1. */
void gpuprof_test_async_set_output_hook (GpuprofTestAsyncWorkHook hook,
    gpointer user_data);

/* The truth of the gpuprofasync element @element. */
GpuprofTestAsyncTruth gpuprof_test_async_truth_of (GstElement * element);
/* Same, by name in @pipeline (fails the test when there is none). */
GpuprofTestAsyncTruth gpuprof_test_async_truth (GstElement * pipeline,
    const gchar * name);
/* All the CPU time the element spent on its own threads, each read on
 * that thread's clock: its chain calls, its worker (the whole thread) and
 * its output thread between pushes. That is what the tracer counts as its
 * work (docs/tracer.md, "Asynchronous elements"); the planted work alone
 * (work.cpu_ns) is not: on a loaded machine the rest (locks, wake-ups, the
 * copy) grew to 10 % of a 2 ms spin. */
guint64 gpuprof_test_async_cpu_ns (const GpuprofTestAsyncTruth * truth);
/* The PTS of each buffer the output thread pushed, in push order. Free
 * with g_array_unref (). */
GArray *gpuprof_test_async_pushed_pts (GstElement * element);

G_END_DECLS
