/* gpuprof: per-thread state: the stack of active calls on a streaming thread.
 *
 * Each streaming thread owns one GpuprofThread (a TLS pointer); only that
 * thread writes its stack, so the hooks need no lock. Self time of a call is
 * its duration minus the time of the calls it made downstream (pushes,
 * events, queries, pulls), which the stack records as "child" time. What a
 * call carries for batches is in its frame too (batch_id, batch_frames).
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GpuprofElement GpuprofElement;
typedef struct _GpuprofPad GpuprofPad;
typedef struct _GpuprofThread GpuprofThread;
typedef struct _GpuprofRing GpuprofRing;

typedef enum
{
  GPUPROF_FRAME_CHAIN,          /* chain / chain-list on a sink pad */
  GPUPROF_FRAME_PULL,           /* getrange served by the upstream element */
  GPUPROF_FRAME_PUSH,           /* push / push-list on a src pad */
  GPUPROF_FRAME_CALL,           /* event push or query: time spent downstream */
} GpuprofFrameKind;

typedef struct
{
  GpuprofFrameKind kind;
  gboolean nvtx_open;           /* a range was pushed for it */
  GpuprofPad *pad;
  gconstpointer gstpad;         /* the GstPad, so the post hook needs no lookup */
  GpuprofElement *element;      /* charged element (CHAIN, PULL) */
  guint64 start;
  guint64 child_ns;             /* time in calls made from inside this one */
  guint64 blocked_start;        /* queues: when the upstream thread blocked */
  guint64 seq;
  guint64 pts;
  guint64 size;
  guint n_buffers;
  guint8 crossed;               /* PUSH: the data reached the peer's chain
                                 * function (only looked at on failure) */
  guint8 split;                 /* PUSH: a list GStreamer's default
                                 * chain-list splits into chain calls */
  guint8 refused;               /* CHAIN: the pad turned flushing or EOS
                                 * while the pre hook ran: its own check,
                                 * after the hook, refuses the data */
  gconstpointer key;            /* the buffer or list, for queues */
  guint64 batch_id;             /* CHAIN: batch it processes, 0 if none */
  guint64 batch_frames;         /* frames in that batch (gpuprof-batch.c) */
  guint split_calls;            /* PUSH: those of its chain calls that
                                 * passed the pad's checks */
  guint64 cpu_start;            /* CHAIN of an asynchronous element: the
                                 * thread CPU clock at entry, 0 = not read
                                 * (gpuprof-async.h). The frame is 128
                                 * bytes: the hooks index the stack several
                                 * times per buffer, a shift is cheaper than
                                 * a multiply (callgrind: ~9 instructions
                                 * per push) */
} GpuprofFrame;

G_STATIC_ASSERT (GLIB_SIZEOF_VOID_P != 8 || sizeof (GpuprofFrame) == 128);

/* Frames held inline: a chain of 32 elements in one thread. Deeper chains
 * move the stack to the heap once (_gpuprof_thread_grow). */
#define GPUPROF_INLINE_DEPTH 64
/* beyond this, calls are not timed (said once); GStreamer's own stack
 * would have overflowed long before */
#define GPUPROF_MAX_DEPTH 16384
/* per-thread pad cache: 2^GPUPROF_PAD_CACHE_BITS slots */
#define GPUPROF_PAD_CACHE_BITS 8
#define GPUPROF_PAD_CACHE (1 << GPUPROF_PAD_CACHE_BITS)
/* call windows open at once on one thread (nested calls) */
#define GPUPROF_THREAD_WINDOWS 8

typedef struct
{
  gconstpointer key;
  GpuprofPad *pad;
} GpuprofPadCacheEntry;

struct _GpuprofThread
{
  guint32 id;                   /* 1-based, never reused */
  gint tid;                     /* OS thread id */
  gchar name[64];               /* task name "q:src", else the OS name */
  gboolean named_by_task;
  guint32 pipeline_id;          /* pipeline of the last element it ran */

  /* written by the owning thread only, read by reports: relaxed atomics */
  guint64 first_ts;             /* 0 = not active in this run */
  guint64 last_ts;
  guint64 busy_ns;

  /* what it does now, for the stall watchdog on another thread: the kind
   * and element (gpuprof_thread_set_doing), since when */
  guint64 doing;
  guint64 doing_since;

  /* source loops: time between top-level pushes */
  guint64 loop_mark;
  guint64 loop_child_ns;
  guint64 loop_cpu_mark;        /* thread CPU clock at loop_mark, 0 = none */
  gboolean loop_long;           /* its last loop was long enough to wait in:
                                 * the next one reads the CPU clock */

  /* a pull into a bin, waiting for its ghost pad to forward it
   * (gpuprof-hooks.c, pull_pre) */
  GpuprofPad *pull_waiting;
  guint64 pull_waiting_ts;

  guint depth;
  guint capacity;               /* frames available at frames */
  GpuprofFrame *frames;         /* inline_frames, or a heap copy when deeper */
  GpuprofFrame inline_frames[GPUPROF_INLINE_DEPTH];

