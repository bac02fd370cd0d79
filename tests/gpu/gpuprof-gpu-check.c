/* gpuprof-gpu-check: runs a pipeline and prints what GPU attribution saw, as
 * "key=value" lines for tests/gpu/check-h100.sh (run on the GPU host).
 *
 *   gpuprof-gpu-check 'videotestsrc num-buffers=300 ! ... ! gpuprofmeter ! fakesink'
 *
 * Lines:
 *   run buffers=N wall_ns=N fps=F
 *   meter messages=N buffers=N
 *   meter_element name=S gpu_ns=N kernels=N copies=N bytes=N
 *       kpb_min=N kpb_max=N kpb_mode=N kpb_mode_share=F   (kernels per buffer)
 *   totals channel=tracer|meter records=N total_ns=N external_ns=N
 *       thread_ns=N unattributed_ns=N unjoined=N pending=N dropped=N early=N
 *       (early: GPU records that start before their launching API call)
 *   element channel=tracer|meter name=S gpu_ns=N kernels=N copies=N bytes=N
 *       buffers=N by_thread_ns=N
 *   unattributed channel=... thread=S gpu_ns=N
 *   device id=N busy=F busy_ns=N
 *   warning text=S        (one per warning message)
 */
#include <gst/gst.h>

#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"

typedef struct
{
  gchar *name;
  guint64 gpu_ns, kernels, copies, bytes;
  GHashTable *kpb;              /* kernels per buffer -> count */
} MeterElement;

static GHashTable *meter_elements;      /* name -> MeterElement */
static guint64 sink_buffers;

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_pointer_add (&sink_buffers, 1);
  return GST_PAD_PROBE_OK;
}

static void
add_meter_message (const GstStructure * s)
{
  const GValue *arr = gst_structure_get_value (s, "elements");
  guint i;

  for (i = 0; arr && i < gst_value_array_get_size (arr); i++) {
    const GstStructure *e =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    const gchar *name = gst_structure_get_string (e, "name");
    MeterElement *m = g_hash_table_lookup (meter_elements, name);
    guint64 v = 0, k = 0;
    gpointer n;

    if (!m) {
      m = g_new0 (MeterElement, 1);
      m->name = g_strdup (name);
      m->kpb = g_hash_table_new (NULL, NULL);
      g_hash_table_insert (meter_elements, m->name, m);
    }
    gst_structure_get_uint64 (e, "gpu-ns", &v);
    m->gpu_ns += v;
    gst_structure_get_uint64 (e, "kernels", &k);
    m->kernels += k;
    gst_structure_get_uint64 (e, "copies", &v);
    m->copies += v;
    gst_structure_get_uint64 (e, "bytes", &v);
    m->bytes += v;
    n = g_hash_table_lookup (m->kpb, GSIZE_TO_POINTER (k));
    g_hash_table_insert (m->kpb, GSIZE_TO_POINTER (k),
        GSIZE_TO_POINTER (GPOINTER_TO_SIZE (n) + 1));
  }
}

static void
print_meter_element (gpointer key, gpointer value, gpointer data)
{
  MeterElement *m = value;
  GHashTableIter it;
  gpointer k, n;
  guint64 min = G_MAXUINT64, max = 0, mode = 0, mode_n = 0, total = 0;

  g_hash_table_iter_init (&it, m->kpb);
  while (g_hash_table_iter_next (&it, &k, &n)) {
    guint64 kk = GPOINTER_TO_SIZE (k), nn = GPOINTER_TO_SIZE (n);
    min = MIN (min, kk);
    max = MAX (max, kk);
    total += nn;
    if (nn > mode_n) {
      mode = kk;
      mode_n = nn;
    }
  }
  g_print ("meter_element name=%s gpu_ns=%" G_GUINT64_FORMAT " kernels=%"
      G_GUINT64_FORMAT " copies=%" G_GUINT64_FORMAT " bytes=%" G_GUINT64_FORMAT
      " kpb_min=%" G_GUINT64_FORMAT " kpb_max=%" G_GUINT64_FORMAT " kpb_mode=%"
      G_GUINT64_FORMAT " kpb_mode_share=%.3f\n", m->name, m->gpu_ns,
      m->kernels, m->copies, m->bytes, total ? min : 0, max, mode,
      total ? (gdouble) mode_n / total : 0.0);
}

