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

G_END_DECLS
