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

/* Uploads the weights of net to GPU 0, with n_slots batches in flight at
 * most (a pinned output and an event each). NULL with a message in err
 * when there is no usable GPU or driver. */
AnalyticsGpuEngine *analytics_gpu_engine_new (const AnalyticsNet * net,
    int n_slots, char *err, size_t err_len);

/* Launches a batch into slot (0 .. n_slots - 1) and returns without
 * waiting (nvinfer's input thread): n_frames RGBA frames (contiguous,
 * frame i at frames + i * height * stride) in launches of batch_size
 * frames, each a copy to the GPU, the network and a copy of its logits to
 * the slot's pinned output; then the slot's event is recorded. The frames
 * may be reused on return. A slot is the caller's until
 * analytics_gpu_engine_wait() on it returned. Returns 0 on success. */
int analytics_gpu_engine_launch (AnalyticsGpuEngine * engine, int slot,
    const uint8_t * frames, int n_frames, int batch_size, int width,
    int height, int stride, char *err, size_t err_len);

/* Waits for slot's event (nvinfer's output thread). Returns the slot's
 * GPU_NET_OUT logits per frame of the batch launched last into it, valid
 * until the slot's next launch; NULL with a message in err on failure. */
const float *analytics_gpu_engine_wait (AnalyticsGpuEngine * engine,
    int slot, char *err, size_t err_len);

const char *analytics_gpu_engine_device_name (AnalyticsGpuEngine * engine);

void analytics_gpu_engine_free (AnalyticsGpuEngine * engine);

#ifdef __cplusplus
}
#endif
