/* gpuprof: cuProfilerStart/Stop at the window's edges — see
 * gpuprof-cuda-profiler.h. CUDA's driver API is declared here by hand, the
 * few functions used (cuda.h's prototypes, stable since CUDA 4). */
#include "gpuprof-cuda-profiler.h"

#include <dlfcn.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;

#define CUDA_SUCCESS 0

typedef struct
{
  CUresult (*Init) (unsigned int flags);
  CUresult (*DeviceGetCount) (int *count);
  CUresult (*DeviceGet) (CUdevice * dev, int ordinal);
  CUresult (*PrimaryCtxGetState) (CUdevice dev, unsigned int *flags,
      int *active);
  CUresult (*PrimaryCtxRetain) (CUcontext * ctx, CUdevice dev);
  CUresult (*PrimaryCtxRelease) (CUdevice dev);
  CUresult (*CtxPushCurrent) (CUcontext ctx);
  CUresult (*CtxPopCurrent) (CUcontext * ctx);
  CUresult (*ProfilerStart) (void);
  CUresult (*ProfilerStop) (void);
  CUresult (*GetErrorName) (CUresult error, const char **str);
} CudaTable;

static CudaTable cu;
static gchar *load_error;       /* NULL: loaded */
static gsize loaded;

static gpointer
sym (void *module, const gchar * a, const gchar * b)
{
  gpointer f = dlsym (module, a);

  return f || !b ? f : dlsym (module, b);
}

static const gchar *
error_name (CUresult r)
{
  const char *name = NULL;

  if (cu.GetErrorName && cu.GetErrorName (r, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error";
}

static void
load (void)
{
  const gchar *path = g_getenv ("GPUPROF_CUDA_LIBRARY");
  CUresult r;
  void *m;

  if (!path || !*path)
    path = "libcuda.so.1";
  m = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!m) {
    load_error = g_strdup_printf ("%s not loadable (%s)", path, dlerror ());
    return;
  }
  /* the library stays: CUDA runs threads of its own */
  cu.Init = sym (m, "cuInit", NULL);
  cu.DeviceGetCount = sym (m, "cuDeviceGetCount", NULL);
  cu.DeviceGet = sym (m, "cuDeviceGet", NULL);
  cu.PrimaryCtxGetState = sym (m, "cuDevicePrimaryCtxGetState", NULL);
  cu.PrimaryCtxRetain = sym (m, "cuDevicePrimaryCtxRetain", NULL);
  cu.PrimaryCtxRelease = sym (m, "cuDevicePrimaryCtxRelease_v2",
      "cuDevicePrimaryCtxRelease");
  cu.CtxPushCurrent = sym (m, "cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  cu.CtxPopCurrent = sym (m, "cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  cu.ProfilerStart = sym (m, "cuProfilerStart", NULL);
  cu.ProfilerStop = sym (m, "cuProfilerStop", NULL);
  cu.GetErrorName = sym (m, "cuGetErrorName", NULL);
  if (!cu.Init || !cu.ProfilerStart || !cu.ProfilerStop
      || !cu.CtxPushCurrent || !cu.CtxPopCurrent)
    load_error = g_strdup_printf ("%s lacks cuInit, cuProfilerStart/Stop or "
        "cuCtxPush/PopCurrent", path);
  else if ((r = cu.Init (0)) != CUDA_SUCCESS)
    load_error = g_strdup_printf ("cuInit failed: %s (no GPU or driver?)",
        error_name (r));
}

typedef struct
{
  guint ok, failed;
  CUresult first_error;
} Outcome;

static void
note (Outcome * o, CUresult r)
{
  if (r == CUDA_SUCCESS) {
    o->ok++;
  } else if (!o->failed++) {
    o->first_error = r;
  }
}

/* the call with @ctx current on this thread, and back to none */
static void
call_in (gboolean start, CUcontext ctx, Outcome * o)
{
  CUcontext popped = NULL;
  CUresult r = cu.CtxPushCurrent (ctx);

  if (r != CUDA_SUCCESS) {
    note (o, r);
    return;
  }
  note (o, start ? cu.ProfilerStart () : cu.ProfilerStop ());
  cu.CtxPopCurrent (&popped);
}

/* every device's primary context that is active: retained (which creates
 * nothing when active), used, released */
static guint
primary_contexts (gboolean start, Outcome * o, GString * which)
{
  int count = 0, i;
  guint n = 0;

  if (!cu.DeviceGetCount || !cu.DeviceGet || !cu.PrimaryCtxGetState
      || !cu.PrimaryCtxRetain || !cu.PrimaryCtxRelease
      || cu.DeviceGetCount (&count) != CUDA_SUCCESS)
    return 0;
  for (i = 0; i < count; i++) {
    CUdevice dev;
    unsigned int flags = 0;
    int active = 0;
    CUcontext ctx = NULL;

    if (cu.DeviceGet (&dev, i) != CUDA_SUCCESS
        || cu.PrimaryCtxGetState (dev, &flags, &active) != CUDA_SUCCESS
        || !active || cu.PrimaryCtxRetain (&ctx, dev) != CUDA_SUCCESS)
      continue;
    call_in (start, ctx, o);
    cu.PrimaryCtxRelease (dev);
    g_string_append_printf (which, "%sprimary of device %d",
        which->len ? ", " : "", i);
    n++;
  }
  return n;
}

gchar *
gpuprof_cuda_profiler_call (gboolean start, GPtrArray * contexts)
{
  const gchar *what = start ? "cuProfilerStart" : "cuProfilerStop";
  GString *which = g_string_new (NULL);
  Outcome o = { 0, 0, 0 };
  guint n, i, given = 0;
  gchar *line;

  if (g_once_init_enter (&loaded)) {
    load ();
    g_once_init_leave (&loaded, 1);
  }
  if (load_error) {
    g_string_free (which, TRUE);
    return g_strdup_printf ("%s: not called: %s", what, load_error);
  }
  n = primary_contexts (start, &o, which);
  for (i = 0; contexts && i < contexts->len; i++) {
    call_in (start, g_ptr_array_index (contexts, i), &o);
    given++;
  }
  if (given)
    g_string_append_printf (which, "%s%u GStreamer", which->len ? ", " : "",
        given);
  n += given;
  if (!n) {
    /* no context known: the call itself, for profilers that watch it */
    note (&o, start ? cu.ProfilerStart () : cu.ProfilerStop ());
    line = o.ok ? g_strdup_printf ("%s: CUDA_SUCCESS with no context "
        "current (none active yet)", what) :
        g_strdup_printf ("%s: %s with no context current (none active: "
        "nsys still sees the call; ncu needs a context)", what,
        error_name (o.first_error));
  } else if (!o.failed) {
    line = g_strdup_printf ("%s: CUDA_SUCCESS on %u context%s (%s)", what, n,
        n == 1 ? "" : "s", which->str);
  } else {
    line = g_strdup_printf ("%s: %s on %u of %u context%s (%s)", what,
        error_name (o.first_error), o.failed, n, n == 1 ? "" : "s",
        which->str);
  }
  g_string_free (which, TRUE);
  return line;
}
