/* gpuprof: the small JSON writing helpers every output shares.
 *
 * The core writes JSON by hand (no dependency for the tracer); these are the
 * one escaper and the one number format, so the trace, the summary and any
 * later output agree on them.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

GPUPROF_API
void gpuprof_json_append_string (GString * s, const gchar * str);
GPUPROF_API
gchar *gpuprof_json_quote (const gchar * str);
GPUPROF_API
void gpuprof_json_append_double (GString * s, gdouble v);

G_END_DECLS
