/* gpuprofmeter plugin: registers the gpuprofmeter element only. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpuprofmeter.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (gpuprofmeter, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpuprofmeter,
    "Per-buffer GPU cost of upstream elements (CUPTI), in-band",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
