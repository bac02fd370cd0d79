/* gpuprof: inside the timeline trace writer, shared by its three files.
 *
 *   gpuprof-trace.c        transport: rings, writer thread, file, size cap
 *   gpuprof-trace-chrome.c the Chrome trace-event JSON of each event
 *   gpuprof-trace-flows.c  host -> GPU launch arrows: binding a GPU op to
 *                          the chain call that launched it
 *
 * Everything here runs under the trace's lock, on the bus's drain thread
 * or the caller of gpuprof_trace_flush()/close(), unless said otherwise.
 */
#pragma once

#include "gpuprof-trace.h"

G_BEGIN_DECLS

/* GPU launch arrows waiting for their chain slice, per thread */
#define GPUPROF_TRACE_MAX_PENDING_FLOWS 256
/* chain calls remembered per thread, to bind GPU launch arrows into them */
#define GPUPROF_TRACE_RECENT_CHAINS 1024

typedef struct
{
  gchar *json;                  /* JSON-escaped name, quotes included */
  gboolean wanted;              /* matches the element filter */
} GpuprofTraceElementName;

typedef struct
{
  gchar *name;                  /* last name written as thread_name */
  gboolean gpu_track;           /* a pseudo thread: one GPU stream */
} GpuprofTraceThreadState;

/* a launch arrow placed by the binder (gpuprof-trace-flows.c): from
 * @s_ts on host thread @host_tid to @f_ts on GPU track @gpu_tid */
typedef struct
{
  guint32 host_tid;
  guint64 s_ts;
  guint32 gpu_tid;
  guint64 f_ts;
  guint64 id;
} GpuprofTraceArrow;

typedef struct _GpuprofTraceFlows GpuprofTraceFlows;

struct _GpuprofTrace
{
  gchar *path;
  GpuprofTraceNames names;
  GRegex *filter;
  guint64 max_bytes;
  gint pid;
  GpuprofBus *bus;              /* the events come from its rings */
  guint sink;                   /* our subscription to it */
  gint gpu_producer;            /* a GPU op ring exists (atomic) */

  /* names_lock guards the kernel name table */
  GMutex names_lock;
  GHashTable *name_ids;         /* name -> id */
  GPtrArray *name_json;         /* id - 1 -> JSON-escaped name */

  /* lock guards everything below; taken by the bus's callbacks (under its
   * drain lock, which comes first) and by the getters */
  GMutex lock;
  gint fd;
  GString *out;
  GHashTable *elements;         /* id -> GpuprofTraceElementName */
  GHashTable *pads;             /* id -> JSON-escaped name */
  GHashTable *threads;          /* tid -> GpuprofTraceThreadState */
  GpuprofTraceFlows *flows;     /* where launch arrows start */
  GArray *arrows;               /* GpuprofTraceArrow: placed, to write */
  gchar *pipeline_name;
  guint n_gpu_tracks;
  gboolean remember_chains;     /* copy of gpu_producer: arrows to bind */
  gboolean first_event;
  gboolean writing;             /* FALSE after the cap, an error or close */
  gboolean closed;
  guint64 last_ts;
  gchar *error_message;
  GpuprofTraceStats stats;      /* events_lost is the bus's */
};

/* gpuprof-trace-chrome.c: the file's format */
void gpuprof_trace_chrome_element_name_free (gpointer p);
void gpuprof_trace_chrome_thread_state_free (gpointer p);
gboolean gpuprof_trace_chrome_write_event (GpuprofTrace * trace,
    const GpuprofEvent * ev);
void gpuprof_trace_chrome_write_cap_mark (GpuprofTrace * trace);
void gpuprof_trace_chrome_write_process_name (GpuprofTrace * trace,
    const gchar * name);
void gpuprof_trace_chrome_write_summary (GpuprofTrace * trace,
    const gchar * summary_json);
/* the arrows whose chain call never came, at CUPTI's time (at close) */
void gpuprof_trace_chrome_write_orphan_flows (GpuprofTrace * trace);
void gpuprof_trace_chrome_write_stats (GpuprofTrace * trace);

/* gpuprof-trace-flows.c: where launch arrows start; each call appends the
 * arrows it could place to @out */
GpuprofTraceFlows *gpuprof_trace_flows_new (void);
void gpuprof_trace_flows_free (GpuprofTraceFlows * f);
/* a chain call @ev was written: remembered (@remember: arrows may need
 * it), and the arrows waiting for it are placed */
void gpuprof_trace_flows_chain_written (GpuprofTraceFlows * f,
    gboolean remember, const GpuprofEvent * ev, GArray * out);
/* a GPU op @ev with a launch was written, its end of the arrow at @f_ts */
void gpuprof_trace_flows_bind (GpuprofTraceFlows * f, const GpuprofEvent * ev,
    guint64 f_ts, GArray * out);
/* at close: arrows whose chain call never came, at CUPTI's time */
void gpuprof_trace_flows_orphans (GpuprofTraceFlows * f, GArray * out);
/* @t strictly inside the slice [@ts, @end] */
guint64 gpuprof_trace_flows_clamp_into (guint64 ts, guint64 end, guint64 t);

G_END_DECLS
