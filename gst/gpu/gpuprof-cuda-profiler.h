/* gpuprof: the CUDA profiler API at the edges of the measurement window
 * (window=, issue 23), so that `nsys profile --capture-range=cudaProfilerApi`
 * and `ncu --profile-from-start off` capture the window gpuprof reports on.
 *
 * libcuda.so.1 ($GPUPROF_CUDA_LIBRARY instead) is dlopen'ed at the first
 * edge, never linked and never loaded before (a process without CUDA pays
 * nothing). cuProfilerStart/Stop act on the calling thread's current
 * context, and the sampler thread that calls them has none: each context
 * known is pushed around the call —
 *   - the primary context of every device, where it is active already
 *     (cuDevicePrimaryCtxGetState: the runtime API's, DeepStream's and the
 *     analytics example's); never created here (that would cost hundreds
 *     of MB of GPU memory and a context of its own);
 *   - contexts the caller passes: GStreamer's own CUDA contexts (its
 *     nvcodec and cuda elements make theirs with cuCtxCreate), found on the
 *     pipeline's elements (gst.cuda.context), their handles read with
 *     libgstcuda's gst_cuda_context_get_handle where it is loaded.
 * With no context at all the call is made as is, for the profilers that
 * watch the API call itself, and the result says CUDA's answer.
 *
 * Threading: the sampler thread only; off the buffer path (a context push
 * takes CUDA's locks: never where a buffer waits). */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* Calls cuProfilerStart (@start) or cuProfilerStop on each context of
 * @contexts (CUcontext handles, may be %NULL) and of every active primary
 * context. Returns what happened, one line ("cuProfilerStart: CUDA_SUCCESS
 * on 2 contexts (primary of device 0, 1 GStreamer)", "cuProfilerStart: not
 * called: libcuda.so.1 not loadable (...)"). */
GPUPROF_API
gchar *gpuprof_cuda_profiler_call (gboolean start, GPtrArray * contexts);

G_END_DECLS
