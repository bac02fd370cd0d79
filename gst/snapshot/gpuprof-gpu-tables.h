/* gpuprof: the snapshot's typed GPU tables (gpu_elements, gpu_kernels,
 * gpu_devices, gpu), built from the GPU statistics' public queries. */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-gpu.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* the report's top kernels */
#define GPUPROF_GPU_TABLES_TOP_KERNELS 10

GPUPROF_API
void gpuprof_gpu_tables_fill (GpuprofSnapshot * snap,
    GpuprofGpuChannel channel, GpuprofGpuPathFunc path_func,
    gpointer user_data, guint64 wall_start, guint64 wall_end);

G_END_DECLS
