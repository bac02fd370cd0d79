/* CUDA implementation of the analyticsinfer network (analytics-infer-gpu.cu).
 *
 * Built only when meson finds nvcc and the static CUDA runtime; the plugin
 * links cudart statically, so it loads on machines without libcuda and
 * analytics_gpu_engine_new() just fails there. Plain C API.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "analytics-net.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct AnalyticsGpuEngine AnalyticsGpuEngine;

/* Uploads the weights of net to GPU 0. NULL with a message in err when there
 * is no usable GPU or driver. */
AnalyticsGpuEngine *analytics_gpu_engine_new (const AnalyticsNet * net,
    char *err, size_t err_len);

/* One launch: copies n_frames RGBA frames (contiguous, frame i at
 * frames + i * height * stride) to the GPU, runs the network on them as one
 * batch and waits for the GPU_NET_OUT logits per frame in out.
 * Returns 0 on success. */
int analytics_gpu_engine_run (AnalyticsGpuEngine * engine,
    const uint8_t * frames, int n_frames, int width, int height, int stride,
    float *out, char *err, size_t err_len);

const char *analytics_gpu_engine_device_name (AnalyticsGpuEngine * engine);

void analytics_gpu_engine_free (AnalyticsGpuEngine * engine);

#ifdef __cplusplus
}
#endif
