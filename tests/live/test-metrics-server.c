/* The metrics= endpoint's server (gst/session/gpuprof-metrics-server.c),
 * with a body of the test's own, over real TCP sockets:
 *
 * - 100 idle connections held open (the server keeps them: none is closed
 *   yet) and a scrape still answers within a second. The bound is a
 *   functional one, not a speed target: the answer costs the server
 *   microseconds, and a thread waiting in poll() is scheduled within
 *   milliseconds even on a loaded 2-core machine, while a server that
 *   serves one client at a time answers after the idle clients' timeouts
 *   (a second each: 100 s);
 * - past the cap (128 open connections) the oldest idle ones are closed and
 *   a scrape still answers within a second;
 * - a client that sends nothing is closed at its read deadline (2 s), not
 *   before;
 * - garbage, POST, unknown paths, a 2 MB header and a request sent byte by
 *   byte get sane answers (405, 405, 404, 200, 200) that the client reads.
 */
#include <gio/gio.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gpuprof-metrics-server.h"

#define IDLE 100
#define OVER_CAP 200
#define CAP 128

static gint scrapes;            /* atomic */

static gchar *
body (gpointer user_data)
{
  g_atomic_int_inc (&scrapes);
  return g_strdup ("# TYPE test_up gauge\ntest_up 1\n");
}

static gint
connect_to (guint16 port)
{
  struct sockaddr_in a = { 0 };
  gint fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  a.sin_family = AF_INET;
  a.sin_port = g_htons (port);
  a.sin_addr.s_addr = g_htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &a, sizeof (a)), ==, 0);
  return fd;
}

static void
send_all (gint fd, const gchar * data, gsize len)
{
  while (len > 0) {
    gssize n = send (fd, data, len, MSG_NOSIGNAL);

    g_assert_cmpint (n, >, 0);
    data += n;
    len -= n;
  }
}

/* everything the server sends until it closes (a 30 s hang guard) */
static gchar *
read_to_eof (gint fd)
{
  GString *s = g_string_new (NULL);
  gchar buf[4096];

  for (;;) {
    struct pollfd p = { fd, POLLIN, 0 };
    gssize n;

    g_assert_cmpint (poll (&p, 1, 30000), ==, 1);
    n = recv (fd, buf, sizeof (buf), 0);
    if (n <= 0)
      break;
    g_string_append_len (s, buf, n);
  }
  return g_string_free (s, FALSE);
}

static gchar *
ask (guint16 port, const gchar * request, gsize len)
{
  gint fd = connect_to (port);
  gchar *answer;

  send_all (fd, request, len);
  answer = read_to_eof (fd);
  close (fd);
  return answer;
}

