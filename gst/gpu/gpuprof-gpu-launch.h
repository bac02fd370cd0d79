/* gpuprof: GPU attribution, the callback path's launch table
 * (gpuprof-gpu-launch.c): what the launching thread was doing at the entry
 * of each launch, copy and memset API call, under the call's correlation
 * id, found again by the record side. Lock-free.
 */
#pragma once

#include "gpuprof-gpu.h"

G_BEGIN_DECLS

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

/* cupti-path=callback: the table (once per process), then on the
 * launching thread at each call's entry (gpuprof-cupti.c) */
void gpuprof_gpu_launch_table_init (void);
void gpuprof_gpu_launch_enter (guint32 correlation_id);
/* the record side: what @corr's launcher was doing, FALSE when its slot
 * was reused (or never written) */
gboolean gpuprof_gpu_launch_lookup (guint32 corr, GpuprofGpuLaunch * out);

G_END_DECLS
