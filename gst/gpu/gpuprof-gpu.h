/* gpuprof: GPU attribution — joins GPU activity records to the element and
 * buffer that launched them, and keeps the GPU statistics.
 *
 * Pure C on GLib: no CUPTI type appears here, so tests feed synthetic records
 * (tests/gpu/) into exactly the code the CUPTI loader (gpuprof-cupti.c) feeds.
 *
 * Two halves:
 *  - hot path, on streaming threads (gpuprof-gpu-hotpath.h): push/pop an
 *    external correlation id around chain calls. Its per-thread state is its
 *    own, not the tracer's GpuprofThread: gpuprofmeter uses it without the
 *    tracer, and the record side reads it by OS thread id from the CUPTI
 *    thread.
 *  - record side, on the CUPTI thread (or whoever flushes): gpuprof_gpu_add_*()
 *    take records in any order, gpuprof_gpu_settle() joins and attributes
 *    them, the statistics sum them, listeners get each settled op, and the
 *    query functions return plain structs. One mutex guards it.
 *
 * The files, each calling only those above it in this list (no circle;
 * docs/layers.md):
 *   gpuprof-gpu-engine.c   the record side's lock, limits and listeners
 *   gpuprof-gpu-hotpath.c  enter/exit, the per-thread slots
 *                          (gpuprof-gpu-threads.h: what the record side
 *                          reads of them)
 *   gpuprof-gpu-launch.c   callback path: correlation id -> launcher
 *   gpuprof-gpu-wait.c     threads waiting on the GPU (synchronize)
 *   gpuprof-gpu-stats.c    per element/kernel/device sums, the getters
 *   gpuprof-gpu-join.c     records in, joined, settled, attributed
 *   gpuprof-gpu.c          configure and reset: the lifecycle of all
 *   gpuprof-gpu-names.c    element paths of each channel (on its own)
 *   gpuprof-cupti.c        CUPTI, feeding all of the above
 *
 * Times are CLOCK_MONOTONIC nanoseconds (the loader registers a CUPTI
 * timestamp callback returning that clock), the base of gst_util_get_timestamp().
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

#include "gpuprof-gpu-hotpath.h"

G_BEGIN_DECLS

/* ---- record side ---- */

typedef enum
{
  GPUPROF_GPU_OP_KERNEL = 0,
  GPUPROF_GPU_OP_MEMCPY,
  GPUPROF_GPU_OP_MEMSET,
} GpuprofGpuOpKind;

#define GPUPROF_GPU_N_OP_KINDS 3

/**
 * GpuprofGpuOp:
 * @kind: kernel, memcpy (peer copies included) or memset
 * @correlation_id: CUPTI correlation id, shared with the API record
 * @graph_id: CUDA graph id, 0 when not launched by a graph (a graph launch
 *   has one correlation id for many records)
 * @start: start, monotonic ns; 0 with @end 0 when CUPTI could not time it
 * @end: end, monotonic ns
 * @bytes: bytes copied or set
 * @copy_kind: CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP ...)
 * @name: kernel name, copied by the engine (may be NULL)
 *
 * One GPU activity record.
 */
typedef struct
{
  GpuprofGpuOpKind kind;
  guint32 correlation_id;
  guint32 device_id;
  guint32 context_id;
  guint32 stream_id;
  guint32 graph_id;
  guint64 start;
  guint64 end;
  guint64 bytes;
  guint32 copy_kind;
  const gchar *name;
} GpuprofGpuOp;

GPUPROF_API
void gpuprof_gpu_add_op (const GpuprofGpuOp * op);
GPUPROF_API
void gpuprof_gpu_add_api (guint32 correlation_id, guint32 thread_id,
    guint32 cbid, guint64 start, guint64 end);
GPUPROF_API
void gpuprof_gpu_add_external (guint32 correlation_id,
    GpuprofGpuChannel channel, GpuprofGpuExternalId external_id);
