/* gpuprof: timeline events, produced by the hooks for the trace writer.
 *
 * Fixed-size records so a hook can fill one into a per-thread ring without
 * allocating. Names are not copied: elements and pads are referred to by their
 * stable ids (gpuprof-objects.h), which the writer resolves off the streaming
 * thread. Timestamps are the tracer's clock: ns since gst_init (the hook ts).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_EVENT_CHAIN = 1,      /* complete: a chain/chain-list/pull call */
  GPUPROF_EVENT_QUEUE_IN,       /* async begin: buffer entered a queue */
  GPUPROF_EVENT_QUEUE_OUT,      /* async end: buffer left a queue (or dropped) */
  GPUPROF_EVENT_QUEUE_LEVEL,    /* counter: queue level after in/out */
  GPUPROF_EVENT_MARK,           /* instant: EOS, flush, segment, state change */
  GPUPROF_EVENT_THREAD_NAME,    /* metadata: thread got its name */
  GPUPROF_EVENT_GPU_OP,         /* complete, GPU track: a settled kernel,
                                 * copy or memset, and its launch arrow */
  GPUPROF_EVENT_RATE,           /* counter: an element's buffers over a live
                                 * interval (interval=): self = buffers,
                                 * dur = the interval, ts = its end */
} GpuprofEventType;

typedef enum
{
  GPUPROF_MARK_EOS = 1,
  GPUPROF_MARK_FLUSH_START,
  GPUPROF_MARK_FLUSH_STOP,
  GPUPROF_MARK_SEGMENT,
  GPUPROF_MARK_STATE_CHANGE,    /* arg0 = GstStateChange */
  GPUPROF_MARK_QUEUE_DROP,      /* leaky drop, arg0 = buffer sequence */
} GpuprofMarkType;

typedef struct
{
  guint32 type;                 /* GpuprofEventType */
  guint32 element_id;           /* 0 = none */
  guint32 pad_id;               /* 0 = none */
  guint32 thread_id;            /* gpuprof thread id (gpuprof-thread.h), 1-based */
  guint64 ts;                   /* start, ns on the tracer clock */
  guint64 dur;                  /* CHAIN: inclusive duration */
  guint64 seq;                  /* buffer sequence on the pad / batch number */
  guint64 pts;                  /* GST_CLOCK_TIME_NONE when unknown */
  guint64 size;                 /* bytes; QUEUE_LEVEL: level in bytes */
  guint64 self;                 /* CHAIN: self time; QUEUE_LEVEL: level in buffers */
  guint64 flow;                 /* id that follows one buffer across queues, 0 = none */
  guint64 arg0;                 /* MARK: GpuprofMarkType; see above */
} GpuprofEvent;

/* GPUPROF_EVENT_GPU_OP reuses the fields (events stay 80 bytes):
 *   element_id  attributed element, 0 = unattributed
 *   pad_id      kernel name, from gpuprof_trace_intern_name(); 0 = none
 *   thread_id   the GPU track: GPUPROF_EVENT_GPU_TRACK_BASE + track number
 *   ts, dur     the op on the GPU, tracer clock
 *   seq         buffer/batch sequence of the attribution, G_MAXUINT64 = none
 *   pts         gpuprof_event_gpu_host (): launching gpuprof thread id
 *               (0 = not a gpuprof thread) and CUPTI correlation id
 *   size        bytes copied or set
 *   self        start of the launching API call, tracer clock, 0 = unknown
 *   flow        arrow id from that API call to the op, 0 = no arrow
 *   arg0        gpuprof_event_gpu_where (): device, stream, op kind, copy
 *               kind, attribution (the values of gpuprof-gpu.h)
 */
#define GPUPROF_EVENT_GPU_TRACK_BASE 1000000000u

/* GPUPROF_EVENT_QUEUE_IN and _OUT (one queue entry: a buffer or a list):
 *   element_id  the queue; seq, size: the entry's, the same in and out
 *   self        buffers in the entry (a list's length)
 *   flow        the residency id (gpuprof_queue_residency_id ()): pairs
 *               the begin, the end and the buffer's arrow
 *   pad_id      QUEUE_IN: the queue's sink pad
 * QUEUE_OUT only:
 *   arg0        gpuprof_event_queue_out (): how it left (GpuprofQueueOutcome)
 *               and the gpuprof thread that enqueued it
 *   dur         time since the enqueuing chain call started: a pushed
 *               entry's arrow starts there, on that thread
 */
static inline guint64
gpuprof_event_queue_out (guint outcome, guint32 in_thread)
{
  return (guint64) (outcome & 0xff) | ((guint64) in_thread << 32);
}

#define GPUPROF_EVENT_QUEUE_OUTCOME(ev) ((guint) ((ev)->arg0 & 0xff))
#define GPUPROF_EVENT_QUEUE_IN_THREAD(ev) ((guint32) ((ev)->arg0 >> 32))

static inline guint64
gpuprof_event_gpu_host (guint32 thread_id, guint32 correlation_id)
{
  return ((guint64) thread_id << 32) | correlation_id;
}

static inline guint64
gpuprof_event_gpu_where (guint32 device, guint32 stream, guint kind,
    guint copy_kind, guint by)
{
  return (guint64) stream | ((guint64) (device & 0xffff) << 32)
      | ((guint64) (copy_kind & 0xff) << 48) | ((guint64) (kind & 0xf) << 56)
      | ((guint64) (by & 0xf) << 60);
}

#define GPUPROF_EVENT_GPU_HOST_THREAD(ev) ((guint32) ((ev)->pts >> 32))
#define GPUPROF_EVENT_GPU_CORRELATION(ev) ((guint32) (ev)->pts)
#define GPUPROF_EVENT_GPU_STREAM(ev) ((guint32) (ev)->arg0)
#define GPUPROF_EVENT_GPU_DEVICE(ev) ((guint32) ((ev)->arg0 >> 32) & 0xffff)
#define GPUPROF_EVENT_GPU_COPY_KIND(ev) ((guint) ((ev)->arg0 >> 48) & 0xff)
#define GPUPROF_EVENT_GPU_KIND(ev) ((guint) ((ev)->arg0 >> 56) & 0xf)
#define GPUPROF_EVENT_GPU_BY(ev) ((guint) ((ev)->arg0 >> 60) & 0xf)

G_STATIC_ASSERT (sizeof (GpuprofEvent) == 80);

/* What every event has; the other fields zero, the PTS unknown. */
static inline void
gpuprof_event_init (GpuprofEvent * ev, GpuprofEventType type,
    guint32 element_id, guint32 pad_id, guint32 thread_id, guint64 ts)
{
  GpuprofEvent e = { type, element_id, pad_id, thread_id, ts };

  e.pts = G_MAXUINT64;
  *ev = e;
}

G_END_DECLS
