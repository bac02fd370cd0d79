/* gpuprof: what libgstgpuprof-1.0 exports.
 *
 * The library is built with hidden symbols (gst/meson.build): only a
 * declaration marked GPUPROF_API is part of its public API, what the
 * tracer plugin, gpuprofmeter, the gst-gpuprof tool and the tests use.
 * Everything else — a module's calls to another, the *_locked internals —
 * stays inside the library.
 */
#pragma once

#define GPUPROF_API __attribute__ ((visibility ("default"))) extern