GPUPROF_API
void gpuprof_gpu_add_launched_ops (const GpuprofGpuOp * ops, guint n_ops);
GPUPROF_API
void gpuprof_gpu_add_dropped (guint64 n_records);
/**
 * GpuprofGpuSettleMode:
 * @GPUPROF_GPU_SETTLE_NORMAL: settle what joined before the previous call
 *   (one call of grace for a late external record) and what expired
 * @GPUPROF_GPU_SETTLE_JOINED: also what joined since (after a synchronous
 *   flush, when the caller knows the host records are all in)
 * @GPUPROF_GPU_SETTLE_ALL: everything, joined or not, and forget host
 *   records (end of run, after a forced CUPTI flush)
 */
typedef enum
{
  GPUPROF_GPU_SETTLE_NORMAL = 0,
  GPUPROF_GPU_SETTLE_JOINED,
  GPUPROF_GPU_SETTLE_ALL,
} GpuprofGpuSettleMode;

GPUPROF_API
void gpuprof_gpu_settle (guint64 now, GpuprofGpuSettleMode mode);

/**
 * GpuprofGpuConfig:
 * @retain_ns: how long a record waits for the records it joins with, in
 *   arrival time (default %GPUPROF_GPU_DEFAULT_RETAIN_NS, 2 s); then it is
 *   attributed with what it has
 * @max_pending: correlation ids kept at most (default
 *   %GPUPROF_GPU_DEFAULT_MAX_PENDING, 262144); the oldest is attributed with
 *   what it has beyond that
 * @ring_size: per channel, (element, sequence) costs kept for the most recent
 *   buffers (default %GPUPROF_GPU_DEFAULT_RING_SIZE, 8192):
 *   gpuprof_gpu_get_buffer_cost() finds a buffer while fewer than this many
 *   newer ones carried GPU work
 */
typedef struct
{
  guint64 retain_ns;
  guint max_pending;
  guint ring_size;
} GpuprofGpuConfig;

#define GPUPROF_GPU_DEFAULT_RETAIN_NS (2 * GST_SECOND)
#define GPUPROF_GPU_DEFAULT_MAX_PENDING 262144
#define GPUPROF_GPU_DEFAULT_RING_SIZE 8192

GPUPROF_API
void gpuprof_gpu_configure (const GpuprofGpuConfig * config);
GPUPROF_API
void gpuprof_gpu_reset (void);

GPUPROF_API
guint64 gpuprof_gpu_settled_arrival (void);

/**
 * GpuprofGpuAttribution:
 * @GPUPROF_GPU_BY_EXTERNAL: by the external correlation id: launched inside
 *   a chain call of the element (with @seq)
 * @GPUPROF_GPU_BY_THREAD: by the launching thread: its owner (with the
 *   owner's oldest batch in flight as @seq, when known) or its last active
 *   element
 * @GPUPROF_GPU_BY_NONE: unattributed
 */
typedef enum
{
  GPUPROF_GPU_BY_EXTERNAL = 0,
  GPUPROF_GPU_BY_THREAD,
  GPUPROF_GPU_BY_NONE,
} GpuprofGpuAttribution;

/**
 * GpuprofGpuSettledOp:
 * @op: the GPU record (its name is interned: valid for the process)
 * @channel: the channel of the attribution below
 * @by: how it was attributed
 * @element_id: the channel's element, 0 when @by is %GPUPROF_GPU_BY_NONE
 * @seq: buffer/batch sequence pushed with the id, or the owner's oldest
 *   batch in flight (gpuprof_gpu_set_owner_batch_func()),
 *   %GPUPROF_GPU_SEQ_NONE when none
 * @thread_id: OS thread (gettid) of the API call that launched it, 0 when
 *   its API record never came
 * @api_start: start of that API call, monotonic ns, 0 when unknown
 * @api_end: its end (the callback path does not read it: @api_start)
 * @unjoined: settled without its API record (timeout, capacity, end of run)
 *
 * One settled GPU record, attributed for one channel: what a listener's op
 * function gets, and what the statistics sum (one attribution rule).
 */
typedef struct
{
  const GpuprofGpuOp *op;
  GpuprofGpuChannel channel;
  GpuprofGpuAttribution by;
  guint32 element_id;
  guint64 seq;
  guint32 thread_id;
  guint64 api_start;
  guint64 api_end;
  gboolean unjoined;
} GpuprofGpuSettledOp;

