/* gpuprof: the snapshot's links table, the pipeline's topology. */
#include "gpuprof-links.h"

/* The real pad that buffers pushed into @pad reach: a bin's sink ghost pad
 * leads to its target, a src ghost pad's internal proxy to the ghost's peer.
 * Returns a ref, or NULL when the chain ends unlinked. */
static GstPad *
follow_ghosts (GstPad * pad)
{
  guint depth;

  gst_object_ref (pad);
  for (depth = 0; pad && depth < 32; depth++) {
    GstPad *next;

    if (GST_IS_GHOST_PAD (pad)) {
      next = gst_ghost_pad_get_target (GST_GHOST_PAD (pad));
    } else if (GST_IS_PROXY_PAD (pad)) {
      GstProxyPad *ghost = gst_proxy_pad_get_internal (GST_PROXY_PAD (pad));
      next = ghost ? gst_pad_get_peer (GST_PAD (ghost)) : NULL;
      if (ghost)
        gst_object_unref (ghost);
    } else {
      return pad;
    }
    gst_object_unref (pad);
    pad = next;
  }
  if (pad)
    gst_object_unref (pad);
  return NULL;
}

static void
add_pad_link (GpuprofSnapshot * snap, GpuprofObjects * o,
    GpuprofElement * e, GstPad * src)
{
  GstPad *peer, *sink;
  GstElement *parent;
  GpuprofElement *pe;
  GpuprofLinkRow row = { 0 };

  /* an element's own src pads only; a bin's ghost pads lead inside */
  if (GST_IS_GHOST_PAD (src) || !(peer = gst_pad_get_peer (src)))
    return;
  sink = follow_ghosts (peer);
  gst_object_unref (peer);
  if (!sink)
    return;
  parent = gst_pad_get_parent_element (sink);
  pe = parent ? gpuprof_objects_element_peek (parent) : NULL;
  if (pe) {
    row.src = g_strdup (e->path);
    row.src_pad = g_strdup (GST_PAD_NAME (src));
    row.sink = gpuprof_objects_dup_element_path (o, pe->id);
    row.sink_pad = g_strdup (GST_PAD_NAME (sink));
    row.buffers = gpuprof_objects_src_pad_buffers (o, e, GST_PAD_NAME (src));
    g_array_append_val (snap->links, row);
  }
  if (parent)
    gst_object_unref (parent);
  gst_object_unref (sink);
}

static gpointer
ref_pad (gconstpointer pad, gpointer unused)
{
  return gst_object_ref ((gpointer) pad);
}

void
gpuprof_links_fill (GpuprofSnapshot * snap, GpuprofObjects * o,
    GPtrArray * elements)
{
  guint i;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    GstElement *el = gpuprof_objects_ref_element (o, e);
    GList *l, *it;

    if (!el)
      continue;
    GST_OBJECT_LOCK (el);
    l = g_list_copy_deep (el->srcpads, ref_pad, NULL);
    GST_OBJECT_UNLOCK (el);
    for (it = l; it; it = it->next)
      add_pad_link (snap, o, e, it->data);
    g_list_free_full (l, gst_object_unref);
    gst_object_unref (el);
  }
}
