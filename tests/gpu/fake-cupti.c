/* A fake libcupti for tests on machines without a GPU.
 *
 * Exports the CUPTI functions gpuprof-cupti.c loads, with the real record
 * layouts from the CUPTI headers, so the loader, the correlation code and
 * gpuprofmeter run end to end. A test "launches" GPU work with
 * fake_cupti_launch() (found with dlsym): it records an API record for the
 * calling thread, one external correlation record per non-empty id stack
 * (exactly what CUPTI does), and the GPU record. cuptiActivityFlushAll()
 * delivers the GPU records in one buffer and the host records in a later one,
 * so the join always sees a GPU record before its API record.
 *
 * The callback API: cuptiEnableCallback()/cuptiEnableDomain() for the
 * subscriber; a launch calls its callback at API entry and exit when the
 * launch's id is enabled (driver cuLaunchKernel, cuMemcpyHtoDAsync_v2,
 * cuMemsetD8Async; cuptiGetCallbackName knows those and one that launches
 * nothing). API and external correlation records are made only when their
 * activity kinds are enabled, as in CUPTI.
 *
 * Like the real one, it registers an exit handler when a client subscribes
 * and, once that ran, aborts on any call that needs its session (the real
 * CUPTI crashes there).
 * fake_cupti_sync() is a synchronizing call (cuStreamSynchronize...): the
 * callbacks at entry and exit around a sleep it measures itself;
 * fake_cupti_event_record() an event record (cuEventRecord...).
 * Environment: FAKE_CUPTI_SUBSCRIBE_RESULT, FAKE_CUPTI_ENABLE_RESULT (a
 * CUptiResult to return), FAKE_CUPTI_DROPPED (records reported dropped once).
 */
#include <cupti.h>

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define MAX_DEPTH 64
#define N_KINDS 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread uint64_t stacks[N_KINDS][MAX_DEPTH];
static __thread int depths[N_KINDS];

static CUpti_BuffersCallbackRequestFunc request_cb;
static CUpti_BuffersCallbackCompleteFunc complete_cb;
static CUpti_TimestampCallbackFunc ts_cb;
static CUpti_ActivityThreadIdType tid_type;
static uint32_t next_corr = 1;
static CUpti_CallbackFunc sub_cb;
static void *sub_data;
#define N_CBIDS 1024
static unsigned char cb_on[2][N_CBIDS];  /* [0] driver, [1] runtime */
static unsigned char kind_on[64];
static uint64_t callbacks_made;
static int dropped_reported;

/* serialized records: [u64 size][record, padded to 8] ... */
typedef struct
{
  uint8_t *data;
  size_t len, cap;
} Blob;

static Blob gpu_blob, host_blob;

static CUptiResult
env_result (const char *name)
{
  const char *v = getenv (name);
  return v ? (CUptiResult) atoi (v) : CUPTI_SUCCESS;
}

static int torn_down;

static void
teardown_at_exit (void)
{
  torn_down = 1;
}

static void
check_alive (const char *call)
{
  if (torn_down) {
    fprintf (stderr, "fake CUPTI: %s called after CUPTI's exit teardown\n",
        call);
    abort ();
  }
}

static void
blob_append (Blob * b, const void *rec, size_t size)
{
  size_t padded = (size + 7) & ~(size_t) 7;
  uint64_t sz = padded;

  if (b->len + 8 + padded > b->cap) {
    b->cap = (b->cap + 8 + padded) * 2;
    b->data = realloc (b->data, b->cap);
  }
  memcpy (b->data + b->len, &sz, 8);
  memset (b->data + b->len + 8, 0, padded);
  memcpy (b->data + b->len + 8, rec, size);
  b->len += 8 + padded;
}

static const char *
intern (const char *name)
{
  static char names[32][64];
  int i;

  for (i = 0; i < 32 && names[i][0]; i++)
    if (!strcmp (names[i], name))
      return names[i];
  if (i == 32)
    return "fake_kernel";
  strncpy (names[i], name, 63);
  return names[i];
}

