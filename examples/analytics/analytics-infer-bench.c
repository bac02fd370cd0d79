/* analytics-infer-bench: cost of one analyticsinfer launch vs its batch size,
 * on the CPU and (when built with CUDA and a GPU is there) the GPU, and how
 * closely the GPU matches the CPU. Needs no GStreamer at run time.
 *
 *   analytics-infer-bench [--size 512] [--layers 3] [--fp16] [--iters 50]
 *                         [--max-batch 32] [--no-cpu]
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analytics-net.h"
#ifdef HAVE_ANALYTICS_CUDA
#include "analytics-infer-gpu.h"
#endif

#define WIDTH 640
#define HEIGHT 360
#define STRIDE (WIDTH * 4)

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Frames that differ from each other: gradients and a moving block. */
static void
fill_frames (uint8_t * data, int n)
{
  int f, x, y;

  for (f = 0; f < n; f++)
    for (y = 0; y < HEIGHT; y++)
      for (x = 0; x < WIDTH; x++) {
        uint8_t *p = data + ((size_t) f * HEIGHT + y) * STRIDE + x * 4;
        int in_block = abs (x - 40 * (f % 16)) < 60 && abs (y - 180) < 60;

        p[0] = in_block ? 250 : (x * 255 / WIDTH);
        p[1] = in_block ? 250 : (y * 255 / HEIGHT);
        p[2] = (uint8_t) (f * 37);
        p[3] = 255;
      }
}

static void
cpu_launch (const AnalyticsNet * net, const uint8_t * frames, int n,
    float *features, float *scratch, float *out)
{
  int i;

  for (i = 0; i < n; i++)
    analytics_net_preprocess_cpu (frames + (size_t) i * HEIGHT * STRIDE, WIDTH,
        HEIGHT, STRIDE, features + (size_t) i * ANALYTICS_NET_IN);
  analytics_net_forward_cpu (net, features, n, scratch, out);
}

#ifdef HAVE_ANALYTICS_CUDA
/* One launch of @n frames and the wait for it (slot 0): @out gets the
 * logits when not NULL. Returns 0 on success. */
static int
gpu_launch (AnalyticsGpuEngine * gpu, const uint8_t * frames, int n,
    float *out, char *err, size_t err_len)
{
  const float *logits;

  if (analytics_gpu_engine_launch (gpu, 0, frames, n, n, WIDTH, HEIGHT,
          STRIDE, err, err_len))
    return -1;
  logits = analytics_gpu_engine_wait (gpu, 0, err, err_len);
  if (!logits)
    return -1;
  if (out)
    memcpy (out, logits, sizeof (float) * n * ANALYTICS_NET_OUT);
  return 0;
}
#endif

int
main (int argc, char **argv)
{
  int size = 512, layers = 3, fp16 = 0, iters = 50, max_batch = 32, cpu = 1;
  int i, bs;
  uint8_t *frames;
  float *features, *scratch, *cpu_out, *gpu_out;
  AnalyticsNet *net;
#ifdef HAVE_ANALYTICS_CUDA
  AnalyticsGpuEngine *gpu;
  char err[256] = "";
#endif

  for (i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--size") && i + 1 < argc)
      size = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--layers") && i + 1 < argc)
      layers = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--iters") && i + 1 < argc)
      iters = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--max-batch") && i + 1 < argc)
      max_batch = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--fp16"))
      fp16 = 1;
    else if (!strcmp (argv[i], "--no-cpu"))
      cpu = 0;
    else {
      fprintf (stderr, "usage: %s [--size N] [--layers N] [--fp16] "
          "[--iters N] [--max-batch N] [--no-cpu]\n", argv[0]);
      return 2;
    }
  }

  net = analytics_net_new (size, layers, fp16);
  frames = malloc ((size_t) max_batch * HEIGHT * STRIDE);
  features = malloc (sizeof (float) * max_batch * ANALYTICS_NET_IN);
  scratch = malloc (sizeof (float) * analytics_net_scratch_floats (net));
  cpu_out = malloc (sizeof (float) * max_batch * ANALYTICS_NET_OUT);
  gpu_out = malloc (sizeof (float) * max_batch * ANALYTICS_NET_OUT);
  if (!net || !frames || !features || !scratch || !cpu_out || !gpu_out)
    return 1;
  fill_frames (frames, max_batch);
  printf ("network: size %d, layers %d, %s; frames %dx%d RGBA\n", size, layers,
      fp16 ? "fp16" : "fp32", WIDTH, HEIGHT);

#ifdef HAVE_ANALYTICS_CUDA
  gpu = analytics_gpu_engine_new (net, 1, err, sizeof (err));
  if (gpu) {
    double max_diff = 0.0;
    int flips = 0;

    printf ("GPU: %s\n", analytics_gpu_engine_device_name (gpu));
    /* Same math: logits and decisions (logit > 0.405 = sigmoid 0.6). */
    cpu_launch (net, frames, max_batch, features, scratch, cpu_out);
    if (gpu_launch (gpu, frames, max_batch, gpu_out, err, sizeof (err))) {
      fprintf (stderr, "GPU run failed: %s\n", err);
      return 1;
    }
    for (i = 0; i < max_batch * ANALYTICS_NET_OUT; i++) {
      double d = fabs (cpu_out[i] - gpu_out[i]);

      max_diff = d > max_diff ? d : max_diff;
      flips += (cpu_out[i] > 0.405f) != (gpu_out[i] > 0.405f);
    }
    printf ("GPU vs CPU: max |logit difference| %.3g, decisions differing "
        "%d of %d\n", max_diff, flips, max_batch * ANALYTICS_NET_OUT);

    printf ("%-6s %14s %14s\n", "batch", "GPU us/launch", "GPU us/frame");
    for (bs = 1; bs <= max_batch; bs *= 2) {
      double t0;

      for (i = 0; i < 3; i++)
        gpu_launch (gpu, frames, bs, NULL, err, sizeof (err));
      t0 = now_us ();
      for (i = 0; i < iters; i++)
        gpu_launch (gpu, frames, bs, NULL, err, sizeof (err));
      t0 = (now_us () - t0) / iters;
      printf ("%-6d %14.1f %14.1f\n", bs, t0, t0 / bs);
    }
    analytics_gpu_engine_free (gpu);
  } else {
    printf ("GPU: none (%s)\n", err);
  }
#else
  printf ("GPU: built without CUDA\n");
#endif

  if (cpu) {
    printf ("%-6s %14s %14s\n", "batch", "CPU us/launch", "CPU us/frame");
    for (bs = 1; bs <= max_batch; bs *= 2) {
      int n = iters / 5 + 1;
      double t0 = now_us ();

      for (i = 0; i < n; i++)
        cpu_launch (net, frames, bs, features, scratch, cpu_out);
      t0 = (now_us () - t0) / n;
      printf ("%-6d %14.1f %14.1f\n", bs, t0, t0 / bs);
    }
  }

  analytics_net_free (net);
  free (frames);
  free (features);
  free (scratch);
  free (cpu_out);
  free (gpu_out);
  return 0;
}
