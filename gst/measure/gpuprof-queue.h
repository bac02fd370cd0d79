/* gpuprof: queue residency, levels, leaky drops and backpressure.
 *
 * A queue (queue, queue2, one pad pair of a multiqueue) keeps the buffers it
 * was given: enqueue at its sink chain, dequeue at its src push. The FIFO here
 * mirrors it so residency is exact per buffer. A queue that never leaks
 * pushes in the order it was given: each push takes the oldest entry. A
 * leaky queue drops some (the incoming buffer for leaky=upstream, the oldest
 * for leaky=downstream): a push is matched to its entry by the buffer's
 * fingerprint (pointer, PTS, DTS, offset, size) — the queue copies a buffer
 * to mark it DISCONT after a drop, and a dropped pooled buffer comes back
 * with the same pointer — and the entries before it were dropped. Flushes
 * empty it. A buffer list is one entry and counts as its buffers (level,
 * pushed, drops, flushed, left, residency), as the queue counts it. Upstream
 * and downstream threads both touch it: one small lock per queue, never a
 * global one.
 *
 * All queue logic is here: the hooks call gpuprof_queue_chain_pre/_post,
 * _push_pre, _take_back, _eos, _flush on a queue pad, and this module tells
 * NVTX and the trace how each entry entered and left (GpuprofQueueOutputs).
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-histogram.h"
#include "gpuprof-objects.h"
#include "gpuprof-bus.h"

G_BEGIN_DECLS

typedef struct
{
  gconstpointer key;            /* GstBuffer* or GstBufferList* */
  guint64 ts;                   /* residency counts from here */
  guint n_buffers;              /* 1, or the length of a list */
  guint32 in_thread;            /* enqueuing gpuprof thread, 0 = none */
  guint64 in_ts;                /* the enqueuing chain call's start */
  guint64 size;
  guint64 duration;
  guint64 nvtx_range;
  guint64 seq;
  guint64 level_buffers;        /* queue level (buffers) once this item
                                 * entered/left */
  guint64 level_bytes;
  /* fingerprint beside the pointer: a copy of the buffer keeps these */
  guint64 pts, dts, offset;
} GpuprofQueueItem;

struct _GpuprofQueue
{
  GMutex lock;
  GpuprofElement *element;
  guint index;                  /* multiqueue pad pair number, else 0 */
  guint32 uid;                  /* unique per FIFO in the process, from 1:
                                 * tells the trace's residency ids apart */

  /* guarded by lock */
  GpuprofQueueItem *items;      /* ring */
  guint cap, head, len;         /* len: entries (a list is one) */
  guint64 level_buffers;        /* buffers in the entries (a list is n) */
  guint64 pending;              /* buffers whose chain call is still running:
                                 * maybe blocked, not inside the queue yet */
  guint64 level_bytes;
  guint64 level_time;
  guint64 max_level_buffers;
  guint64 max_level_bytes;
  guint64 max_level_time;
  /* counted in buffers, a list as its length */
  guint64 dequeued;
  guint64 drops;
  guint64 flushed;
  guint64 left;                 /* never pushed: downstream had stopped, or
                                 * still inside when the run ended */
  GpuprofHistogram residency;

  /* atomics */
  guint64 backpressure_ns;
  GpuprofThread *upstream_thread;
  gint last_push;               /* GstFlowReturn of the src pad's last push:
                                 * what gst_pad_get_last_flow_return() says,
                                 * kept here so the EOS hook reads no pad
                                 * (that takes the pad's lock) */
};

/* how an entry left the mirror; the numbers are the trace's QUEUE_OUT arg0 */
typedef enum
{
  GPUPROF_QUEUE_PUSHED = 0,
  GPUPROF_QUEUE_DROPPED = 1,    /* leaky */
  GPUPROF_QUEUE_FLUSHED = 2,    /* flush, or the chain call failed */
  GPUPROF_QUEUE_LEFT = 3,       /* discarded unpushed: downstream stopped,
                                 * or the run ended with it inside */
} GpuprofQueueOutcome;

/* Where a queue's entries are told: an NVTX range per entry, the trace's
 * residencies and levels. The hooks fill it from their parameters. */
typedef struct
{
  GpuprofBus *bus;              /* NULL: no events */
  gboolean nvtx;
} GpuprofQueueOutputs;

/* A queue element's slot (GpuprofElement.queue): its FIFOs and how it
 * tells that it is full */
