/* gpuprof: the HTML report, one self-contained file (docs/html.md). */
#pragma once

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* The page with @data_json (a run summary or a gst-gpuprof sweep JSON)
 * inside it: the page's script draws everything from it, offline. */
gchar *gpuprof_html_page (const gchar * data_json);
/* The page of one run */
gchar *gpuprof_html_format (const GpuprofSnapshot * snap);

G_END_DECLS
