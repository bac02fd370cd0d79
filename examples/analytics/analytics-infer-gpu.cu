/* CUDA implementation of the analyticsinfer network: the same math as
 * analytics_net_preprocess_cpu () and analytics_net_forward_cpu ().
 *
 * Cost per launch = a fixed part (one kernel per layer, each reading all the
 * weights; a 16-row tile runs whether 1 or 16 frames fill it) + a per-frame
 * part (upload of the frame, preprocess, rows of the GEMMs), so small batches
 * waste the GPU as a real engine does.
 *
 * As nvinfer: the input thread launches (copies, kernels, copy back into a
 * slot's pinned output, event record) and never waits; the output thread
 * waits on the slot's event. One stream: a batch's work runs after the
 * previous one's, so the device buffers are shared by the slots (stream
 * order keeps a batch from overwriting what the one before still reads);
 * only what the host reads after the launch returns, the output, and the
 * event that says it is there, are per slot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "analytics-infer-gpu.h"

#define TILE 16

/* a batch in flight: where its logits land and the event after them */
typedef struct
{
  float *h_out;                 /* pinned, out_frames x ANALYTICS_NET_OUT */
  int out_frames;
  cudaEvent_t done;
} Slot;

struct AnalyticsGpuEngine
{
  int n_layers;
  int dims[ANALYTICS_NET_MAX_LAYERS + 1];
  int max_dim;
  int fp16;
  void *w[ANALYTICS_NET_MAX_LAYERS];      /* float or __half */
  void *b[ANALYTICS_NET_MAX_LAYERS];
  cudaStream_t stream;
  char name[256];

  /* grown on demand */
  uint8_t *d_frames;
  size_t frames_cap;
  void *d_act[2];               /* max_frames x max_dim */
  float *d_out;                 /* max_frames x ANALYTICS_NET_OUT */
  int max_frames;

  Slot *slots;
  int n_slots;
};

__device__ __forceinline__ float
to_float (float v)
{
  return v;
}

__device__ __forceinline__ float
to_float (__half v)
{
  return __half2float (v);
}

template < typename T > __device__ __forceinline__ T from_float (float v);

template <> __device__ __forceinline__ float
from_float < float >(float v)
{
  return v;
}

template <> __device__ __forceinline__ __half
from_float < __half > (float v)
{
  return __float2half_rn (v);
}

/* One block per (cell, frame): integer luma sum, then the CPU's formula. */
template < typename T > __global__ void
preprocess_kernel (const uint8_t * frames, int width, int height, int stride,
    T * features)
{
  __shared__ unsigned int sums[256];
  int cell = blockIdx.x, frame = blockIdx.y;
  int cy = cell / ANALYTICS_NET_GRID, cx = cell % ANALYTICS_NET_GRID;
  int y0 = cy * height / ANALYTICS_NET_GRID;
  int y1 = (cy + 1) * height / ANALYTICS_NET_GRID;
  int x0 = cx * width / ANALYTICS_NET_GRID;
  int x1 = (cx + 1) * width / ANALYTICS_NET_GRID;
  int cw = x1 - x0, n = cw * (y1 - y0);
  const uint8_t *base = frames + (size_t) frame * height * stride;
  unsigned int sum = 0;

  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const uint8_t *p = base + (size_t) (y0 + i / cw) * stride + (size_t) (x0 + i % cw) * 4;
    sum += p[0] + 2 * p[1] + p[2];
  }
  sums[threadIdx.x] = sum;
  __syncthreads ();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sums[threadIdx.x] += sums[threadIdx.x + s];
    __syncthreads ();
  }
  if (threadIdx.x == 0) {
    float v = n ? (float) sums[0] / (1020.0f * n) - 0.5f : 0.0f;
    features[(size_t) frame * ANALYTICS_NET_IN + cell] = from_float < T > (v);
  }
}

/* out = act (in[rows x k] . w[k x n] + bias), tiled; float accumulation.
 * out_f32, when set, receives the result as float (rounded through T). */
