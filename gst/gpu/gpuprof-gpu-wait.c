/* gpuprof: GPU attribution, host threads waiting on the GPU
 * (gpuprof-gpu-wait.h).
 *
 * CUPTI calls gpuprof_gpu_sync_enter()/_exit() on the waiting thread around
 * each synchronizing API call (cuCtx/cuStream/cuEventSynchronize,
 * cudaDevice/cudaStream/cudaEventSynchronize: gpuprof-cupti.c). Enter reads
 * the clock into a thread-local; exit charges the duration to what the
 * thread is doing, as a launch would be (gpuprof-gpu-launch.c): the element
 * in a call, else the thread's owner, else the thread itself
 * (unattributed). A runtime call waits through its driver call: only the
 * runtime one counts.
 *
 * Lock-free: a fixed open-addressed table of sums, a slot per (what, channel,
 * element, thread) claimed once with a CAS, added to with atomics; the
 * getters scan it. Keys are never removed (gpuprof_gpu_reset() zeroes the
 * sums): a run has few waiting (element, thread) pairs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-wait.h"
#include "gpuprof-gpu-threads.h"
#include "gpuprof-clock.h"

#include <string.h>

#define N_WAIT_SLOTS 4096       /* power of two */
#define TID_MASK 0x3fffff       /* pid_max's limit: 22 bits */

typedef enum
{
  WAIT_IN_CALL = 1,
  WAIT_OWNER = 2,
  WAIT_THREAD = 3,              /* unattributed */
} WaitKind;

typedef struct
{
  guint64 key;                  /* 0 = free; claimed once with a CAS */
  guint64 ns;
  guint64 count;
} WaitSlot;

static WaitSlot wait_slots[N_WAIT_SLOTS];
static guint64 wait_lost_ns;    /* table full: counted nowhere else */

/* per thread: the outermost synchronizing call in progress (0: none) and
 * its entry. Only a driver call nests in a runtime one; any other entry
 * starts a new wait, so a wait whose exit never came (the callbacks turned
 * off during it) is forgotten at the thread's next one. */
#define SYNC_CALL(runtime, cbid) \
  ((1u << 31) | ((runtime) ? 1u << 30 : 0) | ((cbid) & 0x3fffffff))
#define SYNC_RUNTIME(call) (((call) >> 30) & 1)

static __thread guint32 sync_call;
static __thread guint64 sync_start;

static inline guint64
wait_key (WaitKind kind, guint channel, guint32 element, guint32 tid)
{
  return ((guint64) kind << 56) | ((guint64) channel << 54)
      | ((guint64) (tid & TID_MASK) << 32) | element;
}

static inline WaitKind
key_kind (guint64 key)
{
  return (WaitKind) (key >> 56);
}

static inline guint
key_channel (guint64 key)
{
  return (guint) (key >> 54) & 3;
}

static inline guint32
key_tid (guint64 key)
{
  return (guint32) (key >> 32) & TID_MASK;
}

