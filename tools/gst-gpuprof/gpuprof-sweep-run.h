/* gst-gpuprof sweep: the command (docs/sweep.md). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gint gpuprof_sweep_command (gint argc, gchar ** argv);

G_END_DECLS
