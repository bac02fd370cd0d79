/* gpuprof: the metrics= endpoint.
 *
 * One thread of our own runs a poll(2) loop over the listening socket and
 * every open connection, all non-blocking, so clients are served
 * concurrently: an idle or slow client costs one slot and never delays a
 * scrape. GSocketService / GThreadedSocketService were not used: they
 * accept through a GMainContext that someone must iterate (a profiled
 * application may run none), and the threaded one parks a thread on each
 * connection, so idle clients exhaust its pool.
 *
 * Each connection must send its request within REQUEST_DEADLINE_MS of
 * being accepted (else it is closed) and take its answer within
 * RESPONSE_DEADLINE_MS. At most MAX_CONNECTIONS are open: a new one past
 * that closes the oldest still sending its request (an idle client, a
 * port scanner, a stuck health check), so a scraper, whose request follows
 * its connect at once, is always served. Answers are HTTP/1.1 with
 * Connection: close; after the answer the rest of the request is read and
 * dropped until the client closes (at most LINGER_MS), so a client still
 * sending a huge header reads the answer instead of a reset. The streaming
 * threads never wait for any of it (the body comes from a snapshot).
 * docs/metrics.md, "How it works". */
#include "gpuprof-metrics-server.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNECTIONS 128
#define REQUEST_DEADLINE_MS 2000
#define RESPONSE_DEADLINE_MS 10000
#define LINGER_MS 1000
#define MAX_REQUEST 8192

typedef enum
{
  CONN_READING,                 /* the request line and headers */
  CONN_WRITING,                 /* the answer */
  CONN_LINGERING,               /* answered: what the client still sends is
                                 * dropped until it closes */
} ConnState;

typedef struct
{
  GSocket *socket;
  gint fd;
  ConnState state;
  gint64 accepted_us;           /* monotonic: the oldest goes first at the cap */
  gint64 deadline_us;           /* of the current state */
  gchar *req;                   /* MAX_REQUEST + 1 */
  gsize got;
  gchar *out;                   /* the answer */
  gsize out_len, out_done;
} Conn;

