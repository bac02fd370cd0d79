/* The stand-in detection network of analyticsinfer, shared by the CPU code
 * (analytics-net.c) and the CUDA code (analytics-infer-gpu.cu), so both
 * compute the same math. Plain C: nvcc includes it too.
 *
 *   frame (RGBA) -> 16x16 grid of mean luma - 0.5       (preprocess, per frame)
 *   -> dense size + ReLU, (layers - 1) x dense size + ReLU
 *   -> dense 8x8 anchors x GPUPROF_NET_CLASSES logits   (head)
 * Weights are fixed pseudo-random numbers; the output is a detection per
 * anchor whose best class logit passes the threshold.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPUPROF_NET_GRID 16             /* input: GRID x GRID cells */
#define GPUPROF_NET_IN (GPUPROF_NET_GRID * GPUPROF_NET_GRID)
#define GPUPROF_NET_ANCHOR_GRID 8       /* output: ANCHOR_GRID^2 anchors */
#define GPUPROF_NET_ANCHORS (GPUPROF_NET_ANCHOR_GRID * GPUPROF_NET_ANCHOR_GRID)
#define GPUPROF_NET_CLASSES 4
#define GPUPROF_NET_OUT (GPUPROF_NET_ANCHORS * GPUPROF_NET_CLASSES)
#define GPUPROF_NET_MAX_LAYERS 64

typedef struct
{
  int n_layers;                 /* dense layers, hidden ones + head */
  int dims[GPUPROF_NET_MAX_LAYERS + 1]; /* dims[0] = IN, dims[n_layers] = OUT */
  float *weights[GPUPROF_NET_MAX_LAYERS];       /* dims[l] x dims[l+1], row-major */
  float *bias[GPUPROF_NET_MAX_LAYERS];  /* dims[l+1] */
  int fp16;                     /* round weights and activations to half */
} GpuprofNet;

/* hidden_layers >= 1 layers of hidden_size units, then the head. */
GpuprofNet *gpuprof_net_new (int hidden_size, int hidden_layers, int fp16);
void gpuprof_net_free (GpuprofNet * net);

/* Scratch the CPU forward pass needs per frame, in floats. */
size_t gpuprof_net_scratch_floats (const GpuprofNet * net);

/* CPU path. frame: RGBA rows of stride bytes. out: GPUPROF_NET_OUT logits. */
void gpuprof_net_preprocess_cpu (const uint8_t * frame, int width, int height,
    int stride, float *features);
void gpuprof_net_forward_cpu (const GpuprofNet * net, const float *features,
    int n_frames, float *scratch, float *out);

float gpuprof_net_round_half (float v);

#ifdef __cplusplus
}
#endif