template < typename T > __global__ void
dense_kernel (const T * in, const T * w, const T * bias, int rows, int k,
    int n, int relu, T * out, float *out_f32)
{
  __shared__ float as[TILE][TILE];
  __shared__ float ws[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;

  for (int t = 0; t < k; t += TILE) {
    int ak = t + threadIdx.x, wk = t + threadIdx.y;

    as[threadIdx.y][threadIdx.x] = (row < rows && ak < k) ?
        to_float (in[(size_t) row * k + ak]) : 0.0f;
    ws[threadIdx.y][threadIdx.x] = (wk < k && col < n) ?
        to_float (w[(size_t) wk * n + col]) : 0.0f;
    __syncthreads ();
    for (int i = 0; i < TILE; i++)
      acc += as[threadIdx.y][i] * ws[i][threadIdx.x];
    __syncthreads ();
  }
  if (row < rows && col < n) {
    float v = acc + to_float (bias[col]);
    T r;

    if (relu && v < 0.0f)
      v = 0.0f;
    r = from_float < T > (v);
    if (out_f32)
      out_f32[(size_t) row * n + col] = to_float (r);
    else
      out[(size_t) row * n + col] = r;
  }
}

static int
check (cudaError_t e, const char *what, char *err, size_t err_len)
{
  if (e == cudaSuccess)
    return 0;
  if (err)
    snprintf (err, err_len, "%s: %s", what, cudaGetErrorString (e));
  return -1;
}

static void *
upload (const float *src, size_t n, int fp16, char *err, size_t err_len)
{
  size_t elem = fp16 ? sizeof (__half) : sizeof (float);
  void *host = malloc (n * elem), *dev = NULL;
  size_t i;

  if (!host)
    return NULL;
  if (fp16) {
    for (i = 0; i < n; i++)
      ((__half *) host)[i] = __float2half_rn (src[i]);
  } else {
    memcpy (host, src, n * elem);
  }
  if (check (cudaMalloc (&dev, n * elem), "cudaMalloc", err, err_len) ||
      check (cudaMemcpy (dev, host, n * elem, cudaMemcpyHostToDevice),
          "cudaMemcpy", err, err_len)) {
    cudaFree (dev);
    dev = NULL;
  }
  free (host);
  return dev;
}

extern "C" AnalyticsGpuEngine *
analytics_gpu_engine_new (const AnalyticsNet * net, int n_slots, char *err,
    size_t err_len)
{
  AnalyticsGpuEngine *e;
  cudaDeviceProp prop;
  int count = 0, l, i;

  if (n_slots < 1) {
    snprintf (err, err_len, "%d slots: at least 1 batch in flight", n_slots);
    return NULL;
  }
  /* Fails cleanly without a driver (libcuda) or without a device. */
  if (check (cudaGetDeviceCount (&count), "cudaGetDeviceCount", err, err_len))
    return NULL;
  if (count < 1) {
    snprintf (err, err_len, "no CUDA device");
    return NULL;
  }
  if (check (cudaSetDevice (0), "cudaSetDevice", err, err_len) ||
      check (cudaGetDeviceProperties (&prop, 0), "cudaGetDeviceProperties",
          err, err_len))
    return NULL;

  e = (AnalyticsGpuEngine *) calloc (1, sizeof (AnalyticsGpuEngine));
  if (!e)
    return NULL;
  snprintf (e->name, sizeof (e->name), "%s", prop.name);
  e->n_layers = net->n_layers;
  e->fp16 = net->fp16;
  for (l = 0; l <= net->n_layers; l++) {
    e->dims[l] = net->dims[l];
    if (net->dims[l] > e->max_dim)
      e->max_dim = net->dims[l];
  }
  if (check (cudaStreamCreateWithFlags (&e->stream, cudaStreamNonBlocking),
          "cudaStreamCreate", err, err_len)) {
    free (e);
    return NULL;
  }
  e->slots = (Slot *) calloc (n_slots, sizeof (Slot));
  if (!e->slots) {
    analytics_gpu_engine_free (e);
    return NULL;
  }
  e->n_slots = n_slots;
  for (i = 0; i < n_slots; i++) {
    /* blocking: the output thread sleeps in its wait instead of spinning */
    if (check (cudaEventCreateWithFlags (&e->slots[i].done,
                cudaEventDisableTiming | cudaEventBlockingSync),
            "cudaEventCreate", err, err_len)) {
      analytics_gpu_engine_free (e);
      return NULL;
    }
  }
  for (l = 0; l < net->n_layers; l++) {
    e->w[l] = upload (net->weights[l],
        (size_t) net->dims[l] * net->dims[l + 1], net->fp16, err, err_len);
    e->b[l] = upload (net->bias[l], net->dims[l + 1], net->fp16, err, err_len);
    if (!e->w[l] || !e->b[l]) {
      analytics_gpu_engine_free (e);
      return NULL;
    }
  }
  return e;
}

static int
ensure_capacity (AnalyticsGpuEngine * e, int n_frames, size_t frame_bytes,
    char *err, size_t err_len)
{
  size_t elem = e->fp16 ? sizeof (__half) : sizeof (float);

  /* growing: the work in flight may still use the old buffers */
  if ((frame_bytes * n_frames > e->frames_cap || n_frames > e->max_frames)
      && check (cudaStreamSynchronize (e->stream), "cudaStreamSynchronize",
          err, err_len))
    return -1;
  if (frame_bytes * n_frames > e->frames_cap) {
    cudaFree (e->d_frames);
    e->d_frames = NULL;
    e->frames_cap = 0;
    if (check (cudaMalloc ((void **) &e->d_frames, frame_bytes * n_frames),
            "cudaMalloc", err, err_len))
      return -1;
    e->frames_cap = frame_bytes * n_frames;
  }
  if (n_frames > e->max_frames) {
    cudaFree (e->d_act[0]);
    cudaFree (e->d_act[1]);
    cudaFree (e->d_out);
    e->d_act[0] = e->d_act[1] = NULL;
    e->d_out = NULL;
    e->max_frames = 0;
    if (check (cudaMalloc (&e->d_act[0], elem * n_frames * e->max_dim),
            "cudaMalloc", err, err_len) ||
        check (cudaMalloc (&e->d_act[1], elem * n_frames * e->max_dim),
            "cudaMalloc", err, err_len) ||
        check (cudaMalloc ((void **) &e->d_out,
                sizeof (float) * n_frames * ANALYTICS_NET_OUT), "cudaMalloc",
            err, err_len))
      return -1;
    e->max_frames = n_frames;
  }
  return 0;
}

template < typename T > static void
launch (AnalyticsGpuEngine * e, int n_frames, int width, int height, int stride)
{
  T *a = (T *) e->d_act[0], *b = (T *) e->d_act[1];
  int l;

  preprocess_kernel < T > <<<dim3 (ANALYTICS_NET_IN, n_frames), 256, 0,
      e->stream >>> (e->d_frames, width, height, stride, a);
  for (l = 0; l < e->n_layers; l++) {
    int head = (l == e->n_layers - 1), n = e->dims[l + 1];
    dim3 grid ((n + TILE - 1) / TILE, (n_frames + TILE - 1) / TILE);

    dense_kernel < T > <<<grid, dim3 (TILE, TILE), 0, e->stream >>> (a,
        (const T *) e->w[l], (const T *) e->b[l], n_frames, e->dims[l], n,
        !head, b, head ? e->d_out : NULL);
    T *t = a;
    a = b;
    b = t;
  }
}

/* The slot's pinned output holds @n_frames frames' logits (reallocated,
 * after waiting for the GPU, only when a batch has more frames than before:
 * a batch dropped by a flush may still be copying into it) */
static int
ensure_slot_output (AnalyticsGpuEngine * e, Slot * s, int n_frames,
    char *err, size_t err_len)
{
  if (n_frames <= s->out_frames)
    return 0;
  if (check (cudaStreamSynchronize (e->stream), "cudaStreamSynchronize", err,
          err_len))
    return -1;
  cudaFreeHost (s->h_out);
  s->h_out = NULL;
  s->out_frames = 0;
  if (check (cudaMallocHost ((void **) &s->h_out,
              sizeof (float) * n_frames * ANALYTICS_NET_OUT),
          "cudaMallocHost", err, err_len))
    return -1;
  s->out_frames = n_frames;
  return 0;
}

extern "C" int
analytics_gpu_engine_launch (AnalyticsGpuEngine * e, int slot,
    const uint8_t * frames, int n_frames, int batch_size, int width,
    int height, int stride, char *err, size_t err_len)
{
  size_t frame_bytes = (size_t) height * stride;
  int per_launch, first;
  Slot *s;

  if (slot < 0 || slot >= e->n_slots || n_frames < 1 || batch_size < 1) {
    snprintf (err, err_len, "slot %d (0..%d), %d frames, batch size %d: "
        "out of range", slot, e->n_slots - 1, n_frames, batch_size);
    return -1;
  }
  s = &e->slots[slot];
  per_launch = n_frames < batch_size ? n_frames : batch_size;
  if (ensure_capacity (e, per_launch, frame_bytes, err, err_len) ||
      ensure_slot_output (e, s, n_frames, err, err_len))
    return -1;
  for (first = 0; first < n_frames; first += per_launch) {
    int n = n_frames - first < per_launch ? n_frames - first : per_launch;

    if (check (cudaMemcpyAsync (e->d_frames, frames + first * frame_bytes,
                frame_bytes * n, cudaMemcpyHostToDevice, e->stream),
            "cudaMemcpyAsync H2D", err, err_len))
      return -1;
    if (e->fp16)
      launch < __half > (e, n, width, height, stride);
    else
      launch < float >(e, n, width, height, stride);
    if (check (cudaGetLastError (), "kernel launch", err, err_len) ||
        check (cudaMemcpyAsync (s->h_out + (size_t) first * ANALYTICS_NET_OUT,
                e->d_out, sizeof (float) * n * ANALYTICS_NET_OUT,
                cudaMemcpyDeviceToHost, e->stream), "cudaMemcpyAsync D2H",
            err, err_len))
      return -1;
  }
  /* after the batch's last launch: the profiler's batch boundary too */
  return check (cudaEventRecord (s->done, e->stream), "cudaEventRecord", err,
      err_len);
}

extern "C" const float *
analytics_gpu_engine_wait (AnalyticsGpuEngine * e, int slot, char *err,
    size_t err_len)
{
  if (slot < 0 || slot >= e->n_slots) {
    snprintf (err, err_len, "slot %d out of 0..%d", slot, e->n_slots - 1);
    return NULL;
  }
  if (check (cudaEventSynchronize (e->slots[slot].done),
          "cudaEventSynchronize", err, err_len))
    return NULL;
  return e->slots[slot].h_out;
}

extern "C" const char *
analytics_gpu_engine_device_name (AnalyticsGpuEngine * e)
{
  return e->name;
}

extern "C" void
analytics_gpu_engine_free (AnalyticsGpuEngine * e)
{
  int l;

  if (!e)
    return;
  for (l = 0; l < ANALYTICS_NET_MAX_LAYERS; l++) {
    cudaFree (e->w[l]);
    cudaFree (e->b[l]);
  }
  cudaFree (e->d_frames);
  cudaFree (e->d_act[0]);
  cudaFree (e->d_act[1]);
  cudaFree (e->d_out);
  for (l = 0; l < e->n_slots; l++) {
    cudaFreeHost (e->slots[l].h_out);
    if (e->slots[l].done)
      cudaEventDestroy (e->slots[l].done);
  }
  free (e->slots);
  if (e->stream)
    cudaStreamDestroy (e->stream);
  free (e);
}
