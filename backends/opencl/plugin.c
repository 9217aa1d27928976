/* gst-avhw: OpenCL backend plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwopenclbackend.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gst_plugin_add_dependency_simple (plugin, "OCL_ICD_VENDORS",
      "/etc/OpenCL/vendors", NULL, GST_PLUGIN_DEPENDENCY_FLAG_NONE);
  return gst_avhw_backend_register (plugin, GST_TYPE_AVHW_OPENCL_BACKEND);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhwopencl,
    "gst-avhw OpenCL backend", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
