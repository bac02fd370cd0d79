/* A fake activity source for the correlation tests: see fake-activity.h. */
#include "fake-activity.h"

#include <string.h>

#define MAX_DEPTH 64

/* per thread and channel, like CUPTI's external id stacks */
static __thread guint64 stacks[GPUPROF_GPU_N_CHANNELS][MAX_DEPTH];
static __thread gint depths[GPUPROF_GPU_N_CHANNELS];
static FakeSource *current;
static GMutex lock;

static void
fake_push (GpuprofGpuChannel ch, guint64 id)
{
  g_assert_cmpint (depths[ch], <, MAX_DEPTH);
  stacks[ch][depths[ch]++] = id;
  g_atomic_int_inc (&current->pushes);
}

static void
fake_pop (GpuprofGpuChannel ch)
{
  g_assert_cmpint (depths[ch], >, 0);
  depths[ch]--;
  g_atomic_int_inc (&current->pops);
}

static const GpuprofGpuBackend fake_backend = { fake_push, fake_pop };

void
fake_source_install (FakeSource * src)
{
  memset (src, 0, sizeof (*src));
  src->records = g_array_new (FALSE, TRUE, sizeof (FakeRecord));
  src->next_corr = 1;
  current = src;
  gpuprof_gpu_reset ();
  gpuprof_gpu_set_backend (&fake_backend);
}

void
fake_source_uninstall (FakeSource * src)
{
  gpuprof_gpu_set_backend (NULL);
  g_array_unref (src->records);
  current = NULL;
}

void
fake_source_setup (FakeSource * src, gboolean meter_on)
{
  fake_source_install (src);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_METER, meter_on);
}

void
fake_source_teardown (FakeSource * src)
{
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, FALSE);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_METER, FALSE);
  fake_source_uninstall (src);
}

guint32
fake_launch (FakeSource * src, GpuprofGpuOpKind kind, const gchar * name,
    guint32 device, guint64 start, guint64 end, guint64 bytes)
{
  FakeLaunch l = { kind, name, device, 0, 0, 0, 0, start, end, bytes };

  return fake_launch_full (src, &l);
}

guint32
fake_launch_full (FakeSource * src, const FakeLaunch * l)
{
  FakeRecord r;
  guint c;
  guint32 corr;

  g_mutex_lock (&lock);
  corr = src->next_corr++;

  memset (&r, 0, sizeof (r));
  r.type = FAKE_OP;
  r.corr = corr;
  r.op.kind = l->kind;
  r.op.correlation_id = corr;
  r.op.device_id = l->device;
  r.op.stream_id = l->stream;
  r.op.copy_kind = l->copy_kind;
  r.op.start = l->start;
  r.op.end = l->end;
  r.op.bytes = l->bytes;
  g_strlcpy (r.name, l->name ? l->name : "", sizeof (r.name));
  g_array_append_val (src->records, r);

  memset (&r, 0, sizeof (r));
  r.type = FAKE_API;
  r.corr = corr;
  r.thread_id = gpuprof_gpu_current_thread_id ();
  r.api_start = l->api_start;
  r.api_end = l->api_end;
  g_array_append_val (src->records, r);

  for (c = 0; c < GPUPROF_GPU_N_CHANNELS; c++) {
    if (depths[c] == 0)
      continue;
    memset (&r, 0, sizeof (r));
    r.type = FAKE_EXT;
    r.corr = corr;
    r.channel = c;
    r.external_id = stacks[c][depths[c] - 1];
    g_array_append_val (src->records, r);
  }
  g_mutex_unlock (&lock);
  return corr;
}

void
fake_deliver (FakeSource * src, guint index)
{
  FakeRecord *r = &g_array_index (src->records, FakeRecord, index);

  switch (r->type) {
    case FAKE_OP:
      r->op.name = r->name[0] ? r->name : NULL;
      gpuprof_gpu_add_op (&r->op);
      break;
    case FAKE_API:
      gpuprof_gpu_add_api (r->corr, r->thread_id, 0, r->api_start,
          r->api_end);
      break;
    case FAKE_EXT:
      gpuprof_gpu_add_external (r->corr, r->channel, r->external_id);
      break;
  }
}

void
fake_deliver_type (FakeSource * src, FakeRecordType type)
{
  guint i;

  for (i = 0; i < src->records->len; i++)
    if (g_array_index (src->records, FakeRecord, i).type == type)
      fake_deliver (src, i);
}

void
fake_deliver_all_reversed (FakeSource * src)
{
  guint i;

  for (i = src->records->len; i > 0; i--)
    fake_deliver (src, i - 1);
}
