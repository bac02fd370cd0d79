/* gpuprof: GPU attribution, the hot path (gpuprof-gpu-hotpath.h) and the
 * threads' slots the rest reads (gpuprof-gpu-threads.h).
 *
 * Runs on streaming threads around chain calls: pushes/pops the external
 * correlation id through the backend and keeps, per thread, the stack of
 * elements in a chain call and the "last active element" the record side
 * falls back on when a record has no external id.
 *
 * Per-thread state: one slot per OS thread in a global table keyed by tid,
 * not in the tracer's GpuprofThread, because
 *  - gpuprofmeter uses it without the tracer;
 *  - the record side (the CUPTI thread) reads a slot by the tid of an API
 *    record, i.e. another thread's state: TLS cannot be reached that way.
 * The thread itself finds its slot through one TLS struct (GpuThread).
 * No lock: a slot is claimed once with a CAS; the fields the record side
 * reads are atomics.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-hotpath.h"
#include "gpuprof-gpu-threads.h"
#include "gpuprof-gpu-engine.h"

#include <stdio.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>

#define N_THREAD_SLOTS 4096     /* power of two */
#define STACK_DEPTH 16

typedef struct
{
  volatile gint tid;            /* 0 = free; claimed once with a CAS */
  volatile gint last[GPUPROF_GPU_N_CHANNELS];   /* read by the record side */
  volatile gint owner[GPUPROF_GPU_N_CHANNELS];
  const gchar *volatile name;   /* interned */
  /* written by the owning thread only */
  gint depth[GPUPROF_GPU_N_CHANNELS];
  guint32 stack[GPUPROF_GPU_N_CHANNELS][STACK_DEPTH];
  guint64 stack_seq[GPUPROF_GPU_N_CHANNELS][STACK_DEPTH];  /* callback path */
  guint64 stack_wait[GPUPROF_GPU_N_CHANNELS][STACK_DEPTH];  /* GPU waits */
} ThreadSlot;

/* all the GPU state a thread keeps for itself */
typedef struct
{
  ThreadSlot *slot;             /* NULL until first use (or table full) */
  guint32 tid;                  /* as CUPTI reports it, 0 until first use */
  /* outside calls on an owned thread (tracer channel): the owner's batch
   * its launches go to, and whether that batch was closed since (a wait
   * on the GPU or an event record) */
  guint64 owner_batch;          /* 0: none */
  gboolean closed, ever_closed;
} GpuThread;

static ThreadSlot thread_slots[N_THREAD_SLOTS];
static __thread GpuThread me;
static gboolean use_pthread_ids;

volatile gint _gpuprof_gpu_channels_on;
static gint channels_wanted;    /* enabled by their users */
static const GpuprofGpuBackend *volatile backend;

/**
 * gpuprof_gpu_use_pthread_ids:
 * @use: key threads by (guint32) pthread_self() instead of gettid()
 *
 * For a CUPTI that cannot report system thread ids; call before any chain call.
 */
void
gpuprof_gpu_use_pthread_ids (gboolean use)
{
  use_pthread_ids = use;
}

/**
 * gpuprof_gpu_current_thread_id:
 *
 * Returns: the calling thread's id as CUPTI reports it in API records
 * (CUpti_ActivityAPI.threadId with CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM:
 * gettid()).
 */
static inline guint32
thread_id_of (GpuThread * t)
{
  if (G_UNLIKELY (t->tid == 0)) {
    if (use_pthread_ids)
      t->tid = (guint32) (guintptr) pthread_self ();
    else
      t->tid = (guint32) syscall (SYS_gettid);
  }
  return t->tid;
}

guint32
gpuprof_gpu_current_thread_id (void)
{
  return thread_id_of (&me);
}

static inline guint
tid_hash (guint32 tid)
{
  return (tid * 2654435761u) & (N_THREAD_SLOTS - 1);
}

static ThreadSlot *
find_slot (guint32 tid)
{
  guint h = tid_hash (tid), i;

  for (i = 0; i < N_THREAD_SLOTS; i++) {
    ThreadSlot *s = &thread_slots[(h + i) & (N_THREAD_SLOTS - 1)];
    gint t = g_atomic_int_get (&s->tid);
    if (t == (gint) tid)
      return s;
    if (t == 0)
      return NULL;
  }
  return NULL;
}

