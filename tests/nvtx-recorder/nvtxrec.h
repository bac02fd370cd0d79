/* gpuprof NVTX recorder: an NVTX tool that keeps every NVTX call in memory
 * so tests can check NVTX output exactly, without Nsight Systems.
 *
 * Load it with NVTX_INJECTION64_PATH=/path/to/libgpuprof-nvtxrec.so. A test
 * that links to the library and sets NVTX_INJECTION64_PATH to the same file
 * reads what was recorded through this API. With NVTXREC_OUT=FILE the
 * events are written as JSON lines at process exit (see
 * docs/nvtx-recorder.md).
 *
 * All functions are thread-safe. Strings in returned structs belong to the
 * recorder and stay valid until the process exits (nvtxrec_reset() too
 * keeps them).
 */

#ifndef __NVTXREC_H__
#define __NVTXREC_H__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NVTXREC_API __attribute__ ((visibility ("default")))

/**
 * NvtxrecKind:
 * Which NVTX call an event records.
 */
typedef enum
{
  NVTXREC_DOMAIN_CREATE,        /* domain: the new (or merged) domain */
  NVTXREC_DOMAIN_DESTROY,
  NVTXREC_REGISTER_STRING,      /* message: the registered string */
  NVTXREC_NAME_CATEGORY,        /* category, message: its name */
  NVTXREC_PUSH,                 /* depth: level of the new range, 0 = outermost */
  NVTXREC_POP,                  /* depth: level popped, -1 if none was open;
                                 * message: the popped push's message */
  NVTXREC_START,                /* range_id */
  NVTXREC_END,                  /* range_id; domain as given to the end call */
  NVTXREC_MARK,
  NVTXREC_NAME_THREAD,          /* target_tid, message: the name */
  NVTXREC_N_KINDS
} NvtxrecKind;

/**
 * NvtxrecPayloadType:
 * Payload type as given by the caller; same numbers as nvtxPayloadType_t.
 * 32-bit payloads are widened into the 64-bit member of the same sign.
 */
typedef enum
{
  NVTXREC_PAYLOAD_NONE = 0,
  NVTXREC_PAYLOAD_UINT64 = 1,   /* payload.u64 */
  NVTXREC_PAYLOAD_INT64 = 2,    /* payload.i64 */
  NVTXREC_PAYLOAD_DOUBLE = 3,   /* payload.d */
  NVTXREC_PAYLOAD_UINT32 = 4,   /* payload.u64 */
  NVTXREC_PAYLOAD_INT32 = 5,    /* payload.i64 */
  NVTXREC_PAYLOAD_FLOAT = 6     /* payload.d */
} NvtxrecPayloadType;

/**
 * NvtxrecEvent:
 * One recorded NVTX call. Fields a kind does not use are 0 / NULL.
 */
typedef struct
{
  NvtxrecKind kind;
  const char *domain;           /* "" for the default (non-domain) API */
  uint32_t tid;                 /* OS thread id (gettid) of the caller */
  uint64_t ts;                  /* CLOCK_MONOTONIC, ns */
  const char *message;          /* text, registered handles resolved; or NULL */
  NvtxrecPayloadType payload_type;
  union
  {
    uint64_t u64;
    int64_t i64;
    double d;
  } payload;
  uint32_t category;
  int has_color;
  uint32_t color;               /* ARGB */
  uint64_t range_id;            /* START / END; ids start at 1 */
  int depth;                    /* PUSH / POP, see NvtxrecKind */
  uint32_t target_tid;          /* NAME_THREAD: the thread being named */
} NvtxrecEvent;

typedef struct
{
  uint32_t tid;
  const char *name;             /* last name given to the thread */
} NvtxrecThreadName;

/**
 * NvtxrecDomainStats:
 * Per-domain totals, as printed by nvtxrec-summary.
 */
typedef struct
{
  const char *domain;
  unsigned n_push, n_pop, n_start, n_end, n_mark;
  unsigned n_ranges;            /* STARTs with exactly one END, ending later */
  unsigned n_unmatched;         /* range errors: no END, 2+ ENDs, stray END */
  unsigned n_cross_thread;      /* good ranges ended on another thread */
  unsigned max_depth;           /* deepest push nesting on one thread */
  unsigned n_nesting_errors;    /* pops with nothing open + pushes never popped */
} NvtxrecDomainStats;

/* TRUE once NVTX has loaded this library as its tool (after the first NVTX
 * call of the process); FALSE means NVTX_INJECTION64_PATH is missing. */
NVTXREC_API int nvtxrec_is_attached (void);

/* Forget all events and open push stacks; domains and registered strings
 * (handles the application holds) stay. */
NVTXREC_API void nvtxrec_reset (void);

NVTXREC_API size_t nvtxrec_n_events (void);

/* Copies event @i into @out; returns FALSE if @i is out of range. */
NVTXREC_API int nvtxrec_get_event (size_t i, NvtxrecEvent * out);

/* Number of events of @kind; @domain and @message NULL match any. */
NVTXREC_API unsigned nvtxrec_count (NvtxrecKind kind, const char *domain,
    const char *message);

/* NULL if pushes and pops nest on every thread in every domain, with no push
 * left open; else the first violation (free() it). */
NVTXREC_API char *nvtxrec_check_nesting (void);

/* Number of good START/END pairs in @domain (NULL: all domains). */
NVTXREC_API unsigned nvtxrec_count_ranges (const char *domain);

/* NULL if every START in @domain (NULL: all) has exactly one END with a
 * later timestamp, else the first error (free() it). @n_cross_thread, if
 * not NULL, gets the number of ranges ended on another thread. */
NVTXREC_API char *nvtxrec_check_ranges (const char *domain,
    unsigned *n_cross_thread);

/* Fills up to @max thread names in order of first naming; returns how many
 * threads were named. */
NVTXREC_API size_t nvtxrec_get_thread_names (NvtxrecThreadName * out,
    size_t max);

/* Last name given to thread @tid, or NULL. */
NVTXREC_API const char *nvtxrec_thread_name (uint32_t tid);

/* Fills up to @max domains in order of first appearance; returns how many
 * domains have events. */
NVTXREC_API size_t nvtxrec_get_domain_stats (NvtxrecDomainStats * out,
    size_t max);

/* Writes all events as JSON lines; FALSE (errno set) on error. */
NVTXREC_API int nvtxrec_write_jsonl (const char *path);

/* Appends the events of a JSON-lines file to the recorder; returns the
 * number read, or -1 with *@error set (free() it). */
NVTXREC_API long nvtxrec_load_jsonl (const char *path, char **error);

/* Called on the pushing thread after each push is recorded, with its
 * message (NULL for none), outside the recorder's lock: a test acts at a
 * chosen point inside the code that pushes. NULL removes it. */
typedef void (*NvtxrecPushFunc) (const char *message, void *user_data);
NVTXREC_API void nvtxrec_set_push_func (NvtxrecPushFunc func,
    void *user_data);

/* "push", "pop", ...: the names used in JSON lines. */
NVTXREC_API const char *nvtxrec_kind_name (NvtxrecKind kind);

#ifdef __cplusplus
}
#endif

#endif /* __NVTXREC_H__ */