struct _GpuprofQueueElement
{
  GPtrArray *fifos;             /* GpuprofQueue*, one per pad pair; registry
                                 * lock */
  /* read when it settled (gpuprof_queue_element_settle()), before: none */
  gboolean has_overrun;         /* queue, multiqueue: "overrun" says when full */
  guint64 limit_buffers;        /* queue2: limits to tell "full" ourselves */
  guint64 limit_bytes;
  gint leaky;                   /* queue leaky=upstream|downstream (atomic) */
};

/* A queue element's first sight (registry lock held, maybe inside a hook
 * GStreamer runs holding a pad's lock): its slot, nothing read of it yet */
GPUPROF_API
GpuprofQueueElement *gpuprof_queue_element_new (GpuprofElement * e);
GPUPROF_API
void gpuprof_queue_element_free (GpuprofQueueElement * qe);
/* The element settled (its first state change, no lock held: see
 * gpuprof_objects_element_settle()): how it tells that it is full
 * ("overrun", else its limits, for queue2) and whether it leaks, read from
 * its properties */
void gpuprof_queue_element_settle (GpuprofElement * e);

/* The FIFO of a queue element's pad (registry lock held): a multiqueue
 * has one per pad pair (sink_N, src_N), queue and queue2 one. */
GPUPROF_API
GpuprofQueue *gpuprof_queue_for_pad (GpuprofElement * e,
    const gchar * pad_name);
void gpuprof_queue_free (GpuprofQueue * q);
/* "pipeline0/q" or "pipeline0/mq:1", from the element's path now */
gchar *gpuprof_queue_dup_path (const GpuprofQueue * q);

/* The hooks on a queue's pads. 'f' is the CHAIN frame of the call on the
 * sink pad (its key, seq, size, n_buffers and start set); 't' the calling
 * thread. */
GPUPROF_API
void gpuprof_queue_chain_pre (GpuprofQueue * q,
    const GpuprofQueueOutputs * out, GpuprofThread * t, GpuprofFrame * f,
    GstBuffer * buffer, GstBufferList * list);
/* 'blocked': time the call waited for room (0: none) */
GPUPROF_API
void gpuprof_queue_chain_post (GpuprofQueue * q,
    const GpuprofQueueOutputs * out, const GpuprofFrame * f,
    guint64 blocked, GstFlowReturn res, guint64 ts);
/* a push from the queue's src pad: the entry leaves */
GPUPROF_API
void gpuprof_queue_push_pre (GpuprofQueue * q,
    const GpuprofQueueOutputs * out, GstBuffer * buffer,
    GstBufferList * list, guint n_buffers, guint64 size, guint64 ts);
/* a push refused before downstream's chain (see gpuprof-hooks.c) */
GPUPROF_API
void gpuprof_queue_take_back (GpuprofQueue * q, guint n_buffers,
    gboolean flushing);
/* a push from the queue's src pad returned @res (push-post); a flush-stop
 * leaving it (@res GST_FLOW_OK) clears what downstream said, as on the pad */
void gpuprof_queue_pushed (GpuprofQueue * q, GstFlowReturn res);
/* the last push from the queue was refused: downstream stopped (EOS,
 * not-linked, an error, flushing) and the queue throws the rest away */
gboolean gpuprof_queue_downstream_stopped (GpuprofQueue * q);
/* EOS pushed from the queue's src pad */
GPUPROF_API
void gpuprof_queue_eos (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    gboolean downstream_stopped, guint64 ts);
/* flush-start reached the queue's sink pad */
GPUPROF_API
void gpuprof_queue_flush (GpuprofQueue * q, const GpuprofQueueOutputs * out,
    guint64 ts);
/* The element stopped (PAUSED to READY) or the tracer ends: what its
 * queues hold is left (nothing for an element that is no queue). */
GPUPROF_API
void gpuprof_queue_end_element (GpuprofElement * e,
    const GpuprofQueueOutputs * out, guint64 ts);

guint64 gpuprof_queue_residency_id (const GpuprofQueue * q, guint64 seq);

/* What the snapshot reads of a queue: one consistent copy, taken under the
 * queue's lock (the snapshot never touches the mirror itself). */
typedef struct
{
  guint64 dequeued, drops, flushed, left;
  guint64 residency_p50, residency_p99, residency_max, residency_mean;
  guint64 max_level_buffers, max_level_bytes, max_level_time;
  guint64 backpressure_ns;
  guint64 upstream_wall_ns;     /* wall time of the enqueuing thread */
  guint64 level_buffers;        /* queued now (blocked chain calls not) */
  guint64 level_bytes;
} GpuprofQueueFigures;

GPUPROF_API
void gpuprof_queue_figures (GpuprofQueue * q, GpuprofQueueFigures * f);
void gpuprof_queue_reset (GpuprofQueue * q);

G_END_DECLS
