/* gpuprofanalytics: open stand-ins of a DeepStream-style pipeline
 * (batching mux, inference, tracker, OSD). See docs/examples.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstanalyticsmux.h"
#include "gstanalyticsinfer.h"
#include "gstanalyticstracker.h"
#include "gstanalyticsosd.h"
#include "analytics-meta.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  /* Register the metas up front so apps can look them up by name. */
  analytics_batch_meta_get_info ();
  analytics_detection_meta_get_info ();

  ret |= GST_ELEMENT_REGISTER (analyticsmux, plugin);
  ret |= GST_ELEMENT_REGISTER (analyticsinfer, plugin);
  ret |= GST_ELEMENT_REGISTER (analyticstracker, plugin);
  ret |= GST_ELEMENT_REGISTER (analyticsosd, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpuprofanalytics,
    "Open stand-ins of a DeepStream-style analytics pipeline (gpuprof examples)",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
