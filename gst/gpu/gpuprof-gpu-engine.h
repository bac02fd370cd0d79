/* gpuprof: GPU attribution, the record side's engine
 * (gpuprof-gpu-engine.c): the one lock of the record side (the join's and
 * the statistics' state, each in its own file, are guarded by it), the
 * limits (gpuprof_gpu_configure()), the channels that get statistics and
 * the listener registry. The bottom of the GPU code: it calls nothing of
 * it. Functions named *_locked are called with the lock held.
 */
#pragma once

#include "gpuprof-gpu.h"

G_BEGIN_DECLS

void gpuprof_gpu_engine_lock (void);
void gpuprof_gpu_engine_unlock (void);
const GpuprofGpuConfig *gpuprof_gpu_engine_config_locked (void);
/* zero fields keep their value */
void gpuprof_gpu_engine_configure_locked (const GpuprofGpuConfig * config);

/* a channel ever enabled gets statistics (atomic, any thread) */
void gpuprof_gpu_engine_use_channel (GpuprofGpuChannel channel);
gint gpuprof_gpu_engine_channels_used (void);

/* the listeners (gpuprof_gpu_add_listener()) */
gboolean gpuprof_gpu_engine_have_op_listeners_locked (void);
void gpuprof_gpu_engine_call_op_listeners_locked (const GpuprofGpuSettledOp *
    so);
/* without the lock: settled listeners may query */
void gpuprof_gpu_engine_call_settle_listeners (void);

G_END_DECLS
