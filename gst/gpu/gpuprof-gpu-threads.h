/* gpuprof: GPU attribution, what the rest of the GPU code reads of the
 * launching threads' slots (gpuprof-gpu-hotpath.c): on the launching
 * thread itself (the callback path, a host wait), or by OS thread id from
 * the CUPTI thread (the record side). Lock-free.
 */
#pragma once

#include "gpuprof-gpu-hotpath.h"

G_BEGIN_DECLS

/* what a thread launching GPU work is doing */
typedef enum
{
  GPUPROF_GPU_CONTEXT_CALL,     /* in a chain call (event, query...) */
  GPUPROF_GPU_CONTEXT_OWNER,    /* outside calls, on a thread with an owner */
  GPUPROF_GPU_CONTEXT_LAST,     /* else: its last active element, if any */
} GpuprofGpuContext;

/* The calling thread's context on @channel: the element (0: none) and
 * sequence its work goes to, and its tid. @launch: a launch (the owner's
 * batch is taken), else a host wait. */
GpuprofGpuContext gpuprof_gpu_launch_context (GpuprofGpuChannel channel,
    gboolean launch, guint32 * element_id, guint64 * seq, guint32 * tid);
/* the last active element of thread @tid on @channel, its owner in @owner */
guint32 gpuprof_gpu_thread_last (guint32 tid, GpuprofGpuChannel channel,
    guint32 * owner);
void gpuprof_gpu_thread_name (guint32 tid, gchar * out, gsize size);
/* the owner's oldest batch in flight above @after as a sequence,
 * GPUPROF_GPU_SEQ_NONE when none (gpuprof_gpu_set_owner_batch_func()) */
guint64 gpuprof_gpu_thread_owner_batch (GpuprofGpuChannel channel,
    guint32 owner, guint64 after);
/* the innermost call with an element on the calling thread waited @ns on
 * the GPU: gpuprof_gpu_channel_exit() returns its sum */
void gpuprof_gpu_frame_add_wait (GpuprofGpuChannel channel, guint64 ns);
/* the slots' elements are forgotten (gpuprof_gpu_reset()) */
void gpuprof_gpu_threads_forget (void);

G_END_DECLS
