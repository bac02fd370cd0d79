/* A fake activity source for the correlation tests: a gpuprof-gpu backend
 * with CUPTI's id-stack semantics, and launches that produce the records
 * CUPTI would (GPU record, API record with the thread id, one external
 * record per non-empty stack), kept so a test can deliver them in any order.
 */
#pragma once

#include "gpuprof-gpu.h"

typedef enum
{
  FAKE_OP,
  FAKE_API,
  FAKE_EXT,
} FakeRecordType;

typedef struct
{
  FakeRecordType type;
  GpuprofGpuOp op;              /* FAKE_OP; name points into name[] */
  gchar name[64];
  guint32 corr;
  guint32 thread_id;            /* FAKE_API */
  guint64 api_start, api_end;   /* FAKE_API, monotonic ns; 0 = unknown */
  GpuprofGpuChannel channel;    /* FAKE_EXT */
  guint64 external_id;          /* FAKE_EXT */
} FakeRecord;

typedef struct
{
  GArray *records;              /* FakeRecord */
  guint32 next_corr;
  guint pushes, pops;
} FakeSource;

void fake_source_install (FakeSource * src);
void fake_source_uninstall (FakeSource * src);
/* a test's fixture: @src installed, the tracer channel on (and the
 * meter's with @meter_on); the teardown turns both off and uninstalls */
void fake_source_setup (FakeSource * src, gboolean meter_on);
void fake_source_teardown (FakeSource * src);
guint32 fake_launch (FakeSource * src, GpuprofGpuOpKind kind,
    const gchar * name, guint32 device, guint64 start, guint64 end,
    guint64 bytes);
/* a launch with everything: stream, copy kind, API call times */
typedef struct
{
  GpuprofGpuOpKind kind;
  const gchar *name;
  guint32 device;
  guint32 stream;
  guint32 copy_kind;
  guint64 api_start, api_end;
  guint64 start, end;
  guint64 bytes;
} FakeLaunch;

guint32 fake_launch_full (FakeSource * src, const FakeLaunch * launch);
void fake_deliver (FakeSource * src, guint index);
void fake_deliver_type (FakeSource * src, FakeRecordType type);
void fake_deliver_all_reversed (FakeSource * src);
