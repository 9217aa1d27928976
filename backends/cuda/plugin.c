/* gst-avhw: CUDA backend plugin
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcudabackend.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Rescan when the driver's device nodes come or go (nvidiactl, nvidia0,
   * nvidia1..., nvidia-uvm: one prefix) or the visible GPUs change. */
  gst_plugin_add_dependency_simple (plugin, "CUDA_VISIBLE_DEVICES", "/dev",
      "nvidia", GST_PLUGIN_DEPENDENCY_FLAG_FILE_NAME_IS_PREFIX);
  return gst_avhw_backend_register (plugin, GST_TYPE_AVHW_CUDA_BACKEND);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, avhwcuda,
    "gst-avhw CUDA backend", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
