/* gpuprof: every file an output writes goes through here — report=,
 * stats= and the files beside it (CSV, live), html=, trace= — so the rules
 * are written once (docs/outputs.md, "Files"):
 *
 * Placeholders: output paths take %p (process id), %n (pipeline name),
 * %t (tracer start time, UTC), %h (host name) and %% (a percent sign);
 * gpuprof_outfile_expand(). An unknown one is kept as written, and the
 * parameter parser warns once naming it and the valid ones
 * (gpuprof_outfile_check_placeholders()).
 *
 * Where the bytes go: into what the user named.
 * - A symbolic link is followed (chains, relative targets, a dangling link
 *   creates its target); the link stays a link.
 * - A regular file, or nothing yet: a whole file (summary, CSV, HTML) is
 *   written under a temporary name beside the link's final target and
 *   renamed over it (a reader never sees half a file; a killed process
 *   leaves the previous one whole); the new file keeps the old one's mode
 *   and, for root, its owner. Files written over time (report=, live
 *   files, trace=) are opened in place, truncated or appended.
 * - A FIFO, a character device, a socket, or one of the process' own
 *   descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, also
 *   behind a link) is a *stream*: written directly, never created,
 *   truncated nor renamed over. A descriptor of the process is written
 *   through a duplicate of it (at its offset: a redirected stdout file is
 *   appended to, not truncated). A FIFO is opened without waiting: no
 *   reader is a failure, never a hang; a reader that stops reading for
 *   GPUPROF_OUTFILE_STALL_S fails the write.
 * - A directory or a block device is refused.
 * - Files beside a stream (the summary's CSV files, live files) go nowhere,
 *   unless a folder is named for them (gpuprof_outfile_sibling_base()).
 *
 * Failures: a failed open, write, rename or close prints one line, also
 * GST_ERROR, "gpuprof: cannot OP WHAT 'PATH': REASON", once per path until
 * a write of that path succeeds again (a checkpoint failing every few
 * seconds on a full disk says it once).
 *
 * Threads: every function may be called from any thread; the failure
 * memory has a lock of its own. No function here is for a streaming
 * thread (they do I/O).
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

/* a stream whose reader stops reading this long fails the write */
#define GPUPROF_OUTFILE_STALL_S 10

typedef enum
{
  GPUPROF_OUTFILE_FILE,         /* a regular file, or none yet */
  GPUPROF_OUTFILE_STREAM,       /* FIFO, character device, socket, own fd */
  GPUPROF_OUTFILE_REFUSED,      /* directory, block device, link loop */
} GpuprofOutfileKind;

typedef enum
{
  GPUPROF_OUTFILE_TRUNCATE,
  GPUPROF_OUTFILE_APPEND,
} GpuprofOutfileMode;

GPUPROF_API
GpuprofOutfileKind gpuprof_outfile_kind (const gchar * path);

/* Replaces the whole content of @path (or writes it into a stream). FALSE
 * after the failure line. @what names the file for people ("stats file"). */
GPUPROF_API
gboolean gpuprof_outfile_replace (const gchar * what, const gchar * path,
    const gchar * data, gsize len);

/* A file written over time: report=, live files. */
typedef struct _GpuprofOutfile GpuprofOutfile;

/* NULL after the failure line */
GPUPROF_API
GpuprofOutfile *gpuprof_outfile_open (const gchar * what, const gchar * path,
    GpuprofOutfileMode mode);
/* all of @data or FALSE after the failure line; FALSE at once after a
 * failure of the same file (said once) */
GPUPROF_API
gboolean gpuprof_outfile_write (GpuprofOutfile * f, const gchar * data,
    gsize len);
/* closes and frees (NULL is fine); FALSE after the failure line */
GPUPROF_API
gboolean gpuprof_outfile_close (GpuprofOutfile * f);
const gchar *gpuprof_outfile_path (GpuprofOutfile * f);

/* For a writer that owns its descriptor (the trace): opens @path by the
 * rules above, blocking. Returns the fd (close it), or -1 with *errsv set
 * and nothing said: the caller says it. */
gint gpuprof_outfile_open_fd (const gchar * path, GpuprofOutfileMode mode,
    gint * errsv);

/* The failure line (once per path until gpuprof_outfile_succeeded()); @op
 * "open", "write", ...; @tail is appended ("; the report goes to stderr"),
 * may be NULL. */
void gpuprof_outfile_fail (const gchar * what, const gchar * path,
    const gchar * op, gint errsv, const gchar * tail);
void gpuprof_outfile_succeeded (const gchar * path);

/* Where the files beside @path go, as a path to derive their names from
 * ("run.json" -> "run-elements.csv"): @path itself, or @dir/basename when
 * @dir (stats-dir=) is set; NULL when @path is a stream and no @dir: they
 * go nowhere. */
GPUPROF_API
gchar *gpuprof_outfile_sibling_base (const gchar * path, const gchar * dir);

/* --- placeholders -------------------------------------------------------- */

/* Fixes %t: called when the session opens its outputs (later calls keep
 * the first time). */
GPUPROF_API
void gpuprof_outfile_mark_start (void);
/* @tmpl with its placeholders replaced; @pipeline NULL where a file is not
 * one pipeline's (trace=): %n is then the program's name. Names are made
 * safe for a path ('/' and other characters outside [A-Za-z0-9._+-] become
 * '_'). */
GPUPROF_API
gchar *gpuprof_outfile_expand (const gchar * tmpl, const gchar * pipeline);
/* NULL when every placeholder of @tmpl is known; else the warning lines,
 * naming the parameter @key, each unknown placeholder and the valid ones */
GPUPROF_API
gchar *gpuprof_outfile_check_placeholders (const gchar * key,
    const gchar * tmpl);
/* "%p process id, %n pipeline name, ..." */
gchar *gpuprof_outfile_placeholders_list (void);
/* a markdown table of the placeholders (docs/parameters.md) */
gchar *gpuprof_outfile_placeholders_markdown (void);

G_END_DECLS