/**
 * GpuprofGpuListener:
 * @op: (nullable): each GPU record settled on the listener's channel,
 *   called with the engine lock held (see gpuprof_gpu_add_listener())
 * @settled: (nullable): after each gpuprof_gpu_settle(), without the lock
 *
 * What a listener is called for; one registry serves both.
 */
typedef struct
{
  void (*op) (const GpuprofGpuSettledOp * op, gpointer user_data);
  void (*settled) (gpointer user_data);
} GpuprofGpuListener;

GPUPROF_API
guint gpuprof_gpu_add_listener (GpuprofGpuChannel channel,
    const GpuprofGpuListener * funcs, gpointer user_data);
GPUPROF_API
void gpuprof_gpu_remove_listener (guint id);

/* ---- queries: plain structs, copies ---- */

/**
 * GpuprofGpuCost:
 * GPU cost of a set of records: per element, per buffer or unattributed.
 */
typedef struct
{
  guint64 kernel_ns;
  guint64 copy_ns;
  guint64 memset_ns;
  guint64 kernels;
  guint64 copies;
  guint64 memsets;
  guint64 copy_bytes;
  guint64 memset_bytes;
} GpuprofGpuCost;

static inline guint64
gpuprof_gpu_cost_ns (const GpuprofGpuCost * c)
{
  return c->kernel_ns + c->copy_ns + c->memset_ns;
}

/**
 * GpuprofGpuElementStats:
 * @element_id: the channel's element id
 * @cost: all GPU work attributed to the element
 * @by_thread_ns: part of it attributed through the launching thread's last
 *   active element (no external id), included in @cost
 * @buffers: distinct sequences that carried GPU work
 */
typedef struct
{
  guint32 element_id;
  GpuprofGpuCost cost;
  guint64 by_thread_ns;
  guint64 buffers;
} GpuprofGpuElementStats;

/**
 * GpuprofGpuWait:
 * @wait_ns: time threads waited on the GPU (synchronize calls) for the
 *   element: inside its calls, or on a thread it owns outside calls
 * @in_call_ns: the part waited inside its calls (chain, event, query...),
 *   which their self time includes
 * @in_call_tid_ns: the part of @in_call_ns on the thread asked about
 * @waits: synchronizing calls
 */
typedef struct
{
  guint64 wait_ns;
  guint64 in_call_ns;
  guint64 in_call_tid_ns;
  guint64 waits;
} GpuprofGpuWait;

GPUPROF_API
void gpuprof_gpu_get_wait (GpuprofGpuChannel channel, guint32 element_id,
    guint32 call_tid, GpuprofGpuWait * wait);
guint64 gpuprof_gpu_get_thread_wait (GpuprofGpuChannel channel, guint32 tid,
    guint64 * in_calls_ns);

/**
 * GpuprofGpuThreadStats:
 * @thread_id: OS thread id (gettid) that launched the work, 0 when unknown
 *   (no API record arrived)
 * @name: thread name: set by gpuprof_gpu_set_thread_name(), else the OS name
 * @cost: GPU work with no external id and no last active element
 * @wait_ns: time the thread waited on the GPU outside any call, on no
 *   element's thread (synchronize calls)
 */
typedef struct
{
  guint32 thread_id;
  gchar name[48];
  GpuprofGpuCost cost;
  guint64 wait_ns;
} GpuprofGpuThreadStats;

