/* gpuprof: the metrics= endpoint.
 *
 * A plain GSocket accept loop on a GThread of our own: GSocketService and
 * GThreadedSocketService accept through a GMainContext that someone must
 * iterate, and a profiled application may run none (gst-launch's loop is
 * not ours to rely on). One scrape at a time, each answered and closed
 * (HTTP/1.0 style, Connection: close): Prometheus scrapes one target every
 * few seconds. A client that sends nothing within a second is dropped, so
 * one slow peer cannot stall the endpoint; the streaming threads never
 * wait for any of it (the body comes from a snapshot). */
#include "gpuprof-metrics-server.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#define POLL_MS 200             /* how often the loop looks at 'stop' */
#define CLIENT_TIMEOUT_S 1
#define MAX_REQUEST 8192

struct _GpuprofMetricsServer
{
  GSocket *listener;
  guint16 port;
  GpuprofMetricsBodyFunc body;
  gpointer user_data;
  GThread *thread;
  gint stop;                    /* atomic */
};

static const gchar valid_form[] = "HOST:PORT, :PORT or PORT "
    "(e.g. metrics=127.0.0.1:9464; host 127.0.0.1 when left out)";

gboolean
gpuprof_metrics_parse_address (const gchar * spec, gchar ** host,
    guint16 * port, GError ** error)
{
  const gchar *colon = spec ? strrchr (spec, ':') : NULL;
  const gchar *p = colon ? colon + 1 : spec;
  gchar *end = NULL;
  guint64 n;
  GInetAddress *addr;

  if (!spec || !*p)
    goto bad;
  n = g_ascii_strtoull (p, &end, 10);
  if (*end || n > 65535)
    goto bad;
  if (!colon || colon == spec)
    *host = g_strdup ("127.0.0.1");
  else if (spec[0] == '[' && colon[-1] == ']')
    *host = g_strndup (spec + 1, colon - spec - 2);
  else
    *host = g_strndup (spec, colon - spec);
  addr = g_inet_address_new_from_string (*host);
  if (!addr && strcmp (*host, "localhost")) {
    g_clear_pointer (host, g_free);
    goto bad;
  }
  g_clear_object (&addr);
  *port = (guint16) n;
  return TRUE;
bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
      "metrics=%s: not an address; valid: %s", spec ? spec : "", valid_form);
  return FALSE;
}

static void
respond (GSocket * client, const gchar * status, const gchar * type,
    const gchar * body)
{
  gchar *head = g_strdup_printf ("HTTP/1.1 %s\r\nContent-Type: %s\r\n"
      "Content-Length: %" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n",
      status, type, strlen (body));
  GOutputVector v[2] = { {head, strlen (head)}, {body, strlen (body)} };
  gsize left = v[0].size + v[1].size;

  /* a partial write is finished below; the client may also be gone */
  while (left) {
    gssize n = g_socket_send_message (client, NULL, v, 2, NULL, 0, 0, NULL,
        NULL);
    guint i;
    if (n <= 0)
      break;
    left -= n;
    for (i = 0; i < 2 && n > 0; i++) {
      gsize take = MIN ((gsize) n, v[i].size);
      v[i].buffer = (const guint8 *) v[i].buffer + take;
      v[i].size -= take;
      n -= take;
    }
  }
  g_free (head);
}

static void
serve_client (GpuprofMetricsServer * m, GSocket * client)
{
  gchar req[MAX_REQUEST + 1];
  gsize got = 0;
  gchar *body;

  g_socket_set_blocking (client, TRUE);
  g_socket_set_timeout (client, CLIENT_TIMEOUT_S);
  /* the request line and headers; the body of a GET is empty */
  while (got < MAX_REQUEST) {
    gssize n = g_socket_receive (client, req + got, MAX_REQUEST - got, NULL,
        NULL);
    if (n <= 0)
      return;
    got += n;
    req[got] = '\0';
    if (strstr (req, "\r\n\r\n") || strstr (req, "\n\n"))
      break;
  }
  req[got] = '\0';
  if (strncmp (req, "GET ", 4)) {
    respond (client, "405 Method Not Allowed", "text/plain",
        "only GET /metrics\n");
    return;
  }
  if (strncmp (req + 4, "/metrics", 8)) {
    respond (client, "404 Not Found", "text/plain", "try /metrics\n");
    return;
  }
  body = m->body (m->user_data);
  respond (client, "200 OK", "text/plain; version=0.0.4; charset=utf-8",
      body);
  g_free (body);
}

static gpointer
server_thread (gpointer data)
{
  GpuprofMetricsServer *m = data;

  while (!g_atomic_int_get (&m->stop)) {
    GSocket *client;

    if (!g_socket_condition_timed_wait (m->listener, G_IO_IN,
            POLL_MS * 1000, NULL, NULL))
      continue;
    client = g_socket_accept (m->listener, NULL, NULL);
    if (!client)
      continue;
    serve_client (m, client);
    g_socket_close (client, NULL);
    g_object_unref (client);
  }
  return NULL;
}

static GSocket *
listen_on (const gchar * host, guint16 port, guint16 * bound, GError ** error)
{
  GInetAddress *ia = g_inet_address_new_from_string (host);
  GSocketAddress *sa, *local;
  GSocket *sock;

  if (!ia)
    ia = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  sa = g_inet_socket_address_new (ia, port);
  g_object_unref (ia);
  sock = g_socket_new (g_socket_address_get_family (sa),
      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, error);
  if (sock && (!g_socket_bind (sock, sa, TRUE, error)
          || !g_socket_listen (sock, error)))
    g_clear_object (&sock);
  g_object_unref (sa);
  if (!sock)
    return NULL;
  g_socket_set_blocking (sock, FALSE);
  local = g_socket_get_local_address (sock, NULL);
  *bound = local ? g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS
      (local)) : port;
  g_clear_object (&local);
  return sock;
}

GpuprofMetricsServer *
gpuprof_metrics_server_start (const gchar * spec, GpuprofMetricsBodyFunc body,
    gpointer user_data)
{
  GpuprofMetricsServer *m;
  GError *err = NULL;
  gchar *host = NULL;
  guint16 port = 0, bound = 0;
  GSocket *sock;

  if (!gpuprof_metrics_parse_address (spec, &host, &port, &err)) {
    g_printerr ("gpuprof: %s\n", err->message);
    g_error_free (err);
    return NULL;
  }
  sock = listen_on (host, port, &bound, &err);
  if (!sock) {
    g_printerr ("gpuprof: metrics=%s: cannot listen on %s:%u (%s); no "
        "metrics endpoint, the pipeline runs on. Valid: %s\n", spec, host,
        port, err->message, valid_form);
    g_error_free (err);
    g_free (host);
    return NULL;
  }
  g_free (host);
  m = g_new0 (GpuprofMetricsServer, 1);
  m->listener = sock;
  m->port = bound;
  m->body = body;
  m->user_data = user_data;
  m->thread = g_thread_new ("gpuprof-metrics", server_thread, m);
  return m;
}

guint16
gpuprof_metrics_server_port (GpuprofMetricsServer * m)
{
  return m ? m->port : 0;
}

void
gpuprof_metrics_server_stop (GpuprofMetricsServer * m)
{
  if (!m)
    return;
  g_atomic_int_set (&m->stop, 1);
  g_thread_join (m->thread);
  g_socket_close (m->listener, NULL);
  g_object_unref (m->listener);
  g_free (m);
}
