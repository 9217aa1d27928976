/* gst-avhw: VA-API backend plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwvaapibackend.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Rescan when render nodes come or go, when the driver choice changes,
   * and when a VA driver is installed or removed (as sys/va does). */
  gst_plugin_add_dependency_simple (plugin,
      "LIBVA_DRIVER_NAME:LIBVA_DRIVERS_PATH", "/dev/dri", "renderD",
      GST_PLUGIN_DEPENDENCY_FLAG_FILE_NAME_IS_PREFIX);
  gst_plugin_add_dependency_simple (plugin, "LIBVA_DRIVERS_PATH",
      VA_DRIVERS_PATH, "_drv_video.so",
      GST_PLUGIN_DEPENDENCY_FLAG_FILE_NAME_IS_SUFFIX |
      GST_PLUGIN_DEPENDENCY_FLAG_PATHS_ARE_DEFAULT_ONLY);
  return gst_avhw_backend_register (plugin, GST_TYPE_AVHW_VAAPI_BACKEND);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhwvaapi,
    "gst-avhw VA-API backend", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