/* First sight of a thread: claim a slot (a recycled tid takes its old slot). */
static ThreadSlot *
claim_slot_for (guint32 tid)
{
  guint h = tid_hash (tid), i, c;

  for (i = 0; i < N_THREAD_SLOTS; i++) {
    ThreadSlot *s = &thread_slots[(h + i) & (N_THREAD_SLOTS - 1)];
    if (g_atomic_int_get (&s->tid) == (gint) tid
        || g_atomic_int_compare_and_exchange (&s->tid, 0, (gint) tid)) {
      /* an owner told before the thread's first launch
       * (gpuprof_gpu_set_thread_owner()) stays; a recycled tid keeps its
       * predecessor's owner too, until told otherwise */
      for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
        s->depth[c] = 0;
        g_atomic_int_set (&s->last[c], g_atomic_int_get (&s->owner[c]));
      }
      s->name = NULL;
      return s;
    }
  }
  return NULL;                  /* table full: this thread gets no fallback */
}

static ThreadSlot *
claim_slot (void)
{
  return claim_slot_for (gpuprof_gpu_current_thread_id ());
}

static inline ThreadSlot *
get_slot (void)
{
  if (G_UNLIKELY (me.slot == NULL))
    me.slot = claim_slot ();
  return me.slot;
}

void
_gpuprof_gpu_enter (GpuprofGpuChannel channel, guint32 element_id,
    guint64 seq)
{
  const GpuprofGpuBackend *b = backend;
  ThreadSlot *s = get_slot ();

  if (b && b->push)
    b->push (channel, gpuprof_gpu_encode_id (element_id, seq));
  if (s) {
    gint d = s->depth[channel];
    if (d < STACK_DEPTH) {
      s->stack[channel][d] = element_id;
      s->stack_seq[channel][d] = seq;
      s->stack_wait[channel][d] = 0;
    }
    s->depth[channel] = d + 1;
    if (element_id)
      g_atomic_int_set (&s->last[channel], (gint) element_id);
  }
}

guint64
_gpuprof_gpu_exit (GpuprofGpuChannel channel)
{
  const GpuprofGpuBackend *b = backend;
  ThreadSlot *s = get_slot ();
  gint d;
  guint32 popped, now;
  guint64 waited;

  if (b && b->pop)
    b->pop (channel);
  if (!s || s->depth[channel] <= 0)
    return 0;                   /* enabled in the middle of a call */
  d = --s->depth[channel];
  waited = d < STACK_DEPTH ? s->stack_wait[channel][d] : 0;
  popped = d < STACK_DEPTH ? s->stack[channel][d] :
      (guint32) g_atomic_int_get (&s->last[channel]);
  if (d > 0)
    now = s->stack[channel][MIN (d, STACK_DEPTH) - 1];
  else if (g_atomic_int_get (&s->owner[channel]))
    now = g_atomic_int_get (&s->owner[channel]);
  else
    now = popped;               /* stays the last active element */
  /* 0: a frame without an element (a ghost pad's query) changes nothing */
  if (now)
    g_atomic_int_set (&s->last[channel], (gint) now);
  return waited;
}

/* the innermost call with an element on this thread waited @ns on the GPU
 * (gpuprof-gpu-wait.c, at a synchronizing call's exit) */
void
gpuprof_gpu_frame_add_wait (GpuprofGpuChannel channel, guint64 ns)
{
  ThreadSlot *s = me.slot;
  gint d;

  if (!s)
    return;
  for (d = MIN (s->depth[channel], STACK_DEPTH); d > 0; d--) {
    if (s->stack[channel][d - 1]) {
      s->stack_wait[channel][d - 1] += ns;
      return;
    }
  }
}

/**
 * gpuprof_gpu_set_thread_name:
 * @name: name for the calling thread ("q:src")
 *
 * Used in "unattributed (thread <name>)" rows. Copied (interned).
 */
void
gpuprof_gpu_set_thread_name (const gchar * name)
{
  ThreadSlot *s = get_slot ();

  if (s)
    s->name = g_intern_string (name);
}

/**
 * gpuprof_gpu_set_thread_element:
 * @channel: channel of @element_id
 * @element_id: the element whose task runs on this thread, 0 for none
 *
 * Work launched on this thread outside any chain call (a source's or an
 * aggregator's loop) is attributed to it rather than to the last element
 * whose chain call returned.
 */
void
gpuprof_gpu_set_thread_element (GpuprofGpuChannel channel, guint32 element_id)
{
  ThreadSlot *s = get_slot ();

  if (!s)
    return;
  g_atomic_int_set (&s->owner[channel], (gint) element_id);
  if (s->depth[channel] == 0 && element_id)
    g_atomic_int_set (&s->last[channel], (gint) element_id);
}

/**
 * gpuprof_gpu_set_thread_owner:
 * @tid: OS thread id (gpuprof_gpu_current_thread_id() on that thread)
 * @element_id: the tracer's id of the element owning the thread, 0 for none
 *
 * Callable from any thread: GPU work launched on @tid outside any chain call
 * (an element's private thread) goes to @element_id. No lock, no allocation
 * (a thread not seen before claims a slot of the fixed table).
 */
