/* GPU ops in the trace file: synthetic CUPTI records from two gpuprof
 * threads (upload + convert nested on one, scale on another), a private
 * thread and work launched outside chain calls go through the correlation
 * engine and gpuprof-gputrace into a real trace, which check-trace.sh
 * (CHECK_TRACE) checks: GPU tracks named per (device, stream), one X per op
 * with the element's path, every launch arrow from a chain call of that
 * element to its op — with the chain calls written before the ops, after
 * them (call still running when its records settle), and long before (out
 * of the writer's memory). */
#include <gst/gst.h>
#include <string.h>
#include <sys/wait.h>

#include "fake-activity.h"
#include "gpuprof-test-core.h"
#include "gpuprof-clock.h"
#include "gpuprof-gputrace.h"
#include "gpuprof-thread.h"
#include "gpuprof-trace.h"

#define TR GPUPROF_GPU_CHANNEL_TRACER
#define US G_GUINT64_CONSTANT (1000)
#define PERIOD (1000 * US)
#define BUF0 (10000 * US)
/* phase 1: chain calls written before their ops settle; more than the
 * writer remembers per thread (1024 calls), so the first ones are forgotten */
#define N1 600
/* phase 2: ops settle while their chain calls are not written yet */
#define N2 50
#define N (N1 + N2)
/* its convert launch is 0.5 us before the call's start (clock rounding):
 * the arrow must still start inside the call */
#define SKEWED_BUF 590
#define MB3 3000000

enum
{ UPLOAD = 1, CONVERT, SCALE, SINK };
static const gchar *element_names[] = { "pipeline0/upload",
  "pipeline0/convert", "pipeline0/scale", "pipeline0/sink", NULL
};

static FakeSource src;
static guint64 mono0;           /* monotonic ns of tracer time 0 */
static gchar *tmpdir;

/* the threads' own names, as the tracer gives them */
static gchar *
thread_name (guint32 id, gpointer user_data)
{
  return gpuprof_thread_dup_name_of (id);
}

/* --- host threads: a worker per gpuprof thread, driven by jobs --------- */

typedef enum
{ JOB_BUFFERS, JOB_PUSH_HELD, JOB_LATE, JOB_QUIT } JobType;

typedef struct
{
  JobType type;
  guint first, last;
  gboolean hold;                /* keep the chain events (call "running") */
} Job;

typedef struct
{
  const gchar *name;
  gboolean upstream;            /* upload+convert, else scale */
  GpuprofTrace *trace;
  GThread *thread;
  GAsyncQueue *jobs, *done;
  GpuprofRing *ring;
  GArray *held;                 /* GpuprofEvent */
} Host;

static void
launch (GpuprofGpuOpKind kind, const gchar * name, guint32 device,
    guint32 stream, guint64 api, guint64 start, guint64 end, guint64 bytes)
{
  FakeLaunch l = { kind, name, device, stream, kind == GPUPROF_GPU_OP_MEMCPY,
    mono0 + api, mono0 + api + 2 * US, start ? mono0 + start : 0,
    end ? mono0 + end : 0, bytes
  };

  fake_launch_full (&src, &l);
}

static void
emit_chain (Host * h, guint32 element, guint64 ts, guint64 dur, guint64 seq,
    gboolean hold)
{
  GpuprofEvent ev = { GPUPROF_EVENT_CHAIN, element, 0,
    gpuprof_thread_get ()->id, ts, dur, seq, G_MAXUINT64, 4096, dur / 2, 0, 0
  };

  if (hold)
    g_array_append_val (h->held, ev);
  else
    g_assert_true (gpuprof_ring_push (h->ring, &ev));
}

/* What the tracer's hooks and the elements would do for buffer i: the
 * chain calls push ids, the elements launch GPU work, the call returns and
 * its complete event goes to the thread's ring (innermost first). */
static void
run_buffer (Host * h, guint64 i, gboolean hold)
{
  guint64 t = BUF0 + i * PERIOD;

  if (h->upstream) {
    gpuprof_gpu_chain_enter (UPLOAD, i);
    launch (GPUPROF_GPU_OP_MEMCPY, NULL, 0, 7, t + 10 * US, t + 20 * US,
        t + 35 * US, MB3);
    if (i == 0)                 /* CUPTI could not time it: not in the trace */
      launch (GPUPROF_GPU_OP_MEMSET, NULL, 0, 7, t + 13 * US, 0, 0, 64);
    gpuprof_gpu_chain_enter (CONVERT, i);
    launch (GPUPROF_GPU_OP_KERNEL, "convert_kernel<uchar4>", 0, 7,
        i == SKEWED_BUF ? t + 40 * US - 500 : t + 50 * US, t + 55 * US,
        t + 75 * US, 0);
    launch (GPUPROF_GPU_OP_MEMSET, NULL, 0, 7, t + 60 * US, t + 76 * US,
        t + 78 * US, 4096);
    gpuprof_gpu_chain_exit ();
    emit_chain (h, CONVERT, t + 40 * US, 50 * US, i, hold);
    gpuprof_gpu_chain_exit ();
    emit_chain (h, UPLOAD, t, 100 * US, i, hold);
  } else {
    gpuprof_gpu_chain_enter (SCALE, i);
    launch (GPUPROF_GPU_OP_KERNEL, "scale_bilinear", 1, 13, t + 310 * US,
        t + 320 * US, t + 380 * US, 0);
    gpuprof_gpu_chain_exit ();
    emit_chain (h, SCALE, t + 300 * US, 100 * US, i, hold);
  }
}