static uint64_t
now_ns (void)
{
  struct timespec ts;

  if (ts_cb)
    return ts_cb ();
  clock_gettime (CLOCK_REALTIME, &ts);       /* CUPTI's default clock */
  return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/**
 * fake_cupti_launch:
 * @kind: 0 kernel, 1 memcpy, 2 memset
 * @name: kernel name
 * @dur_ns: GPU duration
 * @bytes: bytes copied or set
 *
 * Returns: the correlation id
 */
static const uint32_t kind_cbid[3] = {
  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
  CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
  CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
};

static void
call_back_in (int d, CUpti_ApiCallbackSite site, uint32_t cbid, uint32_t corr)
{
  CUpti_CallbackData cd;

  if (!sub_cb || d < 0 || d > 1 || cbid >= N_CBIDS || !cb_on[d][cbid])
    return;
  memset (&cd, 0, sizeof (cd));
  cd.callbackSite = site;
  cd.functionName = "fake";
  cd.correlationId = corr;
  __atomic_fetch_add (&callbacks_made, 1, __ATOMIC_RELAXED);
  sub_cb (sub_data, d ? CUPTI_CB_DOMAIN_RUNTIME_API :
      CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cd);
}

static void
call_back (CUpti_ApiCallbackSite site, uint32_t cbid, uint32_t corr)
{
  call_back_in (0, site, cbid, corr);
}

static uint64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static uint32_t
next_correlation (void)
{
  uint32_t corr;

  pthread_mutex_lock (&lock);
  corr = next_corr++;
  pthread_mutex_unlock (&lock);
  return corr;
}

/**
 * fake_cupti_sync:
 * @domain: 0 driver, 1 runtime (which, as CUDA's, waits through the driver's
 *   cuStreamSynchronize: its callbacks nest inside)
 * @cbid: the synchronizing call's id in @domain
 * @dur_ns: how long it blocks (sleeps) the calling thread
 * @outer_ns: (out) (nullable): the time from before its entry callback to
 *   after its exit callback
 *
 * A host wait on the GPU: the subscriber's callbacks at entry and exit
 * (when @cbid is enabled) around a sleep.
 *
 * Returns: the time from its entry callback's return to its exit
 *   callback's call, measured here (CLOCK_MONOTONIC): what a subscriber
 *   reading the clock in both sees, give or take its clock reads
 */
EXPORT uint64_t
fake_cupti_sync (int domain, uint32_t cbid, uint64_t dur_ns,
    uint64_t * outer_ns)
{
  uint32_t corr = next_correlation (), inner_corr = 0;
  uint64_t t0, t1, t2, t3;
  struct timespec req;

  t0 = monotonic_ns ();
  call_back_in (domain, CUPTI_API_ENTER, cbid, corr);
  if (domain == 1) {
    inner_corr = next_correlation ();
    call_back_in (0, CUPTI_API_ENTER,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, inner_corr);
  }
  t1 = monotonic_ns ();
  req.tv_sec = dur_ns / 1000000000u;
  req.tv_nsec = dur_ns % 1000000000u;
  while (nanosleep (&req, &req) != 0);
  t2 = monotonic_ns ();
  if (domain == 1)
    call_back_in (0, CUPTI_API_EXIT,
        CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, inner_corr);
  call_back_in (domain, CUPTI_API_EXIT, cbid, corr);
  t3 = monotonic_ns ();
  if (outer_ns)
    *outer_ns = t3 - t0;
  return t2 - t1;
}

/**
 * fake_cupti_event_record:
 * @domain: 0 driver, 1 runtime (which, as CUDA's, records through the
 *   driver's cuEventRecord: its callbacks nest inside)
 * @cbid: the record call's id in @domain (cuEventRecord,
 *   cudaEventRecordWithFlags...)
 *
 * An event record on the calling thread: the subscriber's callbacks at
 * entry and exit (when @cbid is enabled); no record, no GPU work.
 */
EXPORT void
fake_cupti_event_record (int domain, uint32_t cbid)
{
  uint32_t corr = next_correlation (), inner_corr = 0;

  call_back_in (domain, CUPTI_API_ENTER, cbid, corr);
  if (domain == 1) {
    inner_corr = next_correlation ();
    call_back_in (0, CUPTI_API_ENTER, CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
        inner_corr);
    call_back_in (0, CUPTI_API_EXIT, CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
        inner_corr);
  }
  call_back_in (domain, CUPTI_API_EXIT, cbid, corr);
}

/* Returns: subscriber callbacks made so far (entry and exit) */
EXPORT uint64_t
fake_cupti_callbacks (void)
{
  return __atomic_load_n (&callbacks_made, __ATOMIC_RELAXED);
}

EXPORT uint32_t
fake_cupti_launch (int kind, const char *name, uint64_t dur_ns, uint64_t bytes)
{
  CUpti_ActivityAPI api;
  uint64_t t;
  uint32_t corr, cbid = kind_cbid[kind < 0 || kind > 2 ? 0 : kind];
  int k;

  corr = next_correlation ();
  call_back (CUPTI_API_ENTER, cbid, corr);
  t = now_ns ();
  pthread_mutex_lock (&lock);

  memset (&api, 0, sizeof (api));
  api.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  api.cbid = cbid;
  api.start = t;
  api.end = t + 10;
  api.processId = getpid ();
  api.threadId = tid_type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM ?
      (uint32_t) syscall (SYS_gettid) : (uint32_t) (uintptr_t) pthread_self ();
  api.correlationId = corr;
  for (k = 0; k < N_KINDS; k++) {
    if (depths[k] > 0 && kind_on[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION]) {
      CUpti_ActivityExternalCorrelation x;
      memset (&x, 0, sizeof (x));
      x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
      x.externalKind = (CUpti_ExternalCorrelationKind) k;
      x.externalId = stacks[k][depths[k] - 1];
      x.correlationId = corr;
      blob_append (&host_blob, &x, sizeof (x));
    }
  }
  if (kind_on[CUPTI_ACTIVITY_KIND_DRIVER])
    blob_append (&host_blob, &api, sizeof (api));

  if (kind == 0) {
    CUpti_ActivityKernel10 r;
    memset (&r, 0, sizeof (r));
    r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r.start = t + 100;
    r.end = t + 100 + dur_ns;
    r.correlationId = corr;
    r.streamId = 7;
    r.name = intern (name);     /* like CUPTI's, lives on */
    blob_append (&gpu_blob, &r, sizeof (r));
  } else if (kind == 1) {
    CUpti_ActivityMemcpy6 r;
    memset (&r, 0, sizeof (r));
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    r.bytes = bytes;
    r.start = t + 100;
    r.end = t + 100 + dur_ns;
    r.correlationId = corr;
    blob_append (&gpu_blob, &r, sizeof (r));
  } else {
    CUpti_ActivityMemset4 r;
    memset (&r, 0, sizeof (r));
    r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.bytes = bytes;
    r.start = t + 100;
    r.end = t + 100 + dur_ns;
    r.correlationId = corr;
    blob_append (&gpu_blob, &r, sizeof (r));
  }
  pthread_mutex_unlock (&lock);
  call_back (CUPTI_API_EXIT, cbid, corr);
  return corr;
}

static void
deliver (Blob * b)
{
  uint8_t *buf;
  size_t size, max_records;

  if (!request_cb || !complete_cb || b->len == 0)
    return;
  request_cb (&buf, &size, &max_records);
  if (size < b->len)
    abort ();                   /* tests stay far below a buffer */
  memcpy (buf, b->data, b->len);
  complete_cb (NULL, 0, buf, size, b->len);
  b->len = 0;
}

EXPORT CUptiResult
cuptiActivityFlushAll (uint32_t flag)
{
  Blob gpu, host;

  check_alive ("cuptiActivityFlushAll");

  /* one flush at a time, as CUPTI delivers: a forced flush returning while
   * the collector's periodic one still hands over the records it took
   * would let a test read the figures without them */
  pthread_mutex_lock (&flush_lock);
  pthread_mutex_lock (&lock);
  gpu = gpu_blob;
  host = host_blob;
  memset (&gpu_blob, 0, sizeof (gpu_blob));
  memset (&host_blob, 0, sizeof (host_blob));
  pthread_mutex_unlock (&lock);
  deliver (&gpu);               /* GPU records first: out of order on purpose */
  deliver (&host);
  pthread_mutex_unlock (&flush_lock);
  free (gpu.data);
  free (host.data);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityGetNextRecord (uint8_t * buffer, size_t valid, CUpti_Activity ** rec)
{
  uint8_t *p;

  if (*rec == NULL) {
    p = buffer;
  } else {
    uint64_t sz;
    memcpy (&sz, (uint8_t *) * rec - 8, 8);
    p = (uint8_t *) * rec + sz;
  }
  if (p + 8 > buffer + valid)
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *rec = (CUpti_Activity *) (p + 8);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityRegisterCallbacks (CUpti_BuffersCallbackRequestFunc req,
    CUpti_BuffersCallbackCompleteFunc comp)
{
  request_cb = req;
  complete_cb = comp;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityRegisterTimestampCallback (CUpti_TimestampCallbackFunc f)
{
  ts_cb = f;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiSetThreadIdType (CUpti_ActivityThreadIdType type)
{
  tid_type = type;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityEnable (CUpti_ActivityKind kind)
{
  CUptiResult r = env_result ("FAKE_CUPTI_ENABLE_RESULT");

  check_alive ("cuptiActivityEnable");
  if (r == CUPTI_SUCCESS && (int) kind >= 0 && kind < 64)
    kind_on[kind] = 1;
  return r;
}

EXPORT CUptiResult
cuptiActivityDisable (CUpti_ActivityKind kind)
{
  check_alive ("cuptiActivityDisable");
  if ((int) kind >= 0 && kind < 64)
    kind_on[kind] = 0;
  return CUPTI_SUCCESS;
}

/* Returns: whether activity kind @kind is enabled */
EXPORT int
fake_cupti_kind_enabled (int kind)
{
  return kind >= 0 && kind < 64 && kind_on[kind];
}

static int
domain_index (CUpti_CallbackDomain d)
{
  return d == CUPTI_CB_DOMAIN_DRIVER_API ? 0 :
      d == CUPTI_CB_DOMAIN_RUNTIME_API ? 1 : -1;
}

EXPORT CUptiResult
cuptiEnableCallback (uint32_t enable, CUpti_SubscriberHandle s,
    CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
  int d = domain_index (domain);

  check_alive ("cuptiEnableCallback");
  if (!s || d < 0 || cbid >= N_CBIDS)
    return CUPTI_ERROR_INVALID_PARAMETER;
  cb_on[d][cbid] = enable ? 1 : 0;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiEnableDomain (uint32_t enable, CUpti_SubscriberHandle s,
    CUpti_CallbackDomain domain)
{
  int d = domain_index (domain);

  check_alive ("cuptiEnableDomain");
  if (!s || d < 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  memset (cb_on[d], enable ? 1 : 0, N_CBIDS);
  return CUPTI_SUCCESS;
}

/* Returns: how many callback ids are enabled in the driver (0) or runtime
 * (1) domain */
EXPORT int
fake_cupti_callbacks_enabled (int d)
{
  int i, n = 0;

  for (i = 0; d >= 0 && d < 2 && i < N_CBIDS; i++)
    n += cb_on[d][i];
  return n;
}

EXPORT CUptiResult
cuptiGetCallbackName (CUpti_CallbackDomain domain, uint32_t cbid,
    const char **name)
{
  int d = domain_index (domain);

  *name = NULL;
  if (d < 0 || cbid == 0 || cbid >= N_CBIDS)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (d == 0 && cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel)
    *name = "cuLaunchKernel";
  else if (d == 0 && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2)
    *name = "cuMemcpyHtoDAsync_v2";
  else if (d == 0 && cbid == CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async)
    *name = "cuMemsetD8Async";
  else if (d == 0 && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch)
    *name = "cuGraphLaunch";
  else if (d == 1 && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
    *name = "cudaLaunchKernel_v7000";
  else
    *name = d == 0 ? "cuCtxSynchronize" : "cudaStreamSynchronize";
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityGetNumDroppedRecords (CUcontext ctx, uint32_t stream,
    size_t * dropped)
{
  const char *v = getenv ("FAKE_CUPTI_DROPPED");

  pthread_mutex_lock (&lock);
  *dropped = (v && !dropped_reported) ? (size_t) atoi (v) : 0;
  dropped_reported = 1;
  pthread_mutex_unlock (&lock);
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityPushExternalCorrelationId (CUpti_ExternalCorrelationKind kind,
    uint64_t id)
{
  if ((int) kind >= N_KINDS || depths[kind] >= MAX_DEPTH)
    return CUPTI_ERROR_INVALID_PARAMETER;
  stacks[kind][depths[kind]++] = id;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiActivityPopExternalCorrelationId (CUpti_ExternalCorrelationKind kind,
    uint64_t * last)
{
  if ((int) kind >= N_KINDS || depths[kind] == 0)
    return CUPTI_ERROR_QUEUE_EMPTY;
  *last = stacks[kind][--depths[kind]];
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiSubscribe (CUpti_SubscriberHandle * s, CUpti_CallbackFunc cb, void *data)
{
  CUptiResult r = env_result ("FAKE_CUPTI_SUBSCRIBE_RESULT");
  static int exit_handler;

  check_alive ("cuptiSubscribe");
  if (!exit_handler) {
    atexit (teardown_at_exit);
    exit_handler = 1;
  }
  *s = r == CUPTI_SUCCESS ? (CUpti_SubscriberHandle) & lock : NULL;
  if (r == CUPTI_SUCCESS) {
    sub_cb = cb;
    sub_data = data;
  }
  return r;
}

EXPORT CUptiResult
cuptiUnsubscribe (CUpti_SubscriberHandle s)
{
  check_alive ("cuptiUnsubscribe");
  sub_cb = NULL;
  memset (cb_on, 0, sizeof (cb_on));
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetResultString (CUptiResult r, const char **str)
{
  *str = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ?
      "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" :
      r == CUPTI_ERROR_UNKNOWN ? "CUPTI_ERROR_UNKNOWN" : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetVersion (uint32_t * v)
{
  *v = 130001;
  return CUPTI_SUCCESS;
}

EXPORT CUptiResult
cuptiGetTimestamp (uint64_t * t)
{
  *t = now_ns ();
  return CUPTI_SUCCESS;
}