void
gpuprof_gpu_set_thread_owner (guint32 tid, guint32 element_id)
{
  ThreadSlot *s = find_slot (tid);
  gint c = GPUPROF_GPU_CHANNEL_TRACER;

  if (!s && tid)
    s = claim_slot_for (tid);
  if (!s)
    return;
  g_atomic_int_set (&s->owner[c], (gint) element_id);
  /* depth is the owning thread's: read racily, a private thread is rarely
   * inside a chain call, and its next exit restores the owner anyway */
  if (s->depth[c] == 0 && element_id)
    g_atomic_int_set (&s->last[c], (gint) element_id);
}

static GpuprofGpuOwnerBatchFunc owner_batch_func;
static gpointer owner_batch_data;

/**
 * gpuprof_gpu_set_owner_batch_func:
 * @func: (nullable): returns the oldest batch in flight in an element (0:
 *   none), O(1) and lock-free: it runs on launching threads
 * @user_data: passed to @func
 *
 * Work launched on a thread owned by an element (gpuprof_gpu_set_thread_owner(),
 * gpuprof_gpu_set_thread_element()) outside any chain call goes to the
 * owner's oldest batch in flight at launch (callback path) or when the
 * record is settled (activity path), tracer channel only. Set it before
 * streaming starts.
 */
void
gpuprof_gpu_set_owner_batch_func (GpuprofGpuOwnerBatchFunc func,
    gpointer user_data)
{
  owner_batch_data = user_data;
  g_atomic_pointer_set (&owner_batch_func, func);
}

/* The owner's oldest batch in flight above @after as a sequence:
 * GPUPROF_GPU_SEQ_NONE when none */
guint64
gpuprof_gpu_thread_owner_batch (GpuprofGpuChannel channel, guint32 owner,
    guint64 after)
{
  GpuprofGpuOwnerBatchFunc f = g_atomic_pointer_get (&owner_batch_func);
  guint64 batch;

  if (!f || !owner || channel != GPUPROF_GPU_CHANNEL_TRACER)
    return GPUPROF_GPU_SEQ_NONE;
  batch = f (owner, after, owner_batch_data);
  return batch ? batch : GPUPROF_GPU_SEQ_NONE;
}

/**
 * gpuprof_gpu_close_batch:
 *
 * On a thread that finished a host wait on the GPU (gpuprof-gpu-wait.c) or
 * recorded a CUDA event (cuEventRecord, cudaEventRecord and their
 * variants: gpuprof-cupti.c): the batch its launches outside calls went to
 * is closed, its next launch goes to its owner's next batch in flight. An
 * input thread that never waits (nvinfer's: the output thread waits on the
 * batch's event) records one event per batch, after the batch's last
 * launch. O(1), no lock.
 */
void
gpuprof_gpu_close_batch (void)
{
  me.closed = me.ever_closed = TRUE;
}

/* A launch on a thread its owner made, outside calls. The oldest batch in
 * flight is right for a thread that finishes a batch before it takes the
 * next; an input thread that already launches batch N while N-1 waits to
 * be pushed would charge N's work to N-1. So a thread seen closing a batch
 * (a wait on the GPU, or an event record: it launched the batch's last
 * work) keeps the batch of its first launch until it closes it, then moves
 * to the oldest batch above it (the element takes batches in order). */
static guint64
owner_launch_batch (GpuThread * t, GpuprofGpuChannel channel, guint32 owner)
{
  guint64 after = t->ever_closed ? t->owner_batch : 0, b;

  if (after && !t->closed)
    return after;
  /* a thread that never closed a batch: the oldest, remembered for after
   * its first close; past the newest batch inside: the oldest again */
  b = gpuprof_gpu_thread_owner_batch (channel, owner, after);
  if (b == GPUPROF_GPU_SEQ_NONE && after)
    b = gpuprof_gpu_thread_owner_batch (channel, owner, 0);
  t->owner_batch = b == GPUPROF_GPU_SEQ_NONE ? 0 : b;
  t->closed = FALSE;
  return b;
}

/**
 * gpuprof_gpu_launch_context:
 * @channel: the channel
 * @element_id: (out): the element in a chain call on this thread, else the
 *   thread's owner, else its last active element (0: none)
 * @seq: (out): the sequence pushed with it, or the owner's oldest batch in
 *   flight; %GPUPROF_GPU_SEQ_NONE when none
 * @tid: (out): the calling thread's id (gpuprof_gpu_current_thread_id())
 *
 * On the launching thread, at API entry (the callback path): what the
 * external id and the thread fallback would have said. O(1), no lock.
 *
 * Returns: what the thread is doing: in a call, outside calls on a thread
 *   with an owner, or neither
 */
