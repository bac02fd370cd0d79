/* The stand-in detection network of analyticsinfer: weights and the CPU
 * implementation. See analytics-net.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytics-net.h"

/* Round to the nearest IEEE half (ties to even), back in a float: the CPU
 * emulation of fp16 storage. */
float
analytics_net_round_half (float v)
{
#if defined(__FLT16_MAX__)
  return (float) (_Float16) v;
#else
  union
  {
    float f;
    uint32_t u;
  } x = { v };
  uint32_t lsb = (x.u >> 13) & 1;

  /* Normal range only: values of this network never leave it. */
  x.u += 0x0fff + lsb;
  x.u &= ~0x1fffu;
  return x.f;
#endif
}

/* splitmix64: weights depend on nothing but their position. */
static uint64_t
next_random (uint64_t * state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static float
uniform (uint64_t * state)
{
  return (float) ((next_random (state) >> 40) / (double) (1ull << 24)) * 2.0f
      - 1.0f;
}

AnalyticsNet *
analytics_net_new (int hidden_size, int hidden_layers, int fp16)
{
  AnalyticsNet *net = calloc (1, sizeof (AnalyticsNet));
  uint64_t state = 0x6770757072f0f0ull;
  int l;

  if (!net || hidden_layers < 1 || hidden_layers >= ANALYTICS_NET_MAX_LAYERS) {
    free (net);
    return NULL;
  }
  net->n_layers = hidden_layers + 1;
  net->fp16 = fp16;
  net->dims[0] = ANALYTICS_NET_IN;
  for (l = 1; l < net->n_layers; l++)
    net->dims[l] = hidden_size;
  net->dims[net->n_layers] = ANALYTICS_NET_OUT;

  for (l = 0; l < net->n_layers; l++) {
    int k = net->dims[l], n = net->dims[l + 1], i;
    int head = (l == net->n_layers - 1);
    /* He-uniform keeps activations in range through ReLU layers; the input
     * layer is scaled up because features lie in [-0.5, 0.5]. */
    float scale = sqrtf (6.0f / k) * (l == 0 ? 3.0f : 1.0f);

    net->weights[l] = malloc (sizeof (float) * k * n);
    net->bias[l] = malloc (sizeof (float) * n);
    if (!net->weights[l] || !net->bias[l]) {
      analytics_net_free (net);
      return NULL;
    }
    for (i = 0; i < k * n; i++)
      net->weights[l][i] = uniform (&state) * scale;
    for (i = 0; i < n; i++)
      net->bias[l][i] = head ? -1.0f : 0.1f * uniform (&state);
    if (fp16) {
      for (i = 0; i < k * n; i++)
        net->weights[l][i] = analytics_net_round_half (net->weights[l][i]);
      for (i = 0; i < n; i++)
        net->bias[l][i] = analytics_net_round_half (net->bias[l][i]);
    }
  }
  return net;
}

void
analytics_net_free (AnalyticsNet * net)
{
  int l;

  if (!net)
    return;
  for (l = 0; l < ANALYTICS_NET_MAX_LAYERS; l++) {
    free (net->weights[l]);
    free (net->bias[l]);
  }
  free (net);
}

size_t
analytics_net_scratch_floats (const AnalyticsNet * net)
{
  int l, max = 0;

  for (l = 0; l <= net->n_layers; l++)
    max = net->dims[l] > max ? net->dims[l] : max;
  return 2 * (size_t) max;
}

void
analytics_net_preprocess_cpu (const uint8_t * frame, int width, int height,
    int stride, float *features)
{
  int cy, cx, x, y;

  for (cy = 0; cy < ANALYTICS_NET_GRID; cy++) {
    int y0 = cy * height / ANALYTICS_NET_GRID;
    int y1 = (cy + 1) * height / ANALYTICS_NET_GRID;

    for (cx = 0; cx < ANALYTICS_NET_GRID; cx++) {
      int x0 = cx * width / ANALYTICS_NET_GRID;
      int x1 = (cx + 1) * width / ANALYTICS_NET_GRID;
      uint32_t sum = 0;
      int n = (y1 - y0) * (x1 - x0);

      for (y = y0; y < y1; y++) {
        const uint8_t *p = frame + (size_t) y * stride + (size_t) x0 * 4;

        for (x = x0; x < x1; x++, p += 4)
          sum += p[0] + 2 * p[1] + p[2];
      }
      /* Integer sum: the GPU gets the same value whatever its order. */
      features[cy * ANALYTICS_NET_GRID + cx] =
          n ? (float) sum / (1020.0f * n) - 0.5f : 0.0f;
    }
  }
}

/* out[n] = act (bias[n] + sum_k in[k] * w[k][n]) */
static void
dense (const float *in, const float *w, const float *bias, int k, int n,
    int relu, int fp16, float *out)
{
  int i, j;

  for (j = 0; j < n; j++)
    out[j] = 0.0f;
  for (i = 0; i < k; i++) {
    const float a = in[i];
    const float *row = w + (size_t) i * n;

    if (a == 0.0f)
      continue;
    for (j = 0; j < n; j++)
      out[j] += a * row[j];
  }
  for (j = 0; j < n; j++) {
    float v = out[j] + bias[j];

    if (relu && v < 0.0f)
      v = 0.0f;
    out[j] = fp16 ? analytics_net_round_half (v) : v;
  }
}

void
analytics_net_forward_cpu (const AnalyticsNet * net, const float *features,
    int n_frames, float *scratch, float *out)
{
  size_t half = analytics_net_scratch_floats (net) / 2;
  int f, l;

  for (f = 0; f < n_frames; f++) {
    const float *in = features + (size_t) f * ANALYTICS_NET_IN;
    float *a = scratch, *b = scratch + half;

    for (l = 0; l < ANALYTICS_NET_IN; l++)
      a[l] = net->fp16 ? analytics_net_round_half (in[l]) : in[l];
    for (l = 0; l < net->n_layers; l++) {
      int head = (l == net->n_layers - 1);
      float *dst = head ? out + (size_t) f * ANALYTICS_NET_OUT : b;

      dense (a, net->weights[l], net->bias[l], net->dims[l], net->dims[l + 1],
          !head, net->fp16, dst);
      b = a;
      a = dst;
    }
  }
}