/**
 * GpuprofGpuTotals:
 * @total_ns: GPU time of every record delivered and settled
 *   (== external_ns + thread_ns + unattributed_ns, always)
 * @external_ns: attributed to the element whose call (chain, event, query,
 *   state change) ran on the launching thread: read at API entry (callback
 *   path) or from the external correlation record (activity path)
 * @thread_ns: attributed by the launching thread: its owner or last active
 *   element
 * @unattributed_ns: neither
 * @records: settled GPU records (kernels + copies + memsets)
 * @pending: GPU records delivered but not yet settled
 * @unjoined: records settled without their API record (timeout, capacity or
 *   end of run): attributed by external id if it came, else unattributed
 * @untimed: records with no timestamps (counted, 0 ns)
 * @graph_records: records launched by a CUDA graph
 * @api_records: runtime/driver API records received
 * @external_records: external correlation records received
 * @pending_ids: correlation ids held waiting for a join (bounded by
 *   max_pending)
 * @dropped: records CUPTI reported as dropped (buffers full): not in any figure
 * @early: GPU records starting before the API call that launched them did
 *   (a clock mismatch: must stay 0 when GPU timestamps share the host clock)
 * @launch_records: GPU records attributed with what their launching thread
 *   stored at API entry (gpuprof_gpu_add_launched_ops(): the callback path)
 */
typedef struct
{
  guint64 total_ns;
  guint64 external_ns;
  guint64 thread_ns;
  guint64 unattributed_ns;
  guint64 records;
  guint64 pending;
  guint64 unjoined;
  guint64 untimed;
  guint64 graph_records;
  guint64 api_records;
  guint64 external_records;
  guint64 pending_ids;
  guint64 dropped;
  guint64 early;
  guint64 launch_records;
} GpuprofGpuTotals;

/**
 * GpuprofGpuKernelStats:
 * @name: kernel name (interned, valid for the process)
 * @element_id: element it is attributed to, 0 when unattributed
 */
typedef struct
{
  const gchar *name;
  guint32 element_id;
  guint64 ns;
  guint64 count;
} GpuprofGpuKernelStats;

#define GPUPROF_GPU_MAX_GAPS 5

typedef struct
{
  guint64 start;
  guint64 duration;
} GpuprofGpuGap;

/**
 * GpuprofGpuDeviceStats:
 * @busy_ns: union of the device's record intervals (overlaps counted once)
 * @first_ns: start of its first record, @last_ns: end of its last
 * @busy_fraction: @busy_ns / (@last_ns - @first_ns), or over the wall window
 *   given to the query
 * @gaps: longest idle gaps, longest first
 */
typedef struct
{
  guint32 device_id;
  guint64 first_ns;
  guint64 last_ns;
  guint64 busy_ns;
  gdouble busy_fraction;
  guint n_gaps;
  GpuprofGpuGap gaps[GPUPROF_GPU_MAX_GAPS];
} GpuprofGpuDeviceStats;

GPUPROF_API
void gpuprof_gpu_get_totals (GpuprofGpuChannel channel,
    GpuprofGpuTotals * totals);
GPUPROF_API
GArray *gpuprof_gpu_get_elements (GpuprofGpuChannel channel);
GPUPROF_API
gboolean gpuprof_gpu_get_element (GpuprofGpuChannel channel,
    guint32 element_id, GpuprofGpuElementStats * stats);
GPUPROF_API
GArray *gpuprof_gpu_get_unattributed (GpuprofGpuChannel channel);
GPUPROF_API
GArray *gpuprof_gpu_get_top_kernels (GpuprofGpuChannel channel, guint n);
GPUPROF_API
GArray *gpuprof_gpu_get_devices (guint64 wall_start, guint64 wall_end);
GPUPROF_API
gboolean gpuprof_gpu_get_buffer_cost (GpuprofGpuChannel channel,
    guint32 element_id, guint64 seq, GpuprofGpuCost * cost);

/**
 * GpuprofGpuPathFunc:
 * Returns the path of @element_id ("pipeline0/infer"), or NULL.
 */
typedef gchar *(*GpuprofGpuPathFunc) (guint32 element_id, gpointer user_data);

gchar *gpuprof_gpu_label (GpuprofGpuPathFunc path_func, gpointer user_data,
    guint32 id);

GPUPROF_API
void gpuprof_gpu_set_path_func (GpuprofGpuChannel channel,
    GpuprofGpuPathFunc path_func, gpointer user_data);
GPUPROF_API
gchar *gpuprof_gpu_element_path (GpuprofGpuChannel channel,
    guint32 element_id);

G_END_DECLS
