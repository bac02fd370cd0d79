/* gpuprof: GPU attribution, the join (gpuprof-gpu-join.c): activity, API
 * and external records in, in any order; settled and attributed ops out,
 * to the statistics and the listeners. Its entry points are public
 * (gpuprof-gpu.h: gpuprof_gpu_add_*(), gpuprof_gpu_settle()). Under the
 * engine's lock.
 */
#pragma once

#include "gpuprof-gpu.h"

G_BEGIN_DECLS

/* every pending record forgotten (gpuprof_gpu_reset(), _configure()) */
void gpuprof_gpu_join_clear_locked (void);

G_END_DECLS
