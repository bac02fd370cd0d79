/* gpuprof: GPU attribution, the callback path's launch table
 * (gpuprof-gpu-launch.h).
 *
 * With cupti-path=callback, CUPTI calls gpuprof_gpu_launch_enter() on the
 * launching thread at the entry of each launch, copy and memset API call
 * (its exit is not read: nothing uses the call's end, and a clock read per
 * op is saved). Enter reads what the thread is doing (the
 * element in a chain call and its sequence, else its owner or last active
 * element) and stores it under the correlation id. The record side finds it
 * again when the GPU record arrives: always later, as CUPTI makes the GPU
 * record after the call entered, so nothing waits and there is no join.
 *
 * Lock-free: a fixed table indexed by correlation id modulo its size. CUPTI's
 * correlation ids grow, so a slot is overwritten only by a call N launches
 * later; a GPU record whose slot was reused is settled unjoined (counted).
 * Each slot is a tiny seqlock: its id is 0 while written.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-launch.h"
#include "gpuprof-gpu-threads.h"
#include "gpuprof-clock.h"

#define N_LAUNCH_SLOTS (1 << 18)        /* power of two; 10 MiB, on first use */

typedef struct
{
  guint32 corr;                 /* atomic; 0 while being written */
  GpuprofGpuLaunch l;
} LaunchSlot;

static LaunchSlot *launch_slots;

/**
 * gpuprof_gpu_launch_table_init:
 *
 * Allocates the launch table (once per process; kept: CUPTI callbacks may
 * run on other threads until the process ends). Call before enabling the
 * callbacks.
 */
void
gpuprof_gpu_launch_table_init (void)
{
  static gsize done;

  if (g_once_init_enter (&done)) {
    g_atomic_pointer_set (&launch_slots, g_new0 (LaunchSlot, N_LAUNCH_SLOTS));
    g_once_init_leave (&done, 1);
  }
}

/**
 * gpuprof_gpu_launch_enter:
 * @correlation_id: CUPTI's id of the API call (CUpti_CallbackData)
 *
 * On the launching thread, at API entry. O(1), no lock, no allocation.
 */
void
gpuprof_gpu_launch_enter (guint32 correlation_id)
{
  LaunchSlot *tab = g_atomic_pointer_get (&launch_slots);
  LaunchSlot *s;
  gint on = g_atomic_int_get (&_gpuprof_gpu_channels_on);
  guint c;

  if (G_UNLIKELY (!tab || !correlation_id || !on))
    return;
  s = &tab[correlation_id & (N_LAUNCH_SLOTS - 1)];
  __atomic_store_n (&s->corr, 0, __ATOMIC_RELAXED);
  __atomic_thread_fence (__ATOMIC_RELEASE);
  s->l.flags = 0;
  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
    guint32 element;
    guint64 seq;

    s->l.ext[c] = 0;
    if (!(on & (1 << c)))
      continue;
    switch (gpuprof_gpu_launch_context (c, TRUE, &element, &seq,
            &s->l.thread_id)) {
      case GPUPROF_GPU_CONTEXT_CALL:
        s->l.flags |= GPUPROF_GPU_LAUNCH_EXT (c);
        s->l.ext[c] = gpuprof_gpu_encode_id (element, seq);
        break;
      case GPUPROF_GPU_CONTEXT_OWNER:
        s->l.flags |= GPUPROF_GPU_LAUNCH_OWNER (c);
        s->l.ext[c] = gpuprof_gpu_encode_id (element, seq);
        break;
      default:
        s->l.flags |= GPUPROF_GPU_LAUNCH_LAST (c);
        s->l.ext[c] = element;
    }
  }
  s->l.api_start = gpuprof_clock_monotonic_ns ();
  __atomic_store_n (&s->corr, correlation_id, __ATOMIC_RELEASE);
}

/* Record side: what the launching thread stored for @corr, if still there */
gboolean
gpuprof_gpu_launch_lookup (guint32 corr, GpuprofGpuLaunch * out)
{
  LaunchSlot *tab = g_atomic_pointer_get (&launch_slots);
  LaunchSlot *s;

  if (!tab || !corr)
    return FALSE;
  s = &tab[corr & (N_LAUNCH_SLOTS - 1)];
  if (__atomic_load_n (&s->corr, __ATOMIC_ACQUIRE) != corr)
    return FALSE;
  *out = s->l;
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  /* rewritten meanwhile by a launch N ids later: not ours */
  return __atomic_load_n (&s->corr, __ATOMIC_RELAXED) == corr;
}
