/* gpuprof: the metrics= endpoint — /metrics over HTTP from a thread of our
 * own (docs/metrics.md). */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GpuprofMetricsServer GpuprofMetricsServer;

/* Builds one /metrics body (called on the server's thread). */
typedef gchar *(*GpuprofMetricsBodyFunc) (gpointer user_data);

/* Parses "HOST:PORT", ":PORT" or "PORT" (host 127.0.0.1). Returns FALSE
 * and an error naming the value and the valid form. */
gboolean gpuprof_metrics_parse_address (const gchar * spec, gchar ** host,
    guint16 * port, GError ** error);

/* Listens on 'spec' and serves until stopped; NULL after one stderr line
 * naming the address when it cannot listen (bad address, port in use). */
GPUPROF_API
GpuprofMetricsServer *gpuprof_metrics_server_start (const gchar * spec,
    GpuprofMetricsBodyFunc body, gpointer user_data);
/* the port listened on (the real one when spec asked for port 0) */
GPUPROF_API
guint16 gpuprof_metrics_server_port (GpuprofMetricsServer * m);
GPUPROF_API
void gpuprof_metrics_server_stop (GpuprofMetricsServer * m);

G_END_DECLS