static gpointer
host_main (gpointer data)
{
  Host *h = data;
  GpuprofThread *t = gpuprof_thread_get ();
  Job *job;
  guint i;

  gpuprof_thread_set_name (t, h->name, TRUE);
  gpuprof_gpu_set_thread_name (h->name);
  h->ring = gpuprof_test_trace_ring (h->trace, t->id);
  while ((job = g_async_queue_pop (h->jobs))->type != JOB_QUIT) {
    switch (job->type) {
      case JOB_BUFFERS:
        for (i = job->first; i < job->last; i++)
          run_buffer (h, i, job->hold);
        break;
      case JOB_PUSH_HELD:
        for (i = 0; i < h->held->len; i++)
          g_assert_true (gpuprof_ring_push (h->ring,
                  &g_array_index (h->held, GpuprofEvent, i)));
        g_array_set_size (h->held, 0);
        break;
      case JOB_LATE:
        /* outside any chain call: by the thread's last element, no arrow */
        launch (GPUPROF_GPU_OP_KERNEL, "late_kernel", 0, 7,
            BUF0 + N * PERIOD, BUF0 + N * PERIOD + 10 * US,
            BUF0 + N * PERIOD + 20 * US, 0);
        break;
      default:
        break;
    }
    g_free (job);
    g_async_queue_push (h->done, GINT_TO_POINTER (1));
  }
  g_free (job);
  return NULL;
}

static void
host_start (Host * h, const gchar * name, gboolean upstream,
    GpuprofTrace * trace)
{
  h->name = name;
  h->upstream = upstream;
  h->trace = trace;
  h->jobs = g_async_queue_new ();
  h->done = g_async_queue_new ();
  h->held = g_array_new (FALSE, FALSE, sizeof (GpuprofEvent));
  h->thread = g_thread_new (name, host_main, h);
}

static void
host_do (Host * h, JobType type, guint first, guint last, gboolean hold)
{
  Job *job = g_new0 (Job, 1);

  job->type = type;
  job->first = first;
  job->last = last;
  job->hold = hold;
  g_async_queue_push (h->jobs, job);
  if (type != JOB_QUIT)
    g_async_queue_pop (h->done);
}

static void
host_stop (Host * h)
{
  host_do (h, JOB_QUIT, 0, 0, FALSE);
  g_thread_join (h->thread);
  g_async_queue_unref (h->jobs);
  g_async_queue_unref (h->done);
  g_array_unref (h->held);
}

static gpointer
private_thread (gpointer data)
{
  /* an element's own thread: not a gpuprof thread, no chain call */
  launch (GPUPROF_GPU_OP_KERNEL, "private_kernel", 0, 0,
      BUF0 + N * PERIOD + 100 * US, BUF0 + N * PERIOD + 110 * US,
      BUF0 + N * PERIOD + 130 * US, 0);
  return NULL;
}

/* --- delivery ----------------------------------------------------------- */

static guint delivered;

/* what CUPTI would do: GPU records, API records and external records in
 * separate buffers, each followed by the collector's settle */
static void
deliver_new_in_pieces (guint64 * now)
{
  guint end = src.records->len, i;
  FakeRecordType types[] = { FAKE_OP, FAKE_API, FAKE_EXT };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (types); k++) {
    for (i = delivered; i < end; i++)
      if (g_array_index (src.records, FakeRecord, i).type == types[k])
        fake_deliver (&src, i);
    gpuprof_gpu_settle (++*now, GPUPROF_GPU_SETTLE_NORMAL);
  }
  delivered = end;
}

static void
deliver_new_reversed_forced (guint64 * now)
{
  guint end = src.records->len, i;

  for (i = end; i > delivered; i--)
    fake_deliver (&src, i - 1);
  gpuprof_gpu_settle (++*now, GPUPROF_GPU_SETTLE_ALL);
  delivered = end;
}

/* --- checker ------------------------------------------------------------ */

