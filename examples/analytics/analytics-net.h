/* The stand-in detection network of analyticsinfer, shared by the CPU code
 * (analytics-net.c) and the CUDA code (analytics-infer-gpu.cu), so both
 * compute the same math. Plain C: nvcc includes it too.
 *
 *   frame (RGBA) -> 16x16 grid of mean luma - 0.5       (preprocess, per frame)
 *   -> dense size + ReLU, (layers - 1) x dense size + ReLU
 *   -> dense 8x8 anchors x ANALYTICS_NET_CLASSES logits   (head)
 * Weights are fixed pseudo-random numbers; the output is a detection per
 * anchor whose best class logit passes the threshold.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ANALYTICS_NET_GRID 16             /* input: GRID x GRID cells */
#define ANALYTICS_NET_IN (ANALYTICS_NET_GRID * ANALYTICS_NET_GRID)
#define ANALYTICS_NET_ANCHOR_GRID 8       /* output: ANCHOR_GRID^2 anchors */
#define ANALYTICS_NET_ANCHORS \
    (ANALYTICS_NET_ANCHOR_GRID * ANALYTICS_NET_ANCHOR_GRID)
#define ANALYTICS_NET_CLASSES 4
#define ANALYTICS_NET_OUT (ANALYTICS_NET_ANCHORS * ANALYTICS_NET_CLASSES)
#define ANALYTICS_NET_MAX_LAYERS 64

typedef struct
{
  int n_layers;                 /* dense layers, hidden ones + head */
  /* dims[0] = IN, dims[n_layers] = OUT */
  int dims[ANALYTICS_NET_MAX_LAYERS + 1];
  /* dims[l] x dims[l+1], row-major */
  float *weights[ANALYTICS_NET_MAX_LAYERS];
  float *bias[ANALYTICS_NET_MAX_LAYERS];        /* dims[l+1] */
  int fp16;                     /* round weights and activations to half */
} AnalyticsNet;

/* hidden_layers >= 1 layers of hidden_size units, then the head. */
AnalyticsNet *analytics_net_new (int hidden_size, int hidden_layers, int fp16);
void analytics_net_free (AnalyticsNet * net);

/* Scratch the CPU forward pass needs per frame, in floats. */
size_t analytics_net_scratch_floats (const AnalyticsNet * net);

/* CPU path. frame: RGBA rows of stride bytes. out: ANALYTICS_NET_OUT logits. */
void analytics_net_preprocess_cpu (const uint8_t * frame, int width, int height,
    int stride, float *features);
void analytics_net_forward_cpu (const AnalyticsNet * net, const float *features,
    int n_frames, float *scratch, float *out);

float analytics_net_round_half (float v);

#ifdef __cplusplus
}
#endif
