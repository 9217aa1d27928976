/* gst-avhw: Vulkan backend plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwvulkanbackend.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* What decodes where (the avhwvulkan<codec>dec features) is asked of the
   * drivers when the plugin is scanned: rescan when the drivers, the
   * loader's choice of them or the GPUs (their device nodes) change. */
  gst_plugin_add_dependency_simple (plugin, "VK_ICD_FILENAMES:VK_DRIVER_FILES:"
      "VK_ADD_DRIVER_FILES:VK_LOADER_DRIVERS_SELECT:VK_LOADER_DRIVERS_DISABLE",
      "/usr/share/vulkan/icd.d:/etc/vulkan/icd.d", NULL,
      GST_PLUGIN_DEPENDENCY_FLAG_NONE);
  gst_plugin_add_dependency_simple (plugin, NULL, "/dev/dri", "renderD",
      GST_PLUGIN_DEPENDENCY_FLAG_FILE_NAME_IS_PREFIX);
  gst_plugin_add_dependency_simple (plugin, NULL, "/dev", "nvidia",
      GST_PLUGIN_DEPENDENCY_FLAG_FILE_NAME_IS_PREFIX);
  return gst_avhw_backend_register (plugin, GST_TYPE_AVHW_VULKAN_BACKEND);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhwvulkan,
    "gst-avhw Vulkan backend", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