static gint
run_checker (const gchar * path, GPtrArray * opts)
{
  GPtrArray *argv = g_ptr_array_new ();
  gchar *out = NULL;
  gint status = -1;
  GError *err = NULL;
  guint i;

  g_ptr_array_add (argv, (gpointer) g_getenv ("CHECK_TRACE"));
  for (i = 0; i < opts->len; i++)
    g_ptr_array_add (argv, g_ptr_array_index (opts, i));
  g_ptr_array_add (argv, (gpointer) path);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &err));
  g_assert_no_error (err);
  g_test_message ("check-trace.sh %s:\n%s", path, out);
  if (!g_spawn_check_wait_status (status, NULL))
    g_printerr ("checker on %s:\n%s", path, out);
  g_free (out);
  g_ptr_array_unref (argv);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
opt (GPtrArray * opts, const gchar * name, const gchar * fmt, ...)
    G_GNUC_PRINTF (3, 4);

static void
opt (GPtrArray * opts, const gchar * name, const gchar * fmt, ...)
{
  va_list ap;

  g_ptr_array_add (opts, g_strdup (name));
  va_start (ap, fmt);
  g_ptr_array_add (opts, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

/* --- the scenario ------------------------------------------------------- */

static void
run_scenario (const gchar * file, const gchar * filter_re, gboolean with_scale)
{
  gchar *path = g_build_filename (tmpdir, file, NULL);
  GRegex *filter = filter_re ? g_regex_new (filter_re, 0, 0, NULL) : NULL;
  GpuprofTraceNames names = gpuprof_test_trace_names (element_names);
  GpuprofTrace *trace;

  /* no pad names; the tracer's thread names */
  names.pad_name = NULL;
  names.thread_name = thread_name;
  trace = gpuprof_test_trace_new (path, &names, 0, filter, NULL);
  GpuprofGpuConfig defaults = { GPUPROF_GPU_DEFAULT_RETAIN_NS,
    GPUPROF_GPU_DEFAULT_MAX_PENDING, GPUPROF_GPU_DEFAULT_RING_SIZE
  };
  GpuprofGputraceStats gs;
  GpuprofTraceStats ts;
  GPtrArray *opts;
  GThread *priv;
  Host up, down;
  guint64 now = 0;
  guint scale_ops = with_scale ? N : 0;

  g_assert_nonnull (trace);
  gpuprof_gpu_configure (&defaults);
  fake_source_setup (&src, FALSE);
  delivered = 0;
  g_assert_true (gpuprof_gputrace_attach (trace));

  host_start (&up, "up:src", TRUE, trace);
  host_start (&down, "q:src", FALSE, trace);

  /* phase 1: the chain calls are in the file before their ops settle */
  host_do (&up, JOB_BUFFERS, 0, N1, FALSE);
  host_do (&down, JOB_BUFFERS, 0, N1, FALSE);
  gpuprof_trace_flush (trace);
  deliver_new_in_pieces (&now);
  gpuprof_gputrace_get_stats (&gs);
  g_assert_cmpuint (gs.ops, ==, 4 * N1);
  g_assert_cmpuint (gs.flows, ==, 4 * N1);
  g_assert_cmpuint (gs.untimed, ==, 1);
  gpuprof_trace_flush (trace);

  /* phase 2: the ops settle and are written while their chain calls still
   * run; the arrows wait for them. Meanwhile the file (what a kill leaves)
   * has no half arrow. */
  host_do (&up, JOB_BUFFERS, N1, N, TRUE);
  host_do (&down, JOB_BUFFERS, N1, N, TRUE);
  deliver_new_reversed_forced (&now);
  gpuprof_trace_flush (trace);
  opts = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (opts, g_strdup ("--truncated"));
  opt (opts, "--gpu-ops", "%d", 3 * N + scale_ops);
  opt (opts, "--gpu-flows", "%d", 3 * N1 + (with_scale ? N1 : 0));
  g_assert_cmpint (run_checker (path, opts), ==, 0);
  g_ptr_array_unref (opts);
  host_do (&up, JOB_PUSH_HELD, 0, 0, FALSE);
  host_do (&down, JOB_PUSH_HELD, 0, 0, FALSE);
  gpuprof_trace_flush (trace);

  /* phase 3: work outside chain calls, then the end of the run */
  host_do (&up, JOB_LATE, 0, 0, FALSE);
  priv = g_thread_new ("private", private_thread, NULL);
  g_thread_join (priv);
  deliver_new_reversed_forced (&now);

  gpuprof_gputrace_get_stats (&gs);
  g_assert_cmpuint (gs.ops, ==, 4 * N + 2);
  g_assert_cmpuint (gs.flows, ==, 4 * N);
  g_assert_cmpuint (gs.untimed, ==, 1);
  g_assert_cmpuint (gs.lost, ==, 0);
  gpuprof_gputrace_detach (trace);
  /* detached: later ops are not the trace's business */
  host_do (&up, JOB_LATE, 0, 0, FALSE);
  deliver_new_reversed_forced (&now);

  g_assert_true (gpuprof_trace_close (trace, NULL, NULL));
  gpuprof_trace_get_stats (trace, &ts);
  g_assert_cmpuint (ts.events_lost, ==, 0);
  g_assert_cmpuint (ts.events_dropped, ==, 0);
  g_assert_cmpuint (ts.events_filtered, ==, with_scale ? 0 : 2 * N);

  opts = g_ptr_array_new_with_free_func (g_free);
  opt (opts, "--chain", "pipeline0/upload=%d", N);
  opt (opts, "--chain", "pipeline0/convert=%d", N);
  opt (opts, "--chain", "pipeline0/scale=%d", scale_ops);
  opt (opts, "--gpu-ops", "%d", 3 * N + scale_ops + 2);
  opt (opts, "--gpu-flows", "%d", 3 * N + scale_ops);
  opt (opts, "--gpu-element", "pipeline0/upload=%d", N + 1);
  opt (opts, "--gpu-element", "pipeline0/convert=%d", 2 * N);
  opt (opts, "--gpu-element", "pipeline0/scale=%d", scale_ops);
  opt (opts, "--gpu-element", "unattributed=%d", 1);
  opt (opts, "--gpu-name", "convert_kernel<uchar4>=%d", N);
  opt (opts, "--gpu-name", "scale_bilinear=%d", scale_ops);
  opt (opts, "--gpu-name", "memcpy HtoD 3.0 MB=%d", N);
  opt (opts, "--gpu-name", "memset=%d", N);
  opt (opts, "--gpu-name", "late_kernel=%d", 1);
  opt (opts, "--gpu-name", "private_kernel=%d", 1);
  g_assert_cmpint (run_checker (path, opts), ==, 0);
  g_ptr_array_unref (opts);

  host_stop (&up);
  host_stop (&down);
  gpuprof_test_trace_free (trace);
  fake_source_teardown (&src);
  if (filter)
    g_regex_unref (filter);
  g_free (path);
}

static void
test_gpu_tracks_and_arrows (void)
{
  run_scenario ("gpu.json", NULL, TRUE);
}

/* trace-elements: the ops of a filtered element go with its chain calls;
 * the arrows of the others still bind */
static void
test_element_filter (void)
{
  run_scenario ("gpu-filtered.json", "upload|convert|sink", FALSE);
}

/* One specific line of each kind, as a reader of the file sees it. */
static void
test_event_text (void)
{
  gchar *path = g_build_filename (tmpdir, "gpu.json", NULL);
  gchar *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"name\":\"thread_name\",\"pid\":"));
  /* the host threads by the names they gave the tracer */
  g_assert_nonnull (strstr (text, ",\"args\":{\"name\":\"up:src\"}"));
  g_assert_nonnull (strstr (text, ",\"args\":{\"name\":\"q:src\"}"));
  g_assert_nonnull (strstr (text, "{\"name\":\"GPU 0 stream 7\"}"));
  g_assert_nonnull (strstr (text, "{\"name\":\"GPU 1 stream 13\"}"));
  g_assert_nonnull (strstr (text, "\"name\":\"thread_sort_index\""));
  g_assert_nonnull (strstr (text, "\"args\":{\"element\":\"pipeline0/upload\""
          ",\"seq\":0,\"bytes\":3000000,"));
  g_assert_nonnull (strstr (text, "\"kind\":\"memcpy\",\"copy\":\"HtoD\","
          "\"attribution\":\"external\",\"device\":0,\"stream\":7}"));
  g_assert_nonnull (strstr (text, "\"element\":\"unattributed\",\"seq\":null"));
  g_assert_nonnull (strstr (text, "\"element\":\"pipeline0/upload\",\"seq\":"
          "null,\"bytes\":0,"));  /* late_kernel, by thread */
  g_assert_nonnull (strstr (text, "\"attribution\":\"thread\""));
  g_assert_nonnull (strstr (text, "\"bp\":\"e\""));
  g_free (text);
  g_free (path);
}

int
main (int argc, char **argv)
{
  if (g_getenv ("CHECK_TRACE") == NULL) {
    g_printerr ("CHECK_TRACE is not set: run through meson test\n");
    return 77;
  }
  tmpdir = gpuprof_test_core_init (&argc, &argv, "gpuprof-gputrace-XXXXXX");
  mono0 = gpuprof_clock_start_monotonic ();

  g_test_add_func ("/gputrace/tracks-and-arrows", test_gpu_tracks_and_arrows);
  g_test_add_func ("/gputrace/event-text", test_event_text);
  g_test_add_func ("/gputrace/element-filter", test_element_filter);
  return gpuprof_test_tmpdir_done (tmpdir, g_test_run ());
}