GpuprofGpuContext
gpuprof_gpu_launch_context (GpuprofGpuChannel channel, gboolean launch,
    guint32 * element_id, guint64 * seq, guint32 * tid)
{
  GpuThread *t = &me;            /* one TLS look-up */
  ThreadSlot *s;
  guint32 owner;
  gint d;

  *seq = GPUPROF_GPU_SEQ_NONE;
  *element_id = 0;
  *tid = thread_id_of (t);
  if (G_UNLIKELY (t->slot == NULL))
    t->slot = claim_slot_for (*tid);
  s = t->slot;
  if (!s)
    return GPUPROF_GPU_CONTEXT_LAST;
  /* the innermost frame with an element (0: a ghost pad's query) */
  for (d = MIN (s->depth[channel], STACK_DEPTH); d > 0; d--) {
    if (s->stack[channel][d - 1]) {
      *element_id = s->stack[channel][d - 1];
      *seq = s->stack_seq[channel][d - 1];
      return GPUPROF_GPU_CONTEXT_CALL;
    }
  }
  owner = (guint32) g_atomic_int_get (&s->owner[channel]);
  if (owner) {
    *element_id = owner;
    *seq = launch && channel == GPUPROF_GPU_CHANNEL_TRACER ?
        owner_launch_batch (t, channel, owner) :
        gpuprof_gpu_thread_owner_batch (channel, owner, 0);
    return GPUPROF_GPU_CONTEXT_OWNER;
  }
  *element_id = (guint32) g_atomic_int_get (&s->last[channel]);
  return GPUPROF_GPU_CONTEXT_LAST;
}

/* ---- read by the record side, from another thread ---- */

/* The thread fallback: the element @tid was last active in on @channel;
 * @owner (out, nullable): the thread's owner, 0 when none */
guint32
gpuprof_gpu_thread_last (guint32 tid, GpuprofGpuChannel channel,
    guint32 * owner)
{
  ThreadSlot *s = find_slot (tid);

  if (owner)
    *owner = s ? (guint32) g_atomic_int_get (&s->owner[channel]) : 0;
  return s ? (guint32) g_atomic_int_get (&s->last[channel]) : 0;
}

void
gpuprof_gpu_thread_name (guint32 tid, gchar * out, gsize size)
{
  ThreadSlot *s;
  gchar path[64], buf[64] = "";
  FILE *f;

  if (tid == 0) {
    g_strlcpy (out, "unknown", size);
    return;
  }
  s = find_slot (tid);
  if (s && s->name) {
    g_strlcpy (out, s->name, size);
    return;
  }
  /* a private thread of an element: the OS name, while it still exists */
  g_snprintf (path, sizeof (path), "/proc/self/task/%u/comm", tid);
  f = fopen (path, "r");
  if (f) {
    if (fgets (buf, sizeof (buf), f))
      g_strchomp (buf);
    fclose (f);
  }
  if (buf[0])
    g_snprintf (out, size, "%s, tid %u", buf, tid);
  else
    g_snprintf (out, size, "tid %u", tid);
}

/* gpuprof_gpu_reset(): every thread's last active element forgotten */
void
gpuprof_gpu_threads_forget (void)
{
  guint i, c;

  for (i = 0; i < N_THREAD_SLOTS; i++)
    for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++)
      if (g_atomic_int_get (&thread_slots[i].tid))
        g_atomic_int_set (&thread_slots[i].last[c], 0);
}

/* ---- backend and channels ---- */

static void
update_channels_on (void)
{
  g_atomic_int_set (&_gpuprof_gpu_channels_on, backend ? channels_wanted : 0);
}

/**
 * gpuprof_gpu_set_backend:
 * @backend: (nullable): push/pop functions; NULL turns the hot path off
 *
 * @backend must stay valid until replaced.
 */
void
gpuprof_gpu_set_backend (const GpuprofGpuBackend * b)
{
  backend = b;
  update_channels_on ();
}

/**
 * gpuprof_gpu_enable_channel:
 * @channel: the channel
 * @enable: whether its users' enter/exit calls push ids
 *
 * Enable before streaming starts: a call in progress when the state changes
 * pushes without popping, or pops what it did not push.
 */
void
gpuprof_gpu_enable_channel (GpuprofGpuChannel channel, gboolean enable)
{
  if (enable) {
    g_atomic_int_or (&channels_wanted, 1 << channel);
    gpuprof_gpu_engine_use_channel (channel);
  } else {
    g_atomic_int_and (&channels_wanted, ~(1 << channel));
  }
  update_channels_on ();
}

gboolean
gpuprof_gpu_channel_enabled (GpuprofGpuChannel channel)
{
  return (g_atomic_int_get (&_gpuprof_gpu_channels_on) & (1 << channel)) != 0;
}