static void
wait_add (guint64 key, guint64 ns)
{
  guint h = (guint) ((key * 0x9e3779b97f4a7c15ull) >> 52) & (N_WAIT_SLOTS - 1);
  guint i;

  for (i = 0; i < N_WAIT_SLOTS; i++) {
    WaitSlot *s = &wait_slots[(h + i) & (N_WAIT_SLOTS - 1)];
    guint64 k = __atomic_load_n (&s->key, __ATOMIC_ACQUIRE);
    guint64 zero = 0;

    if (k == 0 && __atomic_compare_exchange_n (&s->key, &zero, key, FALSE,
            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      k = key;
    else if (k == 0)
      k = zero;                 /* another thread claimed it meanwhile */
    if (k == key) {
      __atomic_fetch_add (&s->ns, ns, __ATOMIC_RELAXED);
      __atomic_fetch_add (&s->count, 1, __ATOMIC_RELAXED);
      return;
    }
  }
  __atomic_fetch_add (&wait_lost_ns, ns, __ATOMIC_RELAXED);
}

/**
 * gpuprof_gpu_sync_enter:
 * @runtime: a runtime API call (else a driver one)
 * @cbid: its callback id in its domain
 *
 * On the waiting thread, at the entry of a synchronizing API call. O(1), no
 * lock, no allocation.
 */
void
gpuprof_gpu_sync_enter (gboolean runtime, guint32 cbid)
{
  guint32 call = SYNC_CALL (runtime, cbid);

  /* a runtime call waits through its driver call: the outer one counts */
  if (sync_call && SYNC_RUNTIME (sync_call) && !runtime)
    return;
  sync_call = call;
  sync_start = gpuprof_clock_monotonic_ns ();
}

/**
 * gpuprof_gpu_sync_exit:
 * @runtime: as given to gpuprof_gpu_sync_enter()
 * @cbid: as given to gpuprof_gpu_sync_enter()
 *
 * At the exit of that call: its duration goes to the element in a call on
 * this thread, else the thread's owner, else the thread (each enabled
 * channel). O(1) (a probe of the wait table), no lock, no allocation.
 */
void
gpuprof_gpu_sync_exit (gboolean runtime, guint32 cbid)
{
  gint on = g_atomic_int_get (&_gpuprof_gpu_channels_on);
  guint64 ns;
  guint c;

  /* a nested call's exit, or a call entered before the callbacks were on */
  if (sync_call != SYNC_CALL (runtime, cbid))
    return;
  sync_call = 0;
  ns = gpuprof_clock_monotonic_ns () - sync_start;
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
    guint32 element, tid;
    guint64 seq;
    WaitKind kind;

    if (!(on & (1 << c)))
      continue;
    switch (gpuprof_gpu_launch_context (c, FALSE, &element, &seq, &tid)) {
      case GPUPROF_GPU_CONTEXT_CALL:
        kind = WAIT_IN_CALL;
        gpuprof_gpu_frame_add_wait (c, ns);
        break;
      case GPUPROF_GPU_CONTEXT_OWNER:
        kind = WAIT_OWNER;
        break;
      default:
        kind = WAIT_THREAD;
        element = 0;
    }
    wait_add (wait_key (kind, c, element, tid), ns);
  }
  gpuprof_gpu_close_batch ();
}

/**
 * gpuprof_gpu_get_wait:
 * @channel: the channel
 * @element_id: the element
 * @call_tid: a thread id (gpuprof_gpu_current_thread_id()), 0 for none
 * @wait: (out): its time waiting on the GPU, the part inside its calls, the
 *   part inside its calls on @call_tid
 */
void
gpuprof_gpu_get_wait (GpuprofGpuChannel channel, guint32 element_id,
    guint32 call_tid, GpuprofGpuWait * wait)
{
  guint i;

  memset (wait, 0, sizeof (*wait));
  if (!element_id)
    return;
  for (i = 0; i < N_WAIT_SLOTS; i++) {
    const WaitSlot *s = &wait_slots[i];
    guint64 k = __atomic_load_n (&s->key, __ATOMIC_ACQUIRE);
    guint64 ns;

    if (!k || (guint32) k != element_id || key_channel (k) != channel
        || key_kind (k) == WAIT_THREAD)
      continue;
    ns = __atomic_load_n (&s->ns, __ATOMIC_RELAXED);
    wait->wait_ns += ns;
    wait->waits += __atomic_load_n (&s->count, __ATOMIC_RELAXED);
    if (key_kind (k) != WAIT_IN_CALL)
      continue;
    wait->in_call_ns += ns;
    if (call_tid && key_tid (k) == (call_tid & TID_MASK))
      wait->in_call_tid_ns += ns;
  }
}

/**
 * gpuprof_gpu_get_thread_wait:
 * @channel: the channel
 * @tid: an OS thread id (gpuprof_gpu_current_thread_id() on it)
 * @in_calls_ns: (out) (optional): its waits inside elements' calls
 *
 * Returns: its waits outside any call on no element's thread (its
 *   unattributed row's)
 */
guint64
gpuprof_gpu_get_thread_wait (GpuprofGpuChannel channel, guint32 tid,
    guint64 * in_calls_ns)
{
  guint64 ns = 0, in_calls = 0;
  guint i;

  for (i = 0; i < N_WAIT_SLOTS; i++) {
    guint64 k = __atomic_load_n (&wait_slots[i].key, __ATOMIC_ACQUIRE);
    guint64 v;

    if (!k || key_channel (k) != channel || key_tid (k) != (tid & TID_MASK))
      continue;
    v = __atomic_load_n (&wait_slots[i].ns, __ATOMIC_RELAXED);
    if (key_kind (k) == WAIT_THREAD)
      ns += v;
    else if (key_kind (k) == WAIT_IN_CALL)
      in_calls += v;
  }
  if (in_calls_ns)
    *in_calls_ns = in_calls;
  return ns;
}

/* The threads with unattributed waits on @channel, appended to @tids
 * (guint32) when not there yet */
void
gpuprof_gpu_waiting_threads (GpuprofGpuChannel channel, GArray * tids)
{
  guint i, j;

  for (i = 0; i < N_WAIT_SLOTS; i++) {
    guint64 k = __atomic_load_n (&wait_slots[i].key, __ATOMIC_ACQUIRE);
    guint32 tid;
    gboolean seen = FALSE;

    if (!k || key_kind (k) != WAIT_THREAD || key_channel (k) != channel
        || !__atomic_load_n (&wait_slots[i].ns, __ATOMIC_RELAXED))
      continue;
    tid = key_tid (k);
    for (j = 0; j < tids->len && !seen; j++)
      seen = g_array_index (tids, guint32, j) == tid;
    if (!seen)
      g_array_append_val (tids, tid);
  }
}

/* gpuprof_gpu_reset(): every sum zeroed (keys stay claimed) */
void
gpuprof_gpu_waits_forget (void)
{
  guint i;

  for (i = 0; i < N_WAIT_SLOTS; i++) {
    __atomic_store_n (&wait_slots[i].ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&wait_slots[i].count, 0, __ATOMIC_RELAXED);
  }
  __atomic_store_n (&wait_lost_ns, 0, __ATOMIC_RELAXED);
}
