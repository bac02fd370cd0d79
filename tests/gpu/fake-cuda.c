/* A fake libcuda for the measurement window's test (window=, issue 23):
 * the driver calls gst/gpu/gpuprof-cuda-profiler.c makes, with a current
 * context per thread as CUDA keeps it. cuProfilerStart/Stop fail with
 * CUDA_ERROR_INVALID_CONTEXT (201) where no context is current, as the
 * real ones do; each call is recorded (CLOCK_MONOTONIC ns, the context,
 * the result) for the test to read back (fake_cuda_profiler_calls()).
 *
 * Environment, read at cuInit:
 *   FAKE_CUDA_DEVICES=N          devices (default 1)
 *   FAKE_CUDA_PRIMARY_ACTIVE=0|1 their primary contexts are active
 *                                (default 1: an application using the
 *                                runtime API)
 * cuDevicePrimaryCtxRetain on an inactive device counts as a context
 * created (fake_cuda_created()): gpuprof must never do that. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define MAX_DEVICES 8
#define MAX_CALLS 64
#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_INVALID_CONTEXT 201

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;

typedef struct
{
  int start;                    /* 1 start, 0 stop */
  unsigned long long ns;
  CUcontext ctx;
  CUresult result;
} Call;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized, n_devices = 1, primary_active = 1, created;
static char primary[MAX_DEVICES];       /* their handles: &primary[i] */
static Call calls[MAX_CALLS];
static int n_calls;
static __thread CUcontext current;

static unsigned long long
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (unsigned long long) ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

EXPORT CUresult
cuInit (unsigned int flags)
{
  const char *d = getenv ("FAKE_CUDA_DEVICES");
  const char *a = getenv ("FAKE_CUDA_PRIMARY_ACTIVE");

  pthread_mutex_lock (&lock);
  if (!initialized) {
    n_devices = d ? atoi (d) : 1;
    if (n_devices < 0 || n_devices > MAX_DEVICES)
      n_devices = 1;
    primary_active = a ? atoi (a) : 1;
    initialized = 1;
  }
  pthread_mutex_unlock (&lock);
  return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

EXPORT CUresult
cuDeviceGetCount (int *count)
{
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = n_devices;
  return CUDA_SUCCESS;
}

EXPORT CUresult
cuDeviceGet (CUdevice * dev, int ordinal)
{
  if (ordinal < 0 || ordinal >= n_devices)
    return CUDA_ERROR_INVALID_VALUE;
  *dev = ordinal;
  return CUDA_SUCCESS;
}

EXPORT CUresult
cuDevicePrimaryCtxGetState (CUdevice dev, unsigned int *flags, int *active)
{
  if (dev < 0 || dev >= n_devices)
    return CUDA_ERROR_INVALID_VALUE;
  *flags = 0;
  *active = primary_active;
  return CUDA_SUCCESS;
}

EXPORT CUresult
cuDevicePrimaryCtxRetain (CUcontext * ctx, CUdevice dev)
{
  if (dev < 0 || dev >= n_devices)
    return CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock (&lock);
  if (!primary_active)
    created++;
  pthread_mutex_unlock (&lock);
  *ctx = &primary[dev];
  return CUDA_SUCCESS;
}

EXPORT CUresult
cuDevicePrimaryCtxRelease_v2 (CUdevice dev)
{
  return dev >= 0 && dev < n_devices ? CUDA_SUCCESS :
      CUDA_ERROR_INVALID_VALUE;
}

/* one level is all gpuprof pushes */
EXPORT CUresult
cuCtxPushCurrent_v2 (CUcontext ctx)
{
  if (!ctx)
    return CUDA_ERROR_INVALID_CONTEXT;
  current = ctx;
  return CUDA_SUCCESS;
}

EXPORT CUresult
cuCtxPopCurrent_v2 (CUcontext * ctx)
{
  if (!current)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx)
    *ctx = current;
  current = NULL;
  return CUDA_SUCCESS;
}

static CUresult
record (int start)
{
  CUresult r = current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;

  pthread_mutex_lock (&lock);
  if (n_calls < MAX_CALLS) {
    calls[n_calls].start = start;
    calls[n_calls].ns = now_ns ();
    calls[n_calls].ctx = current;
    calls[n_calls].result = r;
    n_calls++;
  }
  pthread_mutex_unlock (&lock);
  return r;
}

EXPORT CUresult
cuProfilerStart (void)
{
  return record (1);
}

EXPORT CUresult
cuProfilerStop (void)
{
  return record (0);
}

EXPORT CUresult
cuGetErrorName (CUresult error, const char **str)
{
  switch (error) {
    case CUDA_SUCCESS:
      *str = "CUDA_SUCCESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT:
      *str = "CUDA_ERROR_INVALID_CONTEXT";
      return CUDA_SUCCESS;
    default:
      *str = "CUDA_ERROR_UNKNOWN";
      return CUDA_SUCCESS;
  }
}

/* ---- for the tests ---- */

/* The profiler calls so far, in order: @start[i] 1 for a start, @ns[i]
 * their time, @ok[i] 1 when they had a context; how many */
EXPORT int
fake_cuda_profiler_calls (int *start, unsigned long long *ns, int *ok,
    int max)
{
  int i, n;

  pthread_mutex_lock (&lock);
  n = n_calls < max ? n_calls : max;
  for (i = 0; i < n; i++) {
    start[i] = calls[i].start;
    ns[i] = calls[i].ns;
    ok[i] = calls[i].result == CUDA_SUCCESS;
  }
  pthread_mutex_unlock (&lock);
  return n;
}

/* primary contexts retained while inactive: created by the caller */
EXPORT int
fake_cuda_created (void)
{
  return created;
}