static void
print_channel (GpuprofGpuChannel ch, const gchar * label)
{
  GpuprofGpuTotals t;
  GArray *a;
  guint i;

  gpuprof_gpu_get_totals (ch, &t);
  g_print ("totals channel=%s records=%" G_GUINT64_FORMAT " total_ns=%"
      G_GUINT64_FORMAT " external_ns=%" G_GUINT64_FORMAT " thread_ns=%"
      G_GUINT64_FORMAT " unattributed_ns=%" G_GUINT64_FORMAT " unjoined=%"
      G_GUINT64_FORMAT " pending=%" G_GUINT64_FORMAT " dropped=%"
      G_GUINT64_FORMAT " early=%" G_GUINT64_FORMAT "\n", label, t.records,
      t.total_ns, t.external_ns, t.thread_ns, t.unattributed_ns, t.unjoined,
      t.pending, t.dropped, t.early);
  a = gpuprof_gpu_get_elements (ch);
  for (i = 0; i < a->len; i++) {
    GpuprofGpuElementStats *e = &g_array_index (a, GpuprofGpuElementStats, i);
    gchar *path = gpuprof_gpu_element_path (ch, e->element_id);
    gchar *base = strrchr (path, '/') ? strrchr (path, '/') + 1 : path;
    g_print ("element channel=%s name=%s gpu_ns=%" G_GUINT64_FORMAT
        " kernels=%" G_GUINT64_FORMAT " copies=%" G_GUINT64_FORMAT " bytes=%"
        G_GUINT64_FORMAT " buffers=%" G_GUINT64_FORMAT " by_thread_ns=%"
        G_GUINT64_FORMAT "\n", label, base, gpuprof_gpu_cost_ns (&e->cost),
        e->cost.kernels, e->cost.copies, e->cost.copy_bytes, e->buffers,
        e->by_thread_ns);
    g_free (path);
  }
  g_array_unref (a);
  a = gpuprof_gpu_get_unattributed (ch);
  for (i = 0; i < a->len; i++) {
    GpuprofGpuThreadStats *u = &g_array_index (a, GpuprofGpuThreadStats, i);
    gchar *name = g_strdelimit (g_strdup (u->name), " ,", '_');
    g_print ("unattributed channel=%s thread=%s gpu_ns=%" G_GUINT64_FORMAT
        "\n", label, name, gpuprof_gpu_cost_ns (&u->cost));
    g_free (name);
  }
  g_array_unref (a);
}

int
main (int argc, char **argv)
{
  GstElement *pipe;
  GstBus *bus;
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  GError *err = NULL;
  guint64 t0, t1, messages = 0, meter_buffers = 0;
  gboolean done = FALSE;
  gint rc = 0;
  GArray *devs;
  guint i;

  gst_init (&argc, &argv);
  if (argc < 2) {
    g_printerr ("usage: %s PIPELINE...\n", argv[0]);
    return 2;
  }
  meter_elements = g_hash_table_new (g_str_hash, g_str_equal);
  pipe = gst_parse_launchv ((const gchar **) argv + 1, &err);
  if (!pipe) {
    g_printerr ("parse error: %s\n", err->message);
    return 2;
  }

  /* count what reaches the sinks */
  it = gst_bin_iterate_sinks (GST_BIN (pipe));
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad *pad = gst_element_get_static_pad (g_value_get_object (&v), "sink");
    if (pad) {
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffer, NULL,
          NULL);
      gst_object_unref (pad);
    }
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);

  bus = gst_element_get_bus (pipe);
  t0 = gst_util_get_timestamp ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop (bus, 120 * GST_SECOND);
    if (!msg) {
      g_printerr ("timeout\n");
      rc = 1;
      break;
    }
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      case GST_MESSAGE_ERROR:{
        GError *e = NULL;
        gchar *dbg = NULL;
        gst_message_parse_error (msg, &e, &dbg);
        g_printerr ("error: %s (%s)\n", e->message, dbg ? dbg : "");
        g_clear_error (&e);
        g_free (dbg);
        rc = 1;
        done = TRUE;
        break;
      }
      case GST_MESSAGE_WARNING:{
        GError *e = NULL;
        gchar *dbg = NULL;
        gst_message_parse_warning (msg, &e, &dbg);
        if (dbg)
          g_strdelimit (dbg, "\n", ' ');
        g_print ("warning text=%s: %s\n", e->message, dbg ? dbg : "");
        g_clear_error (&e);
        g_free (dbg);
        break;
      }
      case GST_MESSAGE_ELEMENT:
        if (gst_message_has_name (msg, "gpuprofmeter")) {
          guint b = 0;
          gst_structure_get_uint (gst_message_get_structure (msg), "buffers",
              &b);
          messages++;
          meter_buffers += b;
          add_meter_message (gst_message_get_structure (msg));
        }
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  t1 = gst_util_get_timestamp ();
  gst_element_set_state (pipe, GST_STATE_NULL);
  /* records still in CUPTI buffers (the tracer flushes at NULL itself) */
  gpuprof_cupti_flush (TRUE);

  g_print ("run buffers=%" G_GUINT64_FORMAT " wall_ns=%" G_GUINT64_FORMAT
      " fps=%.2f\n", sink_buffers, t1 - t0,
      t1 > t0 ? sink_buffers * 1e9 / (t1 - t0) : 0.0);
  g_print ("meter messages=%" G_GUINT64_FORMAT " buffers=%" G_GUINT64_FORMAT
      "\n", messages, meter_buffers);
  g_hash_table_foreach (meter_elements, print_meter_element, NULL);
  print_channel (GPUPROF_GPU_CHANNEL_TRACER, "tracer");
  print_channel (GPUPROF_GPU_CHANNEL_METER, "meter");
  devs = gpuprof_gpu_get_devices (0, 0);
  for (i = 0; i < devs->len; i++) {
    GpuprofGpuDeviceStats *d = &g_array_index (devs, GpuprofGpuDeviceStats, i);
    g_print ("device id=%u busy=%.4f busy_ns=%" G_GUINT64_FORMAT
        " longest_gap_ns=%" G_GUINT64_FORMAT "\n", d->device_id,
        d->busy_fraction, d->busy_ns, d->n_gaps ? d->gaps[0].duration : 0);
  }
  g_array_unref (devs);

  gst_object_unref (bus);
  gst_object_unref (pipe);
  return rc;
}
