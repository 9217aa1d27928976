/* gst-avhw: Vulkan backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_VULKAN_BACKEND (gst_avhw_vulkan_backend_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwVulkanBackend, gst_avhw_vulkan_backend, GST,
    AVHW_VULKAN_BACKEND, GstAvhwBackend);

G_END_DECLS
