/* gpuprof: per-element statistics, updated by the hooks.
 *
 * Lock-free: counters are relaxed atomics, since an element can be called from
 * several threads at once (aggregators, tees). Memory is fixed per element.
 */
#pragma once

#include "gpuprof-histogram.h"
#include "gpuprof-objects.h"

G_BEGIN_DECLS

/* Self time is split by thread so the busy fraction of "its" thread can be
 * told; elements rarely run on more than a few threads. */
#define GPUPROF_THREAD_SLOTS 8

typedef struct
{
  GpuprofThread *thread;        /* claimed once by CAS, never changed */
  guint64 self_ns;
  guint64 cpu_self_ns;          /* the part of self_ns read on the thread's
                                 * CPU clock (loops, asynchronous chains):
                                 * on CPU for sure (gpuprof-cpu-sampler.h) */
  guint64 first_ns;             /* the part of self_ns that is start-up
                                 * (first_ns below): not the steady state */
  guint64 event_ns;             /* wall time handling events here (not self
                                 * time: an encoder draining at EOS), the
                                 * CPU sampler's share of the thread */
} GpuprofThreadSlot;

/* every element's slot (GpuprofElement.stats) */
struct _GpuprofElementStats
{
  guint64 buffers_in;           /* pulled in (pull mode); pushed buffers are
                                 * counted by the pads' sequence numbers */
  guint64 incl_ns;
  guint64 blocked_ns;           /* upstream threads waiting inside it: a full
                                 * queue, a batching element's input */
  guint64 wait_input_ns;        /* its loop off the CPU between pushes:
                                 * waiting for data (appsrc, socket, clock) */
  guint64 clock_wait_ns;        /* an element that syncs (sync=true): its
                                 * calls off the CPU, waiting on the clock */
  GpuprofHistogram self_hist;   /* per call self time; its count and sum are
                                 * the calls and the total self time */
  GpuprofThreadSlot slots[GPUPROF_THREAD_SLOTS];
  guint64 other_threads_ns;     /* self time on threads past the slots */
  guint64 last_input_ts;        /* newest buffer on any sink pad, for an
                                 * element that pushes from its own task */
  gint window_calls;            /* calls and events that opened a call
                                 * window (gpuprof-owners.h; atomic) */
  /* start-up (issue 23): its first call — a decoder's or an engine's
   * creation — and, with a measurement window, every call before it
   * opened; in its self time and its thread slots' (marked there as
   * first_ns), not in the histogram (percentiles), the steady state
   * (gpuprof_stats_steady) nor the verdict */
  gint first_done;              /* the first call was taken (atomic) */
  guint64 first_ns;             /* their self time */
  guint64 first_calls;
  guint64 first_incl_ns;        /* the first call's wall time, on ... */
  GpuprofThread *first_thread;  /* ... this thread */
};

/* The measurement window (window=, process-wide like CUDA's profiler):
 * before it opens every call is start-up, after it closes none is
 * measured. OPEN when there is no window. */
typedef enum
{
  GPUPROF_STATS_WINDOW_OPEN = 0,
  GPUPROF_STATS_WINDOW_BEFORE,
  GPUPROF_STATS_WINDOW_CLOSED,
} GpuprofStatsWindow;

/* @ts: when it opened (OPEN) or closed (CLOSED), tracer clock */
void gpuprof_stats_set_window (GpuprofStatsWindow phase, guint64 ts);
GpuprofStatsWindow gpuprof_stats_get_window (void);
/* when the window opened and closed (0: not yet, or no window) */
void gpuprof_stats_window_edges (guint64 * open_ts, guint64 * close_ts);
/* @first..@last of a thread clamped to the window */
void gpuprof_stats_window_clamp (guint64 * first, guint64 * last);

GpuprofElementStats *gpuprof_stats_new (void);
void gpuprof_stats_free (GpuprofElementStats * s);
void gpuprof_stats_reset (GpuprofElementStats * s);

/* every call, start-up included */
static inline guint64
gpuprof_stats_calls (const GpuprofElementStats * s)
{
  return __atomic_load_n (&s->self_hist.count, __ATOMIC_RELAXED) +
      __atomic_load_n (&s->first_calls, __ATOMIC_RELAXED);
}

static inline guint64
gpuprof_stats_self_ns (const GpuprofElementStats * s)
{
  return __atomic_load_n (&s->self_hist.sum, __ATOMIC_RELAXED) +
      __atomic_load_n (&s->first_ns, __ATOMIC_RELAXED);
}
/* @gpu_wait_ns: the part of @self_ns the call waited on the GPU
 * (gpuprof_gpu_chain_exit()): the rows take every wait out of the thread's
 * self time, so a start-up call's is not marked as start-up too */
void gpuprof_stats_add_call (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 self_ns, guint64 incl_ns, guint64 gpu_wait_ns);
/* The same for a call whose self time was read on the thread's CPU clock
 * (a loop, an asynchronous element's chain) */
void gpuprof_stats_add_cpu_call (GpuprofElementStats * s,
    GpuprofThread * thread, guint64 self_ns, guint64 incl_ns);
/* Work that is no call of its own (an asynchronous element's output
 * loop): in the self time and the thread's, not in the calls */
/* @ns of wall time handling an event on @thread (its own, less the calls
 * it made): in no figure of the element's but its slot's event_ns */
void gpuprof_stats_add_event (GpuprofElementStats * s,
    GpuprofThread * thread, guint64 ns);
void gpuprof_stats_add_work (GpuprofElementStats * s, GpuprofThread * thread,
    guint64 ns);
void gpuprof_stats_add_buffers_in (GpuprofElementStats * s, guint64 n);
/* the slot of its thread with the most steady-state self time */
const GpuprofThreadSlot *gpuprof_stats_main_slot (const GpuprofElementStats *
    s);
/* The steady state of @slot's thread: its self time there and the
 * thread's wall @wall (first to last call), start-up taken out of both:
 * the start-up's self time on that thread, and the wall time of the first
 * call when it ran there outside a window (inside one the wall starts at
 * its opening already). The rows' thread_self_ns/thread_wall_ns. */
void gpuprof_stats_steady (const GpuprofElementStats * s,
    const GpuprofThreadSlot * slot, guint64 * self, guint64 * wall);
/* the wall time start-up takes off thread @tid's (as above): for the CPU
 * sampler, which knows threads by id */
guint64 gpuprof_stats_startup_wall (const GpuprofElementStats * s, gint tid);
/* calls or pulls not reported yet */
gboolean gpuprof_stats_pending (const GpuprofElementStats * s);

G_END_DECLS
