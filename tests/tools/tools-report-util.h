/* tests/tools: running `gst-gpuprof report` (GST_GPUPROF names the tool). */
#pragma once

#include <glib.h>

gint tools_run_report (const gchar * file, gchar ** out, gchar ** err);
void tools_assert_report_equals (const gchar * file, const gchar * expected);
