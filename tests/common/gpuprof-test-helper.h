/* gpuprofhelpersink: a sink (not a filter, so never followed as an
 * asynchronous element) that starts a private helper thread when it starts
 * (READY -> PAUSED) and stops it when it stops (PAUSED -> READY). The
 * helper, named "h-" + the element's name, runs none of the element's
 * calls: it spins helper-spin-us of CPU time on its own thread CPU clock
 * (0: none), then only waits to be stopped, and reads its CPU clock once
 * more as it ends. helper-name names it otherwise (as a library names its
 * workers itself: FFmpeg 7's "av:h264:df0"); lazy=true starts it in the
 * first render instead (a thread an element starts in a chain call), the
 * render waiting until it runs, named. Buffers are simply dropped.
 * Registered by gpuprof_test_register_elements (). */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

void gpuprof_test_register_helper (void);

/* Waits until the helper of the gpuprofhelpersink @name in @pipeline has
 * spun its CPU time (it only waits from then on). */
void gpuprof_test_helper_wait_spun (GstElement * pipeline, const gchar * name);
/* The helper's whole CPU time on its own thread CPU clock, read as it
 * ended (the element stopped it): 0 while it runs. */
guint64 gpuprof_test_helper_cpu_ns (GstElement * pipeline, const gchar * name);

G_END_DECLS