  gint cache_generation;
  GpuprofPadCacheEntry cache[GPUPROF_PAD_CACHE];

  GpuprofRing *ring;            /* its ring on the event bus (gpuprof-bus.h),
                                 * NULL when no one listens */
  gboolean announced;           /* name given to NVTX, trace, CUPTI */
  gboolean loop_owner_set;      /* gpuprof-owners.h told who pushes here */

  /* call windows open on this thread (gpuprof-owners.h): the frame index of
   * each, innermost last; a loop's window, and how many loops may still
   * open one */
  guint n_windows;
  guint window_frames[GPUPROF_THREAD_WINDOWS];
  gboolean loop_window;
  gint loop_windows_left;
  /* chain calls read on the CPU clock opened on this thread and not ended
   * (a hint for push-pre: above 0 after one was discarded, never 0 while
   * one is open) */
  guint cpu_calls;

  /* the hooks' own CPU time in the sampled pushes of this run, and their
   * number (gpuprof-overhead.h) */
  guint64 ovh_ns;
  guint64 ovh_samples;
};

/* inline: asked for several times per buffer */
GPUPROF_API __thread GpuprofThread *_gpuprof_current_thread
    __attribute__ ((tls_model ("initial-exec")));
GPUPROF_API
GpuprofThread *_gpuprof_thread_new_current (void);
void _gpuprof_thread_first_touch (GpuprofThread * t, guint64 ts);

static inline GpuprofThread *
gpuprof_thread_peek (void)
{
  return _gpuprof_current_thread;
}

static inline GpuprofThread *
gpuprof_thread_get (void)
{
  GpuprofThread *t = _gpuprof_current_thread;

  return G_LIKELY (t) ? t : _gpuprof_thread_new_current ();
}

/* first and last activity of the thread in this run */
static inline void
gpuprof_thread_touch (GpuprofThread * t, guint64 ts)
{
  if (G_UNLIKELY (__atomic_load_n (&t->first_ts, __ATOMIC_RELAXED) == 0))
    _gpuprof_thread_first_touch (t, ts);
  __atomic_store_n (&t->last_ts, ts, __ATOMIC_RELAXED);
}
void gpuprof_thread_add_busy (GpuprofThread * t, guint64 ns);

/* What a streaming thread does now, published by its hooks for the stall
 * watchdog (docs/live.md): two relaxed stores where the hooks already
 * touch the frame, no lock. */
typedef enum
{
  GPUPROF_DOING_NOTHING,        /* not seen, or outside any element */
  GPUPROF_DOING_CHAIN,          /* inside the element's chain (getrange, its
                                 * push): a queue's means blocked on full */
  GPUPROF_DOING_LOOP,           /* its task loop between pushes: producing,
                                 * or waiting for input or on the clock */
} GpuprofDoingKind;

static inline void
gpuprof_thread_set_doing (GpuprofThread * t, GpuprofDoingKind kind,
    guint32 element_id, guint64 since)
{
  __atomic_store_n (&t->doing_since, since, __ATOMIC_RELAXED);
  __atomic_store_n (&t->doing, (guint64) kind << 32 | element_id,
      __ATOMIC_RELEASE);
}

/* read from another thread: FALSE when the word changed while read */
gboolean gpuprof_thread_read_doing (GpuprofThread * t,
    GpuprofDoingKind * kind, guint32 * element_id, guint64 * since);
/* CPU time of the calling thread, ns (0 if the clock cannot be read): read
 * only where waits can be (source loops), never per chain call */
guint64 gpuprof_thread_cpu_now (void);
GPUPROF_API
void gpuprof_thread_set_name (GpuprofThread * t, const gchar * name,
    gboolean from_task);
GPtrArray *gpuprof_thread_list (void);  /* snapshot of all threads, free with g_ptr_array_unref */
void gpuprof_thread_reset_run (GpuprofThread * t);

GpuprofFrame *_gpuprof_thread_grow (GpuprofThread * t);

/* A frame pointer is valid until the next push on the same thread (the
 * stack may move to a larger block). */
static inline GpuprofFrame *
gpuprof_thread_push_frame (GpuprofThread * t)
{
  if (G_UNLIKELY (t->depth >= t->capacity))
    return _gpuprof_thread_grow (t);
  return &t->frames[t->depth++];
}

static inline GpuprofFrame *
gpuprof_thread_top (GpuprofThread * t)
{
  GpuprofFrame *f;

  if (!t->depth)
    return NULL;
  f = &t->frames[t->depth - 1];
  /* frames is never NULL: spares the callers' test of the result */
  if (f == NULL)
    __builtin_unreachable ();
  return f;
}

G_END_DECLS

G_BEGIN_DECLS
gchar *gpuprof_thread_dup_name (GpuprofThread * t);
/* the name of the thread whose id is @id, NULL when none has it */
GPUPROF_API
gchar *gpuprof_thread_dup_name_of (guint32 id);
G_END_DECLS
