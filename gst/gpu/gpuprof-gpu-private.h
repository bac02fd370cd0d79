/* gpuprof: GPU attribution, what its modules share. Not installed.
 *
 * gpuprof-gpu.h is split over these files:
 *  - gpuprof-gpu-hotpath.c: enter/exit around chain calls, the per-thread
 *    slots, the backend (streaming threads; no lock)
 *  - gpuprof-gpu-join.c: correlation entries, settle, evict: activity, API
 *    and external records in, attributed ops out (record side)
 *  - gpuprof-gpu-stats.c: per-element/kernel/device aggregates, gaps, the
 *    buffer ring, the public getters (record side)
 *  - gpuprof-gpu-wait.c: time threads wait on the GPU (synchronize calls)
 *  - gpuprof-gpu-names.c: element paths of each channel, labels
 *  - gpuprof-gpu.c: this shared state, configure/reset, the listeners
 *
 * The record side has one lock, in GpuprofGpuEngine; functions named
 * *_locked are called with it held.
 */
#pragma once

#include "gpuprof-gpu.h"

G_BEGIN_DECLS

/**
 * GpuprofGpuEngine:
 * @lock: guards the record side: the join's and the statistics' state, the
 *   fields below and the listener registry
 * @initialised: the join and the statistics have their tables
 * @config: limits (gpuprof_gpu_configure())
 * @channels_used: bit per channel ever enabled: those get statistics
 *   (atomic, written by the hot path's gpuprof_gpu_enable_channel())
 *
 * The one piece of state several files need.
 */
typedef struct
{
  GMutex lock;
  gboolean initialised;
  GpuprofGpuConfig config;
  gint channels_used;
} GpuprofGpuEngine;

extern GpuprofGpuEngine _gpuprof_gpu;

/* gpuprof-gpu.c */
void _gpuprof_gpu_ensure_init_locked (void);
gboolean _gpuprof_gpu_have_op_listeners_locked (void);
void _gpuprof_gpu_call_op_listeners_locked (const GpuprofGpuSettledOp * so);
void _gpuprof_gpu_call_settle_listeners (void);

/* gpuprof-gpu-hotpath.c: what the record side reads of other threads */
guint32 _gpuprof_gpu_thread_last (guint32 tid, GpuprofGpuChannel channel,
    guint32 * owner);
void _gpuprof_gpu_thread_name (guint32 tid, gchar * out, gsize size);
void _gpuprof_gpu_threads_forget (void);
guint64 _gpuprof_gpu_owner_batch (GpuprofGpuChannel channel, guint32 owner,
    guint64 after);

/* what a thread launching GPU work is doing */
typedef enum
{
  GPUPROF_GPU_CONTEXT_CALL,     /* in a chain call (event, query...) */
  GPUPROF_GPU_CONTEXT_OWNER,    /* outside calls, on a thread with an owner */
  GPUPROF_GPU_CONTEXT_LAST,     /* else: its last active element, if any */
} GpuprofGpuContext;

GpuprofGpuContext _gpuprof_gpu_launch_context (GpuprofGpuChannel channel,
    gboolean launch, guint32 * element_id, guint64 * seq, guint32 * tid);

/* gpuprof-gpu-launch.c: the callback path's table, correlation id -> what
 * the launching thread was doing at API entry */
#define GPUPROF_GPU_LAUNCH_EXT(c)  (1 << (c))   /* in a chain call */
#define GPUPROF_GPU_LAUNCH_LAST(c) (1 << (4 + (c)))     /* thread fallback */
#define GPUPROF_GPU_LAUNCH_OWNER(c) (1 << (8 + (c)))    /* owner, batch */

typedef struct
{
  guint32 flags;
  guint32 thread_id;
  guint64 api_start;
  /* external id (in a call, or owner and its batch), or last element */
  guint64 ext[GPUPROF_GPU_N_CHANNELS];
} GpuprofGpuLaunch;

gboolean _gpuprof_gpu_launch_lookup (guint32 corr, GpuprofGpuLaunch * out);

/* gpuprof-gpu-wait.c: host threads waiting on the GPU */
void _gpuprof_gpu_waiting_threads (GpuprofGpuChannel channel, GArray * tids);
void _gpuprof_gpu_waits_forget (void);

/* gpuprof-gpu-join.c */
void _gpuprof_gpu_join_init_locked (void);
void _gpuprof_gpu_join_clear_locked (void);
void _gpuprof_gpu_join_fill_totals_locked (GpuprofGpuTotals * totals);

/* gpuprof-gpu-stats.c */
void _gpuprof_gpu_stats_init_locked (void);
void _gpuprof_gpu_stats_clear_locked (void);
void _gpuprof_gpu_stats_account_locked (const GpuprofGpuSettledOp * so,
    guint64 ns, gboolean graph);
void _gpuprof_gpu_stats_device_add_locked (const GpuprofGpuOp * op);
void _gpuprof_gpu_stats_commit_locked (gboolean force);

G_END_DECLS
