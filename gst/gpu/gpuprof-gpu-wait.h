/* gpuprof: GPU attribution, host threads waiting on the GPU
 * (gpuprof-gpu-wait.c): around each synchronizing API call, the calling
 * thread's wait is charged to what it is doing. The getters are public
 * (gpuprof-gpu.h); these are CUPTI's calls and the record side's. Lock-free.
 */
#pragma once

#include "gpuprof-gpu.h"

G_BEGIN_DECLS

/* synchronizing calls (both paths), on the waiting thread
 * (gpuprof-cupti.c) */
void gpuprof_gpu_sync_enter (gboolean runtime, guint32 cbid);
void gpuprof_gpu_sync_exit (gboolean runtime, guint32 cbid);
/* the threads that waited on @channel (guint32 tids appended to @tids) */
void gpuprof_gpu_waiting_threads (GpuprofGpuChannel channel, GArray * tids);
/* the sums go to zero (gpuprof_gpu_reset()) */
void gpuprof_gpu_waits_forget (void);

G_END_DECLS