struct _GpuprofMetricsServer
{
  GSocket *listener;
  guint16 port;
  GpuprofMetricsBodyFunc body;
  gpointer user_data;
  GThread *thread;
  pid_t pid;                    /* the process the thread runs in */
  gint wake[2];                 /* a byte on wake[1] stops the loop */
  gint stop;                    /* atomic */
  GPtrArray *conns;             /* Conn *, on the server thread only */
  guint evicted;                /* closed at the cap, for the debug log */
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

/* --- one connection ------------------------------------------------------ */

static void
conn_free (gpointer data)
{
  Conn *c = data;

  g_socket_close (c->socket, NULL);
  g_object_unref (c->socket);
  g_free (c->req);
  g_free (c->out);
  g_free (c);
}

static void
conn_answer (Conn * c, const gchar * status, const gchar * type,
    const gchar * body)
{
  gsize len = strlen (body);
  gchar *head = g_strdup_printf ("HTTP/1.1 %s\r\nContent-Type: %s\r\n"
      "Content-Length: %" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n",
      status, type, len);
  gsize head_len = strlen (head);

  c->out = g_malloc (head_len + len);
  memcpy (c->out, head, head_len);
  memcpy (c->out + head_len, body, len);
  c->out_len = head_len + len;
  c->out_done = 0;
  g_free (head);
  c->state = CONN_WRITING;
  c->deadline_us = g_get_monotonic_time () + RESPONSE_DEADLINE_MS * 1000;
}

/* the request is in (or MAX_REQUEST of it): the answer is decided by its
 * first line */
static void
conn_route (GpuprofMetricsServer * m, Conn * c)
{
  const gchar *path = c->req + 4;
  gchar *body;

  if (strncmp (c->req, "GET ", 4)) {
    conn_answer (c, "405 Method Not Allowed", "text/plain",
        "only GET /metrics\n");
    return;
  }
  if (strncmp (path, "/metrics", 8) || !strchr (" ?\r\n", path[8])) {
    conn_answer (c, "404 Not Found", "text/plain", "try /metrics\n");
    return;
  }
  body = m->body (m->user_data);
  conn_answer (c, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body);
  g_free (body);
}

/* FALSE: the connection is done (closed by the client, an error) */
static gboolean
conn_read (GpuprofMetricsServer * m, Conn * c)
{
  for (;;) {
    gchar drop[4096];
    gboolean reading = c->state == CONN_READING;
    gssize n = reading ? recv (c->fd, c->req + c->got, MAX_REQUEST - c->got,
        0) : recv (c->fd, drop, sizeof (drop), 0);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK;
    if (n == 0)
      return FALSE;
    if (!reading)
      continue;
    c->got += n;
    c->req[c->got] = '\0';
    if (c->got == MAX_REQUEST || strstr (c->req, "\r\n\r\n")
        || strstr (c->req, "\n\n")) {
      conn_route (m, c);
      return TRUE;
    }
  }
}

/* FALSE: the connection is done */
static gboolean
conn_write (Conn * c)
{
  while (c->out_done < c->out_len) {
    gssize n = send (c->fd, c->out + c->out_done, c->out_len - c->out_done,
        MSG_NOSIGNAL);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK;
    c->out_done += n;
  }
  /* all sent: tell the client, then drop what it still sends */
  shutdown (c->fd, SHUT_WR);
  c->state = CONN_LINGERING;
  c->deadline_us = g_get_monotonic_time () + LINGER_MS * 1000;
  return TRUE;
}

/* --- the loop ------------------------------------------------------------ */

/* at the cap: the oldest connection still sending its request (else the
 * oldest) makes room */
static void
evict_one (GpuprofMetricsServer * m)
{
  guint i, victim = 0;
  gboolean reading = FALSE;

  for (i = 0; i < m->conns->len; i++) {
    Conn *c = g_ptr_array_index (m->conns, i);
    Conn *v = g_ptr_array_index (m->conns, victim);
    gboolean r = c->state == CONN_READING;

    if ((r && !reading) || (r == reading && c->accepted_us < v->accepted_us)) {
      victim = i;
      reading = r;
    }
  }
  if (++m->evicted % 1000 == 1)
    g_debug ("metrics=: %u open connections: the oldest is closed to make "
        "room (%u so far)", MAX_CONNECTIONS, m->evicted);
  g_ptr_array_remove_index_fast (m->conns, victim);
}

static void
accept_all (GpuprofMetricsServer * m)
{
  GSocket *s;

  while ((s = g_socket_accept (m->listener, NULL, NULL))) {
    Conn *c = g_new0 (Conn, 1);

    if (m->conns->len >= MAX_CONNECTIONS)
      evict_one (m);
    g_socket_set_blocking (s, FALSE);
    c->socket = s;
    c->fd = g_socket_get_fd (s);
    g_unix_set_fd_nonblocking (c->fd, TRUE, NULL);
    c->state = CONN_READING;
    c->accepted_us = g_get_monotonic_time ();
    c->deadline_us = c->accepted_us + REQUEST_DEADLINE_MS * 1000;
    c->req = g_malloc (MAX_REQUEST + 1);
    c->req[0] = '\0';
    g_ptr_array_add (m->conns, c);
  }
}

static void
poll_add (GArray * fds, gint fd, gshort events)
{
  struct pollfd pfd;

  pfd.fd = fd;
  pfd.events = events;
  pfd.revents = 0;
  g_array_append_val (fds, pfd);
}

/* the poll set: wake pipe, listener, then the connections in order; the
 * timeout runs to the nearest deadline */
static gint
fill_poll (GpuprofMetricsServer * m, GArray * fds)
{
  gint64 now = g_get_monotonic_time (), next = G_MAXINT64;
  guint i;

  g_array_set_size (fds, 0);
  poll_add (fds, m->wake[0], POLLIN);
  poll_add (fds, g_socket_get_fd (m->listener), POLLIN);
  for (i = 0; i < m->conns->len; i++) {
    Conn *c = g_ptr_array_index (m->conns, i);

    poll_add (fds, c->fd, c->state == CONN_WRITING ? POLLOUT : POLLIN);
    next = MIN (next, c->deadline_us);
  }
  if (next == G_MAXINT64)
    return -1;
  return next <= now ? 0 : (gint) ((next - now + 999) / 1000);
}

/* each connection that polled ready, then those past their deadline */
static void
serve_ready (GpuprofMetricsServer * m, GArray * fds)
{
  gint64 now;
  guint i;

  for (i = m->conns->len; i > 0; i--) {
    Conn *c = g_ptr_array_index (m->conns, i - 1);
    const struct pollfd *pfd = &g_array_index (fds, struct pollfd, i + 1);
    gboolean alive = TRUE;

    if (pfd->revents & (POLLERR | POLLNVAL))
      alive = FALSE;
    else if (pfd->revents & (POLLIN | POLLHUP))
      alive = c->state == CONN_WRITING || conn_read (m, c);
    if (alive && c->state == CONN_WRITING)
      alive = conn_write (c);
    if (!alive)
      g_ptr_array_remove_index_fast (m->conns, i - 1);
  }
  now = g_get_monotonic_time ();
  for (i = m->conns->len; i > 0; i--) {
    Conn *c = g_ptr_array_index (m->conns, i - 1);

    if (now >= c->deadline_us)
      g_ptr_array_remove_index_fast (m->conns, i - 1);
  }
}

static gpointer
server_thread (gpointer data)
{
  GpuprofMetricsServer *m = data;
  GArray *fds = g_array_new (FALSE, FALSE, sizeof (struct pollfd));

  while (!g_atomic_int_get (&m->stop)) {
    gint timeout = fill_poll (m, fds);

    if (poll ((struct pollfd *) fds->data, fds->len, timeout) < 0
        && errno != EINTR)
      break;
    if (g_array_index (fds, struct pollfd, 0).revents) {
      gchar drain[16];

      /* woken to stop (the loop checks) */
      while (read (m->wake[0], drain, sizeof (drain)) > 0);
      continue;
    }
    /* the ready connections first: a request that came is answered before
     * new connections could push it out at the cap */
    serve_ready (m, fds);
    if (g_array_index (fds, struct pollfd, 1).revents & POLLIN)
      accept_all (m);
  }
  g_array_unref (fds);
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
  /* a burst of connections waits in the kernel until accepted */
  if (sock)
    g_socket_set_listen_backlog (sock, MAX_CONNECTIONS);
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
  if (!g_unix_open_pipe (m->wake, FD_CLOEXEC, &err)) {
    g_printerr ("gpuprof: metrics=%s: %s; no metrics endpoint, the pipeline "
        "runs on\n", spec, err->message);
    g_error_free (err);
    g_object_unref (sock);
    g_free (m);
    return NULL;
  }
  g_unix_set_fd_nonblocking (m->wake[0], TRUE, NULL);
  m->listener = sock;
  m->port = bound;
  m->body = body;
  m->user_data = user_data;
  m->conns = g_ptr_array_new_with_free_func (conn_free);
  m->pid = getpid ();
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
  /* a child forked after the start has no server thread (and must not
   * wake its parent's through the shared pipe) */
  if (getpid () == m->pid) {
    g_atomic_int_set (&m->stop, 1);
    while (write (m->wake[1], "x", 1) < 0 && errno == EINTR);
    g_thread_join (m->thread);
  } else {
    g_thread_unref (m->thread);
  }
  g_ptr_array_unref (m->conns);
  close (m->wake[0]);
  close (m->wake[1]);
  g_socket_close (m->listener, NULL);
  g_object_unref (m->listener);
  g_free (m);
}
