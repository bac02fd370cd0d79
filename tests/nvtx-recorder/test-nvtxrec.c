/* Self-test of the NVTX recorder.
 *
 * Runs a small NVTX workload (domains, registered strings, nested pushes
 * with payloads, a range started on one thread and ended on another, marks,
 * thread names) under libgpuprof-nvtxrec and checks every recorded event;
 * then the checks' error reports; then NVTX calls from a second shared
 * object (a second NVTX init); then the JSON lines a child process writes
 * at exit, read back both by nvtxrec_load_jsonl() and by nvtxrec-summary.
 *
 * Usage: test-nvtxrec NVTXREC-SUMMARY SCRATCH-DIR
 * with NVTX_INJECTION64_PATH set to libgpuprof-nvtxrec.so (meson does it).
 */

#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxrec.h"

/* test-nvtxrec-helper.c, in its own shared object */
nvtxDomainHandle_t test_helper_push (const char *domain_name,
    const char *message);

#define CHECK(cond) \
  do { \
    if (!(cond)) { \
      fprintf (stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
          #cond); \
      exit (1); \
    } \
  } while (0)

#define CHECK_STR(a, b) \
  do { \
    const char *a_ = (a), *b_ = (b); \
    if (!a_ || !b_ || strcmp (a_, b_) != 0) { \
      fprintf (stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
          a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
      exit (1); \
    } \
  } while (0)

#define DOMAIN "gpuprof-test"
#define TICK_MSG "tick \"1\"\n\\"     /* needs JSON escaping */
#define N_WORKLOAD_EVENTS 24

static nvtxDomainHandle_t test_domain;

static uint32_t
gettid_u32 (void)
{
  return (uint32_t) syscall (SYS_gettid);
}

static nvtxEventAttributes_t
attributes (const char *ascii)
{
  nvtxEventAttributes_t a;

  memset (&a, 0, sizeof (a));
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  if (ascii) {
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = ascii;
  }
  return a;
}

/* ---- the workload ---- */

static void *
worker (void *data)
{
  nvtxRangeId_t id = *(nvtxRangeId_t *) data, local;
  nvtxEventAttributes_t a = attributes ("work");

  nvtxNameOsThreadA (gettid_u32 (), "worker");
  nvtxDomainRangeEnd (test_domain, id);
  local = nvtxRangeStartA ("local");
  nvtxRangeEnd (local);
  a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
  a.payload.iValue = -3;
  nvtxDomainRangePushEx (test_domain, &a);
  nvtxDomainRangePop (test_domain);
  return NULL;
}

static void
run_workload (void)
{
  nvtxDomainHandle_t again, other;
  nvtxStringHandle_t frame;
  nvtxEventAttributes_t a;
  nvtxRangeId_t id;
  pthread_t thread;

  test_domain = nvtxDomainCreateA (DOMAIN);
  again = nvtxDomainCreateA (DOMAIN);
  CHECK (again == test_domain);         /* merged by name */
  other = nvtxDomainCreateA ("other");
  frame = nvtxDomainRegisterStringA (test_domain, "frame");
  nvtxDomainNameCategoryA (test_domain, 3, "video");
  nvtxNameOsThreadA (gettid_u32 (), "main");

  a = attributes (NULL);
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = frame;
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a.payload.ullValue = 42;
  a.category = 3;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xff00ff00;
  CHECK (nvtxDomainRangePushEx (test_domain, &a) == 0);
  a = attributes ("inner");
  a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  a.payload.llValue = -7;
  CHECK (nvtxDomainRangePushEx (test_domain, &a) == 1);
  a = attributes (TICK_MSG);
  a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  a.payload.dValue = 0.5;
  nvtxDomainMarkEx (test_domain, &a);
  CHECK (nvtxDomainRangePop (test_domain) == 1);
  CHECK (nvtxDomainRangePop (test_domain) == 0);

  nvtxRangePushA ("plain");
  nvtxRangePop ();

  a = attributes ("cross");
  a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
  a.payload.uiValue = 7;
  id = nvtxDomainRangeStartEx (test_domain, &a);
  CHECK (id != 0);
  CHECK (pthread_create (&thread, NULL, worker, &id) == 0);
  pthread_join (thread, NULL);

  a = attributes ("x");
  nvtxDomainRangePushEx (other, &a);
  nvtxDomainRangePop (other);
  nvtxMarkA ("hello");
  nvtxMarkW (L"wide \u00e9");
}

/* ---- checks ---- */

typedef struct
{
  NvtxrecKind kind;
  const char *domain;
  const char *message;
  int on_worker;
} Expected;

static const Expected expected[N_WORKLOAD_EVENTS] = {
  {NVTXREC_DOMAIN_CREATE, DOMAIN, NULL, 0},
  {NVTXREC_DOMAIN_CREATE, DOMAIN, NULL, 0},
  {NVTXREC_DOMAIN_CREATE, "other", NULL, 0},
  {NVTXREC_REGISTER_STRING, DOMAIN, "frame", 0},
  {NVTXREC_NAME_CATEGORY, DOMAIN, "video", 0},
  {NVTXREC_NAME_THREAD, "", "main", 0},
  {NVTXREC_PUSH, DOMAIN, "frame", 0},
  {NVTXREC_PUSH, DOMAIN, "inner", 0},
  {NVTXREC_MARK, DOMAIN, TICK_MSG, 0},
  {NVTXREC_POP, DOMAIN, "inner", 0},    /* POP names what it closed */
  {NVTXREC_POP, DOMAIN, "frame", 0},
  {NVTXREC_PUSH, "", "plain", 0},
  {NVTXREC_POP, "", "plain", 0},
  {NVTXREC_START, DOMAIN, "cross", 0},
  {NVTXREC_NAME_THREAD, "", "worker", 1},
  {NVTXREC_END, DOMAIN, NULL, 1},
  {NVTXREC_START, "", "local", 1},
  {NVTXREC_END, "", NULL, 1},
  {NVTXREC_PUSH, DOMAIN, "work", 1},
  {NVTXREC_POP, DOMAIN, "work", 1},
  {NVTXREC_PUSH, "other", "x", 0},
  {NVTXREC_POP, "other", "x", 0},
  {NVTXREC_MARK, "", "hello", 0},
  {NVTXREC_MARK, "", "wide \xc3\xa9", 0},
};

static NvtxrecEvent
event (size_t i)
{
  NvtxrecEvent e;

  CHECK (nvtxrec_get_event (i, &e));
  return e;
}

/* @main_tid is 0 when the events come from another process. */
static void
check_workload_events (uint32_t main_tid)
{
  NvtxrecEvent e[N_WORKLOAD_EVENTS];
  uint32_t worker_tid;
  size_t i;

  CHECK (nvtxrec_n_events () == N_WORKLOAD_EVENTS);
  for (i = 0; i < N_WORKLOAD_EVENTS; i++) {
    e[i] = event (i);
    if (e[i].kind != expected[i].kind)
      fprintf (stderr, "event %zu: %s, expected %s\n", i,
          nvtxrec_kind_name (e[i].kind), nvtxrec_kind_name (expected[i].kind));
    CHECK (e[i].kind == expected[i].kind);
    CHECK_STR (e[i].domain, expected[i].domain);
    if (expected[i].message)
      CHECK_STR (e[i].message, expected[i].message);
    else
      CHECK (e[i].message == NULL);
    CHECK (i == 0 || e[i].ts >= e[i - 1].ts || e[i].tid != e[i - 1].tid);
  }

  if (main_tid)
    CHECK (e[5].target_tid == main_tid);
  main_tid = e[5].target_tid;
  worker_tid = e[14].target_tid;
  CHECK (worker_tid != main_tid);
  for (i = 0; i < N_WORKLOAD_EVENTS; i++)
    CHECK (e[i].tid == (expected[i].on_worker ? worker_tid : main_tid));

  CHECK (e[4].category == 3);
  /* registered message, uint64 payload, category, colour */
  CHECK (e[6].payload_type == NVTXREC_PAYLOAD_UINT64);
  CHECK (e[6].payload.u64 == 42);
  CHECK (e[6].category == 3);
  CHECK (e[6].has_color && e[6].color == 0xff00ff00);
  CHECK (e[6].depth == 0);
  CHECK (e[7].payload_type == NVTXREC_PAYLOAD_INT64);
  CHECK (e[7].payload.i64 == -7);
  CHECK (!e[7].has_color && e[7].category == 0);
  CHECK (e[7].depth == 1);
  CHECK (e[8].payload_type == NVTXREC_PAYLOAD_DOUBLE);
  CHECK (e[8].payload.d == 0.5);
  CHECK (e[9].depth == 1 && e[10].depth == 0);
  CHECK (e[11].payload_type == NVTXREC_PAYLOAD_NONE);
  CHECK (e[13].payload_type == NVTXREC_PAYLOAD_UINT32);
  CHECK (e[13].payload.u64 == 7);
  CHECK (e[18].payload_type == NVTXREC_PAYLOAD_INT32);
  CHECK (e[18].payload.i64 == -3);
  /* the cross-thread range, and the worker's own one */
  CHECK (e[13].range_id != 0 && e[15].range_id == e[13].range_id);
  CHECK (e[16].range_id != e[13].range_id);
  CHECK (e[17].range_id == e[16].range_id);
}

static void
check_workload_stats (void)
{
  NvtxrecDomainStats st[4];
  NvtxrecThreadName names[4];
  unsigned cross = 99;

  CHECK (nvtxrec_count (NVTXREC_PUSH, DOMAIN, NULL) == 3);
  CHECK (nvtxrec_count (NVTXREC_PUSH, DOMAIN, "frame") == 1);
  CHECK (nvtxrec_count (NVTXREC_PUSH, NULL, NULL) == 5);
  CHECK (nvtxrec_count (NVTXREC_POP, "other", NULL) == 1);
  CHECK (nvtxrec_count (NVTXREC_MARK, "", NULL) == 2);
  CHECK (nvtxrec_count (NVTXREC_PUSH, "nope", NULL) == 0);
  CHECK (nvtxrec_check_nesting () == NULL);
  CHECK (nvtxrec_count_ranges (DOMAIN) == 1);
  CHECK (nvtxrec_count_ranges ("") == 1);
  CHECK (nvtxrec_count_ranges (NULL) == 2);
  CHECK (nvtxrec_check_ranges (NULL, &cross) == NULL);
  CHECK (cross == 1);
  CHECK (nvtxrec_check_ranges ("", &cross) == NULL);
  CHECK (cross == 0);

  CHECK (nvtxrec_get_thread_names (names, 4) == 2);
  CHECK_STR (names[0].name, "main");
  CHECK_STR (names[1].name, "worker");
  CHECK_STR (nvtxrec_thread_name (names[1].tid), "worker");
  CHECK (nvtxrec_thread_name (1) == NULL);

  /* in order of first appearance */
  CHECK (nvtxrec_get_domain_stats (st, 4) == 3);
  CHECK_STR (st[0].domain, DOMAIN);
  CHECK (st[0].n_push == 3 && st[0].n_pop == 3 && st[0].n_mark == 1);
  CHECK (st[0].n_start == 1 && st[0].n_end == 1 && st[0].n_ranges == 1);
  CHECK (st[0].n_cross_thread == 1 && st[0].n_unmatched == 0);
  CHECK (st[0].max_depth == 2 && st[0].n_nesting_errors == 0);
  CHECK_STR (st[1].domain, "other");
  CHECK (st[1].n_push == 1 && st[1].n_pop == 1 && st[1].max_depth == 1);
  CHECK_STR (st[2].domain, "");
  CHECK (st[2].n_push == 1 && st[2].n_ranges == 1 && st[2].n_mark == 2);
  CHECK (st[2].n_cross_thread == 0 && st[2].max_depth == 1);
}

/* Asserts that @report is an error containing @what, and frees it. */
static void
check_report (char *report, const char *what)
{
  if (!report || !strstr (report, what))
    fprintf (stderr, "expected an error with \"%s\", got \"%s\"\n", what,
        report ? report : "(none)");
  CHECK (report && strstr (report, what));
  free (report);
}

static void
check_violations (void)
{
  nvtxEventAttributes_t a;
  nvtxRangeId_t id;

  nvtxrec_reset ();
  CHECK (nvtxrec_n_events () == 0);
  CHECK (nvtxDomainRangePop (test_domain) < 0);
  check_report (nvtxrec_check_nesting (), "with no open push");

  nvtxrec_reset ();
  a = attributes ("open");
  nvtxDomainRangePushEx (test_domain, &a);
  check_report (nvtxrec_check_nesting (), "\"open\" in domain \""
      DOMAIN "\" on thread");
  nvtxDomainRangePop (test_domain);
  CHECK (nvtxrec_check_nesting () == NULL);

  nvtxrec_reset ();
  a = attributes ("lost");
  nvtxDomainRangeStartEx (test_domain, &a);
  check_report (nvtxrec_check_ranges (DOMAIN, NULL), "never ended");
  CHECK (nvtxrec_check_ranges ("other", NULL) == NULL);
  CHECK (nvtxrec_count_ranges (NULL) == 0);

  nvtxrec_reset ();
  nvtxDomainRangeEnd (test_domain, 999999);
  check_report (nvtxrec_check_ranges (NULL, NULL), "unknown range 999999");

  nvtxrec_reset ();
  id = nvtxRangeStartA ("twice");
  nvtxRangeEnd (id);
  nvtxRangeEnd (id);
  check_report (nvtxrec_check_ranges (NULL, NULL), "ended 2 times");
}

/* A push from another shared object, popped here: one domain, one stack. */
static void
check_second_object (void)
{
  nvtxrec_reset ();
  CHECK (test_helper_push (DOMAIN, "from helper") == test_domain);
  CHECK (nvtxDomainRangePop (test_domain) == 0);
  CHECK (nvtxrec_count (NVTXREC_PUSH, DOMAIN, "from helper") == 1);
  CHECK (nvtxrec_count (NVTXREC_POP, DOMAIN, "from helper") == 1);
  CHECK (nvtxrec_check_nesting () == NULL);
}

/* ---- JSON lines and nvtxrec-summary ---- */

/* Runs the workload in a child that exits normally, so the recorder writes
 * NVTXREC_OUT at exit; returns the file's path. */
static char *
record_in_child (const char *dir)
{
  char *path;
  pid_t pid;
  int status;

  pid = fork ();
  CHECK (pid >= 0);
  if (pid == 0) {
    char *tmpl;

    nvtxrec_reset ();
    CHECK (asprintf (&tmpl, "%s/nvtxrec-test-%%p.jsonl", dir) > 0);
    setenv ("NVTXREC_OUT", tmpl, 1);
    free (tmpl);
    run_workload ();
    exit (0);
  }
  CHECK (waitpid (pid, &status, 0) == pid);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  CHECK (asprintf (&path, "%s/nvtxrec-test-%ld.jsonl", dir, (long) pid) > 0);
  CHECK (access (path, R_OK) == 0);
  return path;
}

typedef struct
{
  unsigned push, pop, ranges, unmatched, xthread, marks, depth, nesterr;
  char domain[64];
} SummaryRow;

/* Runs nvtxrec-summary on @path; returns its exit status, and in @rows the
 * domain table (by name) and in @out all of its output. */
static int
run_summary (const char *summary, const char *path, SummaryRow * rows,
    size_t max_rows, size_t * n_rows, char *out, size_t out_size)
{
  char *cmd, line[512];
  FILE *p;
  int status;
  size_t used = 0;

  CHECK (asprintf (&cmd, "'%s' '%s' 2>&1", summary, path) > 0);
  p = popen (cmd, "r");
  CHECK (p);
  *n_rows = 0;
  out[0] = '\0';
  while (fgets (line, sizeof (line), p)) {
    SummaryRow r;

    if (used + strlen (line) < out_size) {
      strcpy (out + used, line);
      used += strlen (line);
    }
    if (*n_rows < max_rows && sscanf (line, "%u %u %u %u %u %u %u %u %63s",
            &r.push, &r.pop, &r.ranges, &r.unmatched, &r.xthread, &r.marks,
            &r.depth, &r.nesterr, r.domain) == 9)
      rows[(*n_rows)++] = r;
  }
  status = pclose (p);
  free (cmd);
  CHECK (WIFEXITED (status));
  return WEXITSTATUS (status);
}

static void
check_row (const SummaryRow * r, const char *domain, unsigned push,
    unsigned ranges, unsigned xthread, unsigned marks, unsigned depth)
{
  CHECK_STR (r->domain, domain);
  CHECK (r->push == push && r->pop == push);
  CHECK (r->ranges == ranges && r->unmatched == 0 && r->xthread == xthread);
  CHECK (r->marks == marks && r->depth == depth && r->nesterr == 0);
}

static void
check_json_and_summary (const char *summary, const char *dir)
{
  char *path = record_in_child (dir), *bad, *error = NULL, out[4096];
  SummaryRow rows[8];
  size_t n_rows;

  /* read back: the same events, field by field */
  nvtxrec_reset ();
  CHECK (nvtxrec_load_jsonl (path, &error) == N_WORKLOAD_EVENTS);
  check_workload_events (0);
  check_workload_stats ();

  CHECK (run_summary (summary, path, rows, 8, &n_rows, out, sizeof (out))
      == 0);
  fputs (out, stdout);
  CHECK (n_rows == 3);
  check_row (&rows[0], DOMAIN, 3, 1, 1, 1, 2);
  check_row (&rows[1], "other", 1, 0, 0, 0, 1);
  check_row (&rows[2], "(default)", 1, 1, 0, 2, 1);
  CHECK (strstr (out, "=\"main\"") && strstr (out, "=\"worker\""));
  CHECK (strstr (out, "24 events"));

  /* a push never popped and a range never ended: exit status 1 */
  nvtxrec_reset ();
  nvtxRangePushA ("left open");
  nvtxRangeStartA ("never ended");
  CHECK (asprintf (&bad, "%s/nvtxrec-test-bad.jsonl", dir) > 0);
  CHECK (nvtxrec_write_jsonl (bad));
  CHECK (run_summary (summary, bad, rows, 8, &n_rows, out, sizeof (out))
      == 1);
  fputs (out, stdout);
  CHECK (n_rows == 1 && rows[0].nesterr == 1 && rows[0].unmatched == 1);
  CHECK (strstr (out, "first nesting error") &&
      strstr (out, "first range error"));
  nvtxRangePop ();

  /* unreadable: exit status 2 */
  CHECK (run_summary (summary, "/nonexistent/x.jsonl", rows, 8, &n_rows,
          out, sizeof (out)) == 2);

  unlink (path);
  unlink (bad);
  free (path);
  free (bad);
}

int
main (int argc, char **argv)
{
  if (argc != 3) {
    fprintf (stderr, "usage: %s NVTXREC-SUMMARY SCRATCH-DIR\n", argv[0]);
    return 2;
  }
  /* NVTX attaches its tool at the first call. */
  nvtxInitialize (NULL);
  if (!nvtxrec_is_attached ()) {
    fprintf (stderr, "recorder not attached: set NVTX_INJECTION64_PATH to "
        "libgpuprof-nvtxrec.so\n");
    return 1;
  }

  run_workload ();
  check_workload_events (gettid_u32 ());
  check_workload_stats ();
  check_violations ();
  check_second_object ();
  check_json_and_summary (argv[1], argv[2]);

  printf ("nvtx-recorder: all checks passed\n");
  return 0;
}
