/* gst-gpuprof html: the HTML report of a saved run or of a sweep. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gint gpuprof_html_command (gint argc, gchar ** argv);

G_END_DECLS