/* one scrape: its answer, and how long it took in *elapsed_us */
static gchar *
scrape (guint16 port, gint64 * elapsed_us)
{
  static const gchar get[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  gint64 t0 = g_get_monotonic_time ();
  gchar *answer = ask (port, get, strlen (get));

  *elapsed_us = g_get_monotonic_time () - t0;
  return answer;
}

/* the server closed @fd: recv() says end of file */
static gboolean
closed_by_server (gint fd, gint wait_ms)
{
  struct pollfd p = { fd, POLLIN, 0 };
  gchar c;

  if (poll (&p, 1, wait_ms) != 1)
    return FALSE;
  return recv (fd, &c, 1, MSG_DONTWAIT) == 0;
}

static GpuprofMetricsServer *
start (void)
{
  GpuprofMetricsServer *m = gpuprof_metrics_server_start ("127.0.0.1:0",
      body, NULL);

  g_assert_nonnull (m);
  g_assert_cmpuint (gpuprof_metrics_server_port (m), >, 0);
  return m;
}

static void
check_scrape (guint16 port, const gchar * when)
{
  gint64 us;
  gchar *answer = scrape (port, &us);

  g_test_message ("%s: scrape answered in %.1f ms", when, us / 1e3);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200 OK\r\n"));
  g_assert_nonnull (strstr (answer, "\r\n\r\n# TYPE test_up gauge\ntest_up 1\n"));
  g_assert_cmpint (us, <, G_USEC_PER_SEC);
  g_free (answer);
}

/* @n idle clients connect, then a scrape answers within a second; past
 * the cap the oldest made room (closed by the server at once), the others
 * are held open: checked while their read deadline (2 s) cannot have
 * passed */
static void
idle_clients_then_scrape (gint n)
{
  GpuprofMetricsServer *m = start ();
  guint16 port = gpuprof_metrics_server_port (m);
  gint *fds = g_new (gint, n), i, open_ = 0, evicted = MAX (0, n - CAP + 1);
  gint64 t0 = g_get_monotonic_time ();
  gchar *when = g_strdup_printf ("%d idle clients", n);

  for (i = 0; i < n; i++)
    fds[i] = connect_to (port);
  check_scrape (port, when);
  for (i = 0; i < n - CAP; i++)
    g_assert_true (closed_by_server (fds[i], 30000));
  for (i = evicted; i < n; i++)
    open_ += !closed_by_server (fds[i], 0);
  if (g_get_monotonic_time () - t0 < 1500 * G_TIME_SPAN_MILLISECOND)
    g_assert_cmpint (open_, ==, n - evicted);
  else
    g_test_message ("loaded machine: the idle clients' deadline may have "
        "passed, their count not checked (%d open)", open_);
  for (i = 0; i < n; i++)
    close (fds[i]);
  g_free (fds);
  g_free (when);
  gpuprof_metrics_server_stop (m);
}

static void
test_idle_clients (void)
{
  idle_clients_then_scrape (IDLE);
}

static void
test_cap (void)
{
  idle_clients_then_scrape (OVER_CAP);
}

static void
test_read_deadline (void)
{
  GpuprofMetricsServer *m = start ();
  gint64 t0 = g_get_monotonic_time ();
  gint fd = connect_to (gpuprof_metrics_server_port (m));
  gint64 took;

  g_assert_true (closed_by_server (fd, 30000));
  took = g_get_monotonic_time () - t0;
  g_test_message ("an idle client was closed after %.2f s", took / 1e6);
  /* the server accepted after the connect: never before its deadline */
  g_assert_cmpint (took, >=, 2 * G_USEC_PER_SEC);
  close (fd);
  gpuprof_metrics_server_stop (m);
}

static void
check_answer (guint16 port, const gchar * request, gsize len,
    const gchar * status)
{
  gchar *answer = ask (port, request, len);

  g_assert_true (g_str_has_prefix (answer, status));
  g_assert_nonnull (strstr (answer, "Connection: close\r\n"));
  g_free (answer);
}

static void
test_answers (void)
{
  static const gchar *const cases[][2] = {
    {"\x01\x02garbage\r\n\r\n", "HTTP/1.1 405 "},
    {"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 "},
    {"GET /other HTTP/1.1\r\n\r\n", "HTTP/1.1 404 "},
    {"GET /metricsX HTTP/1.1\r\n\r\n", "HTTP/1.1 404 "},
    {"GET /metrics?x=1 HTTP/1.0\n\n", "HTTP/1.1 200 "},
  };
  GpuprofMetricsServer *m = start ();
  guint16 port = gpuprof_metrics_server_port (m);
  GString *big = g_string_new ("GET /metrics HTTP/1.1\r\nX-Big: ");
  guint i;
  gint fd;
  gchar *answer;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_answer (port, cases[i][0], strlen (cases[i][0]), cases[i][1]);

  /* 2 MB of header: answered from its first line, and the client, still
   * sending, reads the answer rather than a reset */
  while (big->len < 2 << 20)
    g_string_append (big, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  g_string_append (big, "\r\n\r\n");
  check_answer (port, big->str, big->len, "HTTP/1.1 200 ");
  g_string_free (big, TRUE);

  /* a request in pieces, within the deadline */
  fd = connect_to (port);
  {
    static const gchar req[] = "GET /metrics HTTP/1.1\r\n\r\n";

    for (i = 0; i < strlen (req); i++) {
      send_all (fd, req + i, 1);
      g_usleep (10 * 1000);
    }
  }
  answer = read_to_eof (fd);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200 OK"));
  g_free (answer);
  close (fd);
  gpuprof_metrics_server_stop (m);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/metrics-server/idle-clients", test_idle_clients);
  g_test_add_func ("/metrics-server/cap", test_cap);
  g_test_add_func ("/metrics-server/read-deadline", test_read_deadline);
  g_test_add_func ("/metrics-server/answers", test_answers);
  return g_test_run ();
}
